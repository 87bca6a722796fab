"""Floating-point helpers with PTX semantics: correctly rounded fma (f32 exactly; f64 by error-
free transformations), flush-to-zero, saturation, rounding-mode variants of add/sub/mul/div
and conversions to integers (clamped, NaN → 0). See docs/ptx.md "Semantics".
"""

from __future__ import annotations

import numpy as np

F32, F64 = np.float32, np.float64
_M29 = np.uint64((1 << 29) - 1)
_H28 = np.uint64(1 << 28)
_TINY = np.float64(2.0 ** -125)         # below this an f32 result may be subnormal


def fma32(a, b, c):
    """fma.rn.f32: a·b+c rounded once. The product is exact in f64; the sum is rounded to
    f64 and then to f32, which differs from one rounding only when the f64 sum is exactly
    halfway between two f32 values and the f64 rounding dropped bits: those lanes are fixed
    with the exact error of the f64 sum (TwoSum)."""
    p = np.multiply(np.asarray(a, F32), np.asarray(b, F32), dtype=F64)
    cd = np.asarray(c, F64)
    s = p + cd
    r = s.astype(F32)
    if np.ndim(s) == 0:
        s, p, cd, r = s.reshape(1), np.reshape(p, 1), np.broadcast_to(cd, (1,)), r.reshape(1)
        return _fix_fma(s, p, cd, r)[0]
    suspect = ((s.view(np.uint64) & _M29) == _H28) | (np.abs(s) < _TINY)
    if suspect.any():
        idx = np.nonzero(suspect)[0]
        p_b = np.broadcast_to(p, s.shape)[idx]
        c_b = np.broadcast_to(cd, s.shape)[idx]
        r[idx] = _fix_fma(s[idx], p_b, c_b, r[idx])
    return r


def _fix_fma(s, p, c, r):
    bb = s - p
    err = (p - (s - bb)) + (c - bb)           # s + err == p + c exactly (finite inputs)
    rd = r.astype(F64)
    diff = s - rd
    with np.errstate(all="ignore"):
        toward = np.nextafter(r, np.where(diff > 0, np.inf, -np.inf).astype(F32))
        half = (toward.astype(F64) - rd) / 2
        midpoint = (diff != 0) & (diff == half) & np.isfinite(s)
        beyond = midpoint & (np.sign(err) == np.sign(diff))        # true value past it
    # at a midpoint r is the even neighbour: keep it unless the true value lies past the
    # midpoint, on the side of the other neighbour
    return np.where(beyond, toward, r)


def fma32_directed(a, b, c, mode: str):
    """fma.{rz,rm,rp}.f32: the exact a·b+c (f64 sum plus its TwoSum error) rounded in the
    direction. Rounding the f64 sum alone is right unless it lies on the f32 grid itself;
    then the error's sign decides."""
    p = np.multiply(np.asarray(a, F32), np.asarray(b, F32), dtype=F64)
    cd = np.asarray(c, F64)
    s = p + cd
    bb = s - p
    err = (p - (s - bb)) + (cd - bb)
    r = round_f64_to_f32(s, mode)
    with np.errstate(all="ignore"):
        on_grid = (r.astype(F64) == s) & (err != 0) & np.isfinite(s)
        if mode == "rm":
            step = on_grid & (err < 0)
            target = -np.inf
        elif mode == "rp":
            step = on_grid & (err > 0)
            target = np.inf
        else:                                   # rz: toward zero when the error points there
            step = on_grid & (np.sign(err) == -np.sign(s))
            target = 0.0
        return np.where(step, np.nextafter(r, F32(target)), r).astype(F32)


def _two_prod(a, b):
    p = a * b
    split = 134217729.0                        # 2^27 + 1 (Veltkamp)
    t = split * a
    ah = t - (t - a)
    al = a - ah
    t = split * b
    bh = t - (t - b)
    bl = b - bh
    err = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    return p, err


def fma64(a, b, c):
    """fma.rn.f64 by error-free transformations: exact product (p, e), exact sum (s, t), result
    s + (t + e); equals one rounding except in rare double-rounding cases (≤ 1 ulp)."""
    a, b, c = np.asarray(a, F64), np.asarray(b, F64), np.asarray(c, F64)
    with np.errstate(all="ignore"):
        p, e = _two_prod(a, b)
        s = p + c
        bb = s - p
        t = (p - (s - bb)) + (c - bb)
        out = s + (t + e)
        plain = a * b + c
        # infinities, NaN and overflowing products: the plain formula is right there
        return np.where(np.isfinite(out) & np.isfinite(p), out, plain)


def ftz(x):
    """Flush f32 subnormals to zero, keeping the sign (``.ftz``)."""
    x = np.asarray(x, F32)
    return np.where(np.abs(x) < np.finfo(F32).tiny, np.copysign(F32(0), x), x).astype(F32)


def saturate(x):
    """``.sat`` for floats: clamp to [0, 1], NaN → 0."""
    x = np.asarray(x)
    return np.where(np.isnan(x), x.dtype.type(0), np.clip(x, 0, 1)).astype(x.dtype)


def directed(op, a, b, mode: str, dtype):
    """add/sub/mul/div of f32 with a directed rounding (.rz, .rm, .rp): computed in f64 (exact
    for f32 add/sub/mul), then the f32 neighbour on the chosen side."""
    x = op(np.asarray(a, F64), np.asarray(b, F64))
    return round_f64_to_f32(x, mode) if dtype == F32 else x


def round_f64_to_f32(x, mode: str):
    r = np.asarray(x, F64).astype(F32)
    if mode == "rn":
        return r
    rd = r.astype(F64)
    with np.errstate(all="ignore"):
        if mode == "rz":
            fix = np.abs(rd) > np.abs(x)
            target = np.where(x > 0, -np.inf, np.inf).astype(F32)
        elif mode == "rm":
            fix = rd > x
            target = np.full_like(r, -np.inf)
        elif mode == "rp":
            fix = rd < x
            target = np.full_like(r, np.inf)
        else:
            raise ValueError(mode)
        return np.where(fix, np.nextafter(r, target), r).astype(F32)


INT_ROUND = {"rni": np.rint, "rzi": np.trunc, "rmi": np.floor, "rpi": np.ceil}


def float_to_int(x, mode: str, dt: np.dtype):
    """cvt.{rni,rzi,rmi,rpi}.{s,u}N.fM: round, clamp to the destination range, NaN → 0."""
    info = np.iinfo(dt)
    with np.errstate(all="ignore"):
        r = INT_ROUND[mode](np.asarray(x, F64))
        r = np.where(np.isnan(r), 0.0, r)
        lo, hi = float(info.min), float(info.max)
        out = np.where(r <= lo, 0, r)
        out = np.where(r >= hi, 0, out).astype(dt)
        out = np.where(r <= lo, info.min, out)
        out = np.where(r >= hi, info.max, out)
    return np.asarray(out).astype(dt)
