"""Address patterns for synthetic memory instructions, and the seed mixing that keeps streams
reproducible.

A pattern is a frozen description; ``bind(...)`` turns it into a fast function
``addrs(cta, warp, k, rng, mask) -> tuple[int, ...]`` giving the per-active-lane byte addresses of
the k-th dynamic execution of one static memory instruction by one warp. Everything a pattern
needs comes from its arguments, so a warp's addresses depend only on (kernel seed, CTA, warp).

Knobs of our workload generator: coalescing = distinct cache lines per warp access (1–32); per-unit
footprint and passes over a tile (intra-CTA reuse, T-REUSE); sharing of one tile by a group of s
adjacent CTAs (our T-STREAM-SHARED archetype for [OWL Table 4]: CTA c reads rows shared by CTAs
⌊c/s⌋·s … +s−1); ghost width h around a tile of T bytes ([IKRA] ghost-zone dependencies).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Callable

FULL_MASK = 0xFFFFFFFF
WARP_SIZE = 32
_M64 = (1 << 64) - 1

AddrFn = Callable[[int, int, int, "WarpRng", int], tuple]


def mix_seed(*parts: int) -> int:
    """Hash-free, platform-independent mixing of integers (splitmix64 finaliser per part)."""
    h = 0x9E3779B97F4A7C15
    for p in parts:
        h = (h ^ (p & _M64)) * 0xBF58476D1CE4E5B9 & _M64
        h = (h ^ (h >> 31)) * 0x94D049BB133111EB & _M64
        h ^= h >> 29
    return h


class WarpRng(random.Random):
    """A warp's generator plus the little state irregular patterns keep (recently used lines,
    one ring per bound ``Gather``)."""

    def __init__(self, seed: int):
        super().__init__(seed)
        self.recent: dict[object, list] = {}    # per pattern: [ring position, lines]


def warp_rng(seed: int, cta: int, warp: int) -> WarpRng:
    """The per-warp generator: depends only on (kernel seed, CTA linear id, warp in CTA)."""
    return WarpRng(mix_seed(seed, cta, warp))


def lane_offsets(lines: int, line_bytes: int, elem: int) -> tuple[int, ...]:
    """Byte offsets of the 32 lanes for an access touching exactly ``lines`` distinct lines:
    consecutive lanes share a line, lane l goes to line ⌊l·lines/32⌋."""
    if not 1 <= lines <= WARP_SIZE:
        raise ValueError(f"lines per warp access must be 1..32, got {lines}")
    offs, first = [], {}
    for lane in range(WARP_SIZE):
        line = lane * lines // WARP_SIZE
        first.setdefault(line, lane)
        offs.append(line * line_bytes + ((lane - first[line]) * elem) % line_bytes)
    return tuple(offs)


def active_lanes(mask: int) -> tuple[int, ...]:
    return tuple(i for i in range(WARP_SIZE) if mask >> i & 1)


@dataclass(frozen=True)
class Stream:
    """Tiles walked by warps: ``unit`` ('cta' | 'warp' | 'group' | 'grid') owns one tile of
    ``footprint`` bytes at a time; a warp starts ``warp_offset``·w bytes into it and advances
    ``step`` bytes per access (wrapping), re-reads the tile ``passes`` times, then moves to the
    next tile, laid out grid-stride (tile t of unit u at (t·n_units + u)·unit_stride).

    Defaults give fully coalesced streaming with no reuse. ``group`` = s CTAs sharing a tile;
    ``unit_stride`` < footprint with ``halo`` ≠ 0 shifts the tile into a neighbour's (ghost
    zones, stencil neighbours). ``split``: the s CTAs of a group read disjoint lines of the same
    group tile (DRAM-row sharing without line reuse, [OWL §2.1, Fig. 1]) instead of the same lines.
    ``unit_tiles`` > 0: unit u's tiles are contiguous (u·unit_tiles + t) instead of grid-stride,
    so each unit keeps to its own rows (T-STREAM-PRIVATE).
    """
    region: int
    footprint: int = 0            # bytes per tile; 0 → one access per warp of the unit
    unit: str = "cta"
    group: int = 1
    step: int = 0                 # bytes per access; 0 → footprint (one access per pass)
    warp_offset: int | None = None  # None → bytes of one warp access (warps side by side)
    passes: int = 1
    unit_stride: int = 0          # 0 → footprint
    halo: int = 0                 # bytes before the tile that also belong to it
    lines: int = 1                # distinct cache lines per warp access (coalescing)
    elem: int = 4
    split: bool = False
    unit_tiles: int = 0

    def bind(self, warps_per_cta: int, n_ctas: int, line_bytes: int) -> AddrFn:
        offs = lane_offsets(self.lines, line_bytes, self.elem)
        access = self.lines * line_bytes
        wpc = warps_per_cta
        w_off = access if self.warp_offset is None else self.warp_offset
        sharers = self.group if self.split and self.unit == "group" else 1
        foot = self.footprint or (access * (1 if self.unit == "warp" else wpc * sharers))
        step = self.step or foot
        per_pass = max(1, -(-foot // step))          # accesses to cover the tile once
        per_tile = per_pass * self.passes
        stride = self.unit_stride or foot
        n_units = {"cta": n_ctas, "warp": n_ctas * wpc, "group": -(-n_ctas // self.group),
                   "grid": 1}.get(self.unit)
        if n_units is None:
            raise ValueError(f"unit must be cta|warp|group|grid, got {self.unit!r}")
        base0, unit, group, halo = self.region, self.unit, self.group, self.halo
        split, unit_tiles = self.split, self.unit_tiles

        def addrs(cta: int, warp: int, k: int, rng: WarpRng, mask: int) -> tuple:
            if unit == "cta":
                u, start = cta, warp * w_off
            elif unit == "warp":
                u, start = cta * wpc + warp, 0
            elif unit == "group":
                u, member = divmod(cta, group)
                start = (member * wpc + warp) * w_off if split else warp * w_off
            else:
                u, start = 0, (cta * wpc + warp) * w_off
            tile, pos = divmod(k, per_tile)
            slot = u * unit_tiles + tile % unit_tiles if unit_tiles else tile * n_units + u
            base = (base0 - halo + slot * stride
                    + (start + (pos % per_pass) * step) % foot)
            if mask == FULL_MASK:
                return tuple([base + o for o in offs])
            return tuple([base + offs[i] for i in range(WARP_SIZE) if mask >> i & 1])
        return addrs


@dataclass(frozen=True)
class Gather:
    """Irregular accesses: each access touches ``lines`` random lines of a ``footprint``-byte
    region (hashed per warp); with probability ``reuse`` a line is taken from the warp's last
    ``hot`` lines instead (moderate temporal locality, T-IRREGULAR / graph gathers)."""
    region: int
    footprint: int
    lines: int = 32
    reuse: float = 0.0
    hot: int = 8
    elem: int = 4

    def bind(self, warps_per_cta: int, n_ctas: int, line_bytes: int) -> AddrFn:
        n_lines = max(1, self.footprint // line_bytes)
        region, lines, reuse, hot = self.region, self.lines, self.reuse, self.hot
        offs = lane_offsets(lines, line_bytes, self.elem)
        lane_line = tuple(lane * lines // WARP_SIZE for lane in range(WARP_SIZE))
        inline = tuple(o - lane_line[i] * line_bytes for i, o in enumerate(offs))
        one_lane_per_line = lines == WARP_SIZE and not any(inline)

        all_groups = tuple(range(lines))
        key = object()          # this bound pattern's slot in the warp's reuse state

        def addrs(cta: int, warp: int, k: int, rng: WarpRng, mask: int) -> tuple:
            rnd = rng.random
            if mask == FULL_MASK:
                active, groups = range(WARP_SIZE), all_groups
            else:
                active = [i for i in range(WARP_SIZE) if mask >> i & 1]
                groups = sorted({lane_line[i] for i in active})
            bases = [0] * lines
            if reuse <= 0.0:
                for g in groups:
                    bases[g] = region + int(rnd() * n_lines) * line_bytes
            else:
                state = rng.recent.get(key)
                if state is None:
                    state = rng.recent[key] = [0, []]
                recent = state[1]
                for g in groups:
                    if recent and rnd() < reuse:
                        line = recent[int(rnd() * len(recent))]
                    else:
                        line = int(rnd() * n_lines)
                        if len(recent) < hot:
                            recent.append(line)
                        else:
                            recent[state[0]] = line
                            state[0] = (state[0] + 1) % hot
                    bases[g] = region + line * line_bytes
            if one_lane_per_line:
                return tuple(bases) if mask == FULL_MASK else tuple([bases[i] for i in active])
            return tuple([bases[lane_line[i]] + inline[i] for i in active])
        return addrs


@dataclass(frozen=True)
class Shared:
    """Shared-memory (LDS/STS) addresses: conflict-free 4-byte words, warp w at 128·w, advancing
    ``step`` bytes per access, wrapping within ``size`` bytes of the CTA's shared memory."""
    size: int = 4096
    step: int = 128

    def bind(self, warps_per_cta: int, n_ctas: int, line_bytes: int) -> AddrFn:
        size, step = max(128, self.size - self.size % 128), self.step
        offs = tuple(4 * i for i in range(WARP_SIZE))

        def addrs(cta: int, warp: int, k: int, rng: WarpRng, mask: int) -> tuple:
            base = (warp * 128 + k * step) % size
            if mask == FULL_MASK:
                return tuple([base + o for o in offs])
            return tuple([base + offs[i] for i in range(WARP_SIZE) if mask >> i & 1])
        return addrs


@dataclass(frozen=True)
class Window:
    """2-D windows over an image of ``width`` blocks per row (SAD-like, our T-MIXED archetype for
    [OWL Table 4]): CTA c is block (x, y) = (c mod width, c div width); warp w reads image row y·wpc
    + w + dy·wpc at column block x + dx for dy < ``reach_y``, dx < ``reach_x`` (each access
    ``passes`` times), then moves to the next frame. One image row is ``width`` × 128 B × ``lines``
    bytes, so with a 2 KB DRAM row and width = 16 a row is shared by the 16 CTAs of a grid row, and
    with ``reach_y`` = 2 by the next grid row's 16 as well (its window overlaps: L2 reuse)."""
    region: int
    width: int = 16
    reach_x: int = 1
    reach_y: int = 2
    passes: int = 1
    lines: int = 1

    def bind(self, warps_per_cta: int, n_ctas: int, line_bytes: int) -> AddrFn:
        offs = lane_offsets(self.lines, line_bytes, 4 * self.lines)   # dense: 128 B per line
        access = self.lines * line_bytes
        row = self.width * access
        frame = (-(-n_ctas // self.width) + self.reach_y) * warps_per_cta * row
        per_window = self.reach_x * self.reach_y * self.passes
        width, reach_x, passes, region, wpc = (self.width, self.reach_x, self.passes,
                                                self.region, warps_per_cta)

        def addrs(cta: int, warp: int, k: int, rng: WarpRng, mask: int) -> tuple:
            f, s = divmod(k, per_window)
            dy, dx = divmod(s // passes, reach_x)
            y, x = divmod(cta, width)
            base = (region + f * frame + ((y + dy) * wpc + warp) * row
                    + (x + dx) % width * access)
            if mask == FULL_MASK:
                return tuple([base + o for o in offs])
            return tuple([base + offs[i] for i in range(WARP_SIZE) if mask >> i & 1])
        return addrs


@dataclass(frozen=True)
class PairedTiles:
    """Private per-CTA tiles laid out in ``piece``-byte pieces that share DRAM rows with a
    partner CTA's tile (our T-REUSE archetype: low sharing (~36 %), CTAs/Row ≈ 2 as in [OWL Table
    4]). CTA c walks its ``footprint``-byte tile like ``Stream`` (warp w starts ``warp_offset``·w
    bytes in, ``step`` bytes per access, ``passes`` passes, then the next tile). Its first ``near``
    pieces alternate with those of its consecutive neighbour c xor 1, the rest with those of
    CTA c ± ⌈n/2⌉ (a far partner), so with ``piece`` = half a DRAM row every row is read by
    two CTAs and a fraction ≈ near / pieces of the rows by consecutive ones. Which half of the
    row a CTA's piece j takes flips every two pieces, so (with ``near`` even) the tile still
    covers the low address bits, hence the L1 sets, evenly. Only the layout differs from a
    private tile: each CTA still re-reads its own lines (L1 reuse)."""
    region: int
    footprint: int = 8192
    piece: int = 1024
    near: int = 3
    step: int = 128
    warp_offset: int = 128
    passes: int = 1

    def bind(self, warps_per_cta: int, n_ctas: int, line_bytes: int) -> AddrFn:
        foot, piece, near, step = self.footprint, self.piece, self.near, self.step
        if piece <= 0 or foot % piece or piece % line_bytes or step % line_bytes:
            raise ValueError(f"PairedTiles: footprint {foot} must be a multiple of piece "
                             f"{piece}, and piece and step multiples of the line ({line_bytes} B)")
        if not 0 <= near <= foot // piece:
            raise ValueError(f"PairedTiles: near must be 0..{foot // piece}, got {near}")
        offs = lane_offsets(1, line_bytes, 4)
        per_pass = max(1, -(-foot // step))
        per_tile = per_pass * self.passes
        half = -(-n_ctas // 2)
        near_b, far_b = near * piece, foot - near * piece
        near_region = half * 2 * near_b          # pairs (2q, 2q+1), then pairs (q, q + half)
        tile_region = half * 2 * foot
        region, w_off = self.region, self.warp_offset

        def addrs(cta: int, warp: int, k: int, rng: WarpRng, mask: int) -> tuple:
            tile, pos = divmod(k, per_tile)
            j, within = divmod((warp * w_off + (pos % per_pass) * step) % foot, piece)
            if j < near:
                q, m = divmod(cta, 2)
                off = q * 2 * near_b + (2 * j + (m ^ (j >> 1 & 1))) * piece
            else:
                q, m = cta % half, cta // half
                off = near_region + q * 2 * far_b + (2 * (j - near) + (m ^ (j >> 1 & 1))) * piece
            base = region + tile * tile_region + off + within
            if mask == FULL_MASK:
                return tuple([base + o for o in offs])
            return tuple([base + offs[i] for i in range(WARP_SIZE) if mask >> i & 1])
        return addrs


Pattern = Stream | Gather | Shared | Window | PairedTiles
