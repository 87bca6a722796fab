"""AES-128 (FIPS-197) for the aes program: GF(2^8) arithmetic, the S-boxes, the T-tables of the
table-driven round, both key schedules, and a numpy encrypt/decrypt used as the reference."""

from __future__ import annotations

import numpy as np


def xtime(b: int) -> int:
    return ((b << 1) ^ 0x1B) & 0xFF if b & 0x80 else b << 1


def gmul(a: int, b: int) -> int:
    p = 0
    while b:
        if b & 1:
            p ^= a
        a, b = xtime(a), b >> 1
    return p


def sboxes() -> tuple[np.ndarray, np.ndarray]:
    """The S-box (multiplicative inverse, then the affine map) and its inverse."""
    inv = [0] * 256
    for a in range(1, 256):
        inv[a] = next(b for b in range(1, 256) if gmul(a, b) == 1)
    s = np.zeros(256, np.uint32)
    for a in range(256):
        x = inv[a]
        y = x
        for k in range(1, 5):
            y ^= ((x << k) | (x >> (8 - k))) & 0xFF
        s[a] = y ^ 0x63
    si = np.zeros(256, np.uint32)
    si[s] = np.arange(256)
    return s, si


def _rotations(t0: np.ndarray) -> np.ndarray:
    t = [t0]
    for _ in range(3):
        t.append(((t[-1] >> 8) | (t[-1] << 24)) & 0xFFFFFFFF)
    return np.stack(t).astype(np.uint32)


def tables() -> dict[str, np.ndarray]:
    s, si = sboxes()
    te0 = np.array([(gmul(v, 2) << 24) | (v << 16) | (v << 8) | gmul(v, 3) for v in s.tolist()],
                   np.uint64)
    td0 = np.array([(gmul(v, 14) << 24) | (gmul(v, 9) << 16) | (gmul(v, 13) << 8) | gmul(v, 11)
                    for v in si.tolist()], np.uint64)
    return {"te": _rotations(te0), "td": _rotations(td0), "sbox": s, "inv_sbox": si}


def expand_key(key: bytes) -> np.ndarray:
    """The 44 words of the AES-128 encryption key schedule."""
    s, _ = sboxes()
    w = [int.from_bytes(key[4 * i:4 * i + 4], "big") for i in range(4)]
    rcon = 1
    for i in range(4, 44):
        t = w[i - 1]
        if i % 4 == 0:
            t = ((t << 8) | (t >> 24)) & 0xFFFFFFFF
            t = int.from_bytes(bytes(int(s[(t >> (24 - 8 * k)) & 0xFF]) for k in range(4)), "big")
            t ^= rcon << 24
            rcon = xtime(rcon)
        w.append(w[i - 4] ^ t)
    return np.array(w, np.uint32)


def decryption_keys(enc: np.ndarray) -> np.ndarray:
    """The equivalent inverse cipher's schedule: rounds reversed, InvMixColumns on rounds 1-9."""
    rounds = enc.reshape(11, 4)[::-1].copy()
    for r in range(1, 10):
        for c in range(4):
            b = [(int(rounds[r, c]) >> (24 - 8 * k)) & 0xFF for k in range(4)]
            m = [gmul(b[0], 14) ^ gmul(b[1], 11) ^ gmul(b[2], 13) ^ gmul(b[3], 9),
                 gmul(b[0], 9) ^ gmul(b[1], 14) ^ gmul(b[2], 11) ^ gmul(b[3], 13),
                 gmul(b[0], 13) ^ gmul(b[1], 9) ^ gmul(b[2], 14) ^ gmul(b[3], 11),
                 gmul(b[0], 11) ^ gmul(b[1], 13) ^ gmul(b[2], 9) ^ gmul(b[3], 14)]
            rounds[r, c] = (m[0] << 24) | (m[1] << 16) | (m[2] << 8) | m[3]
    return rounds.reshape(44).astype(np.uint32)


def crypt(data: bytes, keys: np.ndarray, t: np.ndarray, sbox: np.ndarray, shift: int) -> bytes:
    """Table-driven AES over 16-byte blocks (shift 1 encrypts with Te/S and the encryption
    keys, shift 3 decrypts with Td/inverse S and the decryption keys)."""
    s = np.frombuffer(data, ">u4").astype(np.uint32).reshape(-1, 4)
    rk = keys.reshape(11, 4)
    s = s ^ rk[0]
    cols = np.arange(4)
    for r in range(1, 11):
        c0, c1 = s[:, cols], s[:, (cols + shift) & 3]
        c2, c3 = s[:, (cols + 2 * shift) & 3], s[:, (cols + 3 * shift) & 3]
        b0, b1, b2, b3 = c0 >> 24, (c1 >> 16) & 255, (c2 >> 8) & 255, c3 & 255
        if r < 10:
            s = t[0][b0] ^ t[1][b1] ^ t[2][b2] ^ t[3][b3] ^ rk[r]
        else:
            s = (sbox[b0] << 24) | (sbox[b1] << 16) | (sbox[b2] << 8) | sbox[b3]
            s = s ^ rk[r]
    return s.astype(">u4").tobytes()
