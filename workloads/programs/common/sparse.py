"""Sparse matrices in CSR with realistic row-length spread: ``power_law`` (row lengths from a
Zipf-like distribution, columns clustered near the diagonal as in web/circuit matrices) and
``banded`` (FEM-like blocks along the diagonal). Values are uniform in [-1, 1)."""

from __future__ import annotations

import numpy as np


def power_law(n: int, mean_nnz: float, seed: int, exponent: float = 2.0, max_len: int | None = None):
    rng = np.random.default_rng(seed)
    max_len = max_len or n
    lengths = np.minimum(rng.zipf(exponent, n), max_len).astype(np.float64)
    lengths = np.maximum(1, np.round(lengths * mean_nnz / lengths.mean())).astype(np.int64)
    lengths = np.minimum(lengths, n)
    row = np.concatenate(([0], np.cumsum(lengths)))
    cols = np.empty(row[-1], np.int64)
    for i in range(n):
        k = lengths[i]
        near = i + np.round(rng.normal(0, n / 20, k)).astype(np.int64)
        c = np.unique(np.clip(near, 0, n - 1))
        while len(c) < k:
            c = np.unique(np.concatenate([c, rng.integers(0, n, k - len(c))]))
        cols[row[i]:row[i + 1]] = np.sort(c[:k])
    vals = rng.uniform(-1, 1, row[-1]).astype(np.float32)
    return {"row_start": row.astype(np.int32), "cols": cols.astype(np.int32), "values": vals}


def banded(n: int, block: int, seed: int, bands: int = 3):
    rng = np.random.default_rng(seed)
    rows, cols = [], []
    for i in range(n):
        b = i // block
        lo = max(0, (b - bands // 2) * block)
        hi = min(n, (b + bands // 2 + 1) * block)
        c = np.arange(lo, hi)
        c = c[rng.random(len(c)) < 0.6]
        if i not in c:
            c = np.sort(np.append(c, i))
        rows.append(len(c))
        cols.append(c)
    row = np.concatenate(([0], np.cumsum(rows)))
    vals = rng.uniform(-1, 1, row[-1]).astype(np.float32)
    return {"row_start": row.astype(np.int32), "cols": np.concatenate(cols).astype(np.int32),
            "values": vals}


def spmv_numpy(m: dict, x: np.ndarray) -> np.ndarray:
    row, cols, vals = m["row_start"], m["cols"], m["values"]
    prod = vals.astype(np.float64) * x[cols]
    return np.add.reduceat(prod, row[:-1]) * (np.diff(row) > 0)
