"""Variants of ``owl_t_irregular`` (our T-IRREGULAR archetype) for the prefetcher study in
docs/mechanisms/owl.md: the same kernel with a smaller gather footprint, or with a coalesced
stream beside the gathers (BFS-like: frontier arrays streamed, neighbours gathered). Use as
``gpusched run --workload experiments/owl_irregular.py:NAME``; the footprints scale with
``scale`` like the quick grid's machine (a quarter machine at scale 0.25 keeps footprint/L2)."""

from __future__ import annotations

from sim.workload.kernel import Kernel, Op, Workload
from sim.workload.patterns import Gather, Stream
from sim.workload.recipes import Ctx
from sim.workload.synthetic import Ins, KernelSpec, Loop

MB = 1 << 20


def _kernel(c: Ctx, footprint: int, lines: int = 8, alu: int = 12,
            stream: bool = False) -> list[Kernel]:
    gather = Ins(Op.LDG, 1, Gather(c.region(), footprint, lines=lines, reuse=0.3, hot=16))
    if stream:
        step = (Ins(Op.LDG, 1, Stream(c.region())), Ins(Op.ALU, alu // 2), gather,
                Ins(Op.ALU, alu // 2))
    else:
        step = (gather, Ins(Op.ALU, alu))
    body = (Ins(Op.ALU, 2, dep="free"), Loop(step, trips=24),
            Ins(Op.STG, 1, Stream(c.region())))
    return [c.kernel(KernelSpec("t_irregular", c.n(240), 256, body))]


def _workload(name: str, build) -> object:
    def make(seed: int = 0, scale: float = 1.0) -> Workload:
        c = Ctx(seed, scale)
        return c.workload(name, build(c), __doc__.splitlines()[0])
    make.__name__ = name
    return make


footprint_4mb = _workload("footprint_4mb", lambda c: _kernel(c, int(4 * MB * c.scale)))
footprint_8mb = _workload("footprint_8mb", lambda c: _kernel(c, int(8 * MB * c.scale)))
footprint_16mb = _workload("footprint_16mb", lambda c: _kernel(c, int(16 * MB * c.scale)))
bfs_like = _workload("bfs_like", lambda c: _kernel(c, 64 * MB, stream=True, alu=12))
bfs_like_8mb = _workload("bfs_like_8mb", lambda c: _kernel(c, int(8 * MB * c.scale),
                                                             stream=True, alu=12))
