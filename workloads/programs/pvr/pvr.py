"""PageViewRank (PVR), a Mars-style MapReduce ranking pages by their view counts (kernels:
pvr.cu, runtime: common/mars.cuh). Input: PageViewCount's output as text; outputs: URL hashes in
rank order, their views and ranks."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from workloads.programs.common import text, weblog
from workloads.programs.common.mars import THREADS, Mars, blocks, fnv1a

VIEWS_AT_SCALE_1 = 262144
PAGES_AT_SCALE_1 = 131072

INFO = {
    "title": "PageViewRank (Mars MapReduce)",
    "suite": "MapReduce (Mars)",
    "papers": {"owl": "PVR"},
    "kernels": ("pvr_map", "mars_sort_tiles", "mars_sort_step", "mars_sort_merge_tiles",
                "mars_group_flags", "mars_scan_tiles", "mars_scan_add", "mars_group_starts",
                "pvr_rank"),
    "default_scale": 1.0,
    "quick_scale": 0.03,
    "inputs": "PageViewCount's output as 'URL views' lines: 256 K Zipf-distributed views over "
              "128 K pages give 49,016 viewed pages at scale 1 (views from 1 to 21,286 in 257 "
              "distinct counts; 60 % of the pages have one view)",
    "scale_note": "scale 1 ranks 49 K pages (a 64 K-pair sort), far below the inputs Mars evaluated",
    "paper_values": {"owl": {"pmem": 1.41, "cinv": 46, "row_sharing": 38, "ctas_per_row": 2}},
}


def _page_views(seed: int, scale: float) -> tuple[np.ndarray, np.ndarray]:
    n = max(256, int(VIEWS_AT_SCALE_1 * scale))
    pages = max(64, int(PAGES_AT_SCALE_1 * scale))
    page, views = np.unique(text.zipf_words(n, pages, seed), return_counts=True)
    order = np.random.default_rng(seed + 5).permutation(len(page))    # PVC's output order
    return page[order], views[order]


def inputs(seed: int, scale: float) -> dict[str, np.ndarray]:
    page, views = _page_views(seed, scale)
    return weblog.lines_to_arrays([b"%s %d\n" % (weblog.url(p), v)
                                   for p, v in zip(page.tolist(), views.tolist())])


def main(ctx, seed: int = 0, scale: float = 1.0) -> dict[str, np.ndarray]:
    inp = inputs(seed, scale)
    mod = ctx.load_ptx(Path(__file__).with_suffix(".ptx"))
    mars = Mars(ctx, mod)
    n = len(inp["line_start"]) - 1
    keys, vals, m = mars.pairs(n)
    mod.launch("pvr_map", grid=(blocks(n),), block=(THREADS,),
               args=(ctx.to_device(inp["text"]), ctx.to_device(inp["line_start"]), np.int32(n),
                     keys, vals))
    mars.sort(keys, vals, m)
    starts, _, group_of = mars.group(keys, vals, n)
    views, ranks = ctx.empty(n, np.int32), ctx.empty(n, np.int32)
    mod.launch("pvr_rank", grid=(blocks(n),), block=(THREADS,),
               args=(keys, group_of, starts, np.int32(n), views, ranks))
    return {"urls": vals.get()[:n], "views": views.get(), "ranks": ranks.get()}


def reference(seed: int, scale: float) -> dict[str, np.ndarray]:
    page, views = _page_views(seed, scale)
    urls = np.array([fnv1a(weblog.url(p)) for p in page.tolist()], np.int64)
    order = np.lexsort((urls, -views))
    urls, views = urls[order], views[order]
    first = np.concatenate(([True], views[1:] != views[:-1]))
    ranks = np.maximum.accumulate(np.where(first, np.arange(len(views)), 0)) + 1
    return {"urls": urls.astype(np.int32), "views": views.astype(np.int32),
            "ranks": ranks.astype(np.int32)}
