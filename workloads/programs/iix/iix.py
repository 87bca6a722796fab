"""InvertedIndex (IIX), a Mars-style MapReduce building the index link → linking pages over
HTML pages (kernels: iix.cu, runtime: common/mars.cuh). Outputs: every linked URL's hash, the
start of its list, and the lists of distinct linking pages."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from workloads.programs.common import text, weblog
from workloads.programs.common.mars import THREADS, Mars, blocks, fnv1a

PAGES_AT_SCALE_1 = 4096
TARGETS = 16384
LINK_FRACTION = 0.08

INFO = {
    "title": "InvertedIndex (Mars MapReduce)",
    "suite": "MapReduce (Mars)",
    "papers": {"owl": "IIX"},
    "kernels": ("iix_map_count", "mars_scan_tiles", "mars_scan_add", "iix_map",
                "mars_sort_tiles", "mars_sort_step", "mars_sort_merge_tiles", "mars_group_flags",
                "mars_group_starts", "iix_reduce_count", "iix_reduce"),
    "default_scale": 0.5,
    "quick_scale": 0.01,
    "inputs": "HTML-like pages of Zipf words with 8 % of the words replaced by links "
              "<a href=\"URL\"> to Zipf-popular targets (16 K URLs); page lengths lognormal "
              "(median 40 words, ≈ 1 % over 300); 4096 pages (2.4 MB) at scale 1; below scale 0.25 "
              "the pages shrink too (quick checks)",
    "scale_note": "scale 1 = 4096 pages in 16 map CTAs of 256 threads, far below the page "
                  "sets Mars evaluated (OWL ran IIX for 400 M instructions only); the default 0.5 "
                  "(2048 pages, 8 map CTAs, 6 M warp instructions) because the byte-scanning "
                  "map diverges and runs at ≈ 90 K warp instructions/s on the front end",
    "paper_values": {"owl": {"pmem": 2.29, "cinv": 65, "row_sharing": 36, "ctas_per_row": 2}},
}


def _pages(seed: int, scale: float) -> list[bytes]:
    n = max(32, int(PAGES_AT_SCALE_1 * scale))
    rng = np.random.default_rng(seed + 9)
    median = 40 * min(1.0, max(0.2, 4 * scale))        # shorter pages below scale 0.25 (tests)
    lengths = np.clip(rng.lognormal(np.log(median), 0.8, n).astype(int), 3, 2000)
    words = text.zipf_text(int(lengths.sum()), 8192, seed).split(b" ")
    targets = text.zipf_words(int(lengths.sum()), TARGETS, seed + 1)
    is_link = rng.random(int(lengths.sum())) < LINK_FRACTION
    pages, w = [], 0
    for k in lengths.tolist():
        body = [b'<a href="http:/%s">' % weblog.url(int(targets[i])) if is_link[i] else words[i]
                for i in range(w, w + k)]
        pages.append(b"<html><body><p>" + b" ".join(body) + b"</p></body></html>\n")
        w += k
    return pages


def inputs(seed: int, scale: float) -> dict[str, np.ndarray]:
    arrays = weblog.lines_to_arrays(_pages(seed, scale))
    return {"html": arrays["text"], "page_start": arrays["line_start"]}


def main(ctx, seed: int = 0, scale: float = 1.0) -> dict[str, np.ndarray]:
    inp = inputs(seed, scale)
    mod = ctx.load_ptx(Path(__file__).with_suffix(".ptx"))
    mars = Mars(ctx, mod)
    n = len(inp["page_start"]) - 1
    html, page_start = ctx.to_device(inp["html"]), ctx.to_device(inp["page_start"])
    counts = ctx.empty(n, np.int32)
    mod.launch("iix_map_count", grid=(blocks(n),), block=(THREADS,),
               args=(html, page_start, np.int32(n), counts))
    offsets, n_pairs = mars.scan(counts, n)
    keys, vals, m = mars.pairs(n_pairs)
    mod.launch("iix_map", grid=(blocks(n),), block=(THREADS,),
               args=(html, page_start, np.int32(n), offsets, keys, vals))
    mars.sort(keys, vals, m)
    starts, n_urls, _ = mars.group(keys, vals, n_pairs)
    list_len = ctx.empty(n_urls, np.int32)
    mod.launch("iix_reduce_count", grid=(blocks(n_urls),), block=(THREADS,),
               args=(vals, starts, np.int32(n_urls), list_len))
    list_start, n_postings = mars.scan(list_len, n_urls)
    urls, postings = ctx.empty(n_urls, np.int32), ctx.empty(n_postings, np.int32)
    mod.launch("iix_reduce", grid=(blocks(n_urls),), block=(THREADS,),
               args=(keys, vals, starts, np.int32(n_urls), list_start, urls, postings))
    return {"urls": urls.get(), "list_start": list_start.get(), "pages": postings.get()}


def reference(seed: int, scale: float) -> dict[str, np.ndarray]:
    links = {}
    for p, page in enumerate(_pages(seed, scale)):
        for target in re.findall(rb'href="([^"]*)"', page):
            links.setdefault(fnv1a(target), set()).add(p)
    urls = sorted(links)
    lists = [sorted(links[u]) for u in urls]
    sizes = np.array([len(x) for x in lists], np.int64)
    return {"urls": np.array(urls, np.int32),
            "list_start": (np.cumsum(sizes) - sizes).astype(np.int32),
            "pages": np.array([p for x in lists for p in x], np.int32)}
