"""The Mars-style MapReduce runtime (workloads/programs/common/mars.cuh) on its own: prefix
sums, the bitonic sort of (key, value) pairs and grouping, against numpy, at sizes around the
512-element tile (one tile, a partial tile, several tiles, a padded sort)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ptx.host import Context
from workloads.programs.common.mars import Mars, sort_pairs
from workloads.programs.wordcount import wordcount

PTX = Path(wordcount.__file__).with_suffix(".ptx")


def _runtime():
    ctx = Context(progress=False)
    return ctx, Mars(ctx, ctx.load_ptx(PTX))


@pytest.mark.parametrize("n", [1, 513, 1300])
def test_scan_is_an_exclusive_prefix_sum(n):
    ctx, mars = _runtime()
    x = np.random.default_rng(n).integers(0, 5, n).astype(np.int32)
    offsets, total = mars.scan(ctx.to_device(x), n)
    assert np.array_equal(offsets.get(), np.cumsum(x) - x)
    assert total == int(x.sum())


@pytest.mark.parametrize("n", [3, 700, 2048])
def test_sort_orders_pairs_by_key_then_value_and_groups_them(n):
    ctx, mars = _runtime()
    rng = np.random.default_rng(n)
    keys = rng.integers(-50, 50, n).astype(np.int32)          # many equal keys
    vals = rng.integers(0, 1000, n).astype(np.int32)
    d_keys, d_vals, m = mars.pairs(n)
    d_keys.set(np.concatenate([keys, d_keys.get()[n:]]))
    d_vals.set(np.concatenate([vals, d_vals.get()[n:]]))
    mars.sort(d_keys, d_vals, m)
    want_k, want_v = sort_pairs(keys, vals)
    assert np.array_equal(d_keys.get()[:n], want_k) and np.array_equal(d_vals.get()[:n], want_v)
    starts, n_groups, group_of = mars.group(d_keys, d_vals, n)
    uniq, first = np.unique(want_k, return_index=True)
    assert n_groups == len(uniq)
    assert np.array_equal(starts.get(), np.append(first, n))
    flags = np.zeros(n, np.int32)
    flags[first] = 1
    assert np.array_equal(group_of.get(), np.cumsum(flags) - flags)
