"""SHA-1 of many messages, one per thread (ERCBench's SHA1, kernel sha1_kernel in sha1.cu).
Messages are slices of natural-image bytes, padded on the host; outputs are the 20-byte
digests, checked against hashlib."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

from workloads.programs.common import images

THREADS = 64
BLOCKS_AT_SCALE_1 = 1539           # [SRTF ERCBench]: 1,539 CTAs of 64 threads
MESSAGE_BYTES = 183                # padded to three 64-byte chunks

INFO = {
    "title": "SHA-1 of many messages (ERCBench)",
    "suite": "ERCBench",
    "papers": {"srtf": "SHA1 (sha1_kernel)"},
    "kernels": ("sha1_kernel",),
    "default_scale": 1.0,
    "quick_scale": 4 / 1539,
    "inputs": "98,496 messages of 183 bytes (3 chunks after padding) at scale 1, cut from a 1/f "
              "natural image's bytes",
    "scale_note": "scale 1 keeps SRTF's 1,539 CTAs of 64 threads but hashes 3 chunks per thread: "
                  "SRTF's 22 M-cycle standalone run implies far longer messages, which would "
                  "take hours here; blocks are ≈ 300× shorter, so SHA1 no longer outlasts its "
                  "co-runners",
    "paper_values": {"srtf": {"sha1_kernel": {"threads": 64, "blocks": 1539,
                                              "standalone_cycles": 22224223, "rsd": 8.0,
                                              "resident_ctas": 8, "mean_block_cycles": 1708531}}},
}


def _messages(seed: int, scale: float) -> tuple[np.ndarray, int]:
    n = max(1, int(round(BLOCKS_AT_SCALE_1 * scale))) * THREADS
    img = images.to_bytes(images.natural(n * MESSAGE_BYTES // 1024 + 1, 1024, seed)).reshape(-1)
    return img[:n * MESSAGE_BYTES].reshape(n, MESSAGE_BYTES), n


def pad(messages: np.ndarray) -> np.ndarray:
    """FIPS 180-4 padding of equal-length messages → big-endian words, one row per message."""
    n, length = messages.shape
    chunks = (length + 8) // 64 + 1
    buf = np.zeros((n, chunks * 64), np.uint8)
    buf[:, :length] = messages
    buf[:, length] = 0x80
    buf[:, -8:] = np.frombuffer((8 * length).to_bytes(8, "big"), np.uint8)
    return buf.view(">u4").astype(np.uint32)


def inputs(seed: int, scale: float) -> dict[str, np.ndarray]:
    messages, _ = _messages(seed, scale)
    return {"messages": messages}


def main(ctx, seed: int = 0, scale: float = 1.0) -> dict[str, np.ndarray]:
    messages, n = _messages(seed, scale)
    words = pad(messages)
    mod = ctx.load_ptx(Path(__file__).with_suffix(".ptx"))
    digests = ctx.empty((n, 5), np.uint32)
    mod.launch("sha1_kernel", grid=(n // THREADS,), block=(THREADS,),
               args=(ctx.to_device(words), np.int32(words.shape[1] // 16), digests))
    return {"digests": digests.get().astype(">u4").view(np.uint8).reshape(n, 20)}


def reference(seed: int, scale: float) -> dict[str, np.ndarray]:
    messages, n = _messages(seed, scale)
    return {"digests": np.frombuffer(b"".join(hashlib.sha1(m.tobytes()).digest() for m in messages),
                                     np.uint8).reshape(n, 20)}
