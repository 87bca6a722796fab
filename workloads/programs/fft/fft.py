"""Parboil FFT (OWL's FFT): batched 1-D complex FFTs, one global-memory Stockham pass per launch,
radix 4 then a final radix 2 (fft.cu)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from workloads.programs.common import images

LENGTH = 2048                      # 4^5 · 2: five radix-4 passes and one radix-2 pass
FULL_BATCH = 256
BLOCK = 128

INFO = {
    "title": "Batched FFT (Stockham, radix 4 and 2)",
    "suite": "Parboil",
    "papers": {"owl": "FFT"},
    "kernels": ("fft_radix4", "fft_radix2"),
    "default_scale": 1.0,
    "quick_scale": 0.02,
    "inputs": ("complex signals of 2,048 points whose real and imaginary parts are rows of a 1/f "
               "natural image (centred)"),
    "scale_note": ("scale 1 = 256 signals of 2,048 points (4 MB per buffer): per pass 4 × 256 "
                   "(radix 4) or 8 × 256 (radix 2) CTAs of 128 threads, six passes; the batch "
                   "scales (≥ 2)."),
    "paper_values": {"owl": {"pmem": 1.56, "cinv": 37, "row_sharing": 14, "ctas_per_row": 5}},
}
TOLERANCE = {"spectrum": (1e-4, 2e-3)}   # float32 butterflies and fast sin/cos, |X| up to ~500


def inputs(seed: int, scale: float) -> dict[str, np.ndarray]:
    batch = max(2, round(FULL_BATCH * scale))
    img = images.natural(2 * batch, LENGTH, seed) - 0.5
    sig = np.empty((batch, LENGTH), np.complex64)
    sig.real, sig.imag = img[:batch], img[batch:]
    return {"signal": sig}


def main(ctx, seed: int = 0, scale: float = 1.0) -> dict[str, np.ndarray]:
    sig = inputs(seed, scale)["signal"]
    batch = len(sig)
    mod = ctx.load_ptx(Path(__file__).with_suffix(".ptx"))
    src = ctx.to_device(sig.view(np.float32))
    dst = ctx.zeros(sig.view(np.float32).shape, np.float32)
    ns = 1
    while ns < LENGTH:
        radix = 4 if ns * 4 <= LENGTH else 2
        mod.launch(f"fft_radix{radix}", grid=(-(-LENGTH // radix // BLOCK), batch), block=(BLOCK,),
                   args=(src, dst, np.int32(LENGTH), np.int32(ns)))
        src, dst, ns = dst, src, ns * radix
    return {"spectrum": src.get().view(np.complex64)}


def reference(seed: int, scale: float) -> dict[str, np.ndarray]:
    sig = inputs(seed, scale)["signal"].astype(np.complex128)
    return {"spectrum": np.fft.fft(sig, axis=1)}
