"""Host side of the Mars-style MapReduce runtime (kernels in common/mars.cuh, compiled into each
MapReduce program's PTX): prefix sums, the bitonic sort of (key, value) pairs, grouping, and
the numpy equivalents the references use.

A MapReduce as Mars runs it: MapCount → scan → Map → sort → group → (ReduceCount → scan →)
Reduce, the host reading the totals between stages to size the next buffers.
"""

from __future__ import annotations

import numpy as np

THREADS = 256
TILE = 2 * THREADS
INT_MAX = np.iinfo(np.int32).max


def blocks(n: int, per: int = THREADS) -> int:
    return max(1, -(-n // per))


def padded_length(n: int) -> int:
    """The bitonic sort's length: a power of two, at least one tile."""
    return max(TILE, 1 << max(0, int(n - 1).bit_length()))


class Mars:
    """The runtime's launches on one loaded module (``mod``) of a context (``ctx``)."""

    def __init__(self, ctx, mod):
        self.ctx, self.mod = ctx, mod

    def scan(self, counts, n: int):
        """Exclusive prefix sum of the first n ints of ``counts`` → (offsets, total)."""
        out = self.ctx.empty(max(n, 1), np.int32)
        tiles = blocks(n, TILE)
        sums = self.ctx.empty(tiles, np.int32)
        self.mod.launch("mars_scan_tiles", grid=(tiles,), block=(THREADS,),
                        args=(counts, out, sums, np.int32(n)))
        if tiles > 1:
            tile_offsets, _ = self.scan(sums, tiles)
            self.mod.launch("mars_scan_add", grid=(tiles,), block=(THREADS,),
                            args=(out, tile_offsets, np.int32(n)))
        last_in = int(counts.get()[n - 1]) if n else 0
        total = int(out.get()[n - 1]) + last_in if n else 0
        return out, total

    def pairs(self, n: int):
        """Key and value buffers for n pairs, padded for the sort with (INT_MAX, INT_MAX)."""
        m = padded_length(n)
        fill = np.full(m, INT_MAX, np.int32)
        return self.ctx.to_device(fill), self.ctx.to_device(fill), m

    def sort(self, keys, vals, m: int) -> None:
        """Bitonic sort of the m (a power of two ≥ 512) pairs, ascending by (key, value)."""
        tiles = m // TILE
        self.mod.launch("mars_sort_tiles", grid=(tiles,), block=(THREADS,),
                        args=(keys, vals, np.int32(min(m, TILE))))
        k = 2 * TILE
        while k <= m:
            j = k // 2
            while j >= TILE:
                self.mod.launch("mars_sort_step", grid=(m // 2 // THREADS,), block=(THREADS,),
                                args=(keys, vals, np.int32(j), np.int32(k)))
                j //= 2
            self.mod.launch("mars_sort_merge_tiles", grid=(tiles,), block=(THREADS,),
                            args=(keys, vals, np.int32(k)))
            k *= 2

    def group(self, keys, vals, n: int, by_value: bool = False):
        """Groups of the first n sorted pairs → (starts: n_groups + 1 entries, n_groups, group_of:
        the exclusive scan of the group-start flags, i.e. the number of groups starting before
        each pair)."""
        flags = self.ctx.empty(n, np.int32)
        self.mod.launch("mars_group_flags", grid=(blocks(n),), block=(THREADS,),
                        args=(keys, vals, flags, np.int32(n), np.int32(int(by_value))))
        group_of, n_groups = self.scan(flags, n)
        starts = self.ctx.empty(n_groups + 1, np.int32)
        self.mod.launch("mars_group_starts", grid=(blocks(n),), block=(THREADS,),
                        args=(flags, group_of, starts, np.int32(n)))
        return starts, n_groups, group_of


def fnv1a(data: bytes) -> int:
    """32-bit FNV-1a of ``data``, masked to 31 bits (the programs' key hash)."""
    h = 2166136261
    for b in data:
        h = ((h ^ b) * 16777619) & 0xFFFFFFFF
    return h & 0x7FFFFFFF


def sort_pairs(keys: np.ndarray, vals: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    order = np.lexsort((vals, keys))
    return keys[order].astype(np.int32), vals[order].astype(np.int32)
