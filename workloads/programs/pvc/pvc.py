"""PageViewCount (PVC), two Mars-style MapReduces over a web log (kernels: pvc.cu, runtime:
common/mars.cuh): the first removes duplicate (URL, IP) entries, the second counts each page's
distinct views. Outputs: every viewed page's URL hash and its count."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from workloads.programs.common import weblog
from workloads.programs.common.mars import THREADS, Mars, blocks, fnv1a

LINES_AT_SCALE_1 = 65536
PAGES = 8192

INFO = {
    "title": "PageViewCount (Mars MapReduce)",
    "suite": "MapReduce (Mars)",
    "papers": {"owl": "PVC"},
    "kernels": ("pvc_map_entries", "mars_sort_tiles", "mars_sort_step", "mars_sort_merge_tiles",
                "mars_group_flags", "mars_scan_tiles", "mars_scan_add", "mars_group_starts",
                "pvc_reduce_entries", "pvc_map_pages", "pvc_reduce_pages"),
    "default_scale": 1.0,
    "quick_scale": 0.03,
    "inputs": "a web log of 'URL IP time' lines (34 bytes on average): Zipf page popularity "
              "over 8192 pages, users uniform over lines/10; 65,536 lines (2.2 MB) at scale 1, "
              "60,841 distinct (URL, IP) entries on 6626 pages",
    "scale_note": "scale 1 = 64 K log lines, far below the logs Mars evaluated; both MapReduces "
                  "sort 64 K-pair buffers (map and reduce grids of 256 and ≤ 256 CTAs)",
    "paper_values": {"owl": {"pmem": 4.99, "cinv": 93, "row_sharing": 36, "ctas_per_row": 2}},
}


def inputs(seed: int, scale: float) -> dict[str, np.ndarray]:
    arrays, _ = weblog.access_log(max(64, int(LINES_AT_SCALE_1 * scale)), PAGES, seed)
    return arrays


def main(ctx, seed: int = 0, scale: float = 1.0) -> dict[str, np.ndarray]:
    inp = inputs(seed, scale)
    mod = ctx.load_ptx(Path(__file__).with_suffix(".ptx"))
    mars = Mars(ctx, mod)
    n = len(inp["line_start"]) - 1
    d_text, d_start = ctx.to_device(inp["text"]), ctx.to_device(inp["line_start"])
    # MapReduce 1: distinct (URL, IP) entries (one pair per line, so no MapCount pass)
    keys, vals, m = mars.pairs(n)
    mod.launch("pvc_map_entries", grid=(blocks(n),), block=(THREADS,),
               args=(d_text, d_start, np.int32(n), keys, vals))
    mars.sort(keys, vals, m)
    starts, n_entries, _ = mars.group(keys, vals, n, by_value=True)
    entry_urls = ctx.empty(n_entries, np.int32)
    mod.launch("pvc_reduce_entries", grid=(blocks(n_entries),), block=(THREADS,),
               args=(keys, starts, np.int32(n_entries), entry_urls))
    # MapReduce 2: distinct views per page
    keys2, vals2, m2 = mars.pairs(n_entries)
    mod.launch("pvc_map_pages", grid=(blocks(n_entries),), block=(THREADS,),
               args=(entry_urls, np.int32(n_entries), keys2, vals2))
    mars.sort(keys2, vals2, m2)
    starts2, n_pages, _ = mars.group(keys2, vals2, n_entries)
    pages, views = ctx.empty(n_pages, np.int32), ctx.empty(n_pages, np.int32)
    mod.launch("pvc_reduce_pages", grid=(blocks(n_pages),), block=(THREADS,),
               args=(keys2, vals2, starts2, np.int32(n_pages), pages, views))
    return {"pages": pages.get(), "views": views.get()}


def reference(seed: int, scale: float) -> dict[str, np.ndarray]:
    _, rows = weblog.access_log(max(64, int(LINES_AT_SCALE_1 * scale)), PAGES, seed)
    url_hash = {p: fnv1a(weblog.url(p)) for p in np.unique(rows[:, 0]).tolist()}
    ip_hash = {u: fnv1a(weblog.ip(u)) for u in np.unique(rows[:, 1]).tolist()}
    entries = {(url_hash[p], ip_hash[u]) for p, u in rows[:, :2].tolist()}
    pages, views = np.unique(np.array([e[0] for e in entries], np.int64), return_counts=True)
    return {"pages": pages.astype(np.int32), "views": views.astype(np.int32)}
