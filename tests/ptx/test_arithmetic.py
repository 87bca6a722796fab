"""Every arithmetic instruction against an independent reference with C/IEEE semantics, on edge
values (0, ±1, extremes, NaN, infinities, subnormals) and random ones: one hand-written PTX
kernel per instruction, one thread per operand tuple. Integer results exact; floats exact for
.rn forms (fma by exact rational arithmetic), within the documented ulps for .approx."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from ptx.host import Context

N = 256
DT = {"s16": np.int16, "u16": np.uint16, "s32": np.int32, "u32": np.uint32, "s64": np.int64,
      "u64": np.uint64, "b32": np.uint32, "b64": np.uint64, "f32": np.float32, "f64": np.float64,
      "f16": np.float16, "u8": np.uint8, "s8": np.int8, "pred": np.uint32}


def values(t: str, rng) -> np.ndarray:
    dt = np.dtype(DT[t])
    if dt.kind == "f":
        fi = np.finfo(dt)
        edge = [0.0, -0.0, 1.0, -1.0, 0.5, 1.5, 2.5, -2.5, fi.max, -fi.max, fi.tiny, fi.tiny / 4,
                -fi.tiny / 8, np.inf, -np.inf, np.nan, 1e-3, 3.0, 7.0, 2.0 ** 24 + 1, -100.25]
        rnd = rng.standard_normal(N) * 10.0 ** rng.integers(-6, 7, N)
        out = np.concatenate([np.array(edge), rnd])[:N].astype(dt)
    else:
        ii = np.iinfo(dt)
        edge = [0, 1, ii.max, ii.min, ii.max - 1, ii.min + 1, 2, 3, 7, 31, 32, 33, 63, 64, 255]
        edge += [-1, -2, -7, -31, -33] if dt.kind == "i" else []
        rnd = rng.integers(ii.min, ii.max, N, dtype=dt, endpoint=True)
        out = np.concatenate([np.array(edge, dtype=object).astype(dt), rnd])[:N]
    return rng.permutation(out) if t[0] != "f" else out


def kernel(instr: str, srcs: list[str], dst: str) -> str:
    regs = "\n".join(f"    .reg .{t if t != 'pred' else 'b32'} %s{i};" for i, t in enumerate(srcs))
    loads = []
    for i, t in enumerate(srcs):
        size = np.dtype(DT[t]).itemsize
        loads.append(f"    ld.param.u64 %rd{10 + i}, [p{i}];\n"
                     f"    mul.wide.u32 %rd{20 + i}, %t, {size};\n"
                     f"    add.s64 %rd{30 + i}, %rd{10 + i}, %rd{20 + i};\n"
                     f"    ld.global.{t} %s{i}, [%rd{30 + i}];")
    dsize = np.dtype(DT[dst]).itemsize
    params = ", ".join(f".param .u64 p{i}" for i in range(len(srcs)))
    return f"""
.version 8.0
.target sm_75
.address_size 64
.visible .entry k({params}, .param .u64 pout)
{{
    .reg .pred %p, %q;
    .reg .b32 %t;
    .reg .b64 %rd<40>;
{regs}
    .reg .{dst} %d;
    mov.u32 %t, %tid.x;
{chr(10).join(loads)}
    {instr};
    ld.param.u64 %rd1, [pout];
    mul.wide.u32 %rd2, %t, {dsize};
    add.s64 %rd3, %rd1, %rd2;
    st.global.{dst} [%rd3], %d;
    ret;
}}"""


def run(instr: str, srcs: list[str], dst: str, ins: list[np.ndarray]) -> np.ndarray:
    ctx = Context(progress=False)
    m = ctx.load_ptx(kernel(instr, srcs, dst))
    out = ctx.zeros(N, DT[dst])
    m.launch("k", grid=(1,), block=(N,), args=tuple(ctx.to_device(a) for a in ins) + (out,))
    return out.get()


def wrap(x: int, t: str) -> int:
    bits = 8 * np.dtype(DT[t]).itemsize
    x &= (1 << bits) - 1
    return x - (1 << bits) if t[0] == "s" and x >> (bits - 1) else x


def tdiv(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def idiv(t):
    return lambda a, b: -1 if b == 0 else tdiv(a, b)


def irem(t):
    return lambda a, b: a if b == 0 else a - tdiv(a, b) * b


def bfe(signed, width):
    def f(a, pos, ln):
        pos, ln = pos & 0xFF, ln & 0xFF
        ua = a & ((1 << width) - 1)
        if ln == 0:
            return 0
        field = (ua >> min(pos, width)) & ((1 << min(ln, width)) - 1) if pos < width else 0
        if signed:
            sbit = (ua >> min(pos + ln - 1, width - 1)) & 1
            if sbit and ln < width:
                field |= ((1 << width) - 1) & ~((1 << ln) - 1)
        return field
    return f


def clz32(a):
    return 32 - (a & 0xFFFFFFFF).bit_length()


def prmt(a, b, sel):
    src = (a & 0xFFFFFFFF) | ((b & 0xFFFFFFFF) << 32)
    out = 0
    for k in range(4):
        nib = (sel >> (4 * k)) & 0xF
        byte = (src >> (8 * (nib & 7))) & 0xFF
        if nib & 8:
            byte = 0xFF if byte & 0x80 else 0
        out |= byte << (8 * k)
    return out


INT_CASES = [
    ("add.s32 %d, %s0, %s1", ["s32", "s32"], "s32", lambda a, b: a + b),
    ("sub.u32 %d, %s0, %s1", ["u32", "u32"], "u32", lambda a, b: a - b),
    ("mul.lo.s32 %d, %s0, %s1", ["s32", "s32"], "s32", lambda a, b: a * b),
    ("mul.hi.s32 %d, %s0, %s1", ["s32", "s32"], "s32", lambda a, b: (a * b) >> 32),
    ("mul.hi.u32 %d, %s0, %s1", ["u32", "u32"], "u32", lambda a, b: (a * b) >> 32),
    ("mul.wide.s32 %d, %s0, %s1", ["s32", "s32"], "s64", lambda a, b: a * b),
    ("mul.wide.u16 %d, %s0, %s1", ["u16", "u16"], "u32", lambda a, b: a * b),
    ("mul.hi.u64 %d, %s0, %s1", ["u64", "u64"], "u64", lambda a, b: (a * b) >> 64),
    ("mul.hi.s64 %d, %s0, %s1", ["s64", "s64"], "s64", lambda a, b: (a * b) >> 64),
    ("mad.lo.s32 %d, %s0, %s1, %s2", ["s32", "s32", "s32"], "s32", lambda a, b, c: a * b + c),
    ("mad.wide.u32 %d, %s0, %s1, %s2", ["u32", "u32", "u64"], "u64", lambda a, b, c: a * b + c),
    ("div.s32 %d, %s0, %s1", ["s32", "s32"], "s32", idiv("s32")),
    ("rem.s32 %d, %s0, %s1", ["s32", "s32"], "s32", irem("s32")),
    ("div.u32 %d, %s0, %s1", ["u32", "u32"], "u32", idiv("u32")),
    ("rem.u32 %d, %s0, %s1", ["u32", "u32"], "u32", irem("u32")),
    ("div.s64 %d, %s0, %s1", ["s64", "s64"], "s64", idiv("s64")),
    ("rem.u64 %d, %s0, %s1", ["u64", "u64"], "u64", irem("u64")),
    ("min.s32 %d, %s0, %s1", ["s32", "s32"], "s32", min),
    ("max.u64 %d, %s0, %s1", ["u64", "u64"], "u64", max),
    ("abs.s32 %d, %s0", ["s32"], "s32", abs),
    ("neg.s64 %d, %s0", ["s64"], "s64", lambda a: -a),
    ("add.sat.s32 %d, %s0, %s1", ["s32", "s32"], "s32",
     lambda a, b: max(-2**31, min(2**31 - 1, a + b))),
    ("shl.b32 %d, %s0, %s1", ["b32", "u32"], "b32", lambda a, n: 0 if n >= 32 else a << n),
    ("shr.s32 %d, %s0, %s1", ["s32", "u32"], "s32", lambda a, n: a >> min(n, 31)),
    ("shr.u64 %d, %s0, %s1", ["u64", "u32"], "u64", lambda a, n: 0 if n >= 64 else a >> n),
    ("and.b32 %d, %s0, %s1", ["b32", "b32"], "b32", lambda a, b: a & b),
    ("or.b64 %d, %s0, %s1", ["b64", "b64"], "b64", lambda a, b: a | b),
    ("xor.b32 %d, %s0, %s1", ["b32", "b32"], "b32", lambda a, b: a ^ b),
    ("not.b32 %d, %s0", ["b32"], "b32", lambda a: ~a),
    ("popc.b64 %d, %s0", ["b64"], "u32", lambda a: bin(a).count("1")),
    ("clz.b32 %d, %s0", ["b32"], "u32", clz32),
    ("brev.b32 %d, %s0", ["b32"], "b32", lambda a: int(f"{a:032b}"[::-1], 2)),
    ("bfind.u32 %d, %s0", ["u32"], "u32", lambda a: a.bit_length() - 1 if a else 0xFFFFFFFF),
    ("bfind.s32 %d, %s0", ["s32"], "u32",
     lambda a: (~a if a < 0 else a).bit_length() - 1 if (~a if a < 0 else a) else 0xFFFFFFFF),
    ("bfe.u32 %d, %s0, %s1, %s2", ["u32", "u32", "u32"], "u32", bfe(False, 32)),
    ("bfe.s32 %d, %s0, %s1, %s2", ["s32", "u32", "u32"], "s32", bfe(True, 32)),
    ("prmt.b32 %d, %s0, %s1, %s2", ["b32", "b32", "b32"], "b32", prmt),
    ("cvt.s32.s16 %d, %s0", ["s16"], "s32", lambda a: a),
    ("cvt.u16.u32 %d, %s0", ["u32"], "u16", lambda a: a),
    ("cvt.sat.u16.s32 %d, %s0", ["s32"], "u16", lambda a: max(0, min(65535, a))),
    ("cvt.s64.s32 %d, %s0", ["s32"], "s64", lambda a: a),
    ("cvt.u64.u32 %d, %s0", ["u32"], "u64", lambda a: a),
]


@pytest.mark.parametrize("instr,srcs,dst,ref", INT_CASES, ids=[c[0].split()[0] for c in INT_CASES])
def test_integer_instruction(instr, srcs, dst, ref):
    rng = np.random.default_rng(abs(hash(instr)) % 2**32)
    ins = [values(t, rng) for t in srcs]
    if "shl" in instr or "shr" in instr:
        ins[1] = (np.arange(N) % 70).astype(np.uint32)
    if instr.startswith("bfe"):
        ins[1] = rng.integers(0, 40, N).astype(np.uint32)
        ins[2] = rng.integers(0, 40, N).astype(np.uint32)
    got = run(instr, srcs, dst, ins)
    cols = [[int(x) for x in a] for a in ins]
    want = np.array([wrap(ref(*xs), dst) for xs in zip(*cols)], dtype=object).astype(DT[dst])
    bad = np.nonzero(got != want)[0]
    assert not len(bad), f"{instr}: lane {bad[0]}: {[c[bad[0]] for c in cols]} -> {got[bad[0]]}, want {want[bad[0]]}"


def f32_round(q: Fraction) -> np.float32:
    """The float32 nearest to the exact value q (ties to even)."""
    c = np.float32(float(q))
    if not np.isfinite(c):
        return c
    best = min((np.nextafter(c, np.float32(-np.inf)), c, np.nextafter(c, np.float32(np.inf))),
               key=lambda x: (abs(Fraction(float(x)) - q), int(np.array(x).view(np.uint32)) & 1))
    return np.float32(best)


def exact_fma32(a, b, c):
    if not all(map(np.isfinite, (a, b, c))):
        return np.float32(np.float64(a) * np.float64(b) + np.float64(c))
    q = Fraction(float(a)) * Fraction(float(b)) + Fraction(float(c))
    if q == 0:
        return np.float32((np.float64(a) * np.float64(b)) + np.float64(c))
    return f32_round(q)


FLOAT_CASES = [
    ("add.f32 %d, %s0, %s1", ["f32", "f32"], "f32", lambda a, b: a + b, 0),
    ("sub.rn.f32 %d, %s0, %s1", ["f32", "f32"], "f32", lambda a, b: a - b, 0),
    ("mul.rn.f32 %d, %s0, %s1", ["f32", "f32"], "f32", lambda a, b: a * b, 0),
    ("div.rn.f32 %d, %s0, %s1", ["f32", "f32"], "f32", lambda a, b: a / b, 0),
    ("fma.rn.f32 %d, %s0, %s1, %s2", ["f32", "f32", "f32"], "f32", exact_fma32, 0),
    ("sqrt.rn.f32 %d, %s0", ["f32"], "f32", np.sqrt, 0),
    ("rcp.rn.f32 %d, %s0", ["f32"], "f32", lambda a: np.float32(1) / a, 0),
    ("add.f64 %d, %s0, %s1", ["f64", "f64"], "f64", lambda a, b: a + b, 0),
    ("div.rn.f64 %d, %s0, %s1", ["f64", "f64"], "f64", lambda a, b: a / b, 0),
    ("sqrt.rn.f64 %d, %s0", ["f64"], "f64", np.sqrt, 0),
    ("min.f32 %d, %s0, %s1", ["f32", "f32"], "f32", np.fmin, 0),
    ("max.f64 %d, %s0, %s1", ["f64", "f64"], "f64", np.fmax, 0),
    ("abs.f32 %d, %s0", ["f32"], "f32", np.abs, 0),
    ("neg.f64 %d, %s0", ["f64"], "f64", np.negative, 0),
    ("add.sat.f32 %d, %s0, %s1", ["f32", "f32"], "f32",
     lambda a, b: np.float32(0) if np.isnan(a + b) else np.clip(a + b, 0, 1), 0),
    ("cvt.rn.f32.f64 %d, %s0", ["f64"], "f32", np.float32, 0),
    ("cvt.f64.f32 %d, %s0", ["f32"], "f64", np.float64, 0),
    ("cvt.rn.f16.f32 %d, %s0", ["f32"], "f16", np.float16, 0),
    ("cvt.rmi.f32.f32 %d, %s0", ["f32"], "f32", np.floor, 0),
    ("cvt.rzi.f32.f32 %d, %s0", ["f32"], "f32", np.trunc, 0),
    ("rsqrt.approx.f32 %d, %s0", ["f32"], "f32", lambda a: 1 / np.sqrt(np.float64(a)), 1),
    ("sin.approx.f32 %d, %s0", ["f32"], "f32", lambda a: np.sin(np.float64(a)), 1),
    ("ex2.approx.f32 %d, %s0", ["f32"], "f32", lambda a: np.exp2(np.float64(a)), 1),
    ("lg2.approx.f32 %d, %s0", ["f32"], "f32", lambda a: np.log2(np.float64(a)), 1),
    ("div.full.f32 %d, %s0, %s1", ["f32", "f32"], "f32", lambda a, b: a / b, 2),
]


def ulps(x, y) -> float:
    """Distance in units in the last place of the wider-spaced of x and y (0 when equal)."""
    x, y = np.float64(x), np.float64(y)
    if (np.isnan(x) and np.isnan(y)) or x == y:
        return 0.0
    if not (np.isfinite(x) and np.isfinite(y)):
        return math.inf
    return abs(x - y) / float(np.spacing(np.float32(max(abs(x), abs(y)))))


@pytest.mark.parametrize("instr,srcs,dst,ref,tol", FLOAT_CASES, ids=[c[0].split()[0] for c in FLOAT_CASES])
def test_float_instruction(instr, srcs, dst, ref, tol):
    rng = np.random.default_rng(abs(hash(instr)) % 2**32)
    ins = [values(t, rng) for t in srcs]
    if len(srcs) > 1:
        ins[1] = rng.permutation(ins[1])
    got = run(instr, srcs, dst, ins)
    with np.errstate(all="ignore"):
        want = np.array([ref(*xs) for xs in zip(*ins)]).astype(DT[dst])
    if tol == 0:
        same = (got.view(np.uint8).reshape(N, -1) == want.view(np.uint8).reshape(N, -1)).all(1) \
            | (np.isnan(got) & np.isnan(want))
        bad = np.nonzero(~same)[0]
        assert not len(bad), f"{instr}: lane {bad[0]}: {[a[bad[0]] for a in ins]} -> {got[bad[0]]!r}, want {want[bad[0]]!r}"
    else:
        errs = [ulps(g, w) for g, w in zip(got, want)]
        assert max(errs) <= tol, f"{instr}: {max(errs)} ulps"


def test_setp_comparisons_with_nan_and_boolean_combination():
    rng = np.random.default_rng(9)
    a, b = values("f32", rng), rng.permutation(values("f32", rng))
    for cmp, ref in (("lt", np.less), ("neu", lambda x, y: ~(x == y)),
                     ("gtu", lambda x, y: (x > y) | np.isnan(x) | np.isnan(y)),
                     ("num", lambda x, y: ~np.isnan(x) & ~np.isnan(y))):
        instr = f"setp.{cmp}.f32 %p, %s0, %s1;\n    selp.u32 %d, 1, 0, %p"
        got = run(instr, ["f32", "f32"], "u32", [a, b])
        with np.errstate(all="ignore"):
            assert np.array_equal(got, ref(a, b).astype(np.uint32)), cmp
    x, y = values("s32", rng), values("s32", rng)
    instr = ("setp.lt.s32 %p|%q, %s0, %s1;\n    setp.ge.and.s32 %p, %s0, 0, %q;\n"
             "    selp.u32 %d, 1, 0, %p")
    got = run(instr, ["s32", "s32"], "u32", [x, y])
    assert np.array_equal(got, ((x >= 0) & ~(x < y)).astype(np.uint32))


def test_float_to_int_conversions_round_clamp_and_map_nan_to_zero():
    rng = np.random.default_rng(11)
    a = np.concatenate([np.array([np.nan, np.inf, -np.inf, 3e9, -3e9, 2.5, -2.5, 0.5, -0.5, 1.5],
                                 np.float32), rng.standard_normal(N - 10).astype(np.float32) * 1e3])
    for mode, fn in (("rni", np.rint), ("rzi", np.trunc), ("rmi", np.floor), ("rpi", np.ceil)):
        got = run(f"cvt.{mode}.s32.f32 %d, %s0", ["f32"], "s32", [a])
        with np.errstate(all="ignore"):
            want = np.clip(np.nan_to_num(fn(a.astype(np.float64)), nan=0.0), -2**31, 2**31 - 1)
        assert np.array_equal(got, want.astype(np.int64).astype(np.int32)), mode
    got = run("cvt.rzi.u32.f32 %d, %s0", ["f32"], "u32", [a])
    with np.errstate(all="ignore"):
        want = np.clip(np.nan_to_num(np.trunc(a.astype(np.float64)), nan=0.0), 0, 2**32 - 1)
    assert np.array_equal(got, want.astype(np.uint32))


def test_fma_f32_rounds_once_where_f64_then_f32_would_round_twice():
    # (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24 lies exactly halfway between two floats; a tiny c
    # decides the direction, which an f64 sum (that drops c) followed by ties-to-even loses
    a = np.full(N, 1 + 2.0 ** -12, np.float32)
    c = np.zeros(N, np.float32)
    c[0::4], c[1::4], c[2::4] = 2.0 ** -100, -(2.0 ** -100), 0.0
    c[3::4] = 2.0 ** -60
    got = run("fma.rn.f32 %d, %s0, %s1, %s2", ["f32", "f32", "f32"], "f32", [a, a, c])
    want = np.array([exact_fma32(x, y, z) for x, y, z in zip(a, a, c)], np.float32)
    assert np.array_equal(got, want)
    up, down = np.float32(1 + 2.0 ** -11 + 2.0 ** -23), np.float32(1 + 2.0 ** -11)
    assert got[0] == up and got[1] == down and got[2] == down
