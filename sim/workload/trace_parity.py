"""The Accel-Sim parity suite: small workloads covering what the baseline pipeline must get right
(compute- and memory-bound, full and low occupancy, barriers, divergence, shared memory,
atomics, SOCGPU-suite catalogue stand-ins, and the wider shapes of ``WIDE``), written as traces
by the project's own writer: Pascal SASS for the Pascal configs, Volta for SM7_QV100
(``PARITY``). Accel-Sim's numbers for them are recorded in ``data/accelsim/``;
``tests/validation`` regenerates the traces, checks they are byte-identical to those Accel-Sim
ran (SHA-256), and compares cycles. See docs/validation.md.

    python -m sim.workload.trace_parity write DIR [--family volta] [NAME ...]
    python -m sim.workload.trace_parity list
"""

from __future__ import annotations

import hashlib
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from .catalogue import get_workload
from .kernel import Instr, Op, Workload
from .patterns import Gather, Shared, Stream
from .synthetic import Barrier, Block, If, Ins, KernelSpec, Loop, Mix, Regs, build_kernel
from .tracegen import write_trace_dir

FAMILY = "pascal"                # the peer runs SM6_TITANX: sm_61 traces
SEED = 1
GIB = 1 << 30


def _one(spec: KernelSpec) -> Callable[[], Workload]:
    return lambda: Workload(spec.name, [build_kernel(spec, seed=SEED)])


def _loads_loop(name: str, ctas: int, threads: int, trips: int, alu: int) -> KernelSpec:
    """Per trip: one coalesced load, ``alu`` ALU ops, then its use (latency-bound when few warps)."""
    body = (Loop((Ins(Op.LDG, 1, Stream(GIB)), Block(alu, Mix(alu=1)), Ins(Op.ALU, 1, dep="last_load")),
                 trips=trips),)
    return KernelSpec(name, ctas, threads, body, regs=Regs(raw_mean=3.0))


# name → (what it exercises, factory)
CASES: dict[str, tuple[str, Callable[[], Workload]]] = {
    "alu_full": ("compute-bound, full occupancy (64 warps/SM), FP32 + SFU chains", _one(KernelSpec(
        "alu_full", 224, 256, (Block(60, Mix(alu=1, sfu=0.05)),), regs=Regs(raw_mean=4.0)))),
    "alu_ilp": ("compute-bound, 8 warps/SM, independent ops (ILP-rich)", _one(KernelSpec(
        "alu_ilp", 56, 128, (Loop((Block(24, Mix(alu=1)),), trips=8),), regs=Regs(raw_mean=8.0)))),
    "mem_stream": ("memory-bound, coalesced load-use-store streaming, full occupancy", _one(KernelSpec(
        "mem_stream", 224, 256, (Loop((Ins(Op.LDG, 1, Stream(GIB)), Ins(Op.ALU, 1, dep="last_load"),
                                       Ins(Op.STG, 1, Stream(2 * GIB))), trips=6),)))),
    "mem_scatter": ("memory-bound, scattered loads (8 lines per access)", _one(KernelSpec(
        "mem_scatter", 56, 128, (Loop((Ins(Op.LDG, 1, Gather(GIB, 64 << 20, lines=8)),
                                        Block(4, Mix(alu=1)), Ins(Op.ALU, 1, dep="last_load")), trips=6),)))),
    "occ1": ("one warp per SM, load + 6 ALU per trip (latency-bound)",
             _one(_loads_loop("occ1", 28, 32, 40, 6))),
    "occ2": ("two warps per SM", _one(_loads_loop("occ2", 28, 64, 40, 6))),
    "occ4": ("four warps per SM", _one(_loads_loop("occ4", 28, 128, 40, 6))),
    "barrier": ("CTA barriers between compute phases, 8 warps/CTA", _one(KernelSpec(
        "barrier", 56, 256, (Loop((Block(12, Mix(alu=1)), Barrier()), trips=10),)))),
    "diverge": ("data-dependent branches, half of them divergent", _one(KernelSpec(
        "diverge", 56, 256, (Loop((Block(6, Mix(alu=1)), If((Block(8, Mix(alu=1)),), (Block(4, Mix(alu=1)),),
                                                             diverge=0.5)), trips=8),)))),
    "shared": ("shared-memory stores/loads around barriers", _one(KernelSpec(
        "shared", 56, 256, (Loop((Ins(Op.LDG, 1, Stream(GIB)), Ins(Op.STS, 1, Shared(8192)), Barrier(),
                                  Ins(Op.LDS, 2, Shared(8192)), Block(6, Mix(alu=1))), trips=6),),
        smem_per_cta=8192))),
    "atomics": ("global atomics on a small hot region", _one(KernelSpec(
        "atomics", 56, 128, (Loop((Block(6, Mix(alu=1)), Ins(Op.ATOM, 1, Stream(GIB, footprint=4096,
                                                                                  unit="grid"))), trips=6),)))),
    "lat_alu": ("latency probe: one warp, 400 ALU ops each reading the previous result", _one(KernelSpec(
        "lat_alu", 1, 32, (Block(400, Mix(alu=1)),), regs=Regs(raw_mean=1.0, fixed=True)))),
    "lat_sfu": ("latency probe: one warp, 200 SFU ops each reading the previous result", _one(KernelSpec(
        "lat_sfu", 1, 32, (Block(200, Mix(alu=0, sfu=1)),), regs=Regs(raw_mean=1.0, fixed=True)))),
    "lat_dram": ("latency probe: one warp, 60 dependent loads of random lines in 64 MB", _one(KernelSpec(
        "lat_dram", 1, 32, (Loop((Ins(Op.LDG, 1, Gather(GIB, 64 << 20, lines=1), dep="last_load"),),
                                 trips=60),)))),
    "lat_l2": ("latency probe: one warp, 100 dependent loads within 16 lines (L2 hits)", _one(KernelSpec(
        "lat_l2", 1, 32, (Loop((Ins(Op.LDG, 1, Gather(GIB, 2048, lines=1), dep="last_load"),),
                               trips=100),)))),
}


def _wide(spec: KernelSpec, size: int) -> Callable[[], Workload]:
    """``spec`` with its global loads and stores ``size`` bytes per lane (``LDG.E.128``: a warp
    access of 32 lanes × 16 B = 4 lines), the active lanes ``size`` apart from the first one's
    address (the spec's pattern spaces warp accesses 4 lines apart: ``Stream(lines=4)``)."""
    def make() -> Workload:
        k = build_kernel(spec, seed=SEED)
        inner = k.stream
        memo: dict[int, Instr] = {}

        def stream(cta: int, warp: int):
            for ins in inner(cta, warp):
                if ins.op in (Op.LDG, Op.STG) and ins.addrs:
                    base = ins.addrs[0]
                    yield Instr(ins.op, ins.dst, ins.src,
                                tuple(range(base, base + size * len(ins.addrs), size)),
                                size, ins.mask, ins.pc, ins.next_pc)
                else:
                    yield memo.setdefault(id(ins), ins)
        k.stream = stream
        return Workload(spec.name, [k])
    return make


# shapes beyond the first suite (issue 35 item 3): reuse in the L2 and the L1, strided and
# multi-sector accesses, store and copy streams, atomics on hot lines, 16-thread blocks, SFU
# throughput, barriers with 32 warps per CTA
WIDE: dict[str, tuple[str, Callable[[], Workload]]] = {
    "l2_reuse": ("L2-hit-bound: loads of random lines within 256 KB, full occupancy", _one(KernelSpec(
        "l2_reuse", 112, 256, (Loop((Ins(Op.LDG, 1, Gather(GIB, 256 << 10, lines=1)),
                                     Block(2, Mix(alu=1)), Ins(Op.ALU, 1, dep="last_load")),
                                    trips=10),)))),
    "l1_reuse": ("each CTA reads its own 8 KB tile 6 times (L1 hits where loads use the L1)",
                 _one(KernelSpec("l1_reuse", 56, 256, (Loop((Ins(Op.LDG, 1, Stream(
                     GIB, footprint=8192, passes=6, step=1024)), Block(2, Mix(alu=1)),
                     Ins(Op.ALU, 1, dep="last_load")), trips=12),)))),
    "strided": ("strided loads: each warp access 8 lines, one sector in each", _one(KernelSpec(
        "strided", 56, 256, (Loop((Ins(Op.LDG, 1, Stream(GIB, lines=8)), Block(3, Mix(alu=1)),
                                   Ins(Op.ALU, 1, dep="last_load")), trips=8),)))),
    "ld128_stream": ("LDG.E.128 streaming: 4 full lines per warp access", _wide(KernelSpec(
        "ld128_stream", 112, 256, (Loop((Ins(Op.LDG, 1, Stream(GIB, lines=4)), Block(2, Mix(alu=1)),
                                         Ins(Op.ALU, 1, dep="last_load")), trips=6),)), 16)),
    "store_stream": ("coalesced store stream, no loads, full occupancy", _one(KernelSpec(
        "store_stream", 224, 256, (Loop((Block(2, Mix(alu=1)), Ins(Op.STG, 1, Stream(2 * GIB))),
                                        trips=8),)))),
    "copy128": ("128-bit copy: LDG.E.128 then STG.E.128 of the loaded value", _wide(KernelSpec(
        "copy128", 112, 256, (Loop((Ins(Op.LDG, 1, Stream(GIB, lines=4)),
                                    Ins(Op.STG, 1, Stream(2 * GIB, lines=4), dep="last_load")),
                                   trips=4),)), 16)),
    "atomics_hot": ("global atomics of every warp on the same 4 lines", _one(KernelSpec(
        "atomics_hot", 28, 128, (Loop((Block(4, Mix(alu=1)), Ins(Op.ATOM, 1, Stream(
            GIB, footprint=512, unit="grid"))), trips=4),)))),
    "cta16": ("16-thread blocks (half-warp masks), load + ALU loop", _one(KernelSpec(
        "cta16", 448, 16, (Loop((Ins(Op.LDG, 1, Stream(GIB)), Block(4, Mix(alu=1)),
                                 Ins(Op.ALU, 1, dep="last_load")), trips=8),)))),
    "sfu_mix": ("SFU-throughput-bound: one MUFU per two ALU ops, full occupancy", _one(KernelSpec(
        "sfu_mix", 224, 256, (Block(48, Mix(alu=2, sfu=1)),), regs=Regs(raw_mean=6.0)))),
    "barrier_1024": ("1024-thread CTAs (32 warps) with a barrier every 6 ALU ops", _one(KernelSpec(
        "barrier_1024", 56, 1024, (Loop((Block(6, Mix(alu=1)), Barrier()), trips=8),)))),
}
CASES.update(WIDE)
CATALOGUE = ("sg_gemm_train", "sg_conv_train", "sg_backprop", "sg_bfs", "sg_hotspot", "sg_srad")
CATALOGUE_SCALE = 0.5
for _name in CATALOGUE:
    CASES[_name] = (f"catalogue {_name} at scale {CATALOGUE_SCALE}",
                    lambda n=_name: get_workload(n, seed=0, scale=CATALOGUE_SCALE))


@dataclass(frozen=True)
class ParityConfig:
    """One configuration of the suite: our preset, Accel-Sim's recorded run of it, the traces'
    SASS family and what Accel-Sim ran."""
    preset: str
    data: str               # file in data/accelsim/
    family: str
    accelsim: str


PARITY = {
    "titanx": ParityConfig("titanx", "parity_sm6_titanx.json", "pascal", "SM6_TITANX"),
    "qv100": ParityConfig("qv100", "parity_sm7_qv100.json", "volta", "SM7_QV100"),
    # SM6_TITANX with [SOCGPU]'s changes (data/accelsim/configs/gp102.json)
    "gp102": ParityConfig("gp102", "parity_gp102.json", "pascal", "gp102"),
}


def write_case(name: str, folder: Path, family: str = FAMILY) -> Path:
    """Write case ``name`` as a trace folder ``folder``/``name`` (Pascal SASS by default; a
    Volta config reads ``family="volta"``, binary version 70)."""
    return write_trace_dir(Path(folder) / name, CASES[name][1](), family=family)


def trace_digest(d: Path) -> str:
    """SHA-256 over the case's files (kernelslist.g and the kernels, in name order)."""
    h = hashlib.sha256()
    for f in sorted(Path(d).iterdir()):
        h.update(f.name.encode() + b"\0" + f.read_bytes())
    return h.hexdigest()


def main(argv: list[str]) -> int:
    if argv[:1] == ["list"]:
        for name, (what, _) in CASES.items():
            print(f"{name:14} {what}")
        return 0
    if argv[:1] == ["write"] and len(argv) >= 2:
        rest, family = argv[2:], FAMILY
        if rest[:1] == ["--family"] and len(rest) >= 2:
            family, rest = rest[1], rest[2:]
        for name in rest or list(CASES):
            d = write_case(name, Path(argv[1]), family)
            print(d, trace_digest(d))
        return 0
    print(__doc__.strip().splitlines()[-2].strip(), file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
