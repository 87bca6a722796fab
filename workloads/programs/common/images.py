"""Images with natural-image statistics (a 1/f amplitude spectrum, as photographs have), and video
frames for motion search (shifted copies plus noise). Values in [0, 1) unless stated."""

from __future__ import annotations

import numpy as np


def natural(height: int, width: int, seed: int, slope: float = 1.0) -> np.ndarray:
    """Noise shaped to a 1/f^slope amplitude spectrum, scaled to [0, 1), float32."""
    rng = np.random.default_rng(seed)
    fy = np.fft.fftfreq(height)[:, None]
    fx = np.fft.rfftfreq(width)[None, :]
    f = np.sqrt(fx * fx + fy * fy)
    f[0, 0] = 1.0
    spectrum = (rng.standard_normal(f.shape) + 1j * rng.standard_normal(f.shape)) / f ** slope
    img = np.fft.irfft2(spectrum, s=(height, width))
    img -= img.min()
    img /= img.max() + 1e-12
    return (img * 0.999).astype(np.float32)


def frames(height: int, width: int, seed: int, shift=(3, -2), noise: float = 0.02):
    """A reference frame and a current frame: the reference moved by ``shift`` plus noise."""
    rng = np.random.default_rng(seed + 1)
    ref = natural(height, width, seed)
    cur = np.roll(ref, shift, axis=(0, 1)) + rng.normal(0, noise, ref.shape)
    return ref, np.clip(cur, 0, 0.999).astype(np.float32)


def to_bytes(img: np.ndarray) -> np.ndarray:
    return np.clip(img * 256, 0, 255).astype(np.uint8)
