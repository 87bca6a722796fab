"""Directed tests of the remaining PTX features on hand-written kernels: generic addressing
through cvta into shared and local memory, named barriers with thread counts and bar.arrive,
redux.sync, packed half2 arithmetic, extended-precision carries, set/slct/testp/copysign, and
variable addresses in global, shared and constant space."""

from __future__ import annotations

import numpy as np

from ptx.host import Context

HEAD = ".version 8.0\n.target sm_80\n.address_size 64\n"


def launch(body: str, block: int, *arrays, grid=1, shared=0):
    ctx = Context(progress=False)
    m = ctx.load_ptx(HEAD + body)
    dev = [ctx.to_device(a) for a in arrays]
    m.launch("k", grid=(grid,), block=(block,), args=tuple(dev), shared=shared)
    return [d.get() for d in dev]


def test_generic_addresses_into_shared_and_local_memory():
    body = """
.visible .entry k(.param .u64 out)
{
    .local .align 4 .b8 depot[16];
    .shared .align 4 .b32 tile[64];
    .reg .b32 %r<8>;
    .reg .b64 %rd<12>;
    mov.u32 %r1, %tid.x;
    mov.u64 %rd1, tile;
    cvta.shared.u64 %rd2, %rd1;            // generic address of tile
    mul.wide.u32 %rd3, %r1, 4;
    add.s64 %rd4, %rd2, %rd3;
    mul.lo.u32 %r2, %r1, 3;
    st.u32 [%rd4], %r2;                    // generic store into shared memory
    bar.sync 0;
    xor.b32 %r3, %r1, 1;
    mul.wide.u32 %rd5, %r3, 4;
    add.s64 %rd6, %rd2, %rd5;
    ld.u32 %r4, [%rd6];                    // neighbour's value through the generic window
    mov.u64 %rd7, depot;
    cvta.local.u64 %rd8, %rd7;
    st.u32 [%rd8+4], %r4;                  // generic store into this thread's local memory
    ld.local.u32 %r5, [depot+4];
    ld.param.u64 %rd9, [out];
    add.s64 %rd10, %rd9, %rd3;
    st.global.u32 [%rd10], %r5;
    ret;
}"""
    (out,) = launch(body, 64, np.zeros(64, np.uint32))
    assert np.array_equal(out, (np.arange(64) ^ 1) * 3)


def test_named_barrier_with_a_thread_count_and_arrive():
    # warps 0-1 produce and arrive at barrier 1; warps 2-3 wait there (64 + 64 = 128 threads)
    body = """
.visible .entry k(.param .u64 out)
{
    .shared .align 4 .b32 buf[64];
    .reg .pred %p;
    .reg .b32 %r<8>;
    .reg .b64 %rd<6>;
    mov.u32 %r1, %tid.x;
    setp.lt.u32 %p, %r1, 64;
    @!%p bra CONSUME;
    mul.lo.u32 %r2, %r1, 7;
    shl.b32 %r3, %r1, 2;
    mov.u32 %r4, buf;
    add.u32 %r5, %r4, %r3;
    st.shared.u32 [%r5], %r2;
    bar.arrive 1, 128;
    bra.uni DONE;
CONSUME:
    bar.sync 1, 128;
    sub.u32 %r2, %r1, 64;
    shl.b32 %r3, %r2, 2;
    mov.u32 %r4, buf;
    add.u32 %r5, %r4, %r3;
    ld.shared.u32 %r6, [%r5];
    ld.param.u64 %rd1, [out];
    mul.wide.u32 %rd2, %r2, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r6;
DONE:
    ret;
}"""
    (out,) = launch(body, 128, np.zeros(64, np.uint32))
    assert np.array_equal(out, np.arange(64) * 7)


def test_redux_half2_and_carries():
    body = """
.visible .entry k(.param .u64 a, .param .u64 out)
{
    .reg .b32 %r<12>;
    .reg .b64 %rd<8>;
    mov.u32 %r1, %tid.x;
    ld.param.u64 %rd1, [a];
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    ld.global.u32 %r2, [%rd3];
    redux.sync.add.u32 %r3, %r2, -1;
    redux.sync.max.s32 %r4, %r2, -1;
    redux.sync.xor.b32 %r5, %r2, -1;
    mov.b32 %r6, 0x40003C00;               // half2 (1.0, 2.0)
    add.f16x2 %r7, %r6, %r6;               // (2.0, 4.0)
    mov.u32 %r8, -1;
    add.cc.u32 %r9, %r8, %r1;              // carries out unless tid = 0
    addc.u32 %r10, 0, 0;
    ld.param.u64 %rd4, [out];
    mul.wide.u32 %rd5, %r1, 32;
    add.s64 %rd6, %rd4, %rd5;
    st.global.v4.u32 [%rd6], {%r3, %r4, %r5, %r7};
    st.global.u32 [%rd6+16], %r10;
    ret;
}"""
    a = np.random.default_rng(1).integers(-1000, 1000, 64).astype(np.int32)
    _, out = launch(body, 64, a, np.zeros(64 * 8, np.uint32))
    o = out.reshape(64, 8)
    w = a.reshape(2, 32)
    assert np.array_equal(o[:, 0], np.repeat(w.astype(np.int64).sum(1), 32).astype(np.uint32))
    assert np.array_equal(o[:, 1].view(np.int32), np.repeat(w.max(1), 32))
    assert np.array_equal(o[:, 2].view(np.int32), np.repeat(np.bitwise_xor.reduce(w, 1), 32))
    assert np.array_equal(o[:, 3], np.full(64, 0x44004000, np.uint32))
    assert np.array_equal(o[:, 4], (np.arange(64) > 0).astype(np.uint32))


def test_set_slct_testp_copysign():
    body = """
.visible .entry k(.param .u64 a, .param .u64 out)
{
    .reg .pred %p;
    .reg .b32 %r<8>;
    .reg .f32 %f<6>;
    .reg .b64 %rd<8>;
    mov.u32 %r1, %tid.x;
    ld.param.u64 %rd1, [a];
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    ld.global.f32 %f1, [%rd3];
    set.gt.u32.f32 %r2, %f1, 0f00000000;   // 0xFFFFFFFF or 0
    slct.s32.f32 %r3, 10, 20, %f1;         // 10 when f1 >= 0
    testp.notanumber.f32 %p, %f1;
    selp.u32 %r4, 1, 0, %p;
    mov.f32 %f2, 0fC0400000;               // -3.0
    copysign.f32 %f3, %f1, %f2;            // |-3| with the sign of f1
    mov.b32 %r5, %f3;
    ld.param.u64 %rd4, [out];
    mul.wide.u32 %rd5, %r1, 16;
    add.s64 %rd6, %rd4, %rd5;
    st.global.v4.u32 [%rd6], {%r2, %r3, %r4, %r5};
    ret;
}"""
    a = np.array([1.5, -2.0, 0.0, -0.0, np.nan, np.inf, -np.inf, 3.0] * 4, np.float32)
    _, out = launch(body, 32, a, np.zeros(32 * 4, np.uint32))
    o = out.reshape(32, 4)
    assert np.array_equal(o[:, 0], np.where(a > 0, 0xFFFFFFFF, 0).astype(np.uint32))
    assert np.array_equal(o[:, 1], np.where(a >= 0, 10, 20).astype(np.uint32))
    assert np.array_equal(o[:, 2], np.isnan(a).astype(np.uint32))
    assert np.array_equal(o[:, 3].view(np.float32), np.copysign(np.float32(3), a))


def test_variable_addresses_in_global_and_constant_space():
    body = """
.global .align 4 .u32 gtab[4] = {11, 22, 33, 44};
.const .align 4 .u32 ctab[4] = {5, 6, 7, 8};
.visible .entry k(.param .u64 out)
{
    .reg .b32 %r<8>;
    .reg .b64 %rd<10>;
    mov.u32 %r1, %tid.x;
    and.b32 %r2, %r1, 3;
    mul.wide.u32 %rd1, %r2, 4;
    mov.u64 %rd2, gtab;
    add.s64 %rd3, %rd2, %rd1;
    ld.global.u32 %r3, [%rd3];
    mov.u64 %rd4, ctab;
    add.s64 %rd5, %rd4, %rd1;
    ld.const.u32 %r4, [%rd5];
    mad.lo.u32 %r5, %r3, 100, %r4;
    ld.param.u64 %rd6, [out];
    mul.wide.u32 %rd7, %r1, 4;
    add.s64 %rd8, %rd6, %rd7;
    st.global.u32 [%rd8], %r5;
    ret;
}"""
    (out,) = launch(body, 32, np.zeros(32, np.uint32))
    k = np.arange(32) & 3
    assert np.array_equal(out, (k + 1) * 1100 + 5 + k)
