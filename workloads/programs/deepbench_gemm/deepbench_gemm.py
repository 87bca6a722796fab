"""DeepBench gemm (SOCGPU's gemm, train and inference): C = A·B as a deep-learning library runs
it, tiled with double-buffered shared memory, one barrier per K-tile (deepbench_gemm.cu). The
training shape and the inference shape are two kernels of one run, or one each with
``mode=train`` / ``mode=infer`` (SOCGPU's two benchmarks: ``program:deepbench_gemm:mode=train``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

# (M, N, K) from DeepBench's lists: a training GEMM of a 1,760-unit layer on a batch of 128, and
# an inference GEMM of a 3,072-row layer on a batch of 4 (the server case of small batches).
TRAIN = (1760, 128, 1760)
INFER = (3072, 4, 1024)
TILES = {"gemm_train": (64, 64, 16, 256), "gemm_infer": (64, 16, 16, 128)}   # BM, BN, BK, threads

INFO = {
    "title": "DeepBench GEMM, training and inference shapes",
    "suite": "DeepBench",
    "papers": {"socgpu": "gemm (train, inference)"},
    "kernels": ("gemm_train", "gemm_infer"),
    "default_scale": 0.4,
    "quick_scale": 0.01,
    "inputs": ("weights and activations standard normal float32; training M 1,760 N 128 "
               "K 1,760, inference M 3,072 N 4 (padded to 16) K 1,024"),
    "scale_note": ("scale 1 = the DeepBench shapes above (28×2 = 56 CTAs of 256 threads for "
                   "training, 48 of 128 for inference); K scales (padded to the K-tile), so the "
                   "default 0.4 keeps the grids and runs 44 of 110 (train) and 26 of 64 "
                   "(inference) K-tiles per CTA."),
    "options": {"mode": ("all", "train", "infer")},
    "paper_values": {},
}
TOLERANCE = {"C_train": (1e-4, 1e-3), "C_infer": (1e-4, 1e-3)}   # float32 sums of ≤ 1,760 terms


def shapes(scale: float, mode: str = "all") -> dict[str, tuple[int, int, int]]:
    """The (M, N, K) of each kernel ``mode`` selects (all, train or infer)."""
    if mode not in INFO["options"]["mode"]:
        raise ValueError(f"mode: {mode!r} is not one of {', '.join(INFO['options']['mode'])}")
    every = {"gemm_train": (TRAIN[0], TRAIN[1], max(1, round(TRAIN[2] * scale))),
             "gemm_infer": (INFER[0], INFER[1], max(1, round(INFER[2] * scale)))}
    return {k: v for k, v in every.items() if mode in ("all", k.split("_")[1])}


def inputs(seed: int, scale: float, mode: str = "all") -> dict[str, np.ndarray]:
    """Both shapes' operands drawn in one order (a mode's data equals its part of ``all``)."""
    rng = np.random.default_rng(seed)
    out = {}
    chosen = shapes(scale, mode)
    for kernel, (m, n, k) in shapes(scale).items():
        tag = kernel.split("_")[1]
        a = rng.standard_normal((k, m)).astype(np.float32)                 # column-major M×K
        b = rng.standard_normal((k, n)).astype(np.float32)                 # row-major K×N
        if kernel in chosen:
            out[f"A_{tag}"], out[f"B_{tag}"] = a, b
    return out


def _pad(a: np.ndarray, rows: int, cols: int) -> np.ndarray:
    out = np.zeros((rows, cols), np.float32)
    out[:a.shape[0], :a.shape[1]] = a
    return out


def main(ctx, seed: int = 0, scale: float = 1.0, mode: str = "all") -> dict[str, np.ndarray]:
    data = inputs(seed, scale, mode)
    mod = ctx.load_ptx(Path(__file__).with_suffix(".ptx"))
    out = {}
    for kernel, (m, n, k) in shapes(scale, mode).items():
        bm, bn, bk, threads = TILES[kernel]
        mp, np_, kp = -(-m // bm) * bm, -(-n // bn) * bn, -(-k // bk) * bk
        tag = kernel.split("_")[1]
        a = ctx.to_device(_pad(data[f"A_{tag}"], kp, mp))
        b = ctx.to_device(_pad(data[f"B_{tag}"], kp, np_))
        c = ctx.zeros((np_, mp), np.float32)                                 # column-major
        mod.launch(kernel, grid=(mp // bm, np_ // bn), block=(threads,),
                   args=(a, b, c, np.int32(mp), np.int32(np_), np.int32(kp)))
        out[f"C_{tag}"] = c.get()[:n, :m]
    return out


def reference(seed: int, scale: float, mode: str = "all") -> dict[str, np.ndarray]:
    data = inputs(seed, scale, mode)
    out = {}
    for tag in (k.split("_")[1] for k in shapes(scale, mode)):
        a, b = data[f"A_{tag}"].astype(np.float64), data[f"B_{tag}"].astype(np.float64)
        out[f"C_{tag}"] = b.T @ a            # (N×K)(K×M): C stored column-major as [n][m]
    return out
