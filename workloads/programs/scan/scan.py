"""CUDA SDK scanLargeArray (OWL's SLA): exclusive prefix sum of a large array, multi-level: scan
256-element blocks, scan the block sums (recursively), add them back (scan.cu)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

BLOCK = 128
PER_CTA = 2 * BLOCK
FULL_N = 1_000_000

INFO = {
    "title": "Scan of large arrays (work-efficient, multi-level)",
    "suite": "CUDA SDK",
    "papers": {"owl": "SLA"},
    "kernels": ("prescan", "uniform_add"),
    "default_scale": 1.0,
    "quick_scale": 0.02,
    "inputs": "uint32 counts, geometric with mean 4 (a histogram-like stream; sums stay exact)",
    "scale_note": ("scale 1 = 1,000,000 elements: 3,907 CTAs of 128 threads at the first level, "
                   "16 at the second, 1 at the third, then two uniform-add passes; n scales."),
    "paper_values": {"owl": {"pmem": 1.13, "cinv": 17}},
}


def inputs(seed: int, scale: float) -> dict[str, np.ndarray]:
    n = max(1000, round(FULL_N * scale))
    rng = np.random.default_rng(seed)
    return {"values": (rng.geometric(0.2, n) - 1).astype(np.uint32)}


def _scan(ctx, mod, data, n: int) -> None:
    """Scan ``data`` (n elements) in place, recursing on the block sums."""
    blocks = -(-n // PER_CTA)
    sums = ctx.zeros(blocks, np.uint32) if blocks > 1 else None
    mod.launch("prescan", grid=(blocks,), block=(BLOCK,),
               args=(data, data, sums if sums is not None else np.uint64(0), np.int32(n)))
    if sums is not None:
        _scan(ctx, mod, sums, blocks)
        mod.launch("uniform_add", grid=(blocks,), block=(BLOCK,), args=(data, sums, np.int32(n)))


def main(ctx, seed: int = 0, scale: float = 1.0) -> dict[str, np.ndarray]:
    values = inputs(seed, scale)["values"]
    mod = ctx.load_ptx(Path(__file__).with_suffix(".ptx"))
    data = ctx.to_device(values)
    _scan(ctx, mod, data, len(values))
    return {"scan": data.get()}


def reference(seed: int, scale: float) -> dict[str, np.ndarray]:
    v = inputs(seed, scale)["values"].astype(np.uint64)
    return {"scan": (np.cumsum(v) - v).astype(np.uint32)}
