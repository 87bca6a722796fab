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


def ultrasound(height: int, width: int, seed: int, grain: int = 2) -> np.ndarray:
    """An 8-bit log-compressed B-mode ultrasound-like image (values 0..255, float32): a 1/f
    reflectivity map times fully developed speckle (the magnitude of complex Gaussian noise
    smoothed over a grain x grain cell, so Rayleigh-distributed), log-compressed to 0..255."""
    rng = np.random.default_rng(seed + 3)
    reflect = 0.2 + 0.8 * natural(height, width, seed).astype(np.float64)
    field = rng.standard_normal((height, width)) + 1j * rng.standard_normal((height, width))
    cell = np.zeros((height, width))
    cell[:grain, :grain] = 1.0
    speckle = np.abs(np.fft.ifft2(np.fft.fft2(field) * np.fft.fft2(cell)))
    logged = np.log(reflect * speckle + 1e-3)
    logged = (logged - logged.min()) / (logged.max() - logged.min())
    return np.round(255.0 * logged).astype(np.float32)
