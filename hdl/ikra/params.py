"""Parameters, port table and small pure functions shared by the RTL and the twin ([IKRA]).

Everything here is plain Python so the twin (sim/blocks/cta_sched.py) and the RTL derive port
widths, the victim order and the [IKRA Chunk] chunk formula from one place.

Port packing (flat integer ports, needed by cocotb): a per-CU field of width W occupies bits
``[i*W, (i+1)*W)`` of its port for CU i (CU 0 in the least significant bits).
"""

from __future__ import annotations

import struct
from operator import lshift
from dataclasses import dataclass

POLICIES = ("rr", "chunk", "reset", "flip", "steal")
# A thief's first victim ([IKRA Steal]): the right neighbour i+1 (the paper's Fig 3, where CU 0
# steals from CU 1 first) or the left one i−1 (the order we chose before).
VICTIM_FIRST = ("right", "left")

# tb_src encoding (our cycle contract): own chunk, own queue, stolen from a queue, stolen from a
# chunk.
SRC_CHUNK, SRC_QUEUE, SRC_STOLEN_QUEUE, SRC_STOLEN_CHUNK = 0, 1, 2, 3

GRID_WIDTHS = (31, 16, 16)       # dim3 limits of CUDA grids ([IKRA]): 63 bits
TB_DONE_W = 4                    # retirements per CU per cycle (our cycle contract)
SRC_W = 2


def check_params(n_cus: int, id_w: int, qdepth: int, policy: str,
                 victim_first: str = "right") -> None:
    """Shared parameter check (RTL, twin, registry)."""
    if victim_first not in VICTIM_FIRST:
        raise ValueError(f"victim_first = {victim_first!r}: allowed: {', '.join(VICTIM_FIRST)}")
    if policy not in POLICIES:
        raise ValueError(f"policy = {policy!r}: allowed: {', '.join(POLICIES)}")
    if not 1 <= n_cus <= 64:
        raise ValueError(f"P = {n_cus}: allowed: 1..64")
    if not 4 <= id_w <= 63:
        raise ValueError(f"ID_W = {id_w}: allowed: 4..63")
    if qdepth < 2 or qdepth & (qdepth - 1):
        raise ValueError(f"QDEPTH = {qdepth}: allowed: a power of two >= 2 (circular pointers)")


@dataclass(frozen=True)
class IkraShape:
    """Derived widths of one ``cta_sched`` instance."""
    n_cus: int
    id_w: int = 32
    qdepth: int = 32
    policy: str = "steal"
    victim_first: str = "right"      # VICTIM_FIRST: which neighbour a thief tries first

    def __post_init__(self):
        check_params(self.n_cus, self.id_w, self.qdepth, self.policy, self.victim_first)

    @property
    def cu_w(self) -> int:
        """Width of a CU index (tb_victim, last_cu): log2 P, at least 1."""
        return max(1, (self.n_cus - 1).bit_length())

    @property
    def q_w(self) -> int:
        """Width of a queue pointer: log2 QDEPTH + 1 (circular, full ≠ empty)."""
        return self.qdepth.bit_length()

    @property
    def init_cycles(self) -> int:
        """Launch initialisation: ID_W divider steps + 2 chunk set-up cycles (our cycle contract and
        choices)."""
        return self.id_w + 2

    def ports(self) -> dict[str, tuple[str, int]]:
        """Port name → (direction, total width); the RTL signature and the twin both use it."""
        p, idw, cw, qw = self.n_cus, self.id_w, self.cu_w, self.q_w
        return {
            "launch_valid": ("in", 1), "grid_x": ("in", GRID_WIDTHS[0]),
            "grid_y": ("in", GRID_WIDTHS[1]), "grid_z": ("in", GRID_WIDTHS[2]),
            "slot_free": ("in", p), "tb_done": ("in", p * TB_DONE_W),
            "launch_ready": ("out", 1), "tb_valid": ("out", p), "tb_id": ("out", p * idw),
            "tb_src": ("out", p * SRC_W), "tb_victim": ("out", p * cw), "nowork": ("out", p),
            "kernel_done": ("out", 1),
            # status (debug, our cycle contract): compared in lockstep, read by the property checks
            "st_lo": ("out", p * idw), "st_hi": ("out", p * idw), "st_cur": ("out", p * idw),
            "st_q_lo": ("out", p * qw), "st_q_hi": ("out", p * qw), "st_q_cur": ("out", p * qw),
            "st_phase": ("out", 1), "st_overflow": ("out", p), "st_last_cu": ("out", cw),
            "st_reinit_pending": ("out", 1),
        }

    def inputs(self) -> tuple[str, ...]:
        return tuple(k for k, (d, _) in self.ports().items() if d == "in")

    def outputs(self) -> tuple[str, ...]:
        return tuple(k for k, (d, _) in self.ports().items() if d == "out")


def victim_order(thief: int, n_cus: int, first: str = "right") -> list[int]:
    """Victim search order of ``thief`` ([IKRA Steal]): both neighbours, then i+2, i+3, … mod P,
    each other CU once. ``first`` = "right": i+1, i−1, … (Fig 3: CU 0 steals from CU 1 first);
    "left": i−1, i+1, … (our choice)."""
    if first not in VICTIM_FIRST:
        raise ValueError(f"victim_first = {first!r}: allowed: {', '.join(VICTIM_FIRST)}")
    left, right = (thief - 1) % n_cus, (thief + 1) % n_cus
    rest = [(thief + k) % n_cus for k in range(2, n_cus - 1)]
    if n_cus < 2:
        return []
    if n_cus == 2:
        return [right]
    return ([right, left] if first == "right" else [left, right]) + rest


def chunk_bounds(cu: int, n: int, n_cus: int, start_cu: int) -> tuple[int, int]:
    """Half-open chunk ``[start, start + size)`` of ``cu`` for N = ``n`` and rotation s ([IKRA
    Chunk])."""
    base, rem = divmod(n, n_cus)
    j = (cu - start_cu) % n_cus
    start = j * base + min(j, rem)
    return start, start + base + (1 if j < rem else 0)


_BYTE_FORMATS = {8: "B", 16: "H", 32: "I"}


def pack(values, width: int) -> int:
    """Pack per-CU fields into one port integer (CU 0 lowest)."""
    fmt = _BYTE_FORMATS.get(width)
    if fmt is not None:         # whole bytes: one struct call (the GPU model packs every cycle)
        try:
            return int.from_bytes(struct.pack(f"<{len(values)}{fmt}", *values), "little")
        except struct.error:    # a field wider than ``width``: or-ed in as below
            pass
    if not values or (min(values) >= 0 and max(values) >> width == 0):   # fields in range:
        return sum(map(lshift, values, range(0, len(values) * width, width)))  # or = sum
    out = 0
    for i, v in enumerate(values):
        out |= v << (i * width)
    return out


def unpack(value: int, width: int, count: int) -> list[int]:
    """Per-CU fields of a packed port integer."""
    fmt = _BYTE_FORMATS.get(width)
    if fmt is not None:
        n = count * width // 8
        return list(struct.unpack(f"<{count}{fmt}", (value & ((1 << (n * 8)) - 1)).to_bytes(n, "little")))
    mask = (1 << width) - 1
    return [(value >> (i * width)) & mask for i in range(count)]
