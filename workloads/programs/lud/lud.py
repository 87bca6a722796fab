"""Rodinia-style LUD: blocked LU decomposition in place, three kernels per 16-column block step
(diagonal, perimeter, internal) and a last diagonal launch, the grids shrinking step by step."""

from __future__ import annotations

from pathlib import Path

import numpy as np

BS = 16

INFO = {
    "title": "Blocked LU decomposition (diagonal / perimeter / internal kernels)",
    "suite": "Rodinia",
    "papers": {"owl": "LUD", "socgpu": "lud", "thesis_ch3": "LUD", "thesis_ch4": "LUD",
               "ikra": "LUD"},
    "kernels": ("lud_diagonal", "lud_perimeter", "lud_internal"),
    "default_scale": 1.0,
    "quick_scale": 0.0044,
    "inputs": "768 x 768 diagonally dominant matrix: off-diagonal entries uniform in [-1, 1], "
              "diagonal = the row's absolute sum times 1..2 (LU without pivoting stays stable)",
    "scale_note": "scale 1 = IKRA's input (768 x 768: 48 block steps, internal grids from "
                  "47 x 47 = 2,209 CTAs of 16 x 16 down to 1); the thesis's LUD grid (16,129 = "
                  "127^2 CTAs) is 2048 x 2048, scale 7.1. The side grows with sqrt(scale)",
    "paper_values": {
        "owl": {"pmem": 1.05, "cinv": 64},
        "thesis_ch3": {"LUD": {"ctas": 16129, "threads": 256, "ctas_per_core": 6, "phases": 3,
                               "longest": 150, "shortest": 7}},
        "thesis_ch4": {"LUD": {"reg_bytes_per_cta": 16384, "threads": 256, "fermi_max": 6,
                               "fermi_opt": 5, "fermi_type": "MEM", "kepler_max": 8,
                               "kepler_opt": 5, "kepler_type": "MEM", "onac_ctas": 65025,
                               "onac_type": "A"}},
        "ikra": {"input": "768x768", "tb_size": "16, 32, 16x16", "tbs_per_kernel": "1-2,209"},
    },
}
# Relative and absolute tolerance: float32 elimination over 768 columns of a diagonally dominant
# matrix against float64; an entry takes up to n rounded updates (measured at 768 x 768: max
# absolute error 3.9e-4 on entries up to ~600, 1.2e-4 relative to |entry| + 1e-5).
TOLERANCE = {"lu": (5e-4, 1e-4)}


def inputs(seed: int, scale: float) -> dict[str, np.ndarray]:
    n = max(2 * BS, int(round(768 * np.sqrt(scale))) // BS * BS)
    rng = np.random.default_rng(seed)
    a = rng.uniform(-1.0, 1.0, (n, n))
    np.fill_diagonal(a, 0.0)
    a[np.diag_indices(n)] = np.abs(a).sum(axis=1) * rng.uniform(1.0, 2.0, n)
    return {"matrix": a.astype(np.float32)}


def main(ctx, seed: int = 0, scale: float = 1.0) -> dict[str, np.ndarray]:
    a = inputs(seed, scale)["matrix"]
    n = a.shape[0]
    mod = ctx.load_ptx(Path(__file__).with_suffix(".ptx"))
    d_a = ctx.to_device(a)
    for k in range(0, n - BS, BS):
        rest = (n - k) // BS - 1                              # blocks right of / below A11
        mod.launch("lud_diagonal", (1,), (BS,), (d_a, np.int32(n), np.int32(k)))
        mod.launch("lud_perimeter", (rest,), (2 * BS,), (d_a, np.int32(n), np.int32(k)))
        mod.launch("lud_internal", (rest, rest), (BS, BS), (d_a, np.int32(n), np.int32(k)))
    mod.launch("lud_diagonal", (1,), (BS,), (d_a, np.int32(n), np.int32(n - BS)))
    return {"lu": d_a.get()}


def reference(seed: int, scale: float) -> dict[str, np.ndarray]:
    """Unblocked Doolittle elimination in float64; L (unit diagonal) and U share one array."""
    a = inputs(seed, scale)["matrix"].astype(np.float64)
    for p in range(a.shape[0] - 1):
        a[p + 1:, p] /= a[p, p]
        a[p + 1:, p + 1:] -= np.outer(a[p + 1:, p], a[p, p + 1:])
    return {"lu": a}
