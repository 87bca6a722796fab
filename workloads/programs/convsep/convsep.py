"""CUDA SDK convolutionSeparable (OWL's CON, IKRA's ConvolutionSeparable, the thesis's CVSEP):
a 17-tap Gaussian blur of a natural image as a row pass (16×4 CTAs) and a column pass (16×8 CTAs)
with shared-memory tiles (convsep.cu)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from workloads.programs.common import images

RADIUS = 8
ROW_TILE = (16 * 8, 4)            # pixels per row-pass CTA (x, y)
COL_TILE = (16, 8 * 8)            # pixels per column-pass CTA
FULL_W, FULL_H = 1024, 512        # IKRA's input: 1,024 + 512 TBs, 4,096 KB

INFO = {
    "title": "Separable convolution (row and column passes)",
    "suite": "CUDA SDK",
    "papers": {"owl": "CON", "ikra": "ConvolutionSeparable", "thesis_ch4": "CVSEP"},
    "kernels": ("convolution_rows", "convolution_columns"),
    "default_scale": 1.0,
    "quick_scale": 0.05,
    "inputs": "a 1/f natural image (float32 in [0, 1)); a normalised Gaussian filter, σ 3, radius 8",
    "scale_note": ("scale 1 = 1,024×512 pixels: 1,024 row CTAs (16×4) and 512 column CTAs (16×8), "
                   "IKRA's counts and 4,096 KB (image and result); the SDK's own default is "
                   "3,072×3,072 (the thesis's 16,384 CTAs are a larger image still). Width and "
                   "height scale by √scale in whole tiles."),
    "paper_values": {"owl": {"pmem": 1.23, "cinv": 20},
                     "ikra": {"input": "1,024×512 (derived from the TB counts)",
                              "tb_size": "16×4 rows, 16×8 columns", "tbs_per_kernel": (1024, 512),
                              "data_kb": 4096},
                     "thesis_ch4": {"CVSEP": {"onac_ctas": 16384, "onac_type": "A"}}},
}
TOLERANCE = {"image": (1e-5, 1e-6)}     # float32 17-tap sums, twice


def size(scale: float) -> tuple[int, int]:
    f = np.sqrt(scale)
    w = ROW_TILE[0] * max(1, round(FULL_W * f / ROW_TILE[0]))
    h = COL_TILE[1] * max(1, round(FULL_H * f / COL_TILE[1]))
    return w, h


def taps() -> np.ndarray:
    k = np.exp(-0.5 * (np.arange(-RADIUS, RADIUS + 1) / 3.0) ** 2)
    return (k / k.sum()).astype(np.float32)


def inputs(seed: int, scale: float) -> dict[str, np.ndarray]:
    w, h = size(scale)
    return {"image": images.natural(h, w, seed)}


def main(ctx, seed: int = 0, scale: float = 1.0) -> dict[str, np.ndarray]:
    w, h = size(scale)
    img = inputs(seed, scale)["image"]
    mod = ctx.load_ptx(Path(__file__).with_suffix(".ptx"))
    bank = np.zeros(2 * RADIUS + 2, np.float32)               # 17 taps and the spare entry
    bank[:2 * RADIUS + 1] = taps()
    mod.get_global("c_kernel", np.float32).set(bank)          # cudaMemcpyToSymbol
    src, tmp, dst = ctx.to_device(img), ctx.zeros((h, w), np.float32), ctx.zeros((h, w), np.float32)
    mod.launch("convolution_rows", grid=(w // ROW_TILE[0], h // ROW_TILE[1]), block=(16, 4),
               args=(tmp, src, np.int32(w), np.int32(h)))
    mod.launch("convolution_columns", grid=(w // COL_TILE[0], h // COL_TILE[1]), block=(16, 8),
               args=(dst, tmp, np.int32(w), np.int32(h)))
    return {"image": dst.get()}


def _convolve(a: np.ndarray, k: np.ndarray, axis: int) -> np.ndarray:
    pad = [(0, 0), (0, 0)]
    pad[axis] = (RADIUS, RADIUS)
    p = np.pad(a, pad)
    n = a.shape[axis]
    out = np.zeros_like(a)
    for j in range(-RADIUS, RADIUS + 1):          # out[x] = Σ_j k[R - j] · in[x + j]
        window = p[:, RADIUS + j:RADIUS + j + n] if axis == 1 else p[RADIUS + j:RADIUS + j + n, :]
        out += k[RADIUS - j] * window
    return out


def reference(seed: int, scale: float) -> dict[str, np.ndarray]:
    img = inputs(seed, scale)["image"].astype(np.float64)
    k = taps().astype(np.float64)
    return {"image": _convolve(_convolve(img, k, 1), k, 0)}
