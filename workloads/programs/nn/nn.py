"""Rodinia-style nn: distances of hurricane track points to a query location on the GPU
(nn_distance), the k nearest picked on the host."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ptx.fp import fma32

BLOCK = 256                      # Rodinia's nn, the thesis's NN and IKRA: 256 threads per CTA
K = 5                            # Rodinia's run: -r 5 -lat 30 -lng 90
QUERY = (30.0, 90.0)
RECORDS = 669 * BLOCK            # IKRA's 669 TBs

INFO = {
    "title": "Nearest neighbours (GPU distances, host selection)",
    "suite": "Rodinia",
    "papers": {"owl": "NN", "socgpu": "nn", "thesis_ch4": "NN", "ikra": "Nearest Neighbor"},
    "kernels": ("nn_distance",),
    "default_scale": 1.0,
    "quick_scale": 0.01,
    "inputs": "171,264 hurricane track points (latitude, longitude west), storms born at "
              "10-20 N, 20-60 W moving west 6-hourly then recurving north-east; query 30 N "
              "90 W, k = 5",
    "scale_note": "scale 1 = IKRA's input size (669 CTAs of 256); Rodinia's filelist_4 has "
                  "42,764 records (scale 0.25); the thesis's 50,115-CTA grid is scale 75",
    "paper_values": {
        "owl": {"pmem": 1.10, "cinv": 13},
        "thesis_ch4": {"NN": {"reg_bytes_per_cta": 16384, "threads": 256, "fermi_max": 6,
                              "fermi_opt": 5, "fermi_type": "C-weak", "kepler_max": 8,
                              "kepler_opt": 7, "kepler_type": "C-weak", "onac_ctas": 50115,
                              "onac_type": "A"}},
        "ikra": {"input": "2,005 KB", "tb_size": 256, "tbs_per_kernel": 669},
    },
}


def inputs(seed: int, scale: float) -> dict[str, np.ndarray]:
    """(lat, lng) float32 pairs along storm tracks, shuffled into file order by storm."""
    rng = np.random.default_rng(seed)
    n = max(BLOCK, int(round(RECORDS * scale)))
    tracks, total = [], 0
    while total < n:
        steps = int(rng.integers(10, 60))
        lat, lng = rng.uniform(10, 20), rng.uniform(20, 60)
        turn = rng.uniform(22, 32)                            # recurvature latitude
        pts = []
        for _ in range(steps):
            pts.append((lat, lng))
            if lat < turn:
                lat, lng = lat + rng.uniform(0.1, 0.5), lng + rng.uniform(0.4, 1.0)
            else:
                lat, lng = lat + rng.uniform(0.4, 1.0), lng - rng.uniform(0.2, 1.2)
        tracks.append(np.array(pts))
        total += steps
    pts = np.concatenate(tracks)[:n] + rng.normal(0, 0.05, (n, 2))
    return {"records": pts.astype(np.float32)}


def nearest(distances: np.ndarray, k: int = K) -> np.ndarray:
    """The host's selection: indices of the k smallest distances (the first of ties first)."""
    return np.argsort(distances, kind="stable")[:k].astype(np.int32)


def main(ctx, seed: int = 0, scale: float = 1.0) -> dict[str, np.ndarray]:
    records = inputs(seed, scale)["records"]
    n = len(records)
    mod = ctx.load_ptx(Path(__file__).with_suffix(".ptx"))
    d_records, d_dist = ctx.to_device(records), ctx.empty(n, np.float32)
    mod.launch("nn_distance", (-(-n // BLOCK),), (BLOCK,),
               (d_records, d_dist, np.int32(n), np.float32(QUERY[0]), np.float32(QUERY[1])))
    dist = d_dist.get()
    return {"distances": dist, "nearest": nearest(dist)}


def reference(seed: int, scale: float) -> dict[str, np.ndarray]:
    """float32 like the kernel: (lat diff)^2 + (lng diff)^2 with the fused multiply-add's single
    rounding, then a correctly rounded square root; so the distances match exactly."""
    r = inputs(seed, scale)["records"]
    dlat = np.float32(QUERY[0]) - r[:, 0]
    dlng = np.float32(QUERY[1]) - r[:, 1]
    dist = np.sqrt(fma32(dlat, dlat, dlng * dlng)).astype(np.float32)
    return {"distances": dist, "nearest": nearest(dist)}
