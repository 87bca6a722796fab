"""Integer, floating-point, logic, shift, bit and compare/select instructions.

Each builder takes (instruction, operand table, where) and returns ``run(st, sel, m)`` that
computes on the batch's lanes and writes the destination for the active ones. Integer
arithmetic wraps (C semantics), division truncates toward zero; a division by zero gives an
all-ones quotient and the dividend as remainder (PTX leaves it unspecified). Floats are IEEE
round-to-nearest-even unless the instruction names another mode.
"""

from __future__ import annotations

import numpy as np

from . import fp
from .errors import UnsupportedError
from .values import DTYPE, SIGNED, UNSIGNED, is_float, type_of

F32, F64 = np.float32, np.float64


class Ctx:
    """What a builder needs: the instruction, its operands' accessors, its type."""

    def __init__(self, ins, ops, where: str):
        self.ins, self.ops, self.where = ins, ops, where
        self.mods = set(ins.mods)
        self.t = type_of(ins.mods)

    def unsupported(self, why: str = "not supported") -> UnsupportedError:
        return UnsupportedError(self.where, self.ins.text, why)

    def rd(self, k: int, t: str | None = None):
        op = self.ins.operands[k]
        if isinstance(op, tuple) and op[0] == "not":         # !%p
            inner = self.ops.reader(op[1], "pred")
            return lambda R, sel: ~inner(R, sel)
        return self.ops.reader(op, t or self.t)

    def wr(self, k: int, t: str | None = None):
        return self.ops.writer(self.ins.operands[k], t or self.t)

    def need_type(self, allowed) -> str:
        if self.t is None or self.t not in allowed:
            raise self.unsupported(f"type .{self.t} not supported here")
        return self.t


INTS = ("u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64", "b8", "b16", "b32", "b64")
FLOATS = ("f16", "f32", "f64")
ROUNDING = ("rn", "rz", "rm", "rp")


def _float_post(c: Ctx, fn):
    """Wrap a float result function with .ftz (inputs and output) and .sat."""
    ftz = "ftz" in c.mods and c.t == "f32"
    sat = "sat" in c.mods
    if not (ftz or sat):
        return fn

    def post(*args):
        if ftz:
            args = tuple(fp.ftz(a) for a in args)
        r = fn(*args)
        if ftz:
            r = fp.ftz(r)
        return fp.saturate(r) if sat else r
    return post


def _binary(c: Ctx, fn):
    a, b, d = c.rd(1), c.rd(2), c.wr(0)

    def run(st, sel, m):
        R = st.R
        d(R, sel, m, fn(a(R, sel), b(R, sel)))
    return run


def _ternary(c: Ctx, fn, t3: str | None = None):
    a, b, x, d = c.rd(1), c.rd(2), c.rd(3, t3), c.wr(0)

    def run(st, sel, m):
        R = st.R
        d(R, sel, m, fn(a(R, sel), b(R, sel), x(R, sel)))
    return run


def _unary(c: Ctx, fn, t_in: str | None = None, t_out: str | None = None):
    a, d = c.rd(1, t_in), c.wr(0, t_out)

    def run(st, sel, m):
        R = st.R
        d(R, sel, m, fn(a(R, sel)))
    return run


def _sat_s32(x64):
    return np.clip(x64, -2**31, 2**31 - 1).astype(np.int32)


def add_sub(c: Ctx):
    sub = c.ins.opcode == "sub"
    t = c.need_type(INTS + FLOATS + ("f16x2",))
    if t == "f16x2":
        return _f16x2(c, np.subtract if sub else np.add)
    if is_float(t):
        mode = next((r for r in ROUNDING if r in c.mods), "rn")
        op = np.subtract if sub else np.add
        if mode != "rn":
            if t != "f32":
                raise c.unsupported("directed rounding is supported for .f32 only")
            return _binary(c, _float_post(c, lambda a, b: fp.directed(op, a, b, mode, F32)))
        return _binary(c, _float_post(c, op))
    if "sat" in c.mods:
        return _binary(c, lambda a, b: _sat_s32(a.astype(np.int64) - b if sub else a.astype(np.int64) + b))
    if "cc" in c.mods or c.ins.opcode in ("addc", "subc"):
        return _carry(c, sub)
    return _binary(c, np.subtract if sub else np.add)


def _carry(c: Ctx, sub: bool):
    """add.cc / addc / sub.cc / subc on 32- or 64-bit integers: the carry lives in %cc."""
    width = DTYPE[c.t].itemsize * 8
    ut = UNSIGNED[width // 8]
    a, b, d = c.rd(1), c.rd(2), c.wr(0)
    use_in = c.ins.opcode in ("addc", "subc")
    set_out = "cc" in c.mods
    mask = (1 << width) - 1

    def run(st, sel, m):
        R = st.R
        x = np.asarray(a(R, sel)).view(ut).astype(object) if width == 64 else \
            np.asarray(a(R, sel)).astype(np.int64) & mask
        y = np.asarray(b(R, sel)).view(ut).astype(object) if width == 64 else \
            np.asarray(b(R, sel)).astype(np.int64) & mask
        cin = st.carry(sel) if use_in else 0
        r = (x - y - (1 - cin if use_in else 0)) if sub else (x + y + cin)
        if set_out:
            carry = (r >= 0).astype(np.uint8) if sub else (r > mask).astype(np.uint8)
            st.set_carry(sel, m, np.asarray(carry, np.uint8))
        out = np.asarray(np.asarray(r) & mask).astype(ut)
        d(R, sel, m, out.view(DTYPE[c.t]))
    return run


def mul(c: Ctx):
    t = c.need_type(INTS + FLOATS + ("f16x2",))
    if t == "f16x2":
        return _f16x2(c, np.multiply)
    if is_float(t):
        mode = next((r for r in ROUNDING if r in c.mods), "rn")
        if mode != "rn":
            if t != "f32":
                raise c.unsupported("directed rounding is supported for .f32 only")
            return _binary(c, _float_post(c, lambda a, b: fp.directed(np.multiply, a, b, mode, F32)))
        return _binary(c, _float_post(c, np.multiply))
    if "wide" in c.mods:
        size = DTYPE[t].itemsize
        wt = (SIGNED if t[0] == "s" else UNSIGNED)[2 * size]
        a, b = c.rd(1), c.rd(2)
        d = c.wr(0, ("s" if t[0] == "s" else "u") + str(16 * size))

        def run(st, sel, m):
            R = st.R
            d(R, sel, m, np.multiply(np.asarray(a(R, sel)).astype(wt), np.asarray(b(R, sel)).astype(wt)))
        return run
    if "hi" in c.mods:
        return _binary(c, lambda x, y: mul_hi(x, y, t))
    return _binary(c, np.multiply)


def mul_hi(x, y, t: str):
    """The high half of the double-width product (signed or unsigned)."""
    dt = DTYPE[t]
    size = dt.itemsize
    if size <= 4:
        wt = np.int64 if t[0] == "s" else np.uint64
        p = np.asarray(x).astype(wt) * np.asarray(y).astype(wt)
        return (p >> (8 * size)).astype(dt)
    ux, uy = np.asarray(x).view(np.uint64) if np.ndim(x) else np.uint64(np.asarray(x).view(np.uint64)), \
        np.asarray(y).view(np.uint64) if np.ndim(y) else np.uint64(np.asarray(y).view(np.uint64))
    lo32 = np.uint64(0xFFFFFFFF)
    s32 = np.uint64(32)
    a0, a1 = ux & lo32, ux >> s32
    b0, b1 = uy & lo32, uy >> s32
    p00, p01, p10, p11 = a0 * b0, a0 * b1, a1 * b0, a1 * b1
    mid = (p00 >> s32) + (p01 & lo32) + (p10 & lo32)
    hi = p11 + (p01 >> s32) + (p10 >> s32) + (mid >> s32)
    if t[0] == "s":
        sx, sy = np.asarray(x).view(np.int64) < 0, np.asarray(y).view(np.int64) < 0
        hi = hi - np.where(sx, uy, 0).astype(np.uint64) - np.where(sy, ux, 0).astype(np.uint64)
    return np.asarray(hi).view(dt)


def mad(c: Ctx):
    t = c.need_type(INTS + FLOATS + ("f16x2",))
    if is_float(t) or t == "f16x2" or c.ins.opcode == "fma":
        return fma(c)
    if "wide" in c.mods:
        size = DTYPE[t].itemsize
        wide = ("s" if t[0] == "s" else "u") + str(16 * size)
        wt = DTYPE[wide]
        a, b, x = c.rd(1), c.rd(2), c.rd(3, wide)
        d = c.wr(0, wide)

        def run(st, sel, m):
            R = st.R
            d(R, sel, m, np.asarray(a(R, sel)).astype(wt) * np.asarray(b(R, sel)).astype(wt) + x(R, sel))
        return run
    if "hi" in c.mods:
        return _ternary(c, lambda x, y, z: mul_hi(x, y, t) + z)
    if "sat" in c.mods:
        return _ternary(c, lambda x, y, z: _sat_s32(((x.astype(np.int64) * y) >> 32) + z))
    if "cc" in c.mods or c.ins.opcode == "madc":
        raise c.unsupported("mad.cc/madc are not supported")
    return _ternary(c, lambda x, y, z: x * y + z)


def fma(c: Ctx):
    t = c.need_type(FLOATS + ("f16x2",))
    mode = next((r for r in ROUNDING if r in c.mods), "rn")
    if mode != "rn":
        if t != "f32":
            raise c.unsupported("fma/mad with a directed rounding on other types than .f32")
        return _ternary(c, _float_post(c, lambda x, y, z: fp.fma32_directed(x, y, z, mode)))
    if t == "f32":
        return _ternary(c, _float_post(c, fp.fma32))
    if t == "f64":
        return _ternary(c, _float_post(c, fp.fma64))
    if t == "f16":
        return _ternary(c, lambda x, y, z: fp.fma64(x.astype(F64), y, z).astype(np.float16))
    return _f16x2(c, lambda x, y, z: fp.fma64(x.astype(F64), y, z).astype(np.float16), 3)


def _f16x2(c: Ctx, fn, n: int = 2):
    """Packed half2 arithmetic: both halves of a .b32 register at once."""
    srcs = [c.ops.reader(c.ins.operands[k], "b32") for k in range(1, n + 1)]
    d = c.ops.writer(c.ins.operands[0], "b32")

    def run(st, sel, m):
        R = st.R
        halves = [np.ascontiguousarray(np.atleast_1d(s(R, sel))).view(np.float16) for s in srcs]
        r = fn(*(h.astype(F32) for h in halves)).astype(np.float16)
        d(R, sel, m, np.ascontiguousarray(r).view(np.uint32))
    return run


def div_rem(c: Ctx):
    t = c.need_type(INTS + FLOATS)
    if is_float(t):
        if c.ins.opcode == "rem":
            raise c.unsupported()
        mode = next((r for r in ROUNDING if r in c.mods), "rn")
        if mode != "rn" and "full" not in c.mods and "approx" not in c.mods:
            if t != "f32":
                raise c.unsupported("directed rounding is supported for .f32 only")
            return _binary(c, _float_post(c, lambda a, b: fp.directed(np.divide, a, b, mode, F32)))
        return _binary(c, _float_post(c, np.divide))
    want_rem = c.ins.opcode == "rem"
    return _binary(c, lambda a, b: int_divmod(a, b)[1 if want_rem else 0])


def int_divmod(a, b):
    """C division: quotient truncated toward zero, remainder with the dividend's sign."""
    a, b = np.asarray(a), np.asarray(b)
    zero = b == 0
    b1 = np.where(zero, 1, b).astype(a.dtype)
    q = a // b1
    r = a - q * b1
    if a.dtype.kind == "i":
        fix = (r != 0) & ((a < 0) != (b1 < 0))      # floor differs from truncation
        q = np.where(fix, q + 1, q).astype(a.dtype)
        r = np.where(fix, r - b1, r).astype(a.dtype)
    ones = np.array(-1, np.int64).astype(a.dtype)          # all bits set
    q = np.where(zero, ones, q).astype(a.dtype)
    r = np.where(zero, a, r).astype(a.dtype)
    return q, r


def abs_neg(c: Ctx):
    t = c.need_type(("s8", "s16", "s32", "s64") + FLOATS + ("f16x2",))
    neg = c.ins.opcode == "neg"
    if t == "f16x2":
        return _f16x2(c, np.negative if neg else np.abs, 1)
    if is_float(t):
        return _unary(c, _float_post(c, np.negative if neg else np.abs))
    return _unary(c, np.negative if neg else np.abs)


def min_max(c: Ctx):
    t = c.need_type(INTS + FLOATS + ("f16x2",))
    is_min = c.ins.opcode == "min"
    if t == "f16x2":
        return _f16x2(c, np.fmin if is_min else np.fmax)
    if is_float(t):
        if "NaN" in c.mods:
            return _binary(c, _float_post(c, np.minimum if is_min else np.maximum))
        return _binary(c, _float_post(c, np.fmin if is_min else np.fmax))
    return _binary(c, np.minimum if is_min else np.maximum)


# -- logic, shifts, bits -------------------------------------------------------------------
def logic(c: Ctx):
    t = c.need_type(("pred", "b16", "b32", "b64", "u16", "u32", "u64", "s16", "s32", "s64"))
    fn = {"and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}[c.ins.opcode]
    return _binary(c, fn)


def not_(c: Ctx):
    t = c.need_type(("pred", "b16", "b32", "b64", "u16", "u32", "u64", "s16", "s32", "s64"))
    if c.ins.opcode == "cnot":
        return _unary(c, lambda a: (a == 0).astype(DTYPE[t]))
    return _unary(c, np.invert if t != "pred" else np.logical_not)


def shift(c: Ctx):
    t = c.need_type(("b16", "b32", "b64", "u16", "u32", "u64", "s16", "s32", "s64"))
    dt = DTYPE[t]
    width = dt.itemsize * 8
    left = c.ins.opcode == "shl"
    a, b, d = c.rd(1), c.rd(2, "u32"), c.wr(0)
    arith = c.ins.opcode == "shr" and t[0] == "s"

    def run(st, sel, m):
        R = st.R
        x = np.asarray(a(R, sel))
        n = np.minimum(np.asarray(b(R, sel)), width).astype(np.uint32)
        big = n >= width
        k = np.where(big, 0, n).astype(dt)
        if left:
            r = np.where(big, 0, x << k)
        elif arith:
            r = np.where(big, np.where(x < 0, -1, 0), x >> k)
        else:
            r = np.where(big, 0, x >> k)
        d(R, sel, m, np.asarray(r).astype(dt))
    return run


def _bit_length(x):
    """Number of significant bits of unsigned values (0 for 0), exact for 64-bit."""
    x = np.asarray(x)
    if x.dtype.itemsize <= 4:
        return np.frexp(x.astype(F64))[1].astype(np.int64)
    hi = (x >> np.uint64(32)).astype(F64)
    lo = (x & np.uint64(0xFFFFFFFF)).astype(F64)
    return np.where(hi > 0, np.frexp(hi)[1] + 32, np.frexp(lo)[1]).astype(np.int64)


def bits(c: Ctx):
    op = c.ins.opcode
    t = c.need_type(("b32", "b64", "u32", "u64", "s32", "s64"))
    dt = DTYPE[t]
    width = dt.itemsize * 8
    ut = UNSIGNED[dt.itemsize]
    if op == "popc":
        return _unary(c, lambda a: np.bitwise_count(np.asarray(a).view(ut)).astype(np.uint32), t_out="u32")
    if op == "clz":
        return _unary(c, lambda a: (width - _bit_length(np.asarray(a).view(ut))).astype(np.uint32),
                      t_out="u32")
    if op == "brev":
        return _unary(c, lambda a: _brev(np.asarray(a).view(ut)).view(dt))
    if op == "bfind":
        shiftamt = "shiftamt" in c.mods

        def fn(a):
            a = np.asarray(a)
            x = np.where(a < 0, ~a, a).view(ut) if t[0] == "s" else a.view(ut)
            pos = _bit_length(x) - 1
            if shiftamt:
                pos = np.where(pos >= 0, width - 1 - pos, -1)
            return np.asarray(pos).astype(np.int64).astype(np.uint32)
        return _unary(c, fn, t_out="u32")
    raise c.unsupported()


_REV8 = np.array([int(f"{i:08b}"[::-1], 2) for i in range(256)], np.uint8)


def _brev(x):
    b = np.ascontiguousarray(np.atleast_1d(x)).view(np.uint8).reshape(-1, x.dtype.itemsize)
    return np.ascontiguousarray(_REV8[b][:, ::-1]).view(x.dtype).reshape(np.shape(x))


def bfe(c: Ctx):
    t = c.need_type(("u32", "u64", "s32", "s64"))
    dt = DTYPE[t]
    width = dt.itemsize * 8
    ut = UNSIGNED[dt.itemsize]
    a, b, l_, d = c.rd(1), c.rd(2, "u32"), c.rd(3, "u32"), c.wr(0)
    signed = t[0] == "s"

    def run(st, sel, m):
        R = st.R
        x = np.asarray(a(R, sel)).view(ut).astype(np.uint64) if np.ndim(a(R, sel)) else \
            np.uint64(np.asarray(a(R, sel)).view(ut))
        pos = (np.asarray(b(R, sel)) & 0xFF).astype(np.uint64)
        ln = (np.asarray(l_(R, sel)) & 0xFF).astype(np.uint64)
        pos_c = np.minimum(pos, width)
        field = np.where(pos_c >= 64, np.uint64(0), x >> np.minimum(pos_c, 63))
        ln_c = np.minimum(ln, width)
        keep = np.where(ln_c >= 64, ~np.uint64(0), (np.uint64(1) << np.minimum(ln_c, 63)) - np.uint64(1))
        r = field & keep
        if signed:
            msb = np.minimum(pos + ln - 1, width - 1).astype(np.uint64)
            sbit = np.where((ln == 0), 0, (x >> msb) & np.uint64(1))
            ext = (ln_c < width) & (sbit == 1) & (ln != 0)
            r = np.where(ext, r | ~keep, r)
        r = np.where(ln == 0, np.uint64(0), r)
        d(R, sel, m, np.asarray(r).astype(ut).view(dt))
    return run


def bfi(c: Ctx):
    t = c.need_type(("b32", "b64"))
    dt = DTYPE[t]
    width = dt.itemsize * 8
    a, b, p, l_, d = c.rd(1), c.rd(2), c.rd(3, "u32"), c.rd(4, "u32"), c.wr(0)

    def run(st, sel, m):
        R = st.R
        x = np.asarray(a(R, sel)).astype(np.uint64)
        y = np.asarray(b(R, sel)).astype(np.uint64)
        pos = (np.asarray(p(R, sel)) & 0xFF).astype(np.uint64)
        ln = (np.asarray(l_(R, sel)) & 0xFF).astype(np.uint64)
        ln = np.minimum(ln, np.maximum(0, width - np.minimum(pos, width).astype(np.int64))).astype(np.uint64)
        keep = np.where(ln >= 64, ~np.uint64(0), (np.uint64(1) << np.minimum(ln, 63)) - np.uint64(1))
        sh = np.minimum(pos, 63)
        r = np.where(pos >= width, y, (y & ~(keep << sh)) | ((x & keep) << sh))
        d(R, sel, m, np.asarray(r).astype(dt))
    return run


def prmt(c: Ctx):
    if set(c.mods) - {"b32"}:
        raise c.unsupported("prmt modes other than the default")
    a, b, s, d = c.rd(1, "b32"), c.rd(2, "b32"), c.rd(3, "b32"), c.wr(0, "b32")

    def run(st, sel, m):
        R = st.R
        x, y, z = (np.atleast_1d(np.asarray(f(R, sel))) for f in (a, b, s))
        n = max(len(x), len(y), len(z))
        src = np.stack([np.broadcast_to(x, n), np.broadcast_to(y, n)], 1).astype(np.uint32)
        bytes8 = np.ascontiguousarray(src).view(np.uint8).reshape(n, 8)
        z = np.broadcast_to(z, n)
        out = np.zeros(n, np.uint32)
        for k in range(4):
            nib = (z >> (4 * k)) & 0xF
            byte = bytes8[np.arange(n), nib & 7].astype(np.uint32)
            sign = (nib & 8) != 0
            byte = np.where(sign, np.where(byte & 0x80, 0xFF, 0), byte)
            out |= byte.astype(np.uint32) << (8 * k)
        d(R, sel, m, out if np.ndim(x) else out[0])
    return run


def shf(c: Ctx):
    left = "l" in c.mods
    wrap = "wrap" in c.mods
    a, b, s, d = c.rd(1, "b32"), c.rd(2, "b32"), c.rd(3, "u32"), c.wr(0, "b32")

    def run(st, sel, m):
        R = st.R
        lo = np.asarray(a(R, sel)).astype(np.uint64)
        hi = np.asarray(b(R, sel)).astype(np.uint64)
        n = np.asarray(s(R, sel)).astype(np.uint64)
        n = n & np.uint64(31) if wrap else np.minimum(n, 32)
        both = (hi << np.uint64(32)) | lo
        r = (both << n) >> np.uint64(32) if left else both >> n
        d(R, sel, m, (np.asarray(r) & np.uint64(0xFFFFFFFF)).astype(np.uint32))
    return run


def lop3(c: Ctx):
    a, b, x, lut_op, d = c.rd(1, "b32"), c.rd(2, "b32"), c.rd(3, "b32"), c.ins.operands[4], c.wr(0, "b32")
    lut = int(lut_op.value)

    def fn(p, q, r):
        out = np.zeros(np.broadcast(p, q, r).shape, np.uint32)
        for i in range(8):
            if lut >> i & 1:
                out |= (p if i & 4 else ~p) & (q if i & 2 else ~q) & (r if i & 1 else ~r)
        return out

    def run(st, sel, m):
        R = st.R
        d(R, sel, m, fn(np.uint32(0) | a(R, sel), np.uint32(0) | b(R, sel), np.uint32(0) | x(R, sel)))
    return run
