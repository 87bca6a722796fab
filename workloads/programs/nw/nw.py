"""NW: Needleman-Wunsch alignment scores of two protein sequences (BLOSUM62, gap penalty 10) by
a wavefront of 8x8 tiles (Rodinia nw as IKRA ran it): the host launches one kernel per tile
anti-diagonal, nw_upper for the growing half and nw_lower for the shrinking half."""

from __future__ import annotations

from pathlib import Path

import numpy as np

TILE = 8
LENGTH_AT_SCALE_1 = 2048        # Rodinia's default run: needle 2048 10
PENALTY = 10
AMINO = "ARNDCQEGHILKMFPSTWYV"
# background amino-acid frequencies of natural proteins (percent, in AMINO's order)
FREQUENCY = np.array([7.8, 5.1, 4.5, 5.4, 1.9, 4.3, 6.3, 7.4, 2.6, 6.8, 9.9, 5.9, 2.5, 4.7, 4.4,
                      5.7, 5.1, 1.3, 3.2, 6.6])
BLOSUM62 = np.array([
    [4, -1, -2, -2, 0, -1, -1, 0, -2, -1, -1, -1, -1, -2, -1, 1, 0, -3, -2, 0],
    [-1, 5, 0, -2, -3, 1, 0, -2, 0, -3, -2, 2, -1, -3, -2, -1, -1, -3, -2, -3],
    [-2, 0, 6, 1, -3, 0, 0, 0, 1, -3, -3, 0, -2, -3, -2, 1, 0, -4, -2, -3],
    [-2, -2, 1, 6, -3, 0, 2, -1, -1, -3, -4, -1, -3, -3, -1, 0, -1, -4, -3, -3],
    [0, -3, -3, -3, 9, -3, -4, -3, -3, -1, -1, -3, -1, -2, -3, -1, -1, -2, -2, -1],
    [-1, 1, 0, 0, -3, 5, 2, -2, 0, -3, -2, 1, 0, -3, -1, 0, -1, -2, -1, -2],
    [-1, 0, 0, 2, -4, 2, 5, -2, 0, -3, -3, 1, -2, -3, -1, 0, -1, -3, -2, -2],
    [0, -2, 0, -1, -3, -2, -2, 6, -2, -4, -4, -2, -3, -3, -2, 0, -2, -2, -3, -3],
    [-2, 0, 1, -1, -3, 0, 0, -2, 8, -3, -3, -1, -2, -1, -2, -1, -2, -2, 2, -3],
    [-1, -3, -3, -3, -1, -3, -3, -4, -3, 4, 2, -3, 1, 0, -3, -2, -1, -3, -1, 3],
    [-1, -2, -3, -4, -1, -2, -3, -4, -3, 2, 4, -2, 2, 0, -3, -2, -1, -2, -1, 1],
    [-1, 2, 0, -1, -3, 1, 1, -2, -1, -3, -2, 5, -1, -3, -1, 0, -1, -3, -2, -2],
    [-1, -1, -2, -3, -1, 0, -2, -3, -2, 1, 2, -1, 5, 0, -2, -1, -1, -1, -1, 1],
    [-2, -3, -3, -3, -2, -3, -3, -3, -1, 0, 0, -3, 0, 6, -4, -2, -2, 1, 3, -1],
    [-1, -2, -2, -1, -3, -1, -1, -2, -2, -3, -3, -1, -2, -4, 7, -1, -1, -4, -3, -2],
    [1, -1, 1, 0, -1, 0, 0, 0, -1, -2, -2, 0, -1, -2, -1, 4, 1, -3, -2, -2],
    [0, -1, 0, -1, -1, -1, -1, -2, -2, -1, -1, -1, -1, -2, -1, 1, 5, -2, -2, 0],
    [-3, -3, -4, -4, -2, -2, -3, -2, -2, -3, -2, -3, -1, 1, -4, -3, -2, 11, 2, -3],
    [-2, -2, -2, -3, -2, -1, -2, -3, 2, -1, -1, -2, -1, 3, -3, -2, -2, 2, 7, -1],
    [0, -3, -3, -3, -1, -2, -2, -3, -3, 3, 1, -2, 1, -1, -2, -2, 0, -3, -1, 4]], np.int32)

INFO = {
    "title": "Needleman-Wunsch: wavefront of 8x8 tiles, two kernels per sweep from the host",
    "suite": "Rodinia",
    "papers": {"ikra": "NW"},
    "kernels": ("nw_upper", "nw_lower"),
    "default_scale": 1 / 16,
    "quick_scale": 1 / 1024,
    "inputs": "two homologous protein sequences: one drawn from natural amino-acid "
              "frequencies, the other derived from it with 25 % substitutions and 3 % short "
              "insertions/deletions; BLOSUM62 substitution scores, gap penalty 10",
    "scale_note": "scale 1 = Rodinia's default 2048 x 2048; the scale multiplies the cell count "
                  "(length = 2048 * sqrt(scale), a multiple of 8); the default 1/16 is IKRA's "
                  "512 x 512: 64 tiles a side, kernels of 1..64 then 63..1 CTAs",
    "paper_values": {"ikra": {"input": "512 x 512, 0.5-31.5 KB per kernel", "tb_size": 8,
                              "tbs_per_kernel": "1-63"}},
}


def _length(scale: float) -> int:
    return max(2 * TILE, int(round(LENGTH_AT_SCALE_1 * np.sqrt(scale) / TILE)) * TILE)


def inputs(seed: int, scale: float) -> dict[str, np.ndarray]:
    n = _length(scale)
    rng = np.random.default_rng(seed)
    p = FREQUENCY / FREQUENCY.sum()
    a = rng.choice(20, size=n, p=p)
    b = []
    i = 0
    while len(b) < n:                               # mutate a into b
        u = rng.random()
        if u < 0.015:                               # deletion of 1-3 residues
            i += int(rng.integers(1, 4))
            continue
        if u < 0.03:                                # insertion of 1-3 residues
            b.extend(rng.choice(20, size=int(rng.integers(1, 4)), p=p))
            continue
        res = a[i % n] if rng.random() >= 0.25 else rng.choice(20, p=p)
        b.append(res)
        i += 1
    return {"seq_a": a.astype(np.int32), "seq_b": np.array(b[:n], np.int32)}


def _matrices(inp) -> tuple[np.ndarray, np.ndarray]:
    a, b = inp["seq_a"], inp["seq_b"]
    n = len(a)
    ref = np.zeros((n + 1, n + 1), np.int32)
    ref[1:, 1:] = BLOSUM62[a[:, None], b[None, :]]
    score = np.zeros((n + 1, n + 1), np.int32)
    score[0, :] = -PENALTY * np.arange(n + 1)
    score[:, 0] = -PENALTY * np.arange(n + 1)
    return ref, score


def main(ctx, seed: int = 0, scale: float = 1.0) -> dict[str, np.ndarray]:
    inp = inputs(seed, scale)
    ref, score0 = _matrices(inp)
    cols = ref.shape[1]
    tiles = (cols - 1) // TILE
    mod = ctx.load_ptx(Path(__file__).with_suffix(".ptx"))
    score, d_ref = ctx.to_device(score0), ctx.to_device(ref)
    for d in range(tiles):
        mod.launch("nw_upper", grid=(d + 1,), block=(TILE,),
                   args=(score, d_ref, np.int32(cols), np.int32(PENALTY), np.int32(d)))
    for d in range(tiles, 2 * tiles - 1):
        mod.launch("nw_lower", grid=(2 * tiles - 1 - d,), block=(TILE,),
                   args=(score, d_ref, np.int32(cols), np.int32(PENALTY), np.int32(d),
                         np.int32(tiles)))
    return {"score": score.get()}


def reference(seed: int, scale: float) -> dict[str, np.ndarray]:
    """Row by row: F[i][j] = max(G[j], F[i][j-1] - p) with G = max(diagonal, up) is a running
    maximum of G[k] + p*k, minus p*j."""
    ref, f = _matrices(inputs(seed, scale))
    f = f.astype(np.int64)
    n = f.shape[0] - 1
    ramp = PENALTY * np.arange(n + 1)
    for i in range(1, n + 1):
        g = np.empty(n + 1, np.int64)
        g[0] = f[i, 0]
        g[1:] = np.maximum(f[i - 1, :-1] + ref[i, 1:], f[i - 1, 1:] - PENALTY)
        f[i] = np.maximum.accumulate(g + ramp) - ramp
    return {"score": f.astype(np.int32)}
