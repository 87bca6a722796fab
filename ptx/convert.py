"""Compare and select (setp, set, selp, slct, testp), moves and conversions (mov, cvt, cvta,
copysign) and the special-function instructions (rcp, sqrt, rsqrt, sin, cos, ex2, lg2, tanh).

``.approx`` functions are computed in f64 and rounded to the destination type, so they are
within 1 ulp of the exact value — at least as accurate as the hardware's documented bounds
(docs/ptx.md lists them); ``.rn`` forms are correctly rounded.
"""

from __future__ import annotations

import numpy as np

from . import fp
from .alu import FLOATS, INTS, Ctx, _binary, _float_post, _unary
from .values import DTYPE, SIGNED, UNSIGNED, convert_bits, is_float, type_of
from .syntax import SINK, Imm, Pair, Reg, Vec

F32, F64 = np.float32, np.float64
_INT_CMP = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
            "gt": np.greater, "ge": np.greater_equal, "lo": np.less, "ls": np.less_equal,
            "hi": np.greater, "hs": np.greater_equal}
_BOOL = {"and": np.logical_and, "or": np.logical_or, "xor": np.logical_xor}


def _compare(c: Ctx, t: str):
    cmp = next((x for x in c.ins.mods if x in _INT_CMP or x in _FLOAT_CMP), None)
    if cmp is None:
        raise c.unsupported("no comparison operator")
    if is_float(t):
        return _FLOAT_CMP[cmp]
    if cmp not in _INT_CMP:
        raise c.unsupported(f"comparison .{cmp} on integers")
    return _INT_CMP[cmp]


def _ordered(fn):
    return lambda a, b: fn(a, b) & ~(np.isnan(a) | np.isnan(b))


def _unordered(fn):
    return lambda a, b: fn(a, b) | np.isnan(a) | np.isnan(b)


_FLOAT_CMP = {"eq": np.equal, "ne": _ordered(np.not_equal), "lt": np.less, "le": np.less_equal,
              "gt": np.greater, "ge": np.greater_equal, "equ": _unordered(np.equal),
              "neu": np.not_equal, "ltu": _unordered(np.less), "leu": _unordered(np.less_equal),
              "gtu": _unordered(np.greater), "geu": _unordered(np.greater_equal),
              "num": lambda a, b: ~(np.isnan(a) | np.isnan(b)),
              "nan": lambda a, b: np.isnan(a) | np.isnan(b)}


def setp(c: Ctx):
    t = c.need_type(INTS + FLOATS)
    cmp = _compare(c, t)
    if "ftz" in c.mods:
        cmp0 = cmp
        cmp = lambda a, b: cmp0(fp.ftz(a), fp.ftz(b))      # noqa: E731
    boolop = next((_BOOL[x] for x in c.ins.mods if x in _BOOL), None)
    dst = c.ins.operands[0]
    pd = c.ops.writer(dst.first if isinstance(dst, Pair) else dst, "pred")
    qd = c.ops.writer(dst.second, "pred") if isinstance(dst, Pair) and dst.second.name != "_" else None
    a, b = c.rd(1), c.rd(2)
    x = c.rd(3, "pred") if boolop is not None else None

    def run(st, sel, m):
        R = st.R
        r = np.asarray(cmp(a(R, sel), b(R, sel)))
        if x is not None:
            cc = x(R, sel)
            p, q = boolop(r, cc), boolop(~r, cc)
        else:
            p, q = r, ~r
        pd(R, sel, m, p)
        if qd is not None:
            qd(R, sel, m, q)
    return run


def set_(c: Ctx):
    dtype = type_of(c.ins.mods, 0)
    stype = type_of(c.ins.mods, 1)
    if dtype not in ("u32", "s32", "f32") or stype is None:
        raise c.unsupported()
    cmp = _compare(c, stype)
    boolop = next((_BOOL[x] for x in c.ins.mods if x in _BOOL), None)
    a, b = c.rd(1, stype), c.rd(2, stype)
    x = c.rd(3, "pred") if boolop is not None else None
    d = c.wr(0, dtype)
    true = F32(1.0) if dtype == "f32" else DTYPE[dtype].type(-1 if dtype == "s32" else 0xFFFFFFFF)

    def run(st, sel, m):
        R = st.R
        r = np.asarray(cmp(a(R, sel), b(R, sel)))
        if x is not None:
            r = boolop(r, x(R, sel))
        d(R, sel, m, np.where(r, true, DTYPE[dtype].type(0)).astype(DTYPE[dtype]))
    return run


def selp(c: Ctx):
    a, b, p, d = c.rd(1), c.rd(2), c.rd(3, "pred"), c.wr(0)

    def run(st, sel, m):
        R = st.R
        d(R, sel, m, np.where(p(R, sel), a(R, sel), b(R, sel)).astype(DTYPE[c.t]))
    return run


def slct(c: Ctx):
    dtype, ctype = type_of(c.ins.mods, 0), type_of(c.ins.mods, 1)
    a, b, x, d = c.rd(1, dtype), c.rd(2, dtype), c.rd(3, ctype), c.wr(0, dtype)

    def run(st, sel, m):
        R = st.R
        cond = x(R, sel)
        if "ftz" in c.mods:
            cond = fp.ftz(cond)
        d(R, sel, m, np.where(np.asarray(cond) >= 0, a(R, sel), b(R, sel)).astype(DTYPE[dtype]))
    return run


_TESTP = {"finite": np.isfinite, "infinite": np.isinf, "number": lambda x: ~np.isnan(x),
          "notanumber": np.isnan,
          "normal": lambda x: np.isfinite(x) & (np.abs(x) >= np.finfo(x.dtype).tiny),
          "subnormal": lambda x: (x != 0) & (np.abs(x) < np.finfo(x.dtype).tiny)}


def testp(c: Ctx):
    t = c.need_type(("f32", "f64"))
    kind = next((x for x in c.ins.mods if x in _TESTP), None)
    if kind is None:
        raise c.unsupported()
    fn = _TESTP[kind]
    return _unary(c, lambda a: fn(np.asarray(a, DTYPE[t])), t_out="pred")


def copysign(c: Ctx):
    c.need_type(("f32", "f64"))
    # copysign d, a, b: the magnitude of b with the sign of a
    return _binary(c, lambda a, b: np.copysign(b, a))


# -- moves and conversions ------------------------------------------------------------------
def mov(c: Ctx):
    t = c.t
    dst, src = c.ins.operands[0], c.ins.operands[1]
    if isinstance(dst, Vec) or isinstance(src, Vec):
        return _pack(c, t)
    if isinstance(src, Reg) or isinstance(src, Imm) or (isinstance(src, tuple)):
        return _unary(c, lambda a: a)
    raise c.unsupported("mov of this operand")


def _pack(c: Ctx, t: str):
    """mov.b64 %rd, {%r1, %r2} (pack, low element first) and the reverse (unpack)."""
    dst, src = c.ins.operands[0], c.ins.operands[1]
    size = DTYPE[t].itemsize
    if isinstance(src, Vec):
        part = UNSIGNED[size // len(src.items)]
        reads = [c.ops.reader(x, "b" + str(8 * part.itemsize)) for x in src.items]
        d = c.ops.writer(dst, t)

        def run(st, sel, m):
            R = st.R
            vals = [np.atleast_1d(np.asarray(f(R, sel))).astype(part) for f in reads]
            n = max(len(v) for v in vals)
            packed = np.ascontiguousarray(np.stack([np.broadcast_to(v, n) for v in vals], 1))
            d(R, sel, m, packed.view(DTYPE[t]).reshape(n))
        return run
    part = UNSIGNED[size // len(dst.items)]
    read = c.ops.reader(src, t)
    writes = [None if x == SINK else c.ops.writer(x, "b" + str(8 * part.itemsize)) for x in dst.items]

    def run(st, sel, m):
        R = st.R
        v = np.ascontiguousarray(np.atleast_1d(read(R, sel)))
        parts = v.view(part).reshape(len(v), len(writes))
        for k, w in enumerate(writes):
            if w is not None:
                w(R, sel, m, parts[:, k])
    return run


def cvt(c: Ctx):
    dt_name, st_name = type_of(c.ins.mods, 0), type_of(c.ins.mods, 1)
    if dt_name is None or st_name is None:
        raise c.unsupported("cvt needs a destination and a source type")
    dst, src = DTYPE[dt_name], DTYPE[st_name]
    mode = next((x for x in c.ins.mods if x in ("rn", "rz", "rm", "rp", "rni", "rzi", "rmi", "rpi")), None)
    sat = "sat" in c.mods
    ftz = "ftz" in c.mods
    if dt_name in ("bf16", "f16x2", "bf16x2") or st_name in ("bf16", "f16x2", "bf16x2"):
        raise c.unsupported("bf16 and packed conversions")

    def fn(a):
        a = np.asarray(a)
        if ftz and st_name == "f32":
            a = fp.ftz(a)
        if is_float(st_name) and not is_float(dt_name):
            return fp.float_to_int(a, mode or "rzi", dst)
        if is_float(dt_name):
            if is_float(st_name):
                if mode in ("rni", "rzi", "rmi", "rpi"):
                    r = fp.INT_ROUND[mode](a).astype(dst)
                elif dst == np.dtype(F32) and src == np.dtype(F64) and mode not in (None, "rn"):
                    r = fp.round_f64_to_f32(a, mode)
                else:
                    r = a.astype(dst)
            else:
                if mode not in (None, "rn"):
                    x = a.astype(F64)
                    r = fp.round_f64_to_f32(x, mode) if dst == np.dtype(F32) else x.astype(dst)
                else:
                    r = a.astype(dst)
            if ftz and dt_name == "f32":
                r = fp.ftz(r)
            return fp.saturate(r) if sat else r
        # integer → integer
        if sat:
            lo, hi = np.iinfo(dst).min, np.iinfo(dst).max
            wide = a.astype(np.int64) if a.dtype.itemsize < 8 or a.dtype.kind == "i" else a
            if a.dtype.kind == "u" and a.dtype.itemsize == 8:
                return np.minimum(a, np.uint64(hi)).astype(dst)
            return np.clip(wide, lo, hi).astype(dst)
        return convert_bits(a, src, dst, st_name[0] == "s")
    return _unary(c, fn, t_in=st_name, t_out=dt_name)


def cvta(c: Ctx, windows):
    """cvta.space: specific → generic address (cvta.to.space: the reverse). Global addresses
    are generic as they are; shared and local windows (and const) move by a fixed base."""
    space = next((x for x in c.ins.mods if x in ("global", "shared", "local", "const", "param")), None)
    if space is None:
        raise c.unsupported()
    to = "to" in c.mods
    t = c.t or "u64"
    base = np.uint64(windows.get(space, 0))
    a, d = c.rd(1, t), c.wr(0, t)
    if base == 0:
        return _unary(c, lambda x: x, t_in=t, t_out=t)
    ut = DTYPE[t]

    def run(st, sel, m):
        R = st.R
        x = np.asarray(a(R, sel)).astype(np.uint64)
        r = x - base if to else x + base
        d(R, sel, m, r.astype(ut))
    return run


# -- special functions ------------------------------------------------------------------------
def _approx(fn):
    return lambda a: fn(np.asarray(a, F64))


_SPECIAL = {"rcp": lambda x: 1.0 / x, "sqrt": np.sqrt, "rsqrt": lambda x: 1.0 / np.sqrt(x),
            "sin": np.sin, "cos": np.cos, "ex2": np.exp2, "lg2": np.log2, "tanh": np.tanh}


def special(c: Ctx):
    op = c.ins.opcode
    t = c.need_type(("f32", "f64", "f16"))
    dt = DTYPE[t]
    f = _SPECIAL[op]
    exact = "rn" in c.mods or any(x in c.mods for x in ("rz", "rm", "rp"))
    if exact and op in ("rcp", "sqrt") and t in ("f32", "f64"):
        if any(x in c.mods for x in ("rz", "rm", "rp")):
            raise c.unsupported("directed rounding for rcp/sqrt")
        return _unary(c, _float_post(c, (lambda a: dt.type(1) / a) if op == "rcp" else np.sqrt))
    return _unary(c, _float_post(c, lambda a: np.asarray(f(np.asarray(a, F64))).astype(dt)))


__all__ = ["setp", "set_", "selp", "slct", "testp", "copysign", "mov", "cvt", "cvta", "special",
           "SIGNED"]
