"""Parboil SAD (OWL's SAD, SRTF's ERCBench "SAD (mb_sad_calc)"): full-search motion estimation
on a pair of video frames, SADs of all 41 H.264 partitions at 33×33 displacements (sad.cu)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from workloads.programs.common import images

RANGE = 16
SIDE = 2 * RANGE + 1
POSITIONS = SIDE * SIDE
PARTS = 41
THREADS = 61                       # ERCBench's block of 61 threads (1,089 = 61 × 17.9 positions)
FULL_MBS = (11, 9)                 # QCIF 176×144: 99 macroblocks, 1,584 CTAs of mb_sad_calc

INFO = {
    "title": "SAD, sums of absolute differences for H.264 motion search",
    "suite": "Parboil",
    "papers": {"owl": "SAD", "srtf": "SAD (mb_sad_calc)"},
    "kernels": ("mb_sad_calc", "larger_sad_calc_8", "larger_sad_calc_16"),
    "default_scale": 1.0,
    "quick_scale": 0.1,
    "inputs": ("two QCIF video frames: a 1/f natural image and its copy moved by (3, -2) pixels "
               "plus Gaussian noise (σ 2 % of the range), 8-bit luma"),
    "scale_note": ("scale 1 = QCIF 176×144, Parboil's and ERCBench's frame: 99 macroblocks, "
                   "1,584 CTAs of 61 threads (SRTF's count); the macroblock grid scales linearly "
                   "(11·s × 9·s, at least 1×1)."),
    "paper_values": {"owl": {"pmem": 6.39, "cinv": 91, "row_sharing": 42, "ctas_per_row": 32},
                     "srtf": {"threads": 61, "blocks": 1584, "standalone_cycles": 441297,
                              "rsd": 6.6}},
}


def frame_size(scale: float) -> tuple[int, int]:
    mbx = max(1, round(FULL_MBS[0] * scale))
    mby = max(1, round(FULL_MBS[1] * scale))
    return 16 * mby, 16 * mbx


def inputs(seed: int, scale: float) -> dict[str, np.ndarray]:
    h, w = frame_size(scale)
    ref, cur = images.frames(h, w, seed, shift=(3, -2), noise=0.02)
    return {"ref": images.to_bytes(ref), "cur": images.to_bytes(cur)}


def main(ctx, seed: int = 0, scale: float = 1.0) -> dict[str, np.ndarray]:
    h, w = frame_size(scale)
    data = inputs(seed, scale)
    mod = ctx.load_ptx(Path(__file__).with_suffix(".ptx"))
    mbs = (w // 16, h // 16)
    sads = ctx.zeros((mbs[0] * mbs[1], PARTS, POSITIONS), np.uint16)
    mod.launch("mb_sad_calc", grid=(w // 4, h // 4), block=(THREADS,),
               args=(ctx.to_device(data["cur"]), ctx.to_device(data["ref"]), np.int32(w),
                     np.int32(h), sads))
    mod.launch("larger_sad_calc_8", grid=mbs, block=(128,), args=(sads,))
    mod.launch("larger_sad_calc_16", grid=mbs, block=(128,), args=(sads,))
    return {"sads": sads.get()}


def reference(seed: int, scale: float) -> dict[str, np.ndarray]:
    h, w = frame_size(scale)
    data = inputs(seed, scale)
    cur = data["cur"].astype(np.int32)
    ref = np.pad(data["ref"].astype(np.int32), RANGE, mode="edge")
    nmb = (h // 16) * (w // 16)
    out = np.zeros((nmb, PARTS, POSITIONS), np.int64)
    for p in range(POSITIONS):
        dy, dx = p // SIDE - RANGE, p % SIDE - RANGE
        shifted = ref[RANGE + dy:RANGE + dy + h, RANGE + dx:RANGE + dx + w]
        diff = np.abs(cur - shifted)
        b4 = diff.reshape(h // 16, 4, 4, w // 16, 4, 4).sum(axis=(2, 5))   # [mby, by, mbx, bx]
        b4 = b4.transpose(0, 2, 1, 3).reshape(nmb, 4, 4)                   # [mb, by, bx]
        r = b4[:, :, 0::2] + b4[:, :, 1::2]          # 8×4: [mb, by, qx]
        c = b4[:, 0::2, :] + b4[:, 1::2, :]          # 4×8: [mb, qy, bx]
        q = r[:, 0::2, :] + r[:, 1::2, :]            # 8×8: [mb, qy, qx]
        parts = [b4.reshape(nmb, 16)]
        parts.append(np.stack([r[:, 2 * (k // 2) + i, k % 2] for k in range(4) for i in (0, 1)], 1))
        parts.append(np.stack([c[:, k // 2, 2 * (k % 2) + i] for k in range(4) for i in (0, 1)], 1))
        q4 = q.reshape(nmb, 4)
        parts.append(q4)
        parts.append(np.stack([q4[:, 0] + q4[:, 1], q4[:, 2] + q4[:, 3],
                               q4[:, 0] + q4[:, 2], q4[:, 1] + q4[:, 3], q4.sum(1)], 1))
        out[:, :, p] = np.concatenate(parts, 1)
    return {"sads": out.astype(np.uint16)}
