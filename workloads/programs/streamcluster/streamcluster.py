"""SC: streaming k-median local search (Rodinia streamcluster): the host opens an initial set of
centres (speedy), then evaluates random candidate centres x; for each, the pgain kernel (one
thread per point, 512 per CTA) returns every point's cost to x and per-CTA sums that decide
whether opening x, and closing the centres it makes redundant, lowers the total cost."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ptx.fp import fma32

POINTS_AT_SCALE_1 = 65536       # Rodinia's default run: 65536 points of 256 dimensions
DIM = 256
THREADS = 512
CANDIDATES = 20                 # pgain calls (the original's count depends on convergence)
QUICK_CANDIDATES = 4            # ... below scale 1/16 (the quick test)
CLUSTERS = 20
FIXED_ONE = 2.0 ** 20
F32 = np.float32

INFO = {
    "title": "streamcluster: pgain of streaming k-median (one thread per point, shared sums)",
    "suite": "Rodinia",
    "papers": {"owl": "SC"},
    "kernels": ("pgain",),
    "default_scale": 1 / 4,
    "quick_scale": 1 / 256,
    "inputs": "points in 256 dimensions from 20 Gaussian clusters (Zipf sizes, spreads "
              "0.02-0.1 in a unit cube) plus 5 % uniform noise, weight 1",
    "scale_note": "scale 1 = Rodinia's default 65536 points x 256 dimensions (one chunk); the "
                  "scale multiplies the points (16384 at the default 1/4: 32 CTAs per pgain); "
                  "the host makes 20 pgain calls for one facility cost instead of the original's "
                  "convergence-driven hundreds (4 below scale 1/16), so the kernel is the same, "
                  "its repetitions fewer",
    "paper_values": {"owl": {"pmem": 1.94, "cinv": 52, "row_sharing": 1, "ctas_per_row": 2}},
}


def _points(scale: float) -> int:
    return max(THREADS // 2, int(POINTS_AT_SCALE_1 * scale))


def inputs(seed: int, scale: float) -> dict[str, np.ndarray]:
    n = _points(scale)
    rng = np.random.default_rng(seed)
    sizes = 1.0 / np.arange(1, CLUSTERS + 1)
    label = rng.choice(CLUSTERS, size=n, p=sizes / sizes.sum())
    centre = rng.random((CLUSTERS, DIM))
    spread = rng.uniform(0.02, 0.1, CLUSTERS)
    pts = centre[label] + rng.standard_normal((n, DIM)) * spread[label, None]
    noise = rng.random(n) < 0.05
    pts[noise] = rng.random((int(noise.sum()), DIM))
    return {"points": pts.astype(np.float32), "order": rng.permutation(n),
            "candidates": rng.integers(0, n, CANDIDATES if scale >= 1 / 16 else QUICK_CANDIDATES),
            "coins": rng.random(n)}


def distance(points: np.ndarray, x: int) -> np.ndarray:
    """|p - x|^2 in float32, dimension by dimension with one rounding per fma, as the kernel."""
    d = np.zeros(len(points), F32)
    for k in range(points.shape[1]):
        t = points[:, k] - points[x, k]
        d = fma32(t, t, d)
    return d


def speedy(points: np.ndarray, order: np.ndarray, coins: np.ndarray, z: float):
    """Initial centres (on the host, in double precision as the original's CPU code): visit the
    points in random order, open one with probability cost / z."""
    n = len(points)
    cost = np.full(n, np.inf, F32)
    assign = np.zeros(n, np.int64)
    centres = []
    for i in order:
        if centres and coins[i] >= cost[i] / z:
            continue
        centres.append(int(i))
        d = ((points.astype(np.float64) - points[i]) ** 2).sum(axis=1).astype(F32)
        closer = d < cost
        cost[closer], assign[closer] = d[closer], i
    return centres, assign, cost


def local_search(inp, pgain_call):
    """The host's loop: speedy, then one pgain per candidate; ``pgain_call(x, centres, assign,
    cost)`` → (per-CTA fixed-point sums, x_cost, switch flags)."""
    pts = inp["points"]
    z = float(len(pts)) * DIM / 6.0 / (2 * CLUSTERS)     # ~ a centre per n/40 well-spread points
    centres, assign, cost = speedy(pts, inp["order"], inp["coins"], z)
    gains = []
    for x in inp["candidates"]:
        x = int(x)
        work, x_cost, switch = pgain_call(x, centres, assign, cost)
        sums = work.sum(axis=0) / FIXED_ONE              # exact: integer sums
        lower = z + sums[:len(centres)]                  # what closing each centre saves
        closing = lower > 0
        opening = z + sums[len(centres)] - lower[closing].sum()
        if opening < 0:
            closed = {centres[s] for s in np.nonzero(closing)[0]}
            move = (switch == 1) | np.isin(assign, list(closed))
            cost = np.where(move, x_cost, cost).astype(F32)
            assign = np.where(move, x, assign)
            centres = [c for c in centres if c not in closed]
            if x not in centres:
                centres.append(x)
        gains.append(-opening if opening < 0 else 0.0)
    is_centre = np.zeros(len(pts), np.uint8)
    is_centre[centres] = 1
    return {"assign": assign.astype(np.int32), "cost": cost, "is_centre": is_centre,
            "gain": np.array(gains)}


def main(ctx, seed: int = 0, scale: float = 1.0) -> dict[str, np.ndarray]:
    inp = inputs(seed, scale)
    pts = inp["points"]
    n = len(pts)
    blocks = -(-n // THREADS)
    mod = ctx.load_ptx(Path(__file__).with_suffix(".ptx"))
    coord = ctx.to_device(np.ascontiguousarray(pts.T))
    weight = ctx.to_device(np.ones(n, np.float32))
    d_cost, d_assign = ctx.zeros(n, np.float32), ctx.zeros(n, np.int32)
    d_slot = ctx.zeros(n, np.int32)
    x_cost, switch = ctx.zeros(n, np.float32), ctx.zeros(n, np.uint8)

    def gpu_pgain(x, centres, assign, cost):
        k = len(centres)
        slot = np.zeros(n, np.int32)
        slot[centres] = np.arange(k)
        d_cost.set(cost)
        d_assign.set(assign.astype(np.int32))
        d_slot.set(slot)
        work = ctx.zeros((blocks, k + 1), np.int64)
        mod.launch("pgain", grid=(blocks,), block=(THREADS,), shared=8 * (k + 1) + 4 * DIM,
                   args=(np.int32(n), np.int32(DIM), coord, weight, d_cost, d_assign, d_slot,
                         np.int32(x), np.int32(k), work, x_cost, switch))
        return work.get(), x_cost.get(), switch.get()

    return local_search(inp, gpu_pgain)


def reference(seed: int, scale: float) -> dict[str, np.ndarray]:
    inp = inputs(seed, scale)
    pts = inp["points"]
    n = len(pts)
    blocks = -(-n // THREADS)
    block_of = np.arange(n) // THREADS

    def numpy_pgain(x, centres, assign, cost):
        k = len(centres)
        slot = np.zeros(n, np.int64)
        slot[centres] = np.arange(k)
        mine = distance(pts, x)                 # times the weight, 1 for raw stream points
        switch = mine < cost
        gain = np.where(switch, mine - cost, cost - mine).astype(F32)
        fixed = np.rint(gain.astype(np.float64) * FIXED_ONE).astype(np.int64)
        target = np.where(switch, k, slot[assign])
        work = np.zeros((blocks, k + 1), np.int64)
        np.add.at(work, (block_of, target), fixed)
        return work, mine, switch.astype(np.uint8)

    return local_search(inp, numpy_pgain)
