"""hybridsort: bucket sort into 1024 buckets (pivots from a host sample; per-CTA bucket counts
with shared atomics), then a float4 vector merge sort inside every bucket, pass after pass from
the host, and a pack that drops the padding (Rodinia hybridsort, Sintorn & Assarsson 2008)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

BUCKETS = 1024
COUNT_THREADS, PER_THREAD = 256, 4
THREADS = 256
PACK_THREADS = 128              # merge_pack: one CTA per bucket (~256 elements at the default)
ELEMENTS_AT_SCALE_1 = 1 << 20
SAMPLE_PER_BUCKET = 16

INFO = {
    "title": "hybrid sort: bucket sort (shared atomics) + per-bucket float4 merge sort",
    "suite": "Rodinia",
    "papers": {"socgpu": "hybridsort"},
    "kernels": ("bucket_count", "bucket_prefix", "bucket_sort", "merge_sort_first",
                "merge_sort_pass", "merge_pack"),
    "default_scale": 1 / 4,
    "quick_scale": 1 / 256,
    "inputs": "floats from a skewed mixture: 70 % log-normal (sigma 1.5, like sizes or "
              "prices), 20 % uniform, 10 % drawn from 200 repeated values",
    "scale_note": "scale 1 = 2^20 floats; the default 1/4 is 262144 (bucket kernels: 256 CTAs "
                  "of 256 threads, 4 elements per thread; ~7 merge passes over 1024 buckets of "
                  "~256 elements)",
}


def inputs(seed: int, scale: float) -> dict[str, np.ndarray]:
    n = max(4096, int(ELEMENTS_AT_SCALE_1 * scale))
    rng = np.random.default_rng(seed)
    kind = rng.random(n)
    x = np.exp(rng.normal(3.0, 1.5, n))
    x = np.where(kind < 0.2, rng.uniform(0, 1000, n), x)
    repeated = rng.uniform(0, 500, 200)
    x = np.where(kind > 0.9, repeated[rng.integers(0, 200, n)], x)
    return {"data": x.astype(np.float32),
            "sample": rng.integers(0, n, BUCKETS * SAMPLE_PER_BUCKET)}


def pivots(data: np.ndarray, sample: np.ndarray) -> np.ndarray:
    """BUCKETS - 1 ascending pivots: quantiles of a random sample (the host's part)."""
    s = np.sort(data[sample])
    return s[(np.arange(1, BUCKETS) * len(s)) // BUCKETS].astype(np.float32)


def _pairs(start4: np.ndarray, size4: np.ndarray, run: int) -> np.ndarray:
    """(first quad, quads in run A, quads in run B) of every pair of runs of length ``run``."""
    rows = []
    for first, s in zip(start4.tolist(), size4.tolist()):
        for j in range(0, s, 2 * run):
            la = min(run, s - j)
            rows.append((first + j, la, max(0, min(run, s - j - run)), 0))
    return np.array(rows, np.int32).reshape(-1, 4)


def main(ctx, seed: int = 0, scale: float = 1.0) -> dict[str, np.ndarray]:
    inp = inputs(seed, scale)
    data = inp["data"]
    n = len(data)
    mod = ctx.load_ptx(Path(__file__).with_suffix(".ptx"))
    ctas = -(-n // (COUNT_THREADS * PER_THREAD))
    d_data = ctx.to_device(data)
    d_piv = ctx.to_device(pivots(data, inp["sample"]))
    bucket, slot = ctx.zeros(n, np.int32), ctx.zeros(n, np.int32)
    counts, sizes = ctx.zeros((ctas, BUCKETS), np.int32), ctx.zeros(BUCKETS, np.int32)
    mod.launch("bucket_count", grid=(ctas,), block=(COUNT_THREADS,),
               args=(d_data, np.int32(n), d_piv, bucket, slot, counts))
    mod.launch("bucket_prefix", grid=(BUCKETS // THREADS,), block=(THREADS,),
               args=(counts, np.int32(ctas), sizes))

    size = sizes.get().astype(np.int64)               # the host pads every bucket to float4s
    padded = -(-size // 4) * 4
    start = np.concatenate([[0], np.cumsum(padded)[:-1]])
    total = int(padded.sum())
    buf = [ctx.to_device(np.full(total, np.inf, np.float32)),
           ctx.to_device(np.full(total, np.inf, np.float32))]
    mod.launch("bucket_sort", grid=(ctas,), block=(COUNT_THREADS,),
               args=(d_data, np.int32(n), bucket, slot, counts,
                     ctx.to_device(start.astype(np.int32)), buf[0]))

    quads = total // 4
    mod.launch("merge_sort_first", grid=(-(-quads // THREADS),), block=(THREADS,),
               args=(buf[0], np.int32(quads)))
    size4, start4 = padded // 4, start // 4
    run, cur = 1, 0
    while run < size4.max():
        pairs = _pairs(start4, size4, run)
        mod.launch("merge_sort_pass", grid=(-(-len(pairs) // THREADS),), block=(THREADS,),
                   args=(buf[cur], buf[1 - cur], ctx.to_device(pairs), np.int32(len(pairs))))
        cur, run = 1 - cur, 2 * run

    dense = np.concatenate([[0], np.cumsum(size)[:-1]]).astype(np.int32)
    out = ctx.zeros(n, np.float32)
    mod.launch("merge_pack", grid=(BUCKETS,), block=(PACK_THREADS,),
               args=(buf[cur], ctx.to_device(start.astype(np.int32)), ctx.to_device(dense),
                     sizes, out))
    return {"sorted": out.get(), "bucket_sizes": size.astype(np.int32)}


def reference(seed: int, scale: float) -> dict[str, np.ndarray]:
    inp = inputs(seed, scale)
    data = inp["data"]
    piv = pivots(data, inp["sample"])
    sizes = np.bincount(np.searchsorted(piv, data, side="right"), minlength=BUCKETS)
    return {"sorted": np.sort(data), "bucket_sizes": sizes.astype(np.int32)}
