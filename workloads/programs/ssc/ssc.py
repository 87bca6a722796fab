"""SimilarityScore (SSC), a Mars-style MapReduce of pairwise document similarity (kernels:
ssc.cu, runtime: common/mars.cuh). Documents are Zipf word streams; a document's features are
its term counts over the 128 most frequent words. Outputs: all pairs by descending cosine
score."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from workloads.programs.common import text
from workloads.programs.common.mars import THREADS, Mars, blocks

DOCS_AT_SCALE_1 = 384
DIMS = 128
VOCABULARY = 4096

INFO = {
    "title": "SimilarityScore (Mars MapReduce)",
    "suite": "MapReduce (Mars)",
    "papers": {"owl": "SSC"},
    "kernels": ("ssc_map", "mars_sort_tiles", "mars_sort_step", "mars_sort_merge_tiles",
                "ssc_output"),
    "default_scale": 1.0,
    "quick_scale": 0.02,
    "inputs": "384 documents at scale 1 (73,536 pairs), each 50-400 Zipf words over a 4096-word "
              "vocabulary; features: the counts of the 128 most frequent words (float32, 40 % "
              "non-zero)",
    "scale_note": "scale s has 384·√s documents (pairs ∝ s), sized for a ≈ 15 s functional run; "
                  "the map grid is 288 CTAs of 256 threads at scale 1",
    "paper_values": {"owl": {"pmem": 4.60, "cinv": 85, "row_sharing": 20, "ctas_per_row": 2}},
}


def _documents(scale: float) -> int:
    return max(8, int(round(DOCS_AT_SCALE_1 * np.sqrt(scale))))


def inputs(seed: int, scale: float) -> dict[str, np.ndarray]:
    n = _documents(scale)
    rng = np.random.default_rng(seed + 3)
    lengths = rng.integers(50, 401, n)
    words = text.zipf_words(int(lengths.sum()), VOCABULARY, seed)
    doc = np.repeat(np.arange(n), lengths)
    keep = words < DIMS
    features = np.zeros((n, DIMS), np.float32)
    np.add.at(features, (doc[keep], words[keep]), 1.0)
    first, second = np.triu_indices(n, 1)
    return {"features": features, "first": first.astype(np.int32),
            "second": second.astype(np.int32)}


def main(ctx, seed: int = 0, scale: float = 1.0) -> dict[str, np.ndarray]:
    inp = inputs(seed, scale)
    mod = ctx.load_ptx(Path(__file__).with_suffix(".ptx"))
    mars = Mars(ctx, mod)
    n = len(inp["first"])
    first, second = ctx.to_device(inp["first"]), ctx.to_device(inp["second"])
    keys, vals, m = mars.pairs(n)
    mod.launch("ssc_map", grid=(blocks(n),), block=(THREADS,),
               args=(ctx.to_device(inp["features"]), np.int32(DIMS), first, second, np.int32(n),
                     keys, vals))
    mars.sort(keys, vals, m)
    scores, doc_a, doc_b = ctx.empty(n, np.float32), ctx.empty(n, np.int32), ctx.empty(n, np.int32)
    mod.launch("ssc_output", grid=(blocks(n),), block=(THREADS,),
               args=(keys, vals, first, second, np.int32(n), scores, doc_a, doc_b))
    return {"scores": scores.get(), "doc_a": doc_a.get(), "doc_b": doc_b.get()}


def reference(seed: int, scale: float) -> dict[str, np.ndarray]:
    """Exact: the features are small integers, so the float32 sums are exact in any order, and
    the product, square root and division are IEEE-rounded in both."""
    inp = inputs(seed, scale)
    f = inp["features"]
    a, b = f[inp["first"]], f[inp["second"]]
    dot, aa, bb = (a * b).sum(1), (a * a).sum(1), (b * b).sum(1)
    with np.errstate(all="ignore"):
        score = np.where((aa > 0) & (bb > 0), dot / np.sqrt(aa * bb), np.float32(0)).astype(np.float32)
    order = np.lexsort((np.arange(len(score)), -score.view(np.int32)))
    return {"scores": score[order], "doc_a": inp["first"][order], "doc_b": inp["second"][order]}
