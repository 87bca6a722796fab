"""Hand-written kernels for the GPU-model tests (until the workload catalogue lands).

Each helper returns a ``Kernel`` whose warp streams are lists of ``Instr`` built from a
``body(cta, warp) -> list[Instr]`` function; EXIT is appended when the body has none.
"""

from __future__ import annotations

from sim.workload.kernel import Instr, Kernel, Op, Workload


def make_kernel(name: str, body, grid=(1, 1, 1), block=(32, 1, 1), regs: int = 8, smem: int = 0,
                arrival: int = 0, add_exit: bool = True) -> Kernel:
    def stream(cta: int, warp: int):
        instrs = list(body(cta, warp))
        if add_exit and (not instrs or instrs[-1].op != Op.EXIT):
            instrs.append(Instr(Op.EXIT))
        return iter(instrs)
    return Kernel(name, grid, block, regs, smem, stream, arrival=arrival)


def dependent_chain(n: int, op: Op = Op.ALU) -> list[Instr]:
    """n ops, each reading the previous one's result (r1 ← r1)."""
    return [Instr(op, dst=(1,), src=(1,)) for _ in range(n)]


def independent(n: int, op: Op = Op.ALU, regs: int = 32) -> list[Instr]:
    """n ops with no dependences: destinations rotate over ``regs`` registers, sources r0."""
    return [Instr(op, dst=(1 + i % regs,), src=(0,)) for i in range(n)]


def loads(n: int, stride: int = 4, base: int = 0) -> list[Instr]:
    """n global loads, each followed by a use of its result (one line per load)."""
    out = []
    for i in range(n):
        addrs = tuple(base + (i * 32 + t) * stride for t in range(32))
        out += [Instr(Op.LDG, dst=(2,), src=(3,), addrs=addrs), Instr(Op.ALU, dst=(4,), src=(2,))]
    return out


def workload(*kernels: Kernel, name: str = "test") -> Workload:
    return Workload(name, list(kernels))


def barrier_deadlock(seed: int = 0, scale: float = 1.0) -> Workload:
    """Warps 0-2 of the CTA reach bar.sync; warp 3's stream ends early without EXIT, so it never
    arrives (a truncated trace) and the barrier never opens."""
    def body(cta, warp):
        if warp == 3:
            return independent(4)
        return independent(4) + [Instr(Op.BAR)] + independent(2)
    k = make_kernel("deadlock", lambda c, w: body(c, w), block=(128, 1, 1), add_exit=False)
    k.stream = _with_exit_except_warp3(k.stream)
    return Workload("barrier_deadlock", [k])


def _with_exit_except_warp3(stream):
    def wrapped(cta, warp):
        instrs = list(stream(cta, warp))
        if warp != 3:
            instrs.append(Instr(Op.EXIT))
        return iter(instrs)
    return wrapped


def small_mix(seed: int = 0, scale: float = 1.0) -> Workload:
    """A short ALU + load kernel on 4 CTAs (CLI tests)."""
    n = max(1, int(20 * scale))
    return Workload("small_mix", [make_kernel("mix", lambda c, w: independent(n) + loads(4),
                                              grid=(4, 1, 1), block=(64, 1, 1))])
