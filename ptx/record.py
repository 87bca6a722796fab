"""What one launch's execution records, per warp: the static ids of the instructions it issued,
their 32-bit active masks and, per memory instruction, its lane addresses — compressed as
base + stride when the active lanes are evenly spaced, else listed (the forms of Accel-Sim's
trace lines). The executor adds one event per instruction a batch of warps issues; a chunk's
events are sorted into per-warp streams once, with numpy, when the chunk ends.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

LISTED = -(1 << 63)          # stride of a memory instruction whose addresses are listed


@dataclass
class WarpStreams:
    """The streams of the warps of one chunk, warp after warp (ascending CTA, warp).

    ``ctas``/``warps``: per warp; ``counts``: instructions per warp; ``sids``/``masks``: all
    instructions; ``mem_counts``: memory instructions per warp; ``bases``/``strides``: one per
    memory instruction (a listed one's base is the index of its first address in ``listed``,
    counted from the warp's first listed address); ``listed_counts``: listed addresses per warp.
    """
    ctas: np.ndarray
    warps: np.ndarray
    counts: np.ndarray
    sids: np.ndarray
    masks: np.ndarray
    mem_counts: np.ndarray
    bases: np.ndarray
    strides: np.ndarray
    listed_counts: np.ndarray
    listed: np.ndarray


PENDING_ROWS = 1 << 16      # raw address rows kept before compressing them in one go


class Recorder:
    def __init__(self, cta_first: int, warps_per_cta: int, n_warps: int):
        self.cta_first, self.wpc, self.n_warps = cta_first, warps_per_cta, n_warps
        self.sids: list[int] = []
        self.warps: list[np.ndarray] = []
        self.masks: list[np.ndarray] = []
        self.mem: list[tuple[int, tuple]] = []            # (event, compressed rows)
        self.raw: list[tuple[int, np.ndarray, np.ndarray]] = []
        self.raw_rows = 0
        self.count = 0

    def add(self, sid: int, warps: np.ndarray, masks: np.ndarray) -> None:
        self.sids.append(sid)
        self.warps.append(warps)
        self.masks.append(masks)
        self.count += len(warps)

    def add_memory(self, sid: int, warps: np.ndarray, masks: np.ndarray, addrs: np.ndarray,
                   lanes: np.ndarray) -> None:
        self.raw.append((len(self.sids), addrs.reshape(-1, 32), lanes.reshape(-1, 32)))
        self.raw_rows += len(warps)
        self.add(sid, warps, masks)
        if self.raw_rows >= PENDING_ROWS:
            self._compress_pending()

    def _compress_pending(self) -> None:
        """Compress every raw row at once (one numpy pass), split back per event."""
        if not self.raw:
            return
        addrs = np.concatenate([a for _, a, _ in self.raw])
        lanes = np.concatenate([m for _, _, m in self.raw])
        b, s, k, lst = compress(addrs, lanes)
        ends = np.cumsum([len(a) for _, a, _ in self.raw])
        lend = np.concatenate(([0], np.cumsum(k)))
        start = 0
        for (ev, _, _), end in zip(self.raw, ends):
            self.mem.append((ev, (b[start:end], s[start:end], k[start:end],
                                  lst[lend[start]:lend[end]])))
            start = end
        self.raw, self.raw_rows = [], 0

    def streams(self) -> WarpStreams:
        lens = np.array([len(w) for w in self.warps], np.int64)
        if not len(lens):
            empty = np.zeros(0, np.int64)
            return WarpStreams(empty, empty, empty, empty.astype(np.uint32), empty.astype(np.uint32),
                               empty, empty.astype(np.uint64), empty, empty, empty.astype(np.uint64))
        event = np.repeat(np.arange(len(lens)), lens)
        warp = np.concatenate(self.warps)
        sid = np.repeat(np.array(self.sids, np.uint32), lens)
        mask = np.concatenate(self.masks).astype(np.uint32)
        order = np.argsort(warp, kind="stable")
        warp_sorted = warp[order]
        present, counts = np.unique(warp_sorted, return_counts=True)
        # memory rows: one per (memory event, warp), in event order
        row_of = np.full(len(warp), -1, np.int64)
        starts = np.concatenate(([0], np.cumsum(lens)[:-1]))
        bases, strides, nlisted, listed = [], [], [], []
        row = 0
        self._compress_pending()
        for ev, (b, s, k, lst) in self.mem:
            n = len(b)
            row_of[starts[ev]:starts[ev] + n] = np.arange(row, row + n)
            bases.append(b)
            strides.append(s)
            nlisted.append(k)
            listed.append(lst)
            row += n
        rows = row_of[order]
        is_mem = rows >= 0
        mem_rows = rows[is_mem]
        warp_of_mem = warp_sorted[is_mem]
        if row:
            b_all, s_all = np.concatenate(bases)[mem_rows], np.concatenate(strides)[mem_rows]
            k_all = np.concatenate(nlisted)
            l_start = np.concatenate(([0], np.cumsum(k_all)[:-1]))
            l_all = np.concatenate(listed) if listed else np.zeros(0, np.uint64)
            k_sel = k_all[mem_rows]
            pieces = [l_all[l_start[r]:l_start[r] + k_all[r]] for r in mem_rows[k_sel > 0]]
            listed_flat = np.concatenate(pieces) if pieces else np.zeros(0, np.uint64)
            mem_counts = np.bincount(np.searchsorted(present, warp_of_mem), minlength=len(present))
            lc = np.bincount(np.searchsorted(present, warp_of_mem), weights=k_sel,
                             minlength=len(present)).astype(np.int64)
            # listed rows' bases: offset within the warp's own listed addresses
            first_listed = np.concatenate(([0], np.cumsum(k_sel)[:-1]))
            warp_first = np.concatenate(([0], np.cumsum(lc)[:-1]))
            w_idx = np.searchsorted(present, warp_of_mem)
            rel = first_listed - warp_first[w_idx]
            b_all = np.where(s_all == LISTED, rel.astype(np.uint64), b_all)
        else:
            b_all, s_all = np.zeros(0, np.uint64), np.zeros(0, np.int64)
            listed_flat = np.zeros(0, np.uint64)
            mem_counts = np.zeros(len(present), np.int64)
            lc = np.zeros(len(present), np.int64)
        ctas = present // self.wpc + self.cta_first
        return WarpStreams(ctas, present % self.wpc, counts, sid[order], mask[order], mem_counts,
                           b_all, s_all, lc, listed_flat)


def compress(addrs: np.ndarray, lanes: np.ndarray):
    """Rows of 32 lane addresses (``lanes``: which are accessed) → (bases, strides, listed
    counts, listed addresses): base + i·stride for the i-th active lane when that fits."""
    n = len(addrs)
    active = lanes.sum(1)
    rank = np.cumsum(lanes, 1) - 1
    first = np.argmax(lanes, 1)
    a0 = addrs[np.arange(n), first]
    second = np.argmax(lanes & (rank == 1), 1)
    a1 = addrs[np.arange(n), second]
    stride = np.where(active > 1, a1.astype(np.int64) - a0.astype(np.int64), 0)
    expect = a0[:, None].astype(np.int64) + rank * stride[:, None]
    fits = ((addrs.astype(np.int64) == expect) | ~lanes).all(1)
    base = np.where(active > 0, a0, 0).astype(np.uint64)
    strides = np.where(fits, stride, LISTED).astype(np.int64)
    k = np.where(fits, 0, active).astype(np.int64)
    bad = ~fits
    listed = addrs[bad][lanes[bad]] if bad.any() else np.zeros(0, np.uint64)
    return base, strides, k, listed.astype(np.uint64)
