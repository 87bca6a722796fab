"""The DeepBench programs keep the instruction traits SOCGPU's benchmarks have (as the SOCGPU paper characterises them:
DeepBench-like dynamic basic blocks of 50–200 instructions and < 2 % serial instructions, against
Rodinia's 4–12 and 8–25 %), measured on the recorded streams with the model's own decoding of
serial opcodes (BRA, BAR, MEMBAR, EXIT). Small grids with the kernels' real inner loops."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ptx.host import Context
from sim.workload.kernel import SERIAL_OPS
from sim.workload.opcodes import op_of

PROGRAMS = Path(__file__).resolve().parents[2] / "workloads" / "programs"


def serial_share_and_block(rec) -> tuple[float, float]:
    serial = np.array([op_of(s.opcode) in SERIAL_OPS for s in rec.info.statics])
    total = sum(len(st.sids) for st in rec.streams)
    n_serial = sum(int(serial[st.sids].sum()) for st in rec.streams)
    return n_serial / total, total / max(n_serial, 1)


def _gemm(ctx, kernel, m, n, k, threads, bm, bn):
    rng = np.random.default_rng(0)
    mod = ctx.load_ptx(PROGRAMS / "deepbench_gemm" / "deepbench_gemm.ptx")
    a = ctx.to_device(rng.standard_normal((k, m)).astype(np.float32))
    b = ctx.to_device(rng.standard_normal((k, n)).astype(np.float32))
    return mod.launch(kernel, grid=(m // bm, n // bn), block=(threads,),
                      args=(a, b, ctx.zeros((n, m), np.float32), np.int32(m), np.int32(n), np.int32(k)))


def _conv(ctx, kernel, n, c, hw, k, threads, bm, bn):
    rng = np.random.default_rng(0)
    mod = ctx.load_ptx(PROGRAMS / "deepbench_conv" / "deepbench_conv.ptx")
    x = ctx.to_device(rng.standard_normal((n, c, hw, hw)).astype(np.float32))
    inner = -(-c * 9 // 16) * 16
    w = ctx.to_device(rng.standard_normal((inner, k)).astype(np.float32))
    shape = np.array([n, c, hw, hw, k, hw, hw, 1], np.int32).tobytes()
    return mod.launch(kernel, grid=(-(-n * hw * hw // bm), k // bn), block=(threads,),
                      args=(x, w, ctx.zeros((n, k, hw, hw), np.float32), shape))


def _gemv(ctx, kernel, rows, cols, batch, rows_per_warp):
    rng = np.random.default_rng(0)
    mod = ctx.load_ptx(PROGRAMS / "deepbench_rnn" / "deepbench_rnn.ptx")
    w = ctx.to_device(rng.standard_normal((rows, cols)).astype(np.float32))
    x = ctx.to_device(rng.standard_normal((batch, cols)).astype(np.float32))
    return mod.launch(kernel, grid=(rows // rows_per_warp // 8,), block=(256,),
                      args=(w, x, ctx.zeros((batch, rows), np.float32), np.int32(rows), np.int32(cols)))


CASES = {
    "gemm_train": lambda ctx: _gemm(ctx, "gemm_train", 64, 64, 256, 256, 64, 64),
    "gemm_infer": lambda ctx: _gemm(ctx, "gemm_infer", 64, 16, 256, 128, 64, 16),
    "conv_train": lambda ctx: _conv(ctx, "conv_train", 1, 32, 8, 64, 256, 64, 64),
    "conv_infer": lambda ctx: _conv(ctx, "conv_infer", 1, 32, 4, 64, 128, 16, 64),
    "rnn_gemv_b16": lambda ctx: _gemv(ctx, "rnn_gemv_b16", 8, 1024, 16, 1),
    "rnn_gemv_b1": lambda ctx: _gemv(ctx, "rnn_gemv_b1", 64, 512, 1, 8),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_deepbench_kernels_have_long_blocks_and_few_serial_instructions(case):
    ctx = Context(progress=False)
    share, block = serial_share_and_block(CASES[case](ctx))
    assert share < 0.02, f"{case}: {share:.2%} serial instructions"
    assert 50 <= block <= 200, f"{case}: {block:.0f} instructions per serial instruction"
