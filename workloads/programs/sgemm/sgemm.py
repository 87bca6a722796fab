"""Parboil SGEMM (OWL's Type-2 MM, IKRA's SGEMM, SRTF's Parboil2 SGEMM): C = A·Bᵀ in column-major
"NT" layout with the register-tiled kernel of Volkov and Demmel (sgemm.cu)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

TILE_M, TILE_N = 128, 16
FULL_M, FULL_N, FULL_K = 1024, 992, 1056        # Parboil's "medium" input

INFO = {
    "title": "SGEMM, register-tiled dense matrix multiply",
    "suite": "Parboil",
    "papers": {"owl": "MM", "ikra": "SGEMM", "srtf": "SGEMM (Parboil2)"},
    "kernels": ("sgemm_regtile",),
    "default_scale": 0.125,
    "quick_scale": 0.01,
    "inputs": "A (M×K) and Bᵀ (N×K) column-major, standard-normal float32",
    "scale_note": ("scale 1 = Parboil's medium input (M 1024, N 992, K 1056: 8×62 = 496 CTAs of "
                   "16×8 threads, IKRA's 496 TBs and 12,284 KB). K scales with the scale (multiple "
                   "of 16); M and N stay full down to 1/8, so the default 0.125 keeps the 496 CTAs "
                   "and shortens each CTA to 8 of 66 K-tiles; below 1/8 M and N shrink too."),
    "paper_values": {"owl": {"pmem": 1.04, "cinv": 4},
                     "ikra": {"input": "Parboil medium", "tb_size": "16×8",
                              "tbs_per_kernel": 496, "data_kb": 12284}},
}
TOLERANCE = {"C": (1e-4, 1e-3)}     # float32 sums of up to 1,056 products against float64


def shape(scale: float) -> tuple[int, int, int]:
    grow = min(1.0, 8.0 * scale)
    m = TILE_M * max(1, round(FULL_M / TILE_M * grow))
    n = TILE_N * max(1, round(FULL_N / TILE_N * grow))
    k = TILE_N * max(1, round(FULL_K / TILE_N * scale))
    return m, n, k


def inputs(seed: int, scale: float) -> dict[str, np.ndarray]:
    m, n, k = shape(scale)
    rng = np.random.default_rng(seed)
    return {"A": rng.standard_normal((k, m)).astype(np.float32),      # column-major M×K
            "Bt": rng.standard_normal((k, n)).astype(np.float32)}     # column-major N×K


def main(ctx, seed: int = 0, scale: float = 1.0) -> dict[str, np.ndarray]:
    m, n, k = shape(scale)
    data = inputs(seed, scale)
    mod = ctx.load_ptx(Path(__file__).with_suffix(".ptx"))
    c = ctx.zeros((n, m), np.float32)                                  # column-major M×N
    mod.launch("sgemm_regtile", grid=(m // TILE_M, n // TILE_N), block=(TILE_N, TILE_M // TILE_N),
               args=(ctx.to_device(data["A"]), np.int32(m), ctx.to_device(data["Bt"]), np.int32(n),
                     c, np.int32(m), np.int32(k), np.float32(1.0), np.float32(0.0)))
    return {"C": c.get()}


def reference(seed: int, scale: float) -> dict[str, np.ndarray]:
    data = inputs(seed, scale)
    a = data["A"].astype(np.float64).T          # M×K
    bt = data["Bt"].astype(np.float64).T        # N×K
    return {"C": (a @ bt.T).T}                  # stored column-major: [n][m]
