"""Rodinia-style pathfinder: dynamic programming down the rows of a weight grid, path_rows
advancing ``pyramid`` rows per launch in shared memory, the host swapping the cost rows."""

from __future__ import annotations

from pathlib import Path

import numpy as np

BLOCK = 256
ROWS, COLS = 10, 100_000         # IKRA's input

INFO = {
    "title": "Pathfinder: dynamic programming over grid rows (shared-memory pyramid)",
    "suite": "Rodinia",
    "papers": {"socgpu": "pathfinder", "thesis_ch4": "Pathfinder", "ikra": "Pathfinder"},
    "kernels": ("path_rows",),
    "default_scale": 1.0,
    "quick_scale": 0.01,
    "inputs": "10 x 100,000 grid of weights uniform in 0..9 (as Rodinia's generator); "
              "pyramid height 1",
    "scale_note": "scale 1 = IKRA's input (10 rows x 100 K columns, pyramid 1: 9 launches of "
                  "394 CTAs of 256); the columns grow with scale. Rodinia's run (100 rows, "
                  "pyramid 20: 5 launches of 463 CTAs) is pyramid=20 with 100 rows",
    "paper_values": {
        "thesis_ch4": {"Pathfinder": {"reg_bytes_per_cta": 16384, "threads": 256,
                                      "fermi_max": 6, "fermi_opt": 5, "fermi_type": "C-weak",
                                      "kepler_max": 8, "kepler_opt": 5, "kepler_type": "C-weak",
                                      "onac_ctas": 46297, "onac_type": "B"}},
        "ikra": {"input": "10 x 100K, 10 iterations", "tb_size": 256, "tbs_per_kernel": 394},
    },
}


def inputs(seed: int, scale: float, rows: int = ROWS) -> dict[str, np.ndarray]:
    cols = max(BLOCK, int(round(COLS * scale)))
    rng = np.random.default_rng(seed)
    return {"wall": rng.integers(0, 10, (rows, cols)).astype(np.int32)}


def main(ctx, seed: int = 0, scale: float = 1.0, pyramid: int = 1,
         rows: int = ROWS) -> dict[str, np.ndarray]:
    if not 1 <= pyramid < BLOCK // 2:
        raise ValueError(f"pyramid = {pyramid}: expected 1..{BLOCK // 2 - 1}")
    wall = inputs(seed, scale, rows)["wall"]
    cols = wall.shape[1]
    mod = ctx.load_ptx(Path(__file__).with_suffix(".ptx"))
    d_wall = ctx.to_device(wall[1:])
    bufs = [ctx.to_device(wall[0]), ctx.empty(cols, np.int32)]
    grid = (-(-cols // (BLOCK - 2 * pyramid)),)
    src = 0
    for done in range(0, rows - 1, pyramid):
        steps = min(pyramid, rows - 1 - done)
        mod.launch("path_rows", grid, (BLOCK,),
                   (np.int32(steps), d_wall, bufs[src], bufs[1 - src], np.int32(cols),
                    np.int32(done), np.int32(pyramid)))
        src = 1 - src
    return {"cost": bufs[src].get()}


def reference(seed: int, scale: float, rows: int = ROWS) -> dict[str, np.ndarray]:
    wall = inputs(seed, scale, rows)["wall"]
    cost = wall[0].copy()
    for r in range(1, len(wall)):
        e = np.pad(cost, 1, mode="edge")
        cost = wall[r] + np.minimum(np.minimum(e[:-2], e[1:-1]), e[2:])
    return {"cost": cost}
