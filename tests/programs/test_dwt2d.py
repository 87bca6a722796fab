"""The dwt2d program's reference is the JPEG 2000 reversible 5/3 transform: inverting the
lifting steps gives the signal back exactly, and a constant image has no detail coefficients."""

from __future__ import annotations

import numpy as np

from workloads.programs.dwt2d import dwt2d


def _inverse(y: np.ndarray) -> np.ndarray:
    half = y.shape[-1] // 2
    s, d = y[..., :half], y[..., half:]
    left = np.concatenate([d[..., :1], d[..., :-1]], axis=-1)
    even = s - ((left + d + 2) >> 2)
    right = np.concatenate([even[..., 1:], even[..., -1:]], axis=-1)
    x = np.empty_like(y)
    x[..., 0::2], x[..., 1::2] = even, d + ((even + right) >> 1)
    return x


def test_lifting_inverts_exactly():
    x = np.random.default_rng(0).integers(-128, 128, (5, 64))
    assert np.array_equal(_inverse(dwt2d.lift53(x, 1)), x)


def test_a_constant_image_has_only_a_dc_band():
    y = dwt2d.lift53(dwt2d.lift53(np.full((16, 32), 37), 1), 0)
    assert np.all(y[:8, :16] == 37) and np.all(y[8:, :] == 0) and np.all(y[:, 16:] == 0)
