"""AES-128 encryption and decryption (ERCBench's AES: aesEncrypt128 and aesDecrypt128; kernels:
aes.cu, tables and reference: cipher.py) of a 1.4 MB natural image. Outputs: the ciphertext and
the decrypted plaintext (equal to the input)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from workloads.programs.aes import cipher
from workloads.programs.common import images

THREADS = 256
BLOCKS_AT_SCALE_1 = 1429           # [SRTF ERCBench]: 1,429 CTAs of 256 threads
BYTES_PER_CTA = 4 * THREADS        # 64 AES blocks

INFO = {
    "title": "AES-128 encrypt and decrypt (ERCBench)",
    "suite": "ERCBench",
    "papers": {"srtf": "AES-e (aesEncrypt128), AES-d (aesDecrypt128)"},
    "kernels": ("aesEncrypt128", "aesDecrypt128"),
    "default_scale": 1.0,
    "quick_scale": 8 / 1429,
    "inputs": "a 1/f natural image's bytes (1,463,296 bytes = 91,456 AES blocks at scale 1) "
              "and a random 128-bit key",
    "scale_note": "scale 1 = SRTF's 1,429 CTAs per kernel (about 6.4 waves of 6 CTAs on the "
                  "15 SMs of the gtx480 preset)",
    "paper_values": {"srtf": {
        "aesEncrypt128": {"threads": 256, "blocks": 1429, "standalone_cycles": 226335, "rsd": 12.1,
                          "resident_ctas": 6, "mean_block_cycles": 14031},
        "aesDecrypt128": {"threads": 256, "blocks": 1429, "standalone_cycles": 234154, "rsd": 12.5,
                          "resident_ctas": 6, "mean_block_cycles": 14529}}},
}


def _ctas(scale: float) -> int:
    return max(1, int(round(BLOCKS_AT_SCALE_1 * scale)))


def inputs(seed: int, scale: float) -> dict[str, np.ndarray]:
    n = _ctas(scale) * BYTES_PER_CTA
    img = images.to_bytes(images.natural(n // 1024, 1024, seed))
    key = np.random.default_rng(seed + 1).integers(0, 256, 16, dtype=np.uint8)
    return {"plaintext": img.reshape(-1), "key": key}


def main(ctx, seed: int = 0, scale: float = 1.0) -> dict[str, np.ndarray]:
    inp = inputs(seed, scale)
    t = cipher.tables()
    enc_keys = cipher.expand_key(inp["key"].tobytes())
    mod = ctx.load_ptx(Path(__file__).with_suffix(".ptx"))
    n_words = len(inp["plaintext"]) // 4
    plain = ctx.to_device(inp["plaintext"].view(np.uint32))
    cipher_text, decrypted = ctx.empty(n_words, np.uint32), ctx.empty(n_words, np.uint32)
    grid = (n_words // THREADS,)
    mod.launch("aesEncrypt128", grid=grid, block=(THREADS,),
               args=(ctx.to_device(t["te"]), ctx.to_device(t["sbox"]), ctx.to_device(enc_keys),
                     plain, cipher_text))
    mod.launch("aesDecrypt128", grid=grid, block=(THREADS,),
               args=(ctx.to_device(t["td"]), ctx.to_device(t["inv_sbox"]),
                     ctx.to_device(cipher.decryption_keys(enc_keys)), cipher_text, decrypted))
    return {"ciphertext": cipher_text.get().view(np.uint8), "decrypted": decrypted.get().view(np.uint8)}


def reference(seed: int, scale: float) -> dict[str, np.ndarray]:
    inp = inputs(seed, scale)
    t = cipher.tables()
    keys = cipher.expand_key(inp["key"].tobytes())
    ct = cipher.crypt(inp["plaintext"].tobytes(), keys, t["te"], t["sbox"], 1)
    return {"ciphertext": np.frombuffer(ct, np.uint8), "decrypted": inp["plaintext"]}
