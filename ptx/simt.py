"""SIMT execution of one launch: CTAs in launch order, in chunks run together; inside a chunk,
warps whose top SIMT-stack entry is the same (pc, reconvergence pc) form one batch and execute
each instruction with one numpy operation over all their lanes.

Each warp follows GPGPU-Sim's SIMT stack: entries (pc, reconvergence pc, active lanes). A branch
that splits a warp's lanes turns its top entry into the reconvergence entry (pc = the branch's
immediate post-dominator; replaced instead when that equals the entry's own reconvergence pc)
and pushes the taken path, then the fall-through path, which runs first; an entry pops when its
pc reaches its reconvergence pc; ``exit`` removes lanes from every entry. Only the top entry
decides what a warp executes, so a batch holds warps whose lower entries differ; they part when
they pop. The batch with the lowest PC runs first, and a batch stops where another with the same
reconvergence pc waits, so laggards catch up and merge.

Barriers count threads: ``bar.sync 0`` waits until every thread of the CTA that has not exited
has arrived. A barrier that can never complete (some threads never reach it) is a
``PTXDeadlock`` naming the CTA. Chunks hold ``CHUNK_THREADS`` threads (at least one CTA): the
order of atomics, and so every result, depends only on the launch.
"""

from __future__ import annotations

import numpy as np

from .errors import ExecutionLimit, PTXDeadlock
from .kernel import BRA, EXIT, MEM, NOP, OP, Program
from .record import Recorder
from .state import ChunkState
from .warp import ballot

CHUNK_THREADS = 8192
DEFAULT_BUDGET = 1 << 34          # warp instructions per launch before ExecutionLimit
_LANE_BITS = np.arange(32, dtype=np.uint32)
_LANES = np.arange(32, dtype=np.int64)


def rows_of(masks) -> np.ndarray:
    """uint32 lane masks → (warps × 32) bools, flattened."""
    m = np.asarray(masks, np.uint32)
    return ((m[:, None] >> _LANE_BITS) & 1).astype(bool).reshape(-1)


class Batch:
    """Warps with the same top entry (pc, rpc); ``lanes``: the top entry's lanes."""
    __slots__ = ("warps", "sel", "pc", "rpc", "lanes", "bar", "view")

    def __init__(self, warps: np.ndarray, pc: int, rpc: int, lanes: np.ndarray):
        self.warps, self.pc, self.rpc, self.lanes = warps, pc, rpc, lanes
        self.bar = -1                # the barrier id it waits at, -1 when runnable
        self.view = None             # (lanes, m, idx, act, wmask) while lanes stays the same
        w0, w1 = int(warps[0]), int(warps[-1])
        if w1 - w0 + 1 == len(warps):
            self.sel = slice(32 * w0, 32 * (w1 + 1))
        else:
            self.sel = (warps[:, None] * 32 + _LANES).reshape(-1)

    def subset(self, pos: np.ndarray, pc: int | None = None) -> "Batch":
        b = Batch(self.warps[pos], self.pc if pc is None else pc, self.rpc,
                  self.lanes.reshape(-1, 32)[pos].reshape(-1))
        b.bar = self.bar
        return b


def merge(a: Batch, b: Batch) -> Batch:
    warps = np.concatenate([a.warps, b.warps])
    order = np.argsort(warps, kind="stable")
    lanes = np.concatenate([a.lanes.reshape(-1, 32), b.lanes.reshape(-1, 32)])[order].reshape(-1)
    out = Batch(warps[order], a.pc, a.rpc, lanes)
    out.bar = a.bar
    return out


class Launch:
    """Executes ``prog`` over a grid, chunk by chunk, feeding the recorder's streams to ``sink``."""

    def __init__(self, prog: Program, grid, block, shared_dynamic: int, params: np.ndarray,
                 mem, const_bank: np.ndarray, sink=None, budget: int = DEFAULT_BUDGET,
                 progress=None, launch_index: int = 0):
        self.prog, self.grid, self.block = prog, grid, block
        self.shared_dynamic, self.params, self.mem, self.const = shared_dynamic, params, mem, const_bank
        self.sink, self.budget, self.progress = sink, budget, progress
        self.launch_index = launch_index
        self.tpc = block[0] * block[1] * block[2]
        self.wpc = -(-self.tpc // 32)
        self.n_ctas = grid[0] * grid[1] * grid[2]
        self.insts = 0
        self.code = prog.entries
        self.end = len(self.code)
        self.mem_static = [s.width > 0 for s in prog.statics]

    def run(self) -> int:
        """Execute every CTA; the number of warp instructions recorded (those the trace holds:
        instructions ptxas would elide execute but are not counted)."""
        per = max(1, CHUNK_THREADS // (32 * self.wpc))
        done = recorded = 0
        while done < self.n_ctas:
            n = min(per, self.n_ctas - done)
            st = ChunkState(self, done, n)
            rec = Recorder(done, self.wpc, n * self.wpc)
            self._chunk(st, rec)
            if self.sink is not None:
                self.sink.chunk(rec.streams())
            recorded += rec.count
            done += n
            if self.progress is not None:
                self.progress(done, self.n_ctas, recorded)
        return recorded

    # -- one chunk --------------------------------------------------------------------------
    def _chunk(self, st: ChunkState, rec: Recorder) -> None:
        self.lower: list[list[tuple[int, int, int]]] = [[] for _ in range(st.n_warps)]
        self.ready: dict[tuple[int, int], Batch] = {}
        self.parked: dict[tuple[int, int, int], Batch] = {}
        self._add(Batch(np.arange(st.n_warps), 0, self.end, st.valid.copy()))
        while self.ready or self.parked:
            if not self.ready:
                self._release(st)
                continue
            pc, rpc = min(self.ready)
            b = self.ready.pop((pc, rpc))
            self._step(st, rec, b)

    def _add(self, b: Batch) -> None:
        if b.bar >= 0:
            key3 = (b.pc, b.rpc, b.bar)
            old = self.parked.get(key3)
            self.parked[key3] = b if old is None else merge(old, b)
            return
        key = (b.pc, b.rpc)
        old = self.ready.get(key)
        self.ready[key] = b if old is None else merge(old, b)

    def _step(self, st: ChunkState, rec: Recorder, b: Batch) -> None:
        """Run ``b`` until a branch, barrier, exit, its reconvergence pc or another batch's pc.

        Instructions run on the active lanes only (``esel``: the batch's slice when every lane
        is active, else the active threads' indices), so a sparse batch costs what its active
        lanes cost and writes need no mask; warp-wide instructions see whole warps."""
        code = self.code
        rpc = b.rpc
        others = {k[0] for k in self.ready if k[1] == rpc}
        lanes = b.lanes
        sel, warps, R = b.sel, b.warps, st.R
        view = b.view
        if view is None or view[0] is not lanes:
            full = bool(lanes.all())
            idx = np.arange(sel.start, sel.stop) if isinstance(sel, slice) else sel
            view = b.view = (lanes, None if full else lanes, idx, sel if full else idx[lanes],
                             ballot(lanes.reshape(-1, 32)))
        _, m, idx, act, wmask = view
        n = len(idx)
        pc = b.pc
        start = pc
        mem_static = self.mem_static
        while True:
            if pc == rpc:
                b.pc = pc
                self._pop(b)
                return
            if pc in others and pc != start:
                b.pc = pc
                self._add(b)
                return
            e = code[pc]
            kind = e.kind
            if kind == OP or kind == MEM or kind == NOP:
                if e.guard is None:
                    em, ewm, esel = m, wmask, act
                else:
                    g = R[e.guard[0]][sel]
                    g = ~g if e.guard[1] else g
                    em = g if m is None else (g & m)
                    ewm = ballot(em.reshape(-1, 32))
                    esel = idx[em]
                if kind == OP:
                    if e.wide:
                        e.run(st, sel, em)
                    elif esel is sel or len(esel):
                        e.run(st, esel, None)
                elif kind == MEM:
                    live = esel is sel or len(esel)
                    got = e.run(st, esel, None) if live else None
                    if e.rec >= 0 and mem_static[e.rec]:
                        if em is None:
                            addrs = got
                        else:
                            addrs = np.zeros(n, np.uint64)
                            if live:
                                addrs[em] = got
                        rec.add_memory(e.rec, warps, ewm, addrs, lanes if em is None else em)
                        self.insts += len(warps)
                        pc += 1
                        continue
                if e.rec >= 0:
                    rec.add(e.rec, warps, ewm)
                self.insts += len(warps)
                pc += 1
                continue
            b.pc = pc
            self._check_budget(st)
            if e.rec >= 0:
                rec.add(e.rec, warps, wmask)
            self.insts += len(warps)
            if kind == BRA:
                self._branch(st, b, e)
            elif kind == EXIT:
                self._exit(st, b, e)
            else:
                self._barrier(st, b, e)
            return

    def _check_budget(self, st: ChunkState) -> None:
        st.insts = self.insts
        if self.insts > self.budget:
            raise ExecutionLimit(f"kernel {self.prog.name}: more than {self.budget:,} warp "
                                 "instructions without finishing (an endless loop? raise the "
                                 "budget with launch(..., budget=N))")

    def _pred(self, st, b: Batch, e) -> np.ndarray:
        g = st.R[e.guard[0]][b.sel]
        return ~g if e.guard[1] else g

    def _branch(self, st, b: Batch, e) -> None:
        lanes = b.lanes
        taken = lanes if e.guard is None else lanes & self._pred(st, b, e)
        t_rows, a_rows = taken.reshape(-1, 32), lanes.reshape(-1, 32)
        any_t = t_rows.any(1)
        all_t = (t_rows == a_rows).all(1)
        div = any_t & ~all_t
        if not div.any() and (all_t.all() or not any_t.any()):
            b.pc = e.target if all_t.all() else b.pc + 1
            self._add(b)
            return
        for pos, nxt in ((np.nonzero(all_t)[0], e.target), (np.nonzero(~any_t)[0], b.pc + 1)):
            if len(pos):
                self._add(b.subset(pos, nxt))
        pos = np.nonzero(div)[0]
        if not len(pos):
            return
        rc = e.reconv
        t_masks = ballot(t_rows[pos])
        a_masks = ballot(a_rows[pos])
        lower = self.lower
        for w, tm, am in zip(b.warps[pos].tolist(), t_masks.tolist(), a_masks.tolist()):
            stack = lower[w]
            if rc != b.rpc:
                stack.append((rc, b.rpc, am))        # the reconvergence entry
            stack.append((e.target, rc, tm))        # the taken path, run second
        nb = b.subset(pos, b.pc + 1)
        nb.rpc = rc
        nb.lanes = (a_rows[pos] & ~t_rows[pos]).reshape(-1)
        self._add(nb)

    def _pop(self, b: Batch) -> None:
        """Every warp of ``b`` reached its reconvergence pc: resume each at its next entry."""
        lower = self.lower
        groups: dict[tuple[int, int], tuple[list[int], list[int]]] = {}
        for w in b.warps.tolist():
            stack = lower[w]
            while stack:
                pc, rpc, mask = stack.pop()
                if mask:
                    g = groups.setdefault((pc, rpc), ([], []))
                    g[0].append(w)
                    g[1].append(mask)
                    break
        for (pc, rpc), (ws, masks) in groups.items():
            self._add(Batch(np.array(ws, np.int64), pc, rpc, rows_of(masks)))

    def _exit(self, st, b: Batch, e) -> None:
        lanes = b.lanes
        leaving = lanes if e.guard is None else lanes & self._pred(st, b, e)
        st.exit_lanes(b.sel, leaving)
        gone = ballot(leaving.reshape(-1, 32))
        lower = self.lower
        for w, g in zip(b.warps.tolist(), gone.tolist()):
            if g:
                lower[w] = [(p, r, mk & ~g) for p, r, mk in lower[w]]
        rest = lanes & ~leaving
        alive = rest.reshape(-1, 32).any(1)
        b.lanes = rest
        if alive.all():
            b.pc += 1
            self._add(b)
            return
        if alive.any():
            self._add(b.subset(np.nonzero(alive)[0], b.pc + 1))
        dead = np.nonzero(~alive)[0]
        self._pop(b.subset(dead))

    def _barrier(self, st, b: Batch, e) -> None:
        bid_read, cnt_read, arrive = e.bar
        bid = int(np.asarray(bid_read(st.R, b.sel)).reshape(-1)[0])
        count = None if cnt_read is None else int(np.asarray(cnt_read(st.R, b.sel)).reshape(-1)[0])
        st.arrive(b.sel, b.lanes, bid, count)
        if arrive:
            b.pc += 1
        else:
            b.bar = bid
        self._add(b)

    def _release(self, st: ChunkState) -> None:
        """Move the warps of every completed (CTA, barrier) past it; a deadlock if none."""
        done = st.completed_barriers()
        if not done:
            raise PTXDeadlock(st.deadlock_message(list(self.parked.values()), self.code))
        parked, self.parked = self.parked, {}
        for b in parked.values():
            cta = st.cta_of_warp[b.warps]
            go = np.array([(int(c), b.bar) in done for c in cta])
            if go.any():
                nb = b.subset(np.nonzero(go)[0], b.pc + 1)
                nb.bar = -1
                self._add(nb)
            if not go.all():
                self._add(b.subset(np.nonzero(~go)[0]))
        st.reset_barriers(done)
