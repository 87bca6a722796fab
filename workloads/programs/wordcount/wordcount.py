"""WordCount, a Mars-style MapReduce over Zipf text (kernels: wordcount.cu, runtime:
common/mars.cuh). Map tasks are text lines; the output is every distinct word's hash and count."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np

from workloads.programs.common import text
from workloads.programs.common.mars import THREADS, Mars, blocks, fnv1a

WORDS_AT_SCALE_1 = 65536
VOCABULARY = 8192

INFO = {
    "title": "WordCount (Mars MapReduce)",
    "suite": "MapReduce (Mars)",
    "papers": {},
    "kernels": ("wc_map_count", "mars_scan_tiles", "mars_scan_add", "wc_map", "mars_sort_tiles",
                "mars_sort_step", "mars_sort_merge_tiles", "mars_group_flags",
                "mars_group_starts", "wc_reduce"),
    "default_scale": 1.0,
    "quick_scale": 0.03,
    "inputs": "Zipf text (exponent 1, 8192-word vocabulary, words of 2-10 letters) in lines of "
              "6-18 words; 65,536 words (507 KB, 5449 lines, 6341 distinct words, the commonest 6955 times) at scale 1",
    "scale_note": "scale 1 = 64 K words, far below the inputs Mars evaluated (which would take hours "
                  "here); the map is ≈ 21 CTAs of 256 threads, the sort 128 K pairs",
}


def inputs(seed: int, scale: float) -> dict[str, np.ndarray]:
    n_words = max(64, int(WORDS_AT_SCALE_1 * scale))
    words = text.zipf_text(n_words, VOCABULARY, seed).split(b" ")
    rng = np.random.default_rng(seed + 11)
    lines, i = [], 0
    while i < len(words):
        k = int(rng.integers(6, 19))
        lines.append(b" ".join(words[i:i + k]) + b"\n")
        i += k
    starts = np.concatenate(([0], np.cumsum([len(x) for x in lines]))).astype(np.int32)
    return {"text": np.frombuffer(b"".join(lines), np.uint8).copy(), "line_start": starts}


def main(ctx, seed: int = 0, scale: float = 1.0) -> dict[str, np.ndarray]:
    inp = inputs(seed, scale)
    mod = ctx.load_ptx(Path(__file__).with_suffix(".ptx"))
    mars = Mars(ctx, mod)
    n_lines = len(inp["line_start"]) - 1
    d_text, d_start = ctx.to_device(inp["text"]), ctx.to_device(inp["line_start"])
    counts = ctx.empty(n_lines, np.int32)
    mod.launch("wc_map_count", grid=(blocks(n_lines),), block=(THREADS,),
               args=(d_text, d_start, np.int32(n_lines), counts))
    offsets, n_pairs = mars.scan(counts, n_lines)
    keys, vals, m = mars.pairs(n_pairs)
    mod.launch("wc_map", grid=(blocks(n_lines),), block=(THREADS,),
               args=(d_text, d_start, np.int32(n_lines), offsets, keys, vals))
    mars.sort(keys, vals, m)
    starts, n_groups, _ = mars.group(keys, vals, n_pairs)
    words, totals = ctx.empty(n_groups, np.int32), ctx.empty(n_groups, np.int32)
    mod.launch("wc_reduce", grid=(blocks(n_groups),), block=(THREADS,),
               args=(keys, vals, starts, np.int32(n_groups), words, totals))
    return {"words": words.get(), "counts": totals.get()}


def reference(seed: int, scale: float) -> dict[str, np.ndarray]:
    inp = inputs(seed, scale)
    counts = Counter(bytes(inp["text"]).split())
    by_hash: Counter = Counter()
    for word, c in counts.items():
        by_hash[fnv1a(word)] += c
    keys = np.array(sorted(by_hash), np.int32)
    return {"words": keys, "counts": np.array([by_hash[k] for k in keys], np.int32)}
