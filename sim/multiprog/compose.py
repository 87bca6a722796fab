"""Multiprogram workloads: members (catalogue workloads or suite programs) launched together at
given arrivals.

A **member** is a catalogue workload name (any entry, any number of kernels) or a program of the
suite, ``program:NAME[~KERNEL][@SCALE]`` (workloads/programs/; ``~KERNEL`` keeps only that
kernel's launches, e.g. [SRTF]'s AES-e of the AES program; ``@SCALE`` its own scale instead of
the workload's), with an arrival offset. ``compose`` builds each member in its own build context (seeded by the workload seed and
the member's name), so a kernel's seed and its instruction streams are exactly those of the member
run alone (``standalone``): T^SP and T^MP run the same blocks ([SRTF STP, ANTT]). Each member's
address regions start at its own base (one of 4096 lanes from a hash of its name, so a member's
addresses do not depend on its partners either); two members in one workload that hash to the same
lane are an input error.

A program member runs its functional execution's launches (sim/workload/program.py, cached), its
global memory moved from the front end's heap (ptx/memory.py ``GLOBAL_BASE``) to its lane
(local and shared addresses stay: the SM places them per thread slot), and its launches are one
CUDA stream named after the member: launch k + 1 takes a kernel slot only once launch k finished,
as when it runs alone (``kernels.stream_order``, sim/gpu.py). It holds one kernel slot at a time.

Workload names: ``A+B`` (A launches first, B ``offset`` later; [SRTF ERCBench]'s ordered pairs) and,
for any number of members, ``A+B+C``. An offset is ``N`` cycles or ``P%`` of the first member's
standalone runtime (resolved by the caller, who knows T^SP: ``resolve_offset``).

Used by the SRTF reproduction (experiments/srtf.py) and meant for any multiprogram study: nothing
here knows a kernel scheduler.
"""

from __future__ import annotations

import functools
import itertools
import zlib
from dataclasses import dataclass
from pathlib import Path

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


PROGRAM = "program:"


def lane(name: str) -> int:
    """The address lane of member ``name`` (stable across runs and partners)."""
    return zlib.crc32(name.encode()) % LANES


def lane_base(name: str) -> int:
    """The first address of member ``name``'s lane."""
    return REGION_BASE + lane(name) * LANE_BYTES


def split_program(name: str, field: str = "workload") -> tuple[str, str | None, float | None]:
    """``program:NAME[~KERNEL][@SCALE]`` → (``program:NAME``, KERNEL or None, SCALE or None)."""
    base, at, text = name.partition("@")
    scale = None
    if at:
        try:
            scale = float(text)
        except ValueError:
            scale = 0.0
        if not 0 < scale <= 1000:
            raise ConfigError(field, name, "program:NAME@SCALE with SCALE a number in (0, 1000]")
    base, tilde, kernel = base.partition("~")
    if tilde and not kernel:
        raise ConfigError(field, name, "program:NAME~KERNEL names one of the program's kernels")
    return base, kernel or None, scale


class MemberCtx(Ctx):
    """A build context whose regions start at the member's own lane and whose kernel seeds mix
    in the member's name (two members of one workload never share per-block draws)."""

    def __init__(self, seed: int, scale: float, name: str):
        super().__init__(mix_seed(seed, zlib.crc32(name.encode())) & 0xFFFFFFFF, scale)
        self._next_region = REGION_BASE + lane(name) * LANE_BYTES


def check_member(name: str, field: str = "workload") -> None:
    """ConfigError naming ``field`` unless ``name`` is a catalogue workload or a program member
    (``program:NAME[:key=value,…][@SCALE]`` of an existing program and its declared options)."""
    if name.startswith(PROGRAM):
        base, kernel, _ = split_program(name, field)
        try:
            declared = _declared_kernels(base)
        except ConfigError as e:
            raise ConfigError(field, name, f"unknown program ({e.allowed})") from None
        if kernel and declared and kernel not in declared:
            raise ConfigError(field, name, "~KERNEL: one of " + ", ".join(declared))
        return
    from sim.workload.catalogue import _entry
    try:
        _entry(name)
    except ConfigError as e:
        raise ConfigError(field, name, f"unknown kernel/workload ({e.allowed})") from None


@functools.lru_cache(maxsize=None)
def _declared_kernels(base: str) -> tuple[str, ...]:
    """The kernels program ``base`` (``program:NAME[:options]``) declares in ``INFO``, after
    checking that it exists and takes its options (ConfigError otherwise; checked once per
    process: a sweep checks every point)."""
    from sim.workload.program import check_options, load_module, program_path, split_options
    module = load_module(program_path(base))
    options = split_options(base)[1]
    if options:
        check_options(module, base, options)
    return tuple(getattr(module, "INFO", {}).get("kernels", ()))


def slots_needed(name: str) -> int:
    """Kernel slots member ``name`` holds at once: one for a program (its launches are a
    stream), every kernel for a catalogue workload (they may all be resident together)."""
    return 1 if name.startswith(PROGRAM) else len(build_member(name, 0, 1e-3))


def build_program(name: str, seed: int = 0, scale: float = 1.0,
                  preset: str | None = None) -> list[Kernel]:
    """The launches of program member ``name`` (module doc), built for ``preset``'s SASS family
    as ``sim.run.load_workload`` builds them."""
    from ptx.memory import GLOBAL_BASE
    from sim.workload.opcodes import FAMILY_OF_PRESET
    from sim.workload.program import kernel_of, run_program
    base, kernel, own = split_program(name)
    run = run_program(base, seed=seed, scale=scale if own is None else own,
                      family=FAMILY_OF_PRESET.get(preset or "", "volta"), progress=False)
    move = (GLOBAL_BASE, GLOBAL_BASE + LANE_BYTES, lane_base(name) - GLOBAL_BASE)
    kernels = []
    for k in run.workload.kernels:
        if kernel is None or k.name == kernel:
            moved = kernel_of(Path(k.meta["trace"]), relocate=move)
            moved.meta.update({"member": name, "cuda stream": name})
            kernels.append(moved)
    if not kernels:
        raise ConfigError("workload", name, f"no launch of kernel {kernel}")
    return kernels


def build_member(name: str, seed: int = 0, scale: float = 1.0,
                 preset: str | None = None) -> list[Kernel]:
    """The kernels of member ``name``, exactly as in any workload containing it (``preset``:
    the machine, for a program's SASS family)."""
    if name.startswith(PROGRAM):
        return build_program(name, seed, scale, preset)
    from sim.workload.catalogue import _entry
    entry = _entry(name)
    kernels = entry.build(MemberCtx(int(seed), float(scale), name))
    for k in kernels:
        k.meta.setdefault("mimics", entry.mimics)
        k.meta["member"] = name
    return kernels


def compose(members: list[Member], seed: int = 0, scale: float = 1.0,
            max_concurrent: int | None = None, timing: dict | None = None,
            preset: str | None = None) -> Workload:
    """One workload of ``members`` in launch order; each member's kernels arrive at its offset
    (plus their own arrival within the member). ``max_concurrent``: the kernel-slot count the
    workload must fit in at once (ConfigError naming ``kernels.max_concurrent`` otherwise).
    ``timing``: kernel name → fields replacing those of its block-timing record (block mode;
    e.g. calibrated knees, sim/multiprog/calibrate.py). ``preset``: the machine's name (a
    program member's SASS family)."""
    if not members:
        raise ConfigError("workload", "", "a multiprogram workload needs at least one member")
    lanes: dict[int, str] = {}
    kernels: list[Kernel] = []
    slots = 0
    for m in members:
        check_member(m.name)
        if not isinstance(m.arrival, int) or m.arrival < 0:
            raise ConfigError("offset", m.arrival, f"arrival of {m.name} must be an integer >= 0")
        other = lanes.setdefault(lane(m.name), m.name)
        if other == m.name and any(k.meta.get("member") == m.name for k in kernels):
            raise ConfigError("workload", m.name, "appears twice (one member per program)")
        if other != m.name:
            raise ConfigError("workload", m.name, f"shares an address lane with {other}")
        built = build_member(m.name, seed, scale, preset)
        slots += 1 if m.name.startswith(PROGRAM) else len(built)
        for k in built:
            k.arrival += m.arrival
            if timing and k.name in timing:
                k.meta["block_timing"] = {**k.meta.get("block_timing", {}), **timing[k.name]}
            kernels.append(k)
    if max_concurrent is not None and slots > max_concurrent:
        raise ConfigError("kernels.max_concurrent", max_concurrent,
                          f"the workload launches {slots} kernels together; raise it to "
                          f"at least {slots}")
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
        raise ConfigError(field, workload, "members joined by '+', e.g. ercb_jpeg_d+ercb_sha1 or "
                          "program:aes@0.05+program:sha1@0.05")
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
