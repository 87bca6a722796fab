"""Logic, shift and bit-manipulation instructions: and/or/xor/not/cnot, shl/shr, popc, clz, brev,
bfind, bfe, bfi, prmt, shf, lop3 (semantics of the PTX ISA; shift counts at or above the width
give 0, or the sign for arithmetic right shifts)."""

from __future__ import annotations

import numpy as np

from .alu import Ctx, _binary, _unary
from .values import DTYPE, UNSIGNED

F64 = np.float64


def logic(c: Ctx):
    c.need_type(("pred", "b16", "b32", "b64", "u16", "u32", "u64", "s16", "s32", "s64"))
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


def bit_scan(c: Ctx):
    """popc, clz, brev, bfind."""
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
