"""Measurements on instruction streams, shared by the workload tests."""

from __future__ import annotations

from sim.workload.kernel import MEMORY_OPS, Instr, Kernel, Op
from sim.workload.synthetic import POOL_BASE

FIELDS = ("op", "dst", "src", "addrs", "size", "mask", "pc", "next_pc")


def key(ins: Instr) -> tuple:
    return tuple(getattr(ins, f) for f in FIELDS)


def warp(kernel: Kernel, cta: int = 0, w: int = 0) -> list[Instr]:
    return list(kernel.stream(cta, w))


def raw_distances(stream: list[Instr], pool_top: int = 256) -> list[int]:
    """Dynamic distance (in instructions) from each pool-register source to its last writer."""
    last: dict[int, int] = {}
    out = []
    for i, ins in enumerate(stream):
        for r in ins.src:
            if POOL_BASE <= r < pool_top and r in last:
                out.append(i - last[r])
        for r in ins.dst:
            last[r] = i
    return out


def lines_of(ins: Instr, line_bytes: int = 128) -> set[int]:
    return {a // line_bytes for a in ins.addrs}


def cta_lines(kernel: Kernel, cta: int, ops=(Op.LDG,), line_bytes: int = 128) -> set[int]:
    out: set[int] = set()
    for w in range(kernel.warps_per_cta()):
        for ins in kernel.stream(cta, w):
            if ins.op in ops:
                out |= lines_of(ins, line_bytes)
    return out


def check_stream(stream: list[Instr], where: str) -> None:
    """Properties every stream must have (the GPU model relies on them)."""
    assert stream and stream[-1].op == Op.EXIT, f"{where}: does not end in EXIT"
    assert all(i.op != Op.EXIT for i in stream[:-1]), f"{where}: EXIT before the end"
    for a, b in zip(stream, stream[1:]):
        assert a.next_pc == b.pc, f"{where}: next_pc {a.next_pc:#x} ≠ next pc {b.pc:#x} ({a})"
    for ins in stream:
        assert 0 < ins.mask <= 0xFFFFFFFF, f"{where}: empty mask on {ins}"
        if ins.op in MEMORY_OPS:
            assert ins.addrs is not None and len(ins.addrs) == ins.mask.bit_count(), \
                f"{where}: {ins} has {len(ins.addrs or ())} addresses for mask {ins.mask:#x}"
        else:
            assert ins.addrs is None, f"{where}: addresses on non-memory {ins}"
