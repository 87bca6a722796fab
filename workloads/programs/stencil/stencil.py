"""Parboil stencil (IKRA's Stencil): a 7-point 3-D Jacobi stencil iterated by the host, which
swaps the input and output grids between launches (stencil.cu)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

TX, TY, CX = 32, 4, 2
ITERATIONS = 10
C0, C1 = 1.0 / 6.0, 1.0 / 6.0 / 6.0        # Parboil's coefficients

INFO = {
    "title": "7-point 3-D stencil, host-iterated",
    "suite": "Parboil",
    "papers": {"ikra": "Stencil"},
    "kernels": ("stencil7",),
    "default_scale": 1.0,
    "quick_scale": 0.1,
    "inputs": "a 3-D float32 grid uniform in [0, 1); boundary points stay fixed",
    "scale_note": ("scale 1 = IKRA's 128×128×8 grid, 10 iterations: 2×32 = 64 CTAs of 32×4 "
                   "threads, 1,024 KB in two grids (Parboil's own default is 512×512×64); x and y "
                   "scale by √scale in whole 64×4 tiles."),
    "paper_values": {"ikra": {"input": "128×128×8, 10 iterations", "tb_size": "32×4",
                              "tbs_per_kernel": 64, "data_kb": 1024}},
}
TOLERANCE = {"grid": (1e-5, 1e-6)}          # float32, 10 sweeps


def shape(scale: float) -> tuple[int, int, int]:
    f = np.sqrt(scale)
    return (TX * CX * max(1, round(2 * f)), TY * max(1, round(32 * f)), 8)


def inputs(seed: int, scale: float) -> dict[str, np.ndarray]:
    nx, ny, nz = shape(scale)
    return {"grid": np.random.default_rng(seed).random((nz, ny, nx)).astype(np.float32)}


def main(ctx, seed: int = 0, scale: float = 1.0) -> dict[str, np.ndarray]:
    nx, ny, nz = shape(scale)
    grid0 = inputs(seed, scale)["grid"]
    mod = ctx.load_ptx(Path(__file__).with_suffix(".ptx"))
    a, b = ctx.to_device(grid0), ctx.to_device(grid0)        # both hold the fixed boundary
    for _ in range(ITERATIONS):
        mod.launch("stencil7", grid=(nx // (TX * CX), ny // TY), block=(TX, TY),
                   args=(np.float32(C0), np.float32(C1), a, b, np.int32(nx), np.int32(ny),
                         np.int32(nz)))
        a, b = b, a
    return {"grid": a.get()}


def reference(seed: int, scale: float) -> dict[str, np.ndarray]:
    a = inputs(seed, scale)["grid"].astype(np.float32)
    c0, c1 = np.float32(C0), np.float32(C1)
    for _ in range(ITERATIONS):
        nxt = a.copy()
        nxt[1:-1, 1:-1, 1:-1] = c1 * (a[:-2, 1:-1, 1:-1] + a[2:, 1:-1, 1:-1] + a[1:-1, :-2, 1:-1]
                                      + a[1:-1, 2:, 1:-1] + a[1:-1, 1:-1, :-2]
                                      + a[1:-1, 1:-1, 2:]) - c0 * a[1:-1, 1:-1, 1:-1]
        a = nxt
    return {"grid": a}
