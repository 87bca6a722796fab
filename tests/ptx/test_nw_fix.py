"""Shared-memory addresses from a 32-bit register plus an immediate wrap at 32 bits, as PTX's
32-bit address arithmetic does: nvcc leaves a "negative" base in a register when it folds an
unrolled loop's offsets into the immediates (the nw program's tile diagonals)."""

from __future__ import annotations

import numpy as np

from ptx.host import Context

PTX = """
.version 8.0
.target sm_75
.address_size 64

.visible .entry wrap(.param .u64 out)
{
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    .shared .align 4 .b32 buf[8];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, buf;
    shl.b32 %r3, %r1, 2;
    add.s32 %r4, %r2, %r3;
    st.shared.u32 [%r4], %r1;
    bar.sync 0;
    sub.s32 %r5, %r2, 32;
    ld.shared.u32 %r6, [%r5+36];
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd2, %rd1;
    st.global.u32 [%rd2], %r6;
    ret;
}
"""


def test_a_32_bit_base_below_zero_plus_an_offset_reads_inside_shared_memory():
    ctx = Context(progress=False)
    out = ctx.zeros(1, np.uint32)
    ctx.load_ptx(PTX).launch("wrap", grid=(1,), block=(8,), args=(out,))
    # buf + (-32) + 36 = buf + 4: element 1, written by thread 1
    assert out.get()[0] == 1
