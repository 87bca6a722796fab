"""The thesis's phase pass (ch.3 [THESIS §3.4.2.1]) over a real kernel's code from its PTX: every
instruction of the control-flow graph, executed or not, with exact branch targets."""

from __future__ import annotations

import numpy as np

from gpusched import cuda
from sim.workload.phases import kernel_phases

VADD = """
.version 8.0
.target sm_75
.address_size 64
.visible .entry vadd(.param .u64 a, .param .u64 b, .param .u64 c, .param .u32 n)
{
    .reg .pred %p1;
    .reg .b32 %r<3>;
    .reg .f32 %f<4>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [a];
    ld.param.u64 %rd2, [b];
    ld.param.u64 %rd3, [c];
    ld.param.u32 %r2, [n];
    mov.u32 %r1, %tid.x;
    setp.ge.u32 %p1, %r1, %r2;
    @%p1 bra DONE;
    mul.wide.u32 %rd4, %r1, 4;
    add.s64 %rd5, %rd1, %rd4;
    ld.global.f32 %f1, [%rd5];
    add.s64 %rd6, %rd2, %rd4;
    ld.global.f32 %f2, [%rd6];
    add.f32 %f3, %f1, %f2;
    add.s64 %rd7, %rd3, %rd4;
    st.global.f32 [%rd7], %f3;
DONE:
    ret;
}
"""


def test_phase_table_of_a_ptx_vector_add(tmp_path):
    ctx = cuda.Context(cache=tmp_path, progress=False)
    m = ctx.load_ptx(VADD)
    a = ctx.to_device(np.ones(64, np.float32))
    m.launch("vadd", grid=(1,), block=(64,), args=(a, a, ctx.zeros(64, np.float32), np.int32(64)))
    info = kernel_phases(ctx.workload().kernels[0])
    # phase 1: S2R 4 + ISETP 4 + BRA 2 (a branch ends the block)
    # phase 2: IMAD.WIDE 4 + IADD 4 + LDG 2 + IADD 4 + LDG 2 = 16 (the FADD reads a load)
    # phase 3: FADD 4 + IADD 4 + STG 2 = 10;  phase 4 (the branch target): EXIT 0
    assert info.lengths == (10, 16, 10, 0)
    assert info.table()["instructions"] == 12


def test_untaken_paths_are_in_the_pass(tmp_path):
    ctx = cuda.Context(cache=tmp_path, progress=False)
    m = ctx.load_ptx(VADD)
    a = ctx.to_device(np.ones(64, np.float32))
    # n = 0: every thread takes the branch and the body never runs; its code still counts
    m.launch("vadd", grid=(1,), block=(64,), args=(a, a, ctx.zeros(64, np.float32), np.int32(0)))
    assert kernel_phases(ctx.workload().kernels[0]).lengths == (10, 16, 10, 0)
