"""Parboil LBM (SRTF's Parboil2 LBM): D3Q19 lattice-Boltzmann channel flow past spherical
obstacles, one launch per time step with the source and destination grids swapped (lbm.cu)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

FULL = (120, 120, 150)             # Parboil's grid (x, y, z); x = one CTA of 120 threads
STEPS = 4
INFLOW = 0.01
OMEGA = np.float32(1.95)
FLUID, OBSTACLE, INLET = 0, 1, 2
EX = np.array([0, 1, -1, 0, 0, 0, 0, 1, -1, 1, -1, 1, -1, 1, -1, 0, 0, 0, 0])
EY = np.array([0, 0, 0, 1, -1, 0, 0, 1, -1, -1, 1, 0, 0, 0, 0, 1, -1, 1, -1])
EZ = np.array([0, 0, 0, 0, 0, 1, -1, 0, 0, 0, 0, 1, -1, -1, 1, 1, -1, -1, 1])
OPP = np.array([0, 2, 1, 4, 3, 6, 5, 8, 7, 10, 9, 12, 11, 14, 13, 16, 15, 18, 17])
W = np.array([1 / 3] + [1 / 18] * 6 + [1 / 36] * 12, np.float32)

INFO = {
    "title": "Lattice-Boltzmann D3Q19 (BGK) time steps",
    "suite": "Parboil",
    "papers": {"srtf": "LBM (Parboil2)"},
    "kernels": ("lbm_stream_collide",),
    "default_scale": 0.04,
    "quick_scale": 0.002,
    "inputs": ("a channel with walls on the x and y faces, random spherical obstacles (8 % of "
               "the cells; 17 % obstacle with the walls) and an inlet plane at z = 0 (inflow "
               "0.01 lattice units); starts at rest"),
    "scale_note": ("scale 1 = Parboil's 120×120×150 grid (18,000 CTAs of 120 threads per step); "
                   "y and z scale by √scale with x kept at one 120-thread CTA, so the default "
                   "0.04 is 120×24×30 (720 CTAs per step); 4 steps (Parboil runs the same launch "
                   "for more)."),
    "paper_values": {},
}
TOLERANCE = {"f": (1e-4, 1e-6)}     # float32, 4 steps, another summation order


def shape(scale: float) -> tuple[int, int, int]:
    f = np.sqrt(scale)
    return FULL[0], max(4, round(FULL[1] * f)), max(4, round(FULL[2] * f))


def inputs(seed: int, scale: float) -> dict[str, np.ndarray]:
    nx, ny, nz = shape(scale)
    rng = np.random.default_rng(seed)
    flags = np.zeros((nz, ny, nx), np.uint8)
    z, y, x = np.meshgrid(np.arange(nz), np.arange(ny), np.arange(nx), indexing="ij")
    solid = np.zeros(flags.shape, bool)
    while solid.mean() < 0.08:
        c = rng.uniform((0, 0, 0), (nz, ny, nx))
        r = rng.uniform(0.1, 0.25) * min(ny, nz)
        solid |= (z - c[0]) ** 2 + (y - c[1]) ** 2 + (x - c[2]) ** 2 < r * r
    flags[solid] = OBSTACLE
    flags[0, :, :] = INLET
    flags[:, :, (0, nx - 1)] = OBSTACLE
    flags[:, (0, ny - 1), :] = OBSTACLE
    return {"flags": flags}


def main(ctx, seed: int = 0, scale: float = 1.0) -> dict[str, np.ndarray]:
    nx, ny, nz = shape(scale)
    flags = inputs(seed, scale)["flags"]
    mod = ctx.load_ptx(Path(__file__).with_suffix(".ptx"))
    f0 = np.broadcast_to(W[:, None, None, None], (19, nz, ny, nx)).astype(np.float32)
    src, dst = ctx.to_device(f0), ctx.to_device(f0)
    d_flags = ctx.to_device(flags)
    for _ in range(STEPS):
        mod.launch("lbm_stream_collide", grid=(ny, nz), block=(nx,),
                   args=(src, dst, d_flags, np.int32(nx), np.int32(ny), np.int32(nz),
                         np.float32(INFLOW)))
        src, dst = dst, src
    return {"f": src.get()}


def reference(seed: int, scale: float) -> dict[str, np.ndarray]:
    nx, ny, nz = shape(scale)
    flags = inputs(seed, scale)["flags"]
    f = np.broadcast_to(W[:, None, None, None], (19, nz, ny, nx)).astype(np.float64)
    obstacle, inlet = flags == OBSTACLE, flags == INLET
    for _ in range(STEPS):
        rho = f.sum(0)
        u = [np.tensordot(e.astype(np.float64), f, 1) / rho for e in (EX, EY, EZ)]
        u = [np.where(inlet, v, ui) for ui, v in zip(u, (0.0, 0.0, INFLOW))]
        usq = 1.5 * (u[0] ** 2 + u[1] ** 2 + u[2] ** 2)
        post = np.empty_like(f)
        for q in range(19):
            eu = EX[q] * u[0] + EY[q] * u[1] + EZ[q] * u[2]
            feq = W[q] * rho * (1 + 3 * eu + 4.5 * eu * eu - usq)
            post[q] = np.where(inlet, feq, f[q] + OMEGA * (feq - f[q]))
            post[q] = np.where(obstacle, f[OPP[q]], post[q])
        f = np.stack([np.roll(post[q], (EZ[q], EY[q], EX[q]), axis=(0, 1, 2)) for q in range(19)])
    return {"f": f}
