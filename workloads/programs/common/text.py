"""Text for the MapReduce-style programs: Zipf-distributed words (exponent ≈ 1, as word
frequencies in English are) and web-log-like records."""

from __future__ import annotations

import numpy as np


def zipf_words(n_words: int, vocabulary: int, seed: int, exponent: float = 1.0) -> np.ndarray:
    """Word ids 0..vocabulary-1 with P(rank k) ∝ 1/k^exponent (int32)."""
    rng = np.random.default_rng(seed)
    p = 1.0 / np.arange(1, vocabulary + 1) ** exponent
    p /= p.sum()
    return rng.choice(vocabulary, n_words, p=p).astype(np.int32)


def zipf_text(n_words: int, vocabulary: int, seed: int, exponent: float = 1.0) -> bytes:
    """Space-separated lower-case words (lengths 2-10) drawn by ``zipf_words``."""
    rng = np.random.default_rng(seed + 7)
    letters = np.frombuffer(b"etaoinshrdlcumwfgypbvkjxqz", np.uint8)
    lengths = rng.integers(2, 11, vocabulary)
    vocab = [bytes(letters[rng.integers(0, 26, k) % 26]) for k in lengths]
    return b" ".join(vocab[i] for i in zipf_words(n_words, vocabulary, seed, exponent))


def page_views(n: int, pages: int, seed: int) -> np.ndarray:
    """(page id, user id, time) records with Zipf page popularity (int32, n x 3)."""
    rng = np.random.default_rng(seed)
    page = zipf_words(n, pages, seed)
    user = rng.integers(0, max(1, n // 10), n)
    t = np.sort(rng.integers(0, 86400, n))
    return np.stack([page, user, t], 1).astype(np.int32)
