"""Host code for the ten example kernels (examples.cu): inputs, launches and numpy checks.

``run(name, ctx, seed, size)`` launches one example on a PTX front-end context and returns
``[(label, got, expected, (rtol, atol))]``; ``EXAMPLES`` lists them. Used by the tests, by
``gpusched bench ptx`` and by the table in docs/ptx.md.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

PTX = Path(__file__).with_name("examples.ptx")
EXACT = (0.0, 0.0)


def _module(ctx):
    return ctx.load_ptx(PTX)


def matmul_tiled(ctx, rng, size):
    n = 16 * max(1, size // 16)
    a = rng.standard_normal((n, n)).astype(np.float32)
    b = rng.standard_normal((n, n)).astype(np.float32)
    c = ctx.empty((n, n), np.float32)
    _module(ctx).launch("matmul_tiled", grid=(n // 16, n // 16), block=(16, 16),
                        args=(ctx.to_device(a), ctx.to_device(b), c, np.int32(n)))
    return [("C", c.get(), a.astype(np.float64) @ b, (1e-4, 1e-4))]


def reduce_shfl(ctx, rng, size):
    x = rng.random(size * 64).astype(np.float32)
    out = ctx.zeros(1, np.float32)
    _module(ctx).launch("reduce_shfl", grid=(max(1, size // 16),), block=(256,),
                        args=(ctx.to_device(x), out, np.int32(len(x))))
    return [("sum", out.get(), np.array([x.astype(np.float64).sum()]), (1e-5, 0.0))]


def histogram256(ctx, rng, size):
    data = rng.integers(0, 256, size * 64, dtype=np.uint8)
    bins = ctx.zeros(256, np.uint32)
    _module(ctx).launch("histogram256", grid=(max(1, size // 32),), block=(128,),
                        args=(ctx.to_device(data), bins, np.int32(len(data))))
    return [("bins", bins.get(), np.bincount(data, minlength=256).astype(np.uint32), EXACT)]


def _random_graph(rng, n: int, degree: int):
    src = rng.integers(0, n, n * degree)
    dst = rng.integers(0, n, n * degree)
    order = np.argsort(src, kind="stable")
    src, dst = src[order], dst[order]
    row = np.zeros(n + 1, np.int32)
    np.add.at(row, src + 1, 1)
    return np.cumsum(row).astype(np.int32), dst.astype(np.int32)


def bfs_levels_numpy(row, cols, n, source=0):
    level = np.full(n, -1, np.int32)
    level[source] = 0
    frontier, depth = [source], 0
    while frontier:
        nxt = []
        for v in frontier:
            for u in cols[row[v]:row[v + 1]]:
                if level[u] < 0:
                    level[u] = depth + 1
                    nxt.append(int(u))
        frontier, depth = nxt, depth + 1
    return level


def bfs_level(ctx, rng, size):
    n = size * 16
    row, cols = _random_graph(rng, n, 4)
    level0 = np.full(n, -1, np.int32)
    level0[0] = 0
    level = ctx.to_device(level0)
    changed = ctx.zeros(1, np.int32)
    d_row, d_cols = ctx.to_device(row), ctx.to_device(cols)
    mod = _module(ctx)
    depth = 0
    while True:                                  # the host's level loop
        changed.set(np.zeros(1, np.int32))
        mod.launch("bfs_level", grid=(-(-n // 128),), block=(128,),
                   args=(d_row, d_cols, level, np.int32(n), np.int32(depth), changed))
        depth += 1
        if not changed.get()[0]:
            break
    return [("level", level.get(), bfs_levels_numpy(row, cols, n), EXACT)]


def collatz_numpy(x, cap):
    out = np.zeros(len(x), np.int32)
    for i, v in enumerate(x.tolist()):
        s = 0
        while v != 1 and s < cap:
            v = (3 * v + 1) & 0xFFFFFFFF if v & 1 else v >> 1
            s += 1
        out[i] = s
    return out


def collatz_steps(ctx, rng, size):
    x = rng.integers(1, 100_000, size * 8).astype(np.uint32)
    steps = ctx.empty(len(x), np.int32)
    _module(ctx).launch("collatz_steps", grid=(-(-len(x) // 128),), block=(128,),
                        args=(ctx.to_device(x), steps, np.int32(len(x)), np.int32(400)))
    return [("steps", steps.get(), collatz_numpy(x, 400), EXACT)]


def stencil5(ctx, rng, size):
    w, h = size + 3, size // 2 + 5
    a = rng.random((h, w)).astype(np.float32)
    out = ctx.empty((h, w), np.float32)
    _module(ctx).launch("stencil5", grid=(-(-w // 16), -(-h // 8)), block=(16, 8),
                        args=(ctx.to_device(a), out, np.int32(w), np.int32(h)))
    p = np.pad(a, 1, mode="edge")
    ref = 0.5 * a + 0.125 * (p[1:-1, :-2] + p[1:-1, 2:] + p[:-2, 1:-1] + p[2:, 1:-1])
    return [("out", out.get(), ref, (1e-6, 1e-6))]


def _ncdf(d):
    k = 1.0 / (1.0 + 0.2316419 * np.abs(d))
    poly = k * (0.31938153 + k * (-0.356563782 + k * (1.781477937 + k * (-1.821255978
                                                                          + k * 1.330274429))))
    c = 0.3989422804 * np.exp(-0.5 * d * d) * poly
    return np.where(d > 0, 1.0 - c, c)


def black_scholes(ctx, rng, size):
    n = size * 16
    s = rng.uniform(5, 30, n).astype(np.float32)
    k = rng.uniform(1, 100, n).astype(np.float32)
    t = rng.uniform(0.25, 10, n).astype(np.float32)
    r, v = 0.02, 0.30
    call, put = ctx.empty(n, np.float32), ctx.empty(n, np.float32)
    _module(ctx).launch("black_scholes", grid=(-(-n // 128),), block=(128,),
                        args=(ctx.to_device(s), ctx.to_device(k), ctx.to_device(t), call, put,
                              np.float32(r), np.float32(v), np.int32(n)))
    s64, k64, t64 = s.astype(np.float64), k.astype(np.float64), t.astype(np.float64)
    d1 = (np.log(s64 / k64) + (r + 0.5 * v * v) * t64) / (v * np.sqrt(t64))
    d2 = d1 - v * np.sqrt(t64)
    disc = np.exp(-r * t64)
    return [("call", call.get(), s64 * _ncdf(d1) - k64 * disc * _ncdf(d2), (1e-4, 2e-4)),
            ("put", put.get(), k64 * disc * _ncdf(-d2) - s64 * _ncdf(-d1), (1e-4, 2e-4))]


def local_window(ctx, rng, size):
    n = size * 8
    x = rng.integers(0, 1000, n).astype(np.int32)
    out = ctx.empty(n, np.int32)
    _module(ctx).launch("local_window", grid=(-(-n // 128),), block=(128,),
                        args=(ctx.to_device(x), out, np.int32(n)))
    i = np.arange(n)[:, None]
    k = np.arange(16)[None, :]
    window = x[(i + k) % n] * (k + 1)
    ref = window[np.arange(n)[:, None], (k * 7 + x[:, None]) & 15].sum(1)
    return [("out", out.get(), ref.astype(np.int32), EXACT)]


def divide64(ctx, rng, size):
    n = size * 8
    a = rng.integers(-2**62, 2**62, n, dtype=np.int64)
    b = rng.integers(1, 2**40, n, dtype=np.int64) * rng.choice(np.array([-1, 1]), n)
    b[::7] = rng.integers(1, 100, len(b[::7]))           # small divisors: the 32-bit fast path
    a[::5] = rng.integers(0, 2**31, len(a[::5]))
    q, r = ctx.empty(n, np.int64), ctx.empty(n, np.uint64)
    _module(ctx).launch("divide64", grid=(-(-n // 128),), block=(128,),
                        args=(ctx.to_device(a), ctx.to_device(b), q, r, np.int32(n)))
    qt = np.array([abs(int(x)) // abs(int(y)) * (1 if (x < 0) == (y < 0) else -1)
                   for x, y in zip(a, b)], np.int64)
    return [("quotient", q.get(), qt, EXACT),
            ("remainder", r.get(), a.astype(np.uint64) % b.astype(np.uint64), EXACT)]


def compact_positive(ctx, rng, size):
    n = size * 8 + 5
    x = rng.integers(-100, 100, n).astype(np.int32)
    out = ctx.zeros(n, np.int32)
    count = ctx.zeros(1, np.int32)
    _module(ctx).launch("compact_positive", grid=(-(-n // 128),), block=(128,),
                        args=(ctx.to_device(x), out, count, np.int32(n)))
    c = int(count.get()[0])
    # warps claim their ranges in launch order (the documented atomic order): so the output
    # keeps the input order
    return [("count", np.array([c]), np.array([(x > 0).sum()]), EXACT),
            ("kept", out.get()[:c], x[x > 0], EXACT)]


EXAMPLES = {f.__name__: f for f in (matmul_tiled, reduce_shfl, histogram256, bfs_level,
                                     collatz_steps, stencil5, black_scholes, local_window,
                                     divide64, compact_positive)}
KIND = {"matmul_tiled": "tiled matmul, shared memory + barriers",
        "reduce_shfl": "tree reduction with shfl", "histogram256": "histogram, shared atomics",
        "bfs_level": "BFS level loop driven from the host",
        "collatz_steps": "lane-divergent while loop", "stencil5": "2-D stencil with boundaries",
        "black_scholes": "math-heavy Black-Scholes", "local_window": "per-thread local arrays",
        "divide64": "64-bit integer division", "compact_positive": "warp vote + atomics"}


def run(name: str, ctx, seed: int = 0, size: int = 64):
    return EXAMPLES[name](ctx, np.random.default_rng(seed), size)


def mismatches(results) -> list[str]:
    """Labels of outputs that differ from numpy beyond their tolerance."""
    bad = []
    for label, got, want, (rtol, atol) in results:
        got, want = np.asarray(got), np.asarray(want)
        if got.shape != want.shape:
            bad.append(f"{label}: shape {got.shape} != {want.shape}")
        elif rtol == atol == 0.0:
            if not np.array_equal(got, want):
                bad.append(f"{label}: {int((got != want).sum())} of {got.size} differ")
        elif not np.allclose(got, want, rtol=rtol, atol=atol):
            err = np.abs(got.astype(np.float64) - want).max()
            bad.append(f"{label}: max error {err:.3g} beyond rtol {rtol}, atol {atol}")
    return bad


def table(seed: int = 0, size: int = 64) -> list[str]:
    """docs/ptx.md's table: each example's launches, warp instructions and numpy check."""
    from ptx.host import Context
    rows = ["| kernel | kind | launches | grid × block | warp instructions | numpy |",
            "|---|---|---|---|---|---|"]
    for name in EXAMPLES:
        ctx = Context(progress=False)
        bad = mismatches(run(name, ctx, seed=seed, size=size))
        first = ctx.launches[0].info
        rows.append(f"| `{name}` | {KIND[name]} | {len(ctx.launches)} | {first.grid} × {first.block} "
                    f"| {sum(r.warp_insts for r in ctx.launches):,} | "
                    f"{'matches' if not bad else '; '.join(bad)} |")
    return rows


if __name__ == "__main__":
    print("\n".join(table()))
