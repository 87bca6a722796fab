"""Graphs as CSR arrays (``row_start`` int32 of n+1, ``cols`` int32, optional ``weights``).

``rmat``: power-law graphs by the R-MAT recursive-matrix model (Chakrabarti et al., SDM 2004)
with Graph500's parameters a=0.57, b=0.19, c=0.19; vertex ids are randomly permuted (as Graph500
does) so degree is not correlated with id. ``road``: a 2-D grid with random weights and a few
missing edges, the low-degree, high-diameter shape of road networks. Both are made undirected
(each edge in both directions), duplicates and self-loops dropped, neighbours sorted.
"""

from __future__ import annotations

import numpy as np


def to_csr(n: int, src: np.ndarray, dst: np.ndarray, weights: np.ndarray | None = None):
    keep = src != dst
    src, dst = src[keep], dst[keep]
    w = weights[keep] if weights is not None else None
    key = src.astype(np.int64) * n + dst
    key, first = np.unique(key, return_index=True)
    src, dst = (key // n).astype(np.int32), (key % n).astype(np.int32)
    row = np.zeros(n + 1, np.int64)
    np.add.at(row, src.astype(np.int64) + 1, 1)
    out = {"row_start": np.cumsum(row).astype(np.int32), "cols": dst}
    if w is not None:
        out["weights"] = w[first]
    return out


def undirected(src, dst, w=None):
    s, d = np.concatenate([src, dst]), np.concatenate([dst, src])
    return s, d, (None if w is None else np.concatenate([w, w]))


def rmat(scale_log2: int, edge_factor: int, seed: int, a=0.57, b=0.19, c=0.19, weighted=False):
    """An R-MAT graph of 2**scale_log2 vertices and edge_factor·n generated edges."""
    rng = np.random.default_rng(seed)
    n = 1 << scale_log2
    m = n * edge_factor
    src = np.zeros(m, np.int64)
    dst = np.zeros(m, np.int64)
    for bit in range(scale_log2):
        r = rng.random(m)
        right = (r >= a) & (r < a + b) | (r >= a + b + c)    # quadrants b and d: dst bit set
        down = r >= a + b                                     # quadrants c and d: src bit set
        src |= down.astype(np.int64) << bit
        dst |= right.astype(np.int64) << bit
    perm = rng.permutation(n)
    src, dst = perm[src], perm[dst]
    w = rng.integers(1, 256, m).astype(np.int32) if weighted else None
    return to_csr(n, *undirected(src, dst, w))


def road(width: int, height: int, seed: int, drop: float = 0.05, weighted=True):
    """A width×height grid road network: 4-neighbour edges, a fraction ``drop`` removed,
    weights 1..100."""
    rng = np.random.default_rng(seed)
    n = width * height
    v = np.arange(n).reshape(height, width)
    src = np.concatenate([v[:, :-1].ravel(), v[:-1, :].ravel()])
    dst = np.concatenate([v[:, 1:].ravel(), v[1:, :].ravel()])
    keep = rng.random(len(src)) >= drop
    src, dst = src[keep], dst[keep]
    w = rng.integers(1, 101, len(src)).astype(np.int32) if weighted else None
    return to_csr(n, *undirected(src, dst, w))


def degree_stats(g: dict) -> dict:
    deg = np.diff(g["row_start"])
    return {"vertices": len(deg), "edges": int(deg.sum()), "mean_degree": float(deg.mean()),
            "max_degree": int(deg.max()), "cv": float(deg.std() / max(deg.mean(), 1e-9))}
