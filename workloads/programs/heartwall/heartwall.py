"""Heartwall: tracking 56 points of the inner and outer heart wall through an ultrasound-like
video by normalised template matching (Rodinia heartwall as the thesis ran it: 56 CTAs of 256
threads, one large kernel per frame with many barrier-separated phases)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from workloads.programs.common import images

SIDE = 256
FRAMES_AT_SCALE_1 = 20
ENDO_POINTS, EPI_POINTS = 24, 32          # 56 CTAs, the thesis's count (Rodinia: 20 + 31)
T, D = 10, 7
TS, CS = 2 * T + 1, 2 * D + 1
THREADS = 256
PERIOD = 20                               # frames per heartbeat
F32 = np.float32

INFO = {
    "title": "Heartwall: template tracking of 56 wall points, one large kernel per frame",
    "suite": "Rodinia",
    "papers": {"thesis_ch3": "Heartwall", "owl": "HW"},
    "kernels": ("heartwall",),
    "default_scale": 0.5,
    "quick_scale": 0.1,
    "inputs": "a 256x256 ultrasound-like video: dark blood pool, bright speckled myocardium "
              "ring and grey surroundings whose texture moves with the tissue; the wall "
              "contracts (inner radius -20 %, outer -8 %) and relaxes over a 20-frame beat; "
              "points 2 px inside the inner and outer wall edges",
    "scale_note": "scale 1 = 20 frames (one heartbeat); the default 1/2 tracks 10 frames "
                  "(systole); every frame is one launch of 56 CTAs of 256 threads (the first "
                  "cuts the templates); the scale sets the frame count, and below 0.2 the points "
                  "drop to 14 (the quick test)",
    "paper_values": {
        "thesis_ch3": {"Heartwall": {"ctas": 56, "threads": 256, "ctas_per_core": 4,
                                     "phases": 45, "longest": 212, "shortest": 41,
                                     "static_instructions": 1523}},
        "owl": {"pmem": 1.01, "cinv": 9},
    },
}


def _frames(scale: float) -> int:
    return max(2, int(round(FRAMES_AT_SCALE_1 * scale)))


def _points(scale: float) -> tuple[int, int]:
    """Inner and outer wall points: all 56 from scale 0.2 up, 14 below (the quick test)."""
    return (ENDO_POINTS, EPI_POINTS) if scale >= 0.2 else (ENDO_POINTS // 4, EPI_POINTS // 4)


def _radii(theta: np.ndarray, k: float) -> tuple[np.ndarray, np.ndarray]:
    """Inner and outer wall radius at angle theta in frame k."""
    c = 0.5 * (1 - np.cos(2 * np.pi * k / PERIOD))          # 0 relaxed, 1 contracted
    endo = 45 * (1 + 0.12 * np.cos(2 * theta) + 0.05 * np.sin(3 * theta)) * (1 - 0.2 * c)
    epi = 75 * (1 + 0.08 * np.cos(2 * theta)) * (1 - 0.08 * c)
    return endo, epi


def _material_radius(rho, theta, k):
    """Where the tissue at radius rho in frame k sat in frame 0 (radial motion only)."""
    endo, epi = _radii(theta, k)
    endo0, epi0 = _radii(theta, 0)
    wall = endo0 + (rho - endo) / (epi - endo) * (epi0 - endo0)
    return np.where(rho < endo, rho * endo0 / endo, np.where(rho < epi, wall, rho - epi + epi0))


def inputs(seed: int, scale: float) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    c = SIDE / 2
    yy, xx = np.mgrid[0:SIDE, 0:SIDE].astype(np.float64)
    rho, theta = np.hypot(xx - c, yy - c), np.arctan2(yy - c, xx - c)
    endo0, epi0 = _radii(theta, 0)
    level = np.where(rho < endo0, 25.0, np.where(rho < epi0, 170.0, 95.0))
    speckle = images.natural(SIDE, SIDE, seed, slope=0.6)
    tissue = level * (0.55 + 0.9 * speckle)                   # frame-0 texture
    video = np.empty((_frames(scale), SIDE, SIDE), np.uint8)
    for k in range(len(video)):
        r0 = _material_radius(rho, theta, k)
        sx, sy = c + r0 * np.cos(theta), c + r0 * np.sin(theta)
        x0 = np.clip(np.floor(sx).astype(int), 0, SIDE - 2)
        y0 = np.clip(np.floor(sy).astype(int), 0, SIDE - 2)
        fx, fy = sx - x0, sy - y0
        img = ((1 - fy) * ((1 - fx) * tissue[y0, x0] + fx * tissue[y0, x0 + 1])
               + fy * ((1 - fx) * tissue[y0 + 1, x0] + fx * tissue[y0 + 1, x0 + 1]))
        img *= rng.rayleigh(0.8, img.shape) ** 0.25          # fresh speckle noise each frame
        video[k] = np.clip(np.rint(img), 0, 255)
    n_endo, n_epi = _points(scale)
    angles = np.concatenate([np.linspace(0, 2 * np.pi, n_endo, endpoint=False),
                             np.linspace(0, 2 * np.pi, n_epi, endpoint=False)])
    endo, epi = _radii(angles, 0)
    r = np.concatenate([endo[:n_endo] + 2, epi[n_endo:] - 2])
    return {"video": video,
            "x": np.rint(c + r * np.cos(angles)).astype(np.int32),
            "y": np.rint(c + r * np.sin(angles)).astype(np.int32)}


def main(ctx, seed: int = 0, scale: float = 1.0) -> dict[str, np.ndarray]:
    inp = inputs(seed, scale)
    video = inp["video"]
    points = len(inp["x"])
    mod = ctx.load_ptx(Path(__file__).with_suffix(".ptx"))
    pos_x, pos_y = ctx.to_device(inp["x"]), ctx.to_device(inp["y"])
    templ, sums = ctx.zeros((points, TS * TS), np.int32), ctx.zeros((points, 2), np.int64)
    track_x = ctx.zeros((len(video), points), np.int32)
    track_y = ctx.zeros((len(video), points), np.int32)
    row = points * 4                                          # bytes per frame of the tracks
    for k in range(len(video)):
        frame = ctx.to_device(video[k])
        mod.launch("heartwall", grid=(points,), block=(THREADS,),
                   args=(frame, np.int32(SIDE), np.int32(SIDE), np.int32(k), pos_x, pos_y, templ,
                         sums, np.uint64(track_x.ptr + k * row), np.uint64(track_y.ptr + k * row)))
    return {"track_x": track_x.get(), "track_y": track_y.get()}


def _windows(frame: np.ndarray, x: np.ndarray, y: np.ndarray, half: int) -> np.ndarray:
    """(points, 2 half + 1, 2 half + 1) windows centred on the points, clamped at the edges."""
    d = np.arange(-half, half + 1)
    rows = np.clip(y[:, None] + d, 0, SIDE - 1)
    cols = np.clip(x[:, None] + d, 0, SIDE - 1)
    return frame[rows[:, :, None], cols[:, None, :]].astype(np.int64)


def reference(seed: int, scale: float) -> dict[str, np.ndarray]:
    """The tracker in numpy: exact integer sums, then the kernel's IEEE score operations."""
    inp = inputs(seed, scale)
    video = inp["video"]
    x, y = inp["x"].astype(np.int64), inp["y"].astype(np.int64)
    tpl = _windows(video[0], x, y, T)
    n = TS * TS
    sum_t = tpl.sum(axis=(1, 2))
    track_x, track_y = [x.copy()], [y.copy()]
    for k in range(1, len(video)):
        area = _windows(video[k], x, y, T + D)
        win = np.lib.stride_tricks.sliding_window_view(area, (TS, TS), axis=(1, 2))
        corr = np.einsum("pabyx,pyx->pab", win, tpl)
        sw = win.sum(axis=(3, 4))
        sw2 = (win * win).sum(axis=(3, 4))
        num = n * corr - sw * sum_t[:, None, None]
        den = n * sw2 - sw * sw
        with np.errstate(all="ignore"):
            score = np.where(den > 0, num.astype(F32) / np.sqrt(den.astype(F32)), -np.inf)
        best = np.argmax(score.reshape(len(x), -1), axis=1)      # first maximum
        x = x + best % CS - D
        y = y + best // CS - D
        track_x.append(x.copy())
        track_y.append(y.copy())
    return {"track_x": np.array(track_x, np.int32), "track_y": np.array(track_y, np.int32)}
