"""Multiprogram workloads: members (catalogue workloads) launched together at given arrivals.

A **member** is a catalogue workload name (any entry, any number of kernels) with an arrival
offset. ``compose`` builds each member in its own build context (seeded by the workload seed and
the member's name), so a kernel's seed and its instruction streams are exactly those of the member
run alone (``standalone``): T^SP and T^MP run the same blocks ([SRTF §7.1]). Each member's address regions start at its own base (one of 4096
lanes from a hash of its name, so a member's addresses do not depend on its partners either);
two members in one workload that hash to the same lane are an input error.

Workload names: ``A+B`` (A launches first, B ``offset`` later; [SRTF §7.2]'s ordered pairs) and,
for any number of members, ``A+B+C``. An offset is ``N`` cycles or ``P%`` of the first member's
standalone runtime (resolved by the caller, who knows T^SP: ``resolve_offset``).

Used by the SRTF reproduction (experiments/srtf.py) and meant for any multiprogram study: nothing
here knows a kernel scheduler.
"""

from __future__ import annotations

import itertools
import zlib
from dataclasses import dataclass

from gpusched.config import ConfigError
from sim.workload.kernel import Kernel, Workload
from sim.workload.patterns import mix_seed
from sim.workload.recipes import REGION_ALIGN, REGION_BASE, Ctx

LANES = 4096
LANE_BYTES = 64 * REGION_ALIGN          # 16 GB of address space per member lane


@dataclass(frozen=True)
class Member:
    """One program of a multiprogram workload: catalogue workload ``name`` arriving at cycle
    ``arrival`` (relative to the first member)."""
    name: str
    arrival: int = 0


def lane(name: str) -> int:
    """The address lane of member ``name`` (stable across runs and partners)."""
    return zlib.crc32(name.encode()) % LANES


class MemberCtx(Ctx):
    """A build context whose regions start at the member's own lane and whose kernel seeds mix
    in the member's name (two members of one workload never share per-block draws)."""

    def __init__(self, seed: int, scale: float, name: str):
        super().__init__(mix_seed(seed, zlib.crc32(name.encode())) & 0xFFFFFFFF, scale)
        self._next_region = REGION_BASE + lane(name) * LANE_BYTES


def check_member(name: str, field: str = "workload") -> None:
    """ConfigError naming ``field`` unless ``name`` is a catalogue workload."""
    from sim.workload.catalogue import _entry
    try:
        _entry(name)
    except ConfigError as e:
        raise ConfigError(field, name, f"unknown kernel/workload ({e.allowed})") from None


def build_member(name: str, seed: int = 0, scale: float = 1.0) -> list[Kernel]:
    """The kernels of member ``name``, exactly as in any workload containing it."""
    from sim.workload.catalogue import _entry
    entry = _entry(name)
    kernels = entry.build(MemberCtx(int(seed), float(scale), name))
    for k in kernels:
        k.meta.setdefault("mimics", entry.mimics)
        k.meta["member"] = name
    return kernels


def compose(members: list[Member], seed: int = 0, scale: float = 1.0,
            max_concurrent: int | None = None, timing: dict | None = None) -> Workload:
    """One workload of ``members`` in launch order; each member's kernels arrive at its offset
    (plus their own arrival within the member). ``max_concurrent``: the kernel-slot count the
    workload must fit in at once (ConfigError naming ``kernels.max_concurrent`` otherwise).
    ``timing``: kernel name → fields replacing those of its block-timing record (block mode;
    e.g. calibrated knees, sim/multiprog/calibrate.py)."""
    if not members:
        raise ConfigError("workload", "", "a multiprogram workload needs at least one member")
    lanes: dict[int, str] = {}
    kernels: list[Kernel] = []
    for m in members:
        check_member(m.name)
        if not isinstance(m.arrival, int) or m.arrival < 0:
            raise ConfigError("offset", m.arrival, f"arrival of {m.name} must be an integer >= 0")
        other = lanes.setdefault(lane(m.name), m.name)
        if other == m.name and any(k.meta.get("member") == m.name for k in kernels):
            raise ConfigError("workload", m.name, "appears twice (one member per program)")
        if other != m.name:
            raise ConfigError("workload", m.name, f"shares an address lane with {other}")
        for k in build_member(m.name, seed, scale):
            k.arrival += m.arrival
            if timing and k.name in timing:
                k.meta["block_timing"] = {**k.meta.get("block_timing", {}), **timing[k.name]}
            kernels.append(k)
    if max_concurrent is not None and len(kernels) > max_concurrent:
        raise ConfigError("kernels.max_concurrent", max_concurrent,
                          f"the workload launches {len(kernels)} kernels together; raise it to "
                          f"at least {len(kernels)}")
    kernels.sort(key=lambda k: k.arrival)        # stable: members keep their order on ties
    name = "+".join(m.name for m in members)
    return Workload(name=name, kernels=kernels, description="multiprogram: " + ", ".join(
        f"{m.name}@{m.arrival}" for m in members), meta={"seed": seed, "scale": scale,
                                                         "members": [m.name for m in members]})


def parse_offset(text: str | int, field: str = "offset") -> tuple[str, float]:
    """``"100"``/``100`` → ("cycles", 100); ``"25%"`` → ("percent", 25)."""
    s = str(text).strip()
    try:
        if s.endswith("%"):
            v = float(s[:-1])
            if not 0 <= v < 100:
                raise ValueError
            return "percent", v
        v = int(s)
        if v < 0:
            raise ValueError
        return "cycles", v
    except ValueError:
        raise ConfigError(field, text, "N cycles (integer >= 0) or P% of the first kernel's "
                          "standalone runtime (0 <= P < 100)") from None


def resolve_offset(text: str | int, first_runtime: int, field: str = "offset") -> int:
    """The offset in cycles; ConfigError naming ``field`` when it is not before the first
    member's standalone end (the second kernel would arrive after the first is done)."""
    kind, v = parse_offset(text, field)
    cycles = int(v) if kind == "cycles" else int(first_runtime * v / 100)
    if cycles >= first_runtime:
        raise ConfigError(field, text, f"beyond the first kernel's standalone runtime "
                          f"({first_runtime} cycles): the kernels would not overlap")
    return cycles


def parse_members(workload: str, field: str = "workload") -> list[str]:
    """``"A+B"`` → ["A", "B"], every name checked against the catalogue."""
    names = [n.strip() for n in workload.split("+")]
    if len(names) < 2 or not all(names):
        raise ConfigError(field, workload, "members joined by '+', e.g. ercb_jpeg_d+ercb_sha1")
    for n in names:
        check_member(n, field)
    if len(set(names)) != len(names):
        raise ConfigError(field, workload, "a member appears twice")
    return names


def ordered_pairs(names: list[str]) -> list[str]:
    """Every ordered pair ``A+B`` with A ≠ B (n·(n−1) workloads: 56 for eight kernels)."""
    return [f"{a}+{b}" for a, b in itertools.permutations(names, 2)]


def read_pair_file(path: str) -> list[str]:
    """Workloads from a text file, one ``A+B`` per line (``#`` comments); each checked, errors
    name the file and line."""
    try:
        lines = open(path, encoding="utf-8").read().splitlines()
    except OSError as e:
        raise ConfigError("pairs", path, f"cannot read: {e.strerror}") from None
    out = []
    for i, line in enumerate(lines, 1):
        text = line.split("#", 1)[0].strip()
        if text:
            out.append("+".join(parse_members(text, f"{path}:{i}")))
    if not out:
        raise ConfigError("pairs", path, "no workloads in the file")
    return out
