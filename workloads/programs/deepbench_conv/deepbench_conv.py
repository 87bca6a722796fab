"""DeepBench conv (SOCGPU's conv, train and inference): 3×3 convolution layers as implicit GEMMs
with double-buffered shared-memory tiles and one barrier per K-tile (deepbench_conv.cu). The
training-shape and inference-shape layers are two kernels of one run (forward passes), or one
each with ``mode=train`` / ``mode=infer`` (``program:deepbench_conv:mode=train``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

# (N, C, H, W, K) of ResNet-style 3×3 layers (pad 1, stride 1) from DeepBench's conv lists: a
# training batch of 16 at 14×14×256, and single-image inference at 7×7×512.
TRAIN = (16, 256, 14, 14, 256)
INFER = (1, 512, 7, 7, 512)
R = S = 3
PAD = 1
TILES = {"conv_train": (64, 64, 16, 256), "conv_infer": (16, 64, 16, 128)}   # BM, BN, BK, threads

INFO = {
    "title": "DeepBench convolution (implicit GEMM), training and inference shapes",
    "suite": "DeepBench",
    "papers": {"socgpu": "conv (train, inference)"},
    "kernels": ("conv_train", "conv_infer"),
    "default_scale": 0.0625,
    "quick_scale": 0.004,
    "inputs": ("activations: ReLU outputs (half-normal, half zeros) in NCHW; filters He-scaled "
               "normal; training N 16, 14×14, 256→256 channels; inference N 1, 7×7, 512→512"),
    "scale_note": ("scale 1 = the DeepBench shapes above: 3,136 pixels × 256 channels = 49×4 = "
                   "196 CTAs of 256 threads (training), 49 pixels × 512 channels = 4×8 = 32 CTAs "
                   "of 128 (inference). The input channels scale (the GEMM's inner dimension, "
                   "C·9), so the default 1/16 keeps both grids with 16 and 32 input channels "
                   "(9 and 18 K-tiles); below 1/16 the training batch shrinks too."),
    "options": {"mode": ("all", "train", "infer")},
    "paper_values": {},
}
TOLERANCE = {"out_train": (1e-4, 1e-4), "out_infer": (1e-4, 1e-4)}   # float32 sums of C·9 terms


def shapes(scale: float, mode: str = "all") -> dict[str, tuple[int, ...]]:
    """The (N, C, H, W, K) of each kernel ``mode`` selects (all, train or infer)."""
    if mode not in INFO["options"]["mode"]:
        raise ValueError(f"mode: {mode!r} is not one of {', '.join(INFO['options']['mode'])}")
    n, c, h, w, k = TRAIN
    train = (max(1, round(n * min(1.0, 16 * scale))), max(1, round(c * scale)), h, w, k)
    n, c, h, w, k = INFER
    every = {"conv_train": train, "conv_infer": (n, max(1, round(c * scale)), h, w, k)}
    return {key: v for key, v in every.items() if mode in ("all", key.split("_")[1])}


def inputs(seed: int, scale: float, mode: str = "all") -> dict[str, np.ndarray]:
    """Both shapes' data drawn in one order (a mode's data equals its part of ``all``)."""
    rng = np.random.default_rng(seed)
    out = {}
    chosen = shapes(scale, mode)
    for kernel, (n, c, h, w, k) in shapes(scale).items():
        tag = kernel.split("_")[1]
        x = np.maximum(rng.standard_normal((n, c, h, w)), 0).astype(np.float32)
        wt = (rng.standard_normal((k, c, R, S)) * np.sqrt(2 / (c * R * S))).astype(np.float32)
        if kernel in chosen:
            out[f"x_{tag}"], out[f"w_{tag}"] = x, wt
    return out


def main(ctx, seed: int = 0, scale: float = 1.0, mode: str = "all") -> dict[str, np.ndarray]:
    data = inputs(seed, scale, mode)
    mod = ctx.load_ptx(Path(__file__).with_suffix(".ptx"))
    out = {}
    for kernel, (n, c, h, w, k) in shapes(scale, mode).items():
        bm, bn, bk, threads = TILES[kernel]
        tag = kernel.split("_")[1]
        p, q = h + 2 * PAD - R + 1, w + 2 * PAD - S + 1
        inner = c * R * S
        filt = np.zeros((-(-inner // bk) * bk, k), np.float32)          # [c][r][s][k], padded
        filt[:inner] = data[f"w_{tag}"].reshape(k, inner).T
        y = ctx.zeros((n, k, p, q), np.float32)
        shape = np.array([n, c, h, w, k, p, q, PAD], np.int32).tobytes()
        mod.launch(kernel, grid=(-(-n * p * q // bm), k // bn), block=(threads,),
                   args=(ctx.to_device(data[f"x_{tag}"]), ctx.to_device(filt), y, shape))
        out[f"out_{tag}"] = y.get()
    return out


def reference(seed: int, scale: float, mode: str = "all") -> dict[str, np.ndarray]:
    data = inputs(seed, scale, mode)
    out = {}
    for tag in (key.split("_")[1] for key in shapes(scale, mode)):
        x = np.pad(data[f"x_{tag}"].astype(np.float64), ((0, 0), (0, 0), (PAD, PAD), (PAD, PAD)))
        wt = data[f"w_{tag}"].astype(np.float64)
        n, c, hp, wp = x.shape
        p, q = hp - R + 1, wp - S + 1
        y = np.zeros((n, wt.shape[0], p, q))
        for r in range(R):
            for s in range(S):
                y += np.einsum("nchw,kc->nkhw", x[:, :, r:r + p, s:s + q], wt[:, :, r, s])
        out[f"out_{tag}"] = y
    return out
