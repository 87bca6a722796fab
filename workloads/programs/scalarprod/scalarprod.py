"""CUDA SDK scalarProd (OWL's SCP): dot products of many vector pairs, one pair per CTA at a
time with a shared-memory tree reduction (scalarprod.cu)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

FULL_PAIRS, LENGTH = 256, 4096      # the SDK's VECTOR_N and ELEMENT_N
GRID, BLOCK = 128, 256

INFO = {
    "title": "Scalar product of many vector pairs",
    "suite": "CUDA SDK",
    "papers": {"owl": "SCP"},
    "kernels": ("scalar_prod",),
    "default_scale": 1.0,
    "quick_scale": 0.05,
    "inputs": "vector pairs of 4,096 float32 values uniform in [-1, 1)",
    "scale_note": ("scale 1 = the SDK's 256 pairs of 4,096 elements (8 MB read once, no reuse) on "
                   "128 CTAs of 256 threads, each CTA two pairs; the pair count scales (≥ 4)."),
    "paper_values": {"owl": {"pmem": 2.37, "cinv": 58, "row_sharing": 0, "ctas_per_row": 1}},
}
TOLERANCE = {"dot": (1e-5, 1e-5)}    # float32 sums of 4,096 products in a different order


def inputs(seed: int, scale: float) -> dict[str, np.ndarray]:
    pairs = max(4, round(FULL_PAIRS * scale))
    rng = np.random.default_rng(seed)
    return {"a": rng.uniform(-1, 1, (pairs, LENGTH)).astype(np.float32),
            "b": rng.uniform(-1, 1, (pairs, LENGTH)).astype(np.float32)}


def main(ctx, seed: int = 0, scale: float = 1.0) -> dict[str, np.ndarray]:
    data = inputs(seed, scale)
    pairs = len(data["a"])
    mod = ctx.load_ptx(Path(__file__).with_suffix(".ptx"))
    dot = ctx.zeros(pairs, np.float32)
    mod.launch("scalar_prod", grid=(GRID,), block=(BLOCK,),
               args=(dot, ctx.to_device(data["a"]), ctx.to_device(data["b"]), np.int32(pairs),
                     np.int32(LENGTH)))
    return {"dot": dot.get()}


def reference(seed: int, scale: float) -> dict[str, np.ndarray]:
    data = inputs(seed, scale)
    return {"dot": np.einsum("ij,ij->i", data["a"].astype(np.float64), data["b"].astype(np.float64))}
