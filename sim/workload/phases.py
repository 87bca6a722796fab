"""Phase analysis of a kernel's static code ([THESIS §3.3.1–§3.4.2.1], with our choices where it is silent).

The pass sees a kernel as the compiler would: its static instructions in PC order. They are
read *by PC* from the kernel's warp streams, so catalogue programs and Accel-Sim traces go
through the same code: a trace kernel gives its static-instruction table (every (pc, next pc)
the trace holds, so branch targets are exact); a catalogue kernel gives the instructions its
first CTA's warps and the first warp of a few other CTAs execute (a path no sampled warp takes
is absent; such a pc gets the unknown distance at run time, see ``distance_of``).

Forward pass ([THESIS §3.4.2.1]): every basic block starts a new phase; inside a block, the first
instruction that reads a register written by a long-latency instruction *of the current phase*
starts a new one (and clears the set). Long-latency instructions (footnote 1): loads, stores,
branches, barriers; only loads (LDG, ATOM) write registers, so only they fill the set. Shared-
memory loads are not long-latency here (the GPU model's long-op check of [GPGPU-Sim
two_level_active_scheduler] and the two-level demotion trigger we chose count global loads and
atomics only).

Backward pass: the phase distance of an instruction is the summed cost from it to the end of
its phase; the phase length is the distance of its first instruction.

Costs (our suggested table; choices recorded here): ALU 4, SFU 20, FP64 8, DIV 39 (fp
divide), shared-memory load 20; a long-latency instruction, a shared store and a fence cost
their issue slot only (2 cycles: one issue every 2 cycles, Table 3.1); NOP and EXIT cost 0.
With these, the hand-worked vector-add example (tests/workload/test_phases.py) has the phase
lengths 18 and 10 of the thesis's Fig 3.2.

Hint encoding ([THESIS §3.4.2.1], [THESIS ch. 3], our choice): a 9-bit distance field saturating at
511 (``DIST_BITS``); ``code_size_overhead`` prices single-level hints (a field per instruction,
plus an extension field per instruction whose distance exceeds 511) and two-level hints (one
length field per phase) against 8-byte instructions.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from .kernel import Instr, Kernel, Op

DIST_BITS = 9
DIST_MAX = (1 << DIST_BITS) - 1
INSTR_BITS = 64                       # 8-byte instructions ([THESIS §3.4.2.1])
ISSUE_COST = 2                        # one issue every 2 cycles per scheduler (Table 3.1)
COST = {Op.ALU: 4, Op.SFU: 20, Op.FP64: 8, Op.DIV: 39, Op.LDS: 20, Op.LDG: ISSUE_COST,
        Op.STG: ISSUE_COST, Op.STS: ISSUE_COST, Op.ATOM: ISSUE_COST, Op.BRA: ISSUE_COST,
        Op.BAR: ISSUE_COST, Op.MEMBAR: ISSUE_COST, Op.NOP: 0, Op.EXIT: 0}
LONG_LATENCY = frozenset({Op.LDG, Op.STG, Op.ATOM, Op.BRA, Op.BAR})
SAMPLE_CTAS = 8                       # catalogue kernels: warp 0 of this many CTAs beyond CTA 0
SAMPLE_LIMIT = 200_000                # instructions read per sampled warp at most


@dataclass(frozen=True)
class PhaseInfo:
    """The pass's result for one kernel: per static instruction (PC order) its phase number
    (1-based) and phase distance, and the length of every phase."""
    pcs: tuple[int, ...]
    phase: tuple[int, ...]
    distance: tuple[int, ...]
    lengths: tuple[int, ...]

    @property
    def n_phases(self) -> int:
        return len(self.lengths)

    def distance_by_pc(self) -> dict[int, int]:
        return dict(zip(self.pcs, self.distance))

    def table(self) -> dict:
        """The per-kernel row of Tables 3.2/3.3: total phases, longest, shortest."""
        return {"phases": self.n_phases, "longest": max(self.lengths, default=0),
                "shortest": min(self.lengths, default=0), "instructions": len(self.pcs)}


def analyse(code: Iterable[Instr]) -> PhaseInfo:
    """Both passes of [THESIS §3.4.2.1] over static instructions (any order; one per pc, sorted
    here). Block leaders: the first pc, every branch target, every instruction after a branch."""
    by_pc: dict[int, Instr] = {}
    targets: set[int] = set()
    for ins in code:
        by_pc.setdefault(ins.pc, ins)
        if ins.op == Op.BRA:
            targets.add(ins.pc + 8)
            if ins.next_pc != ins.pc + 8:
                targets.add(ins.next_pc)
    pcs = sorted(by_pc)
    phase: list[int] = []
    phase_id, long_ops = 0, set()
    for i, pc in enumerate(pcs):
        ins = by_pc[pc]
        if i == 0 or pc in targets or any(s in long_ops for s in ins.src):
            phase_id += 1
            long_ops = set()
        phase.append(phase_id)
        if ins.op in LONG_LATENCY:
            long_ops.update(ins.dst)
    distance = [0] * len(pcs)
    lengths = [0] * phase_id
    acc, current = 0, None
    for i in range(len(pcs) - 1, -1, -1):
        if phase[i] != current:
            current, acc = phase[i], 0
        acc += COST[by_pc[pcs[i]].op]
        distance[i] = acc
        lengths[phase[i] - 1] = acc
    return PhaseInfo(tuple(pcs), tuple(phase), tuple(distance), tuple(lengths))


def static_code(kernel: Kernel) -> list[Instr]:
    """The kernel's static instructions, by PC (see the module docstring). A kernel of a CUDA
    program (the PTX front end) gives its whole code, every path, branch targets from its
    control-flow graph."""
    ptx = kernel.meta.get("ptx_statics")
    if ptx:
        from .opcodes import classify
        return [Instr(classify(opcode)[0], tuple(dst), tuple(src), pc=pc,
                      next_pc=target if target >= 0 else pc + 8)
                for pc, opcode, dst, src, _, target, _ in ptx]
    owner = getattr(kernel.stream, "__self__", None)
    compiled = getattr(owner, "compiled", None)
    if compiled is not None:                       # an Accel-Sim trace kernel
        return [Instr(op, dst, src, pc=pc, next_pc=next_pc)
                for op, dst, src, _, pc, next_pc, _ in compiled.statics]
    wpc = kernel.warps_per_cta()
    n = kernel.n_ctas
    warps = [(0, w) for w in range(wpc)]
    warps += sorted({(c * n // (SAMPLE_CTAS + 1), 0) for c in range(1, SAMPLE_CTAS + 1)} - {(0, 0)})
    seen: dict[tuple[int, int], Instr] = {}
    for cta, warp in warps:
        for k, ins in enumerate(kernel.stream(cta, warp)):
            key = (ins.pc, ins.next_pc if ins.op == Op.BRA else ins.pc + 8)
            if key not in seen:
                seen[key] = ins
            if k >= SAMPLE_LIMIT:
                break
    return list(seen.values())


def kernel_phases(kernel: Kernel) -> PhaseInfo:
    """The pass over ``kernel`` (cached in its meta: the model asks once per kernel)."""
    info = kernel.meta.get("phases")
    if info is None:
        info = kernel.meta["phases"] = analyse(static_code(kernel))
    return info


def code_size_overhead(info: PhaseInfo) -> dict[str, float]:
    """Static code-size overhead of the hints in % of the code ([THESIS ch. 3], our choice)."""
    n = len(info.pcs)
    if not n:
        return {"single_byte": 0.0, "single_9bit": 0.0, "two_level_9bit": 0.0}
    code_bits = n * INSTR_BITS
    extensions = sum(1 for d in info.distance if d > DIST_MAX)
    return {
        "single_byte": 100.0 * 8 * n / code_bits,                    # 1 byte per instruction
        "single_9bit": 100.0 * DIST_BITS * (n + extensions) / code_bits,
        "two_level_9bit": 100.0 * DIST_BITS * info.n_phases / code_bits,
        "over_511": float(extensions),
    }


# -- the GPU model's side: the warp-scheduler port's phase inputs ------------------------------

def distance_of(w) -> int:
    """Phase distance of warp ``w``'s next instruction, saturated to the 9-bit field. A warp
    with an empty instruction buffer: a new warp (no instruction issued) gets its entry's
    distance (the length of phase 1, our choice); otherwise, and for a pc the pass never saw, the
    field's maximum (the farthest from a phase boundary)."""
    info = w.cta.run.kernel.meta.get("phase_table")
    if info is None:
        kernel = w.cta.run.kernel
        p = kernel_phases(kernel)
        info = kernel.meta["phase_table"] = (p.distance_by_pc(), p.distance[0] if p.pcs else 0)
    if w.ib:
        d = info[0].get(w.ib[0].instr.pc, DIST_MAX)
    elif w.n_insts == 0:
        d = info[1]
    else:
        d = DIST_MAX
    return d if d < DIST_MAX else DIST_MAX


def port_inputs(slots: list) -> dict[str, int]:
    """The port's ``distance`` (DIST_BITS per slot, slot w at bit w*DIST_BITS) and
    ``long_out`` (the warp has long-latency results outstanding) for a sub-core's slots."""
    distance = long_out = 0
    for s, w in enumerate(slots):
        if w is None or w.exited:
            continue
        distance |= distance_of(w) << (s * DIST_BITS)
        if w.longop:
            long_out |= 1 << s
    return {"distance": distance, "long_out": long_out}
