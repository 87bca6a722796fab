"""The nw program's reference (a vectorised row recurrence) equals the textbook Needleman-Wunsch
recurrence cell by cell, so the GPU wavefront is checked against the definition."""

from __future__ import annotations

import numpy as np

from workloads.programs.nw import nw


def test_reference_equals_the_cell_by_cell_recurrence():
    scale = (32 / nw.LENGTH_AT_SCALE_1) ** 2          # 32 residues
    inp = nw.inputs(1, scale)
    a, b = inp["seq_a"], inp["seq_b"]
    n, p = len(a), nw.PENALTY
    f = np.zeros((n + 1, n + 1), np.int64)
    f[0, :] = -p * np.arange(n + 1)
    f[:, 0] = -p * np.arange(n + 1)
    for i in range(1, n + 1):
        for j in range(1, n + 1):
            f[i, j] = max(f[i - 1, j - 1] + nw.BLOSUM62[a[i - 1], b[j - 1]],
                          f[i - 1, j] - p, f[i, j - 1] - p)
    assert np.array_equal(nw.reference(1, scale)["score"], f)
