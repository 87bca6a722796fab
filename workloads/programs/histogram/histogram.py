"""HIST: a 256-bin histogram of image bytes with per-warp shared-memory sub-histograms (CUDA SDK
histogram256 as the thesis ch.3 runs it: 256 CTAs of 192 threads), then a merge kernel."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from workloads.programs.common import images

CTAS = 256                      # thesis Table 3.3: 256 CTAs of 192 threads
THREADS = 192
BINS = 256
SIDE = 512                      # the input is a stack of SIDE x SIDE 8-bit images
BYTES_AT_SCALE_1 = 64 << 20     # the SDK sample's default: 64 MiB

INFO = {
    "title": "256-bin byte histogram (per-warp sub-histograms + merge)",
    "suite": "CUDA SDK",
    "papers": {"thesis_ch3": "HIST"},
    "kernels": ("histogram_partial", "histogram_merge"),
    "default_scale": 0.25,
    "quick_scale": 0.001,
    "inputs": "8-bit natural images (1/f spectrum, 512x512 each) laid end to end",
    "scale_note": "scale 1 = the SDK sample's 64 MiB; the default 1/4 is 16 MiB (64 images); the "
                  "grid stays 256 CTAs of 192 threads at every scale, so a smaller input means "
                  "fewer words per thread, not fewer CTAs",
    "paper_values": {"thesis_ch3": {"HIST": {
        "ctas": 256, "threads": 192, "ctas_per_core": 6, "phases": 2,
        "longest": 44, "shortest": 24}}},
}


def _nbytes(scale: float) -> int:
    return max(4 * THREADS, int(BYTES_AT_SCALE_1 * scale) // 4 * 4)


def inputs(seed: int, scale: float) -> dict[str, np.ndarray]:
    n = _nbytes(scale)
    count = -(-n // (SIDE * SIDE))
    stack = [images.to_bytes(images.natural(SIDE, SIDE, seed * 1000 + k)).ravel()
             for k in range(count)]
    return {"data": np.concatenate(stack)[:n]}


def main(ctx, seed: int = 0, scale: float = 1.0) -> dict[str, np.ndarray]:
    data = inputs(seed, scale)["data"]
    mod = ctx.load_ptx(Path(__file__).with_suffix(".ptx"))
    words = ctx.to_device(data.view(np.uint32))
    partial = ctx.zeros(CTAS * BINS, np.uint32)
    hist = ctx.zeros(BINS, np.uint32)
    mod.launch("histogram_partial", grid=(CTAS,), block=(THREADS,),
               args=(words, np.int32(len(data) // 4), partial))
    mod.launch("histogram_merge", grid=(BINS,), block=(256,),
               args=(partial, np.int32(CTAS), hist))
    return {"histogram": hist.get()}


def reference(seed: int, scale: float) -> dict[str, np.ndarray]:
    data = inputs(seed, scale)["data"]
    return {"histogram": np.bincount(data, minlength=BINS).astype(np.uint32)}
