"""Loads, stores and atomics on every state space (global, shared, local, const, param and
generic addresses), scalar and vector (.v2/.v4), every width.

Each builder returns ``run(st, sel, m) -> timing addresses`` (one per lane of the batch, what
the timing model's coalescer sees). Accesses are checked: outside every allocation, beyond a
CTA's shared memory or a thread's local memory, or misaligned → ``MemoryFault`` naming the
kernel, the PTX line, the thread and the address.

Atomics of one executed instruction apply in ascending thread order (CTA launch order, then
thread id): lanes with distinct addresses at once, lanes sharing an address one after another
in that order (integer add by prefix sums, the other operations by an ordered accumulation).
Several lanes storing to one address: the highest thread's value stays.
"""

from __future__ import annotations

import numpy as np

from .alu import Ctx
from .errors import UnsupportedError
from .memory import (CONST_WINDOW, LOCAL_PHYSICAL, LOCAL_WINDOW, SHARED_WINDOW,
                     WINDOW_SIZE)
from .ir import TYPES, Addr, Reg, Sym, Vec
from .values import DTYPE, UNSIGNED, type_of

SPACES = ("global", "shared", "local", "const", "param")


class Symbols:
    """Where each variable of a kernel lives: name → (space, address in that space)."""

    def __init__(self) -> None:
        self.at: dict[str, tuple[str, int]] = {}

    def address(self, name: str) -> tuple[str, int] | None:
        return self.at.get(name)


def _space(c: Ctx) -> str:
    return next((x for x in c.ins.mods if x in SPACES), "generic")


def _address(c: Ctx, syms: Symbols, k: int):
    """(space override, address function ``(R, sel) -> uint64 array | int``) of operand k."""
    op = c.ins.operands[k]
    if not isinstance(op, Addr):
        raise c.unsupported("expected an address operand [x+offset]")
    off = op.offset
    if op.base is None:
        return None, lambda R, sel: np.uint64(off)
    if isinstance(op.base, Sym):
        loc = syms.address(op.base.name)
        if loc is None:
            raise c.unsupported(f"unknown variable '{op.base.name}'")
        space, base = loc
        v = np.uint64(base + off)
        return space, lambda R, sel: v
    t = c.ops.types.get(op.base.name, "u64")
    width = TYPES.get(t, 8)
    read = c.ops.reader(op.base, "u64" if width == 8 else "u32")
    if width == 8:
        o = np.uint64(off & (2**64 - 1))
        return None, lambda R, sel: np.asarray(read(R, sel)).astype(np.uint64) + o
    # a 32-bit base register: the address arithmetic is 32-bit, so [%r+36] with %r = -32 is 4
    # (nvcc folds unrolled offsets into immediates and leaves "negative" bases in registers)
    o32, mask = np.uint64(off & 0xFFFFFFFF), np.uint64(0xFFFFFFFF)
    return None, lambda R, sel: (np.asarray(read(R, sel)).astype(np.uint64) + o32) & mask


class Access:
    """Resolves a batch's lane addresses in one space to byte offsets of a buffer."""

    def __init__(self, c: Ctx, space: str, width: int, kernel: str, write: bool = False):
        self.c, self.space, self.width, self.kernel = c, space, width, kernel
        self.write = write

    def fail(self, st, sel, lane: int, addr: int, what: str):
        return st.fault(self.c, sel, lane, addr, what)

    def locate(self, st, sel, addrs):
        """Every lane of ``sel`` accesses ``addrs`` → list of (buffer views, byte offsets, lane
        positions (None: all), timing addresses) groups, one per state space."""
        w = self.width
        if w > 1:
            bad = (addrs & np.uint64(min(w, 16) - 1)) != 0
            if bad.any():
                j = int(np.argmax(bad))
                raise self.fail(st, sel, j, int(addrs[j]), f"misaligned {w}-byte access")
        space = self.space
        if space != "generic":
            return [self._one(st, sel, None, addrs, space, explicit=True)]
        groups = []
        kinds = np.full(len(addrs), 0, np.int8)
        kinds[(addrs >= SHARED_WINDOW) & (addrs < SHARED_WINDOW + WINDOW_SIZE)] = 1
        kinds[(addrs >= LOCAL_WINDOW) & (addrs < LOCAL_WINDOW + WINDOW_SIZE)] = 2
        kinds[(addrs >= CONST_WINDOW) & (addrs < CONST_WINDOW + WINDOW_SIZE)] = 3
        for kind, name, base in ((0, "global", 0), (1, "shared", SHARED_WINDOW),
                                 (2, "local", LOCAL_WINDOW), (3, "const", CONST_WINDOW)):
            pos = np.nonzero(kinds == kind)[0]
            if len(pos) == len(addrs):
                return [self._one(st, sel, None, addrs - np.uint64(base), name)]
            if len(pos):
                groups.append(self._one(st, sel, pos, addrs[pos] - np.uint64(base), name))
        return groups

    def _one(self, st, sel, pos, addrs, space, explicit=False):
        """One space's lanes (``pos`` of ``sel``, None: all) → (views, offsets, pos, timing).
        Timing addresses of an ``explicit`` local access (LDL/STL) are the threads' own local
        addresses, as the NVBit tracer records them (the timing model places them); a generic
        access that lands in local memory is recorded at its physical address."""
        w = self.width
        lanes = slice(None) if pos is None else pos
        if space == "global":
            offs, badlane = st.mem.check(addrs, w, self.write)
            if offs is None:
                a = int(addrs[badlane])
                raise self.fail(st, sel, badlane if pos is None else int(pos[badlane]), a,
                                f"{w}-byte global access outside every allocation")
            return st.mem.views, offs, pos, addrs
        if space == "shared":
            limit = st.smem_size
            buf = st.shared_views
            rows = st.cta_of(sel)[lanes].astype(np.int64) * st.smem_stride
            timing = addrs + np.uint64(SHARED_WINDOW)
        elif space in ("local", "param"):
            limit = st.local_size
            buf = st.local_views
            rows = st.lane_thread(sel)[lanes].astype(np.int64) * st.local_stride
            if explicit:
                timing = addrs
            else:
                g = st.global_thread(sel)[lanes].astype(np.uint64)
                timing = np.uint64(LOCAL_PHYSICAL) + ((addrs >> np.uint64(2)) * np.uint64(st.grid_threads)
                                                      + g) * np.uint64(4) + (addrs & np.uint64(3))
        elif space == "const":
            limit = st.const_size
            buf = st.const_views
            rows = np.zeros(len(addrs), np.int64)
            timing = addrs + np.uint64(CONST_WINDOW)
        else:
            raise self.c.unsupported(f"{space} space")
        over = addrs + np.uint64(w) > np.uint64(limit)
        if over.any():
            j = int(np.argmax(over))
            raise self.fail(st, sel, j if pos is None else int(pos[j]), int(addrs[j]),
                            f"{w}-byte {space} access beyond the {limit} bytes of {space} memory")
        return buf, rows + addrs.astype(np.int64), pos, timing


def _lanes(v, n: int):
    """A reader's value for the n lanes: arrays as they are, a scalar repeated."""
    return v if np.ndim(v) else np.full(n, v)


def load(c: Ctx, syms: Symbols, kernel: str):
    t = c.t
    if t is None:
        raise c.unsupported("load without a type")
    vec = 4 if "v4" in c.mods else 2 if "v2" in c.mods else 1
    size = DTYPE[t].itemsize
    space = _space(c)
    dsts = c.ins.operands[0].items if isinstance(c.ins.operands[0], Vec) else (c.ins.operands[0],)
    if len(dsts) != vec:
        raise c.unsupported("vector width and destination count differ")
    writes = [None if not isinstance(x, Reg) else c.ops.writer(x, t) for x in dsts]
    override, addr_of = _address(c, syms, 1)
    if override == "kparam":
        return _param_load(c, addr_of, writes, t, vec)
    acc = Access(c, override or space, size * vec, kernel)
    ut = UNSIGNED[size]

    def run(st, sel, m):          # every lane of sel is active (the executor compacts)
        R = st.R
        n = st.batch_len(sel)
        addrs = _lanes(addr_of(R, sel), n).astype(np.uint64, copy=False)
        groups = acc.locate(st, sel, addrs)
        if len(groups) == 1 and groups[0][2] is None:
            views, offs, _, timing = groups[0]
            view = views[size]
            vals = [view[(offs + k * size) // size] for k in range(vec)]
        else:
            timing = np.zeros(n, np.uint64)
            vals = [np.zeros(n, ut) for _ in range(vec)]
            for views, offs, pos, tm in groups:
                timing[pos] = tm
                for k in range(vec):
                    vals[k][pos] = views[size][(offs + k * size) // size]
        for k, w in enumerate(writes):
            if w is not None:
                w(R, sel, None, vals[k].view(DTYPE[t]))
        return timing
    return run


def _param_load(c: Ctx, addr_of, writes, t: str, vec: int):
    size = DTYPE[t].itemsize

    def run(st, sel, m):
        R = st.R
        off = int(addr_of(R, sel))
        for k, w in enumerate(writes):
            raw = st.params[off + k * size: off + (k + 1) * size]
            if len(raw) != size:
                raise c.unsupported("parameter read beyond the parameter list")
            w(R, sel, m, np.frombuffer(raw.tobytes(), DTYPE[t])[0])
        return None
    return run


def store(c: Ctx, syms: Symbols, kernel: str):
    t = c.t
    if t is None:
        raise c.unsupported("store without a type")
    vec = 4 if "v4" in c.mods else 2 if "v2" in c.mods else 1
    size = DTYPE[t].itemsize
    srcs = c.ins.operands[1].items if isinstance(c.ins.operands[1], Vec) else (c.ins.operands[1],)
    if len(srcs) != vec:
        raise c.unsupported("vector width and source count differ")
    reads = [c.ops.reader(x, t) for x in srcs]
    override, addr_of = _address(c, syms, 0)
    if override == "kparam":
        raise c.unsupported("stores to kernel parameters")
    acc = Access(c, override or _space(c), size * vec, kernel, write=True)
    ut = UNSIGNED[size]

    def run(st, sel, m):          # every lane of sel is active (the executor compacts)
        R = st.R
        n = st.batch_len(sel)
        addrs = _lanes(addr_of(R, sel), n).astype(np.uint64, copy=False)
        vals = [_lanes(np.asarray(r(R, sel), DTYPE[t]), n).view(ut) for r in reads]
        groups = acc.locate(st, sel, addrs)
        if len(groups) == 1 and groups[0][2] is None:
            views, offs, _, timing = groups[0]
            for k in range(vec):
                views[size][(offs + k * size) // size] = vals[k]
            return timing
        timing = np.zeros(n, np.uint64)
        for views, offs, pos, tm in groups:
            timing[pos] = tm
            for k in range(vec):
                views[size][(offs + k * size) // size] = vals[k][pos]
        return timing
    return run


# -- atomics ----------------------------------------------------------------------------------
_ACCUMULATE = {"add": np.add, "min": np.minimum, "max": np.maximum, "and": np.bitwise_and,
               "or": np.bitwise_or, "xor": np.bitwise_xor}
ATOMIC_OPS = ("add", "min", "max", "inc", "dec", "and", "or", "xor", "exch", "cas")


def _combine(op: str, old, b, c=None):
    if op in _ACCUMULATE:
        return _ACCUMULATE[op](old, b)
    if op == "exch":
        return b
    if op == "cas":
        return np.where(old == b, c, old)
    if op == "inc":
        return np.where(old >= b, 0, old + 1).astype(old.dtype)
    if op == "dec":
        return np.where((old == 0) | (old > b), b, old - 1).astype(old.dtype)
    raise ValueError(op)


def apply_atomic(view, idx, op: str, b, c=None):
    """Apply ``op`` at ``view[idx]`` lane by lane in order; return the old values."""
    uniq, first, counts = np.unique(idx, return_index=True, return_counts=True)
    if len(uniq) == len(idx):                       # no two lanes share an address
        old = view[idx]
        view[idx] = _combine(op, old, b, c)
        return old
    if op == "add" and view.dtype.kind in "iu":      # prefix sums, wrapping in the type
        order = np.argsort(idx, kind="stable")
        sv = b[order]
        incl = np.cumsum(sv, dtype=view.dtype)
        excl = incl - sv
        group = np.searchsorted(uniq, idx[order])
        starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
        base = excl[starts]
        old_sorted = view[idx[order]] + (excl - base[group])
        view[uniq] = view[uniq] + (incl[starts + counts - 1] - base)
        old = np.empty_like(old_sorted)
        old[order] = old_sorted
        return old
    old = np.empty(len(idx), view.dtype)
    for lane in range(len(idx)):                    # ordered, one lane at a time
        i = idx[lane]
        o = view[i]
        old[lane] = o
        view[i] = _combine(op, np.asarray(o), b[lane], None if c is None else c[lane])
    return old


def atomic(c: Ctx, syms: Symbols, kernel: str):
    red = c.ins.opcode == "red"
    op = next((x for x in c.ins.mods if x in ATOMIC_OPS), None)
    t = c.t
    if op is None or t is None:
        raise c.unsupported("atomic without an operation or type")
    if t in ("f16", "f16x2", "bf16", "bf16x2") or (t in ("f32", "f64") and op not in ("add", "exch")):
        raise c.unsupported(f"atomic .{op} on .{t}")
    if any(x in c.mods for x in ("v2", "v4", "v8")):
        raise c.unsupported("vector atomics")
    size = DTYPE[t].itemsize
    k0 = 0 if red else 1
    override, addr_of = _address(c, syms, k0)
    b = c.ops.reader(c.ins.operands[k0 + 1], t)
    x = c.ops.reader(c.ins.operands[k0 + 2], t) if op == "cas" else None
    d = None if red else c.ops.writer(c.ins.operands[0], t)
    acc = Access(c, override or _space(c), size, kernel, write=True)
    dt = DTYPE[t]

    def run(st, sel, m):          # every lane of sel is active (the executor compacts)
        R = st.R
        n = st.batch_len(sel)
        addrs = _lanes(addr_of(R, sel), n).astype(np.uint64, copy=False)
        bv = _lanes(b(R, sel), n)
        xv = _lanes(x(R, sel), n) if x is not None else None
        timing = np.zeros(n, np.uint64)
        old = np.zeros(n, dt)
        for views, offs, pos, tm in acc.locate(st, sel, addrs):
            lanes = slice(None) if pos is None else pos
            timing[lanes] = tm
            view = views[size].view(dt)
            old[lanes] = apply_atomic(view, offs // size, op, bv[lanes],
                                      None if xv is None else xv[lanes])
        if d is not None:
            d(R, sel, None, old)
        return timing
    return run


__all__ = ["Symbols", "load", "store", "atomic", "apply_atomic", "UnsupportedError", "type_of"]
