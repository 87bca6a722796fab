"""Warp-wide instructions: shfl.sync, vote.sync, match.sync, activemask, redux.sync.

A batch holds whole warps, so its lanes reshape to (warps, 32). A lane reading from a lane that
is not active gets that lane's register as it stands (the hardware leaves it undefined); the
``membermask`` operand is read but not checked against the active mask.
"""

from __future__ import annotations

import numpy as np

from .alu import Ctx
from .syntax import SINK, Pair
from .values import DTYPE, type_of

LANES = np.arange(32, dtype=np.uint32)
_BITS = (np.uint32(1) << LANES).astype(np.uint32)


def _mask_rows(m, n: int) -> np.ndarray:
    return np.ones((n // 32, 32), bool) if m is None else np.asarray(m).reshape(-1, 32)


def ballot(rows: np.ndarray) -> np.ndarray:
    """(warps, 32) bools → one uint32 per warp (lane i = bit i)."""
    return np.packbits(rows, axis=1, bitorder="little").view(np.uint32).reshape(-1)


def shfl(c: Ctx):
    mode = next((x for x in c.ins.mods if x in ("up", "down", "bfly", "idx")), None)
    if mode is None:
        raise c.unsupported("shfl mode")
    dst = c.ins.operands[0]
    d = c.ops.writer(dst.first if isinstance(dst, Pair) else dst, "b32")
    p = c.ops.writer(dst.second, "pred") if isinstance(dst, Pair) and dst.second != SINK else None
    a, b, cc = (c.ops.reader(c.ins.operands[k], t) for k, t in ((1, "b32"), (2, "u32"), (3, "u32")))

    def run(st, sel, m):
        R = st.R
        n = st.batch_len(sel)
        src = np.broadcast_to(a(R, sel), (n,)).reshape(-1, 32)
        bval = np.broadcast_to(b(R, sel), (n,)).reshape(-1, 32) & 0x1F
        cval = np.broadcast_to(cc(R, sel), (n,)).reshape(-1, 32)
        clamp, seg = cval & 0x1F, (cval >> 8) & 0x1F
        lane = LANES[None, :]
        max_lane = (lane & seg) | (clamp & ~seg)
        min_lane = lane & seg
        if mode == "up":
            j = lane.astype(np.int64) - bval
            ok = j >= max_lane
        elif mode == "down":
            j = lane.astype(np.int64) + bval
            ok = j <= max_lane
        elif mode == "bfly":
            j = (lane ^ bval).astype(np.int64)
            ok = j <= max_lane
        else:
            j = (min_lane | (bval & ~seg)).astype(np.int64)
            ok = j <= max_lane
        j = np.where(ok, j, lane).astype(np.int64)
        out = np.take_along_axis(src, j, 1).reshape(n)
        d(R, sel, m, out)
        if p is not None:
            p(R, sel, m, ok.reshape(n))
    return run


def vote(c: Ctx):
    mode = next((x for x in c.ins.mods if x in ("all", "any", "uni", "ballot")), None)
    if mode is None:
        raise c.unsupported("vote mode")
    t = "b32" if mode == "ballot" else "pred"
    a = c.rd(1, "pred")
    d = c.wr(0, t)

    def run(st, sel, m):
        R = st.R
        n = st.batch_len(sel)
        rows = _mask_rows(m, n)
        v = np.broadcast_to(a(R, sel), (n,)).reshape(-1, 32) & rows
        if mode == "ballot":
            out = np.repeat(ballot(v), 32)
        elif mode == "all":
            out = np.repeat((v == rows).all(1), 32)
        elif mode == "any":
            out = np.repeat(v.any(1), 32)
        else:
            out = np.repeat(((v == rows).all(1)) | ~v.any(1), 32)
        d(R, sel, m, out)
    return run


def activemask(c: Ctx):
    d = c.wr(0, "b32")

    def run(st, sel, m):
        n = st.batch_len(sel)
        d(st.R, sel, m, np.repeat(ballot(_mask_rows(m, n)), 32))
    return run


def match(c: Ctx):
    mode = next((x for x in c.ins.mods if x in ("any", "all")), None)
    t = type_of(c.ins.mods)
    if mode is None or t not in ("b32", "b64"):
        raise c.unsupported("match mode or type")
    dst = c.ins.operands[0]
    d = c.ops.writer(dst.first if isinstance(dst, Pair) else dst, "b32")
    p = c.ops.writer(dst.second, "pred") if isinstance(dst, Pair) and dst.second != SINK else None
    a = c.rd(1, t)

    def run(st, sel, m):
        R = st.R
        n = st.batch_len(sel)
        rows = _mask_rows(m, n)
        v = np.broadcast_to(a(R, sel), (n,)).reshape(-1, 32)
        same = (v[:, :, None] == v[:, None, :]) & rows[:, None, :] & rows[:, :, None]
        masks = (same.astype(np.uint32) * _BITS[None, None, :]).sum(2, dtype=np.uint32)
        if mode == "any":
            d(R, sel, m, masks.reshape(n))
            return
        full = np.repeat(ballot(rows), 32).reshape(-1, 32)
        allsame = (masks == full).all(1, where=rows)
        d(R, sel, m, np.where(allsame[:, None], full, 0).astype(np.uint32).reshape(n))
        if p is not None:
            p(R, sel, m, np.repeat(allsame, 32))
    return run


_REDUX = {"add": np.add, "min": np.minimum, "max": np.maximum, "and": np.bitwise_and,
          "or": np.bitwise_or, "xor": np.bitwise_xor}


def redux(c: Ctx):
    op = next((x for x in c.ins.mods if x in _REDUX), None)
    t = type_of(c.ins.mods)
    if op is None or t not in ("u32", "s32", "b32"):
        raise c.unsupported("redux operation or type")
    a, d = c.rd(1, t), c.wr(0, t)
    fn = _REDUX[op]
    ident = {"add": 0, "or": 0, "xor": 0, "and": -1,
             "min": np.iinfo(DTYPE[t]).max, "max": np.iinfo(DTYPE[t]).min}[op]

    def run(st, sel, m):
        R = st.R
        n = st.batch_len(sel)
        rows = _mask_rows(m, n)
        v = np.broadcast_to(a(R, sel), (n,)).reshape(-1, 32)
        v = np.where(rows, v, np.array(ident).astype(DTYPE[t]))
        d(R, sel, m, np.repeat(fn.reduce(v, axis=1, dtype=DTYPE[t]), 32))
    return run
