"""Directed tests of PTX features on kernels the project wrote (tests/ptx/kernels/features.cu,
its PTX committed beside it): calls to .func, constant and __device__ variables, nested control
flow with early return and break, every atomic on global and shared memory, warp intrinsics,
dynamic shared memory, vector accesses and 64-bit arithmetic — each against numpy."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ptx.host import Context

PTX = Path(__file__).parent / "kernels" / "features.ptx"


@pytest.fixture
def ctx():
    return Context(progress=False)


def test_call_to_func_constant_and_device_variables(ctx):
    m = ctx.load_ptx(PTX)
    coeffs = np.array([0.5, -1.0, 2.0, 0.25, 1.5, -0.75, 3.0, 1.0], np.float32)
    m.get_global("coeffs", np.float32).set(coeffs)
    table = m.get_global("device_table", np.float32)
    assert np.array_equal(table.get(), np.array([1.5, -2.0, 3.25, 8.0], np.float32))
    rng = np.random.default_rng(1)
    n, k = 300, 6
    x = rng.uniform(-2, 2, n).astype(np.float32)
    y = ctx.empty(n, np.float32)
    m.launch("call_poly", grid=(3,), block=(128,), args=(ctx.to_device(x), y, np.int32(n), np.int32(k)))
    acc = np.zeros(n, np.float32)
    for i in range(k):                        # Horner in float32 with one rounding per fma
        acc = (acc.astype(np.float64) * x + coeffs[i]).astype(np.float32)
    ref = np.where(x < 0, -acc, acc) + table.get()[np.arange(n) & 3]
    np.testing.assert_allclose(y.get(), ref, rtol=1e-6, atol=1e-6)


def _control_numpy(v):
    out = np.zeros(len(v), np.int32)
    for i, x in enumerate(v.tolist()):
        if x & 1:
            r = 1 if x & 2 else 2
        elif x & 4:
            r = 3
        else:
            r = 4
            if x & 8:
                out[i] = -1
                continue
        for k in range(x & 15):
            r += k
            if r > 40:
                break
        out[i] = r
    return out


def test_nested_branches_lane_dependent_loops_break_and_early_return(ctx):
    m = ctx.load_ptx(PTX)
    v = np.random.default_rng(2).integers(0, 1 << 16, 1000).astype(np.int32)
    out = ctx.zeros(1024, np.int32)
    m.launch("control", grid=(8,), block=(128,), args=(ctx.to_device(v), out, np.int32(1000)))
    got = out.get()
    assert np.array_equal(got[:1000], _control_numpy(v))
    assert not got[1000:].any()               # threads past n returned before storing


def test_every_atomic_on_global_and_shared_memory(ctx):
    m = ctx.load_ptx(PTX)
    blocks, threads = 3, 64
    v = np.random.default_rng(3).integers(-1000, 100000, blocks * threads).astype(np.int32)
    init32 = np.array([0, 1 << 30, -(1 << 30), -1, 0, 0, 5, 7, 0, -9], np.int32)
    g32 = ctx.to_device(init32)
    g64 = ctx.to_device(np.array([1, 2], np.uint64))
    gf, gd = ctx.zeros(1, np.float32), ctx.zeros(1, np.float64)
    sh = ctx.zeros(blocks * 4, np.int32)
    m.launch("atomics", grid=(blocks,), block=(threads,),
             args=(ctx.to_device(v), g32, g64, gf, gd, sh))
    r = g32.get()
    assert r[0] == np.int32(v.astype(np.int64).sum())
    assert r[1] == min(1 << 30, v.min()) and r[2] == max(-(1 << 30), v.max())
    assert r[3] == np.bitwise_and.reduce(v | np.int32(-65536)) & -1
    assert r[4] == np.bitwise_or.reduce(v & 0xFF)
    assert r[5] == np.bitwise_xor.reduce(v)
    inc, dec = 5, 7                            # applied in thread order (the documented order)
    for _ in range(len(v)):
        inc = 0 if inc >= 17 else inc + 1
        dec = 13 if dec == 0 or dec > 13 else dec - 1
    assert (r[6], r[7]) == (inc, dec)
    cas = 0                                    # thread t swaps t -> t+1 when it finds t
    for t in list(range(threads)) * blocks:
        cas = t + 1 if cas == t else cas
    assert r[8] == cas
    assert r[9] == threads - 1                 # the last exchange in thread order
    w = g64.get()
    assert w[0] == 1 + ((v.astype(np.uint64) & 0xFFFF) << 20).sum()
    assert w[1] == max(2, (v.astype(np.int64) * 3).astype(np.uint64).max())
    fsum = np.float32(0)
    for x in v:                                # float atomics: sequential in thread order
        fsum = np.float32(fsum + np.float32(x & 255) * np.float32(0.25))
    assert gf.get()[0] == fsum
    dsum = 0.0
    for x in v:
        dsum += float(x) * 0.5
    assert gd.get()[0] == dsum
    s = sh.get().reshape(blocks, 4)
    per = v.reshape(blocks, threads)
    assert np.array_equal(s[:, 0], np.full(blocks, threads))
    assert np.array_equal(s[:, 1], per.max(1).clip(min=0))
    assert np.array_equal(s[:, 2], np.minimum(per.min(1), 1000000))
    assert np.array_equal(s[:, 3], np.bitwise_xor.reduce(per, 1))


def test_warp_shuffles_votes_match_activemask_and_half(ctx):
    m = ctx.load_ptx(PTX)
    n = 128
    v = np.random.default_rng(4).integers(0, 100, n).astype(np.int32)
    out = ctx.zeros(n * 8, np.int32)
    m.launch("warp_ops", grid=(2,), block=(64,), args=(ctx.to_device(v), out))
    o = out.get().reshape(n, 8)
    lane = np.arange(n) % 32
    base = np.arange(n) - lane
    up = np.where(lane >= 3, v[np.maximum(np.arange(n) - 3, 0)], v)
    assert np.array_equal(o[:, 0], up)
    assert np.array_equal(o[:, 1], v[base + (lane ^ 5)])
    src = (lane & ~15) | (((lane * 7) & 31) & 15)            # width 16: within each half-warp
    assert np.array_equal(o[:, 2], v[base + src])
    w = v.reshape(-1, 32)
    vote = (w > 90).any(1).astype(int) + 2 * (w >= 0).all(1)
    assert np.array_equal(o[:, 3], np.repeat(vote, 32))
    key = (v & 3).reshape(-1, 32)
    bits = (1 << np.arange(32)).astype(np.int64)
    match = np.array([[(bits * (row == row[j])).sum() for j in range(32)] for row in key])
    assert np.array_equal(o[:, 4].astype(np.uint32), match.reshape(-1).astype(np.uint32))
    odd = (v & 1).reshape(-1, 32).astype(bool)
    active = np.repeat((bits * odd).sum(1), 32) * (v & 1)
    assert np.array_equal(o[:, 5].astype(np.uint32), active.astype(np.uint32))
    h = (v.astype(np.float16) * np.float16(0.125)).astype(np.float16)
    half = ((h + np.float16(1.5)).astype(np.float16) * h).astype(np.float16)
    assert np.array_equal(o[:, 6], (half.astype(np.float32) * 8).astype(np.int32))
    ballot = np.repeat([(bits * (np.arange(32) < (row & 31))).sum() for row in w], 32)
    assert np.array_equal(o[:, 7].astype(np.uint32), ballot.astype(np.uint32))


def test_dynamic_shared_vector_access_and_64_bit_math(ctx):
    m = ctx.load_ptx(PTX)
    blocks, threads = 4, 96
    n = blocks * threads
    a = np.random.default_rng(5).standard_normal((n, 4)).astype(np.float32)
    out, wide = ctx.empty((n, 4), np.float32), ctx.empty(n, np.int64)
    m.launch("memory_mix", grid=(blocks,), block=(threads,), shared=threads * 16,
             args=(ctx.to_device(a), out, wide, np.int32(n)))
    t = np.arange(n) % threads
    src = a[(np.arange(n) - t) + (t + 1) % threads]
    assert np.array_equal(out.get(), src[:, ::-1])
    i = np.arange(n, dtype=object)
    x = [int(k) * 0x12345679 - 77 for k in i]
    def hi(p, q):
        return (p * q) >> 64
    ref = [((xx >> 3) ^ ((xx * xx + hi(xx, 0x7FFFFFFFFFFF)) & (2**64 - 1))) for xx in x]
    ref = np.array([(r + 2**63) % 2**64 - 2**63 for r in ref], np.int64)
    assert np.array_equal(wide.get(), ref)
