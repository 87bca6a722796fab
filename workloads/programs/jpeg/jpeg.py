"""JPEG's transform stages (ERCBench JPEG-e: forward DCT + quantisation; JPEG-d: inverse DCT;
the IDCT is also the core of OWL's JPEG decoding) on a 512×512 natural greyscale image
(kernels: jpeg.cu). Outputs: the quantised coefficients and the decoded image, exact integers."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from workloads.programs.common import images

THREADS = 64
TILES_PER_CTA = 8
SIDE_AT_SCALE_1 = 512              # 4096 tiles = SRTF's 512 CTAs of 64 threads
CONST_BITS, PASS1_BITS = 13, 2
QUANT = np.array([[16, 11, 10, 16, 24, 40, 51, 61], [12, 12, 14, 19, 26, 58, 60, 55],
                  [14, 13, 16, 24, 40, 57, 69, 56], [14, 17, 22, 29, 51, 87, 80, 62],
                  [18, 22, 37, 56, 68, 109, 103, 77], [24, 35, 55, 64, 81, 104, 113, 92],
                  [49, 64, 78, 87, 103, 121, 120, 101], [72, 92, 95, 98, 112, 100, 103, 99]],
                 np.int64)

INFO = {
    "title": "JPEG forward and inverse DCT (ERCBench JPEG-e/JPEG-d; OWL JPEG decoding)",
    "suite": "ERCBench",
    "papers": {"srtf": "JPEG-e (DCT), JPEG-d (IDCT)", "owl": "JPEG"},
    "kernels": ("jpeg_dct", "jpeg_idct"),
    "default_scale": 1.0,
    "quick_scale": 1 / 64,
    "inputs": "a 512×512 greyscale natural image (1/f spectrum) at scale 1: 4096 8×8 tiles; "
              "T.81 Annex K luminance quantisation",
    "scale_note": "scale 1 = SRTF's 512 CTAs of 64 threads (8 tiles each); scale s has "
                  "512·√s-pixel sides (rounded to 64)",
    "paper_values": {
        "srtf": {"jpeg_dct": {"threads": 64, "blocks": 512, "standalone_cycles": 25383, "rsd": 33.0,
                              "resident_ctas": 8, "mean_block_cycles": 5367},
                 "jpeg_idct": {"threads": 64, "blocks": 512, "standalone_cycles": 24853, "rsd": 29.6,
                               "resident_ctas": 8, "mean_block_cycles": 5238}},
        "owl": {"pmem": 2.12, "cinv": 54, "row_sharing": 99, "ctas_per_row": 16}},
}


def _side(scale: float) -> int:
    return max(64, int(round(SIDE_AT_SCALE_1 * math.sqrt(scale) / 64)) * 64)


def inputs(seed: int, scale: float) -> dict[str, np.ndarray]:
    side = _side(scale)
    return {"image": images.to_bytes(images.natural(side, side, seed))}


def main(ctx, seed: int = 0, scale: float = 1.0) -> dict[str, np.ndarray]:
    img = inputs(seed, scale)["image"]
    side = img.shape[0]
    mod = ctx.load_ptx(Path(__file__).with_suffix(".ptx"))
    n_tiles = (side // 8) ** 2
    coefficients = ctx.empty(n_tiles * 64, np.int16)
    decoded = ctx.empty((side, side), np.uint8)
    grid = (n_tiles // TILES_PER_CTA,)
    mod.launch("jpeg_dct", grid=grid, block=(THREADS,),
               args=(ctx.to_device(img), np.int32(side), coefficients))
    mod.launch("jpeg_idct", grid=grid, block=(THREADS,), args=(coefficients, np.int32(side), decoded))
    return {"coefficients": coefficients.get().reshape(n_tiles, 8, 8), "decoded": decoded.get()}


def cosines() -> np.ndarray:
    c = np.array([[(1 / math.sqrt(2) if u == 0 else 1) / 2 * math.cos((2 * x + 1) * u * math.pi / 16)
                   for x in range(8)] for u in range(8)])
    return np.round(c * (1 << CONST_BITS)).astype(np.int64)


def _descale(x: np.ndarray, bits: int) -> np.ndarray:
    return (x + (1 << (bits - 1))) >> bits


def reference(seed: int, scale: float) -> dict[str, np.ndarray]:
    img = inputs(seed, scale)["image"].astype(np.int64)
    side = img.shape[0]
    tiles = img.reshape(side // 8, 8, side // 8, 8).transpose(0, 2, 1, 3).reshape(-1, 8, 8) - 128
    c = cosines()
    rows = _descale(tiles @ c.T, CONST_BITS - PASS1_BITS)             # [tile, y, u]
    coef = _descale(np.einsum("vy,kyu->kvu", c, rows), CONST_BITS + PASS1_BITS)
    half = QUANT >> 1
    q = np.where(coef >= 0, (coef + half) // QUANT, -((-coef + half) // QUANT))
    g = q * QUANT
    cols = _descale(np.einsum("vy,kvu->kyu", c, g), CONST_BITS - PASS1_BITS)   # [tile, y, u]
    pix = np.clip(_descale(cols @ c, CONST_BITS + PASS1_BITS) + 128, 0, 255)   # [tile, y, x]
    decoded = pix.reshape(side // 8, side // 8, 8, 8).transpose(0, 2, 1, 3).reshape(side, side)
    return {"coefficients": q.astype(np.int16), "decoded": decoded.astype(np.uint8)}
