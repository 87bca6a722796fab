"""DWT: forward 2-D CDF 5/3 wavelet transform (JPEG 2000's reversible one, Rodinia dwt2d's 5/3
mode) of an RGB image, 3 levels: a component-split kernel, then per level and component one
launch of 512-thread CTAs that each lift a 32x16 tile (plus halo) in shared memory."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from workloads.programs.common import images

SIDE_AT_SCALE_1 = 1024          # scale 1: a 1024 x 1024 RGB image
LEVELS = 3
TILE_W, TILE_H = 32, 16

INFO = {
    "title": "2-D discrete wavelet transform, CDF 5/3 lifting in shared-memory tiles",
    "suite": "Rodinia",
    "papers": {"socgpu": "dwt2d", "thesis_ch3": "DWT"},
    "kernels": ("copy_components", "fdwt53"),
    "default_scale": 1 / 4,
    "quick_scale": 1 / 128,
    "inputs": "an RGB natural image (1/f luminance plus weaker 1/f chroma), 8 bits per channel",
    "scale_note": "scale 1 = 1024 x 1024 RGB, 3 levels (level 1: 2048 CTAs of 512 threads per "
                  "component); scale 2 (2048 x 1024) gives the thesis's 4096 CTAs per launch; "
                  "the scale multiplies the pixels, the default 1/4 is 512 x 512 (512 CTAs per "
                  "level-1 launch); sides are multiples of 128 x 64 so every level tiles exactly",
    "paper_values": {"thesis_ch3": {"DWT": {
        "ctas": 4096, "threads": 512, "ctas_per_core": 3, "phases": 2,
        "longest": 144, "shortest": 44}}},
}


def _shape(scale: float) -> tuple[int, int]:
    """(height, width): width = 1024 * sqrt(scale) rounded to 128, height to 64 (at least)."""
    side = SIDE_AT_SCALE_1 * np.sqrt(scale)
    return (max(64, int(round(side / 64)) * 64), max(128, int(round(side / 128)) * 128))


def inputs(seed: int, scale: float) -> dict[str, np.ndarray]:
    h, w = _shape(scale)
    lum = images.natural(h, w, seed)
    chroma = [images.natural(h, w, seed + 100 + k) - 0.5 for k in range(2)]
    rgb = np.stack([lum + 0.3 * chroma[0], lum - 0.15 * chroma[0] - 0.15 * chroma[1],
                    lum + 0.3 * chroma[1]], axis=-1)
    return {"rgb": images.to_bytes(np.clip(rgb, 0, 0.999))}


def main(ctx, seed: int = 0, scale: float = 1.0) -> dict[str, np.ndarray]:
    rgb = inputs(seed, scale)["rgb"]
    h, w = rgb.shape[:2]
    mod = ctx.load_ptx(Path(__file__).with_suffix(".ptx"))
    planes = [ctx.zeros((h, w), np.int32) for _ in range(3)]
    mod.launch("copy_components", grid=(-(-h * w // 256),), block=(256,),
               args=(ctx.to_device(rgb), np.int32(h * w), *planes))
    out = []
    for plane in planes:
        coeff = ctx.zeros((h, w), np.int32)
        lh, lw = h, w
        for level in range(LEVELS):
            if level:                       # the last LL band becomes the next level's input
                ll = coeff.get()[:lh, :lw]
                whole = plane.get()
                whole[:lh, :lw] = ll
                plane.set(whole)
            mod.launch("fdwt53", grid=(lw // TILE_W, lh // TILE_H), block=(TILE_W, TILE_H),
                       args=(plane, coeff, np.int32(lw), np.int32(lh), np.int32(w)))
            lh, lw = lh // 2, lw // 2
        out.append(coeff.get())
    return {"coefficients": np.stack(out)}


def lift53(x: np.ndarray, axis: int) -> np.ndarray:
    """One 5/3 lifting pass along ``axis`` (even length): low half then high half."""
    x = np.moveaxis(x, axis, -1).astype(np.int64)
    even, odd = x[..., 0::2], x[..., 1::2]
    right = np.concatenate([even[..., 1:], even[..., -1:]], axis=-1)     # x[2n+2], mirrored
    d = odd - ((even + right) >> 1)
    left = np.concatenate([d[..., :1], d[..., :-1]], axis=-1)            # d[n-1], mirrored
    s = even + ((left + d + 2) >> 2)
    return np.moveaxis(np.concatenate([s, d], axis=-1), -1, axis)


def reference(seed: int, scale: float) -> dict[str, np.ndarray]:
    rgb = inputs(seed, scale)["rgb"].astype(np.int64) - 128
    out = []
    for c in range(3):
        a = rgb[..., c].copy()
        lh, lw = a.shape
        for _ in range(LEVELS):
            a[:lh, :lw] = lift53(lift53(a[:lh, :lw], 1), 0)
            lh, lw = lh // 2, lw // 2
        out.append(a)
    return {"coefficients": np.stack(out).astype(np.int32)}
