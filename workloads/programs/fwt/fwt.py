"""FWT: dyadic convolution of a long signal with a 128-tap kernel by fast Walsh-Hadamard
transforms (CUDA SDK fastWalshTransform): transform both, multiply, transform back. Large
strides run as radix-4 passes over global memory, the 11 small ones in shared memory."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from workloads.programs.common import images

LOG2_AT_SCALE_1 = 23            # the SDK sample: 2^23 data points, a 2^7-point kernel
KERNEL_POINTS = 128
STRIPE = 2048                   # elements per fwt_shared CTA (512 threads)
GLOBAL_THREADS = 256

INFO = {
    "title": "Fast Walsh transform: dyadic convolution (global radix-4 passes + shared stripes)",
    "suite": "CUDA SDK",
    "papers": {"owl": "FWT", "thesis_ch3": "FWT", "thesis_ch4": "FWT"},
    "kernels": ("fwt_global", "fwt_global_radix2", "fwt_shared", "modulate"),
    "default_scale": 1 / 8,
    "quick_scale": 1 / 1024,
    "inputs": "a 1/f-noise signal (zero mean) and a 128-tap Gaussian-random kernel",
    "scale_note": "scale 1 = the SDK's 2^23 points (fwt_shared: 4096 CTAs of 512 threads, the "
                  "thesis's count); the default 1/8 is 2^20 points, 512 fwt_shared CTAs (32 per "
                  "SM on 16 SMs, about 11 waves at 3 CTAs/SM instead of 85); the point count "
                  "is rounded to a power of two",
    "paper_values": {
        "owl": {"pmem": 2.29, "cinv": 58, "row_sharing": 85, "ctas_per_row": 2},
        "thesis_ch3": {"FWT": {"ctas": 4096, "threads": 512, "ctas_per_core": 3, "phases": 2,
                               "longest": 174, "shortest": 45}},
        "thesis_ch4": {"FWT": {"onac_ctas": 32768, "onac_type": "A"}},
    },
}

# float32 round-off: each output is a sum over ~3·log2(n) butterfly stages of values of the
# size of the largest output; 2e-5 of the largest value covers it with a wide margin while a
# wrong butterfly (a sign or a stride) moves outputs by O(1) of that size
TOLERANCE = {"result": (0.0, 2e-5)}


def _log2n(scale: float) -> int:
    return max(13, int(round(LOG2_AT_SCALE_1 + np.log2(scale))))


def inputs(seed: int, scale: float) -> dict[str, np.ndarray]:
    n = 1 << _log2n(scale)
    signal = images.natural(1, n, seed).ravel()
    rng = np.random.default_rng(seed + 7)
    return {"data": (signal - signal.mean()).astype(np.float32),
            "kernel": rng.standard_normal(KERNEL_POINTS).astype(np.float32)}


def _transform(mod, arr, n: int) -> None:
    """Global passes from the largest stride down to STRIPE, then the shared-memory stripes."""
    stages = _log2n_of(n) - 11
    h = n // 2
    if stages % 2:
        mod.launch("fwt_global_radix2", grid=(n // 2 // GLOBAL_THREADS,), block=(GLOBAL_THREADS,),
                   args=(arr, np.int32(h), np.int32(n)))
        h //= 2
    while h >= STRIPE:
        mod.launch("fwt_global", grid=(n // 4 // GLOBAL_THREADS,), block=(GLOBAL_THREADS,),
                   args=(arr, np.int32(h // 2), np.int32(n)))
        h //= 4
    mod.launch("fwt_shared", grid=(n // STRIPE,), block=(512,), args=(arr,))


def _log2n_of(n: int) -> int:
    return n.bit_length() - 1


def main(ctx, seed: int = 0, scale: float = 1.0) -> dict[str, np.ndarray]:
    inp = inputs(seed, scale)
    n = len(inp["data"])
    mod = ctx.load_ptx(Path(__file__).with_suffix(".ptx"))
    data = ctx.to_device(inp["data"])
    padded = np.zeros(n, np.float32)
    padded[:KERNEL_POINTS] = inp["kernel"]
    kernel = ctx.to_device(padded)
    _transform(mod, data, n)
    _transform(mod, kernel, n)
    mod.launch("modulate", grid=(128,), block=(GLOBAL_THREADS,), args=(data, kernel, np.int32(n)))
    _transform(mod, data, n)
    return {"result": data.get()}


def walsh(x: np.ndarray) -> np.ndarray:
    """The unnormalised Walsh-Hadamard transform in natural order (float64)."""
    a = np.asarray(x, np.float64).copy()
    h = 1
    while h < len(a):
        v = a.reshape(-1, 2, h)
        a = np.stack((v[:, 0] + v[:, 1], v[:, 0] - v[:, 1]), axis=1).ravel()
        h *= 2
    return a


def reference(seed: int, scale: float) -> dict[str, np.ndarray]:
    inp = inputs(seed, scale)
    n = len(inp["data"])
    padded = np.zeros(n)
    padded[:KERNEL_POINTS] = inp["kernel"]
    out = walsh(walsh(inp["data"]) * walsh(padded)) / n
    return {"result": out}
