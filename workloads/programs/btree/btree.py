"""B+T: point and range queries on a B+ tree of order 256 built on the host (Rodinia b+tree):
find_k answers one key per CTA, find_range_k one range per CTA; 256 threads scan a node's key
slots in parallel, one level per step."""

from __future__ import annotations

from pathlib import Path

import numpy as np

ORDER = 256
KEYS_AT_SCALE_1 = 1_000_000     # Rodinia's mil.txt: a million keys
POINT_QUERIES = 10_000          # Rodinia's command file: "k 10000"
RANGE_QUERIES = 6_000           # ... and "j 6000 3000"
RANGE_SPAN = 3_000
INT_MIN, INT_MAX = -2**31, 2**31 - 1
NODE = np.dtype([("location", np.int32), ("indices", np.int32, ORDER + 1),
                 ("keys", np.int32, ORDER + 1), ("is_leaf", np.int32), ("num_keys", np.int32)])

INFO = {
    "title": "B+ tree point and range queries (one query per 256-thread CTA)",
    "suite": "Rodinia",
    "papers": {"socgpu": "b+tree", "thesis_ch3": "B+T-K1, B+T-K2", "thesis_ch4": "B+-1, B+-2"},
    "kernels": ("find_k", "find_range_k"),
    "default_scale": 1.0,
    "quick_scale": 0.002,
    "inputs": "a million unique keys with heavy-tailed gaps (clustered ids), nodes filled "
              "half to full as insertion leaves them; point queries 90 % present keys with a "
              "power-law popularity (top 1 % of keys: ~40 % of queries), 10 % absent; range "
              "queries between present keys 3000 apart",
    "scale_note": "scale 1 = Rodinia's default run (mil.txt: 10^6 keys, k 10000, j 6000 3000); "
                  "the scale multiplies keys and queries; the thesis ran 65535 queries per "
                  "kernel (scale ~6.5 in queries), so our CTA waves are 1/6.5 of its",
    "paper_values": {
        "thesis_ch3": {                 # K1 = find_k, K2 = find_range_k
            "B+T-K1": {"ctas": 65535, "threads": 256, "ctas_per_core": 5, "phases": 16,
                       "longest": 40, "shortest": 5},
            "B+T-K2": {"ctas": 65355, "threads": 256, "ctas_per_core": 6, "phases": 11,
                       "longest": 32, "shortest": 3}},
        "thesis_ch4": {
            "B+-1": {"reg_bytes_per_cta": 24576, "threads": 256, "fermi_max": 5, "fermi_opt": 5,
                     "fermi_type": "C-strong", "kepler_max": 8, "kepler_opt": 8,
                     "kepler_type": "C-strong", "onac_ctas": 65535, "onac_type": "B"},
            "B+-2": {"reg_bytes_per_cta": 20480, "threads": 256, "fermi_max": 6, "fermi_opt": 6,
                     "fermi_type": "C-strong", "kepler_max": 8, "kepler_opt": 8,
                     "kepler_type": "C-strong", "onac_ctas": 65535, "onac_type": "A",
                     "onac_n_oracle": 31}},
    },
}


def _counts(scale: float) -> tuple[int, int, int, int]:
    keys = max(4 * ORDER, int(KEYS_AT_SCALE_1 * scale))
    span = max(8, min(RANGE_SPAN, keys // 4))
    return (keys, max(8, int(POINT_QUERIES * scale)), max(8, int(RANGE_QUERIES * scale)), span)


def inputs(seed: int, scale: float) -> dict[str, np.ndarray]:
    n, points, ranges, span = _counts(scale)
    rng = np.random.default_rng(seed)
    gaps = np.minimum(rng.pareto(1.5, n) * 20 + 1, 5000).astype(np.int64)   # clustered ids
    keys = (np.cumsum(gaps) + rng.integers(0, 1000)).astype(np.int32)
    records = rng.integers(0, 2**31 - 1, n, dtype=np.int64).astype(np.int32)
    # popularity rank ~ power law p(r) ∝ r^-0.8 (r = n·u^5): the top 1 % of keys get ~40 % of
    # the point queries
    rank = np.minimum((n * rng.random(points) ** 5).astype(np.int64), n - 1)
    popularity = rng.permutation(n)[rank]
    queries = keys[popularity]
    absent = rng.random(points) < 0.1
    queries[absent] = rng.integers(0, int(keys[-1]) + 1000, int(absent.sum()))
    first = rng.integers(0, n - span, ranges)
    return {"keys": keys, "records": records, "queries": queries,
            "range_start": keys[first], "range_end": keys[first + span]}


def build_tree(keys: np.ndarray, seed: int) -> tuple[np.ndarray, int]:
    """The flattened tree, root first (level by level), and its number of internal levels.
    Every node holds ORDER/2 to ORDER entries (random fill, as insertion leaves them)."""
    rng = np.random.default_rng(seed + 11)

    def group(count: int) -> list[int]:
        sizes = []
        while count > ORDER:
            s = int(rng.integers(ORDER // 2, ORDER + 1))
            s = min(s, count - ORDER // 2) if count - s < ORDER // 2 else s
            sizes.append(s)
            count -= s
        return sizes + [count]

    levels = [(group(len(keys)), keys)]                 # (node sizes, smallest key per entry)
    while len(levels[-1][0]) > 1:
        sizes, firsts = levels[-1]
        starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
        levels.append((group(len(sizes)), firsts[starts]))
    levels.reverse()                                    # root first
    total = sum(len(s) for s, _ in levels)
    nodes = np.zeros(total, NODE)
    nodes["keys"] = INT_MAX
    nodes["indices"] = -1
    base = 0
    for depth, (sizes, firsts) in enumerate(levels):
        below = base + len(sizes)                       # first node of the next level
        leaf = depth == len(levels) - 1
        pos = 0
        for i, s in enumerate(sizes):
            node = nodes[base + i]
            node["location"] = base + i
            node["keys"][:s] = firsts[pos:pos + s]
            node["indices"][:s] = np.arange(pos, pos + s) + (0 if leaf else below)
            node["is_leaf"] = leaf
            node["num_keys"] = s
            pos += s
        base = below
    nodes[0]["keys"][0] = INT_MIN                       # the root's first slot takes any key
    return nodes, len(levels) - 1


def main(ctx, seed: int = 0, scale: float = 1.0) -> dict[str, np.ndarray]:
    inp = inputs(seed, scale)
    nodes, height = build_tree(inp["keys"], seed)
    mod = ctx.load_ptx(Path(__file__).with_suffix(".ptx"))
    d_nodes, count = ctx.to_device(nodes.view(np.uint8)), np.int64(len(nodes))
    records = ctx.to_device(inp["records"])

    q = len(inp["queries"])
    answers = ctx.to_device(np.full(q, -1, np.int32))
    mod.launch("find_k", grid=(q,), block=(ORDER,),
               args=(np.int32(height), d_nodes, count, records, ctx.zeros(q, np.int64),
                     ctx.zeros(q, np.int64), ctx.to_device(inp["queries"]), answers))

    r = len(inp["range_start"])
    rec_start, rec_length = ctx.zeros(r, np.int32), ctx.zeros(r, np.int32)
    mod.launch("find_range_k", grid=(r,), block=(ORDER,),
               args=(np.int32(height), d_nodes, count, ctx.zeros(r, np.int64),
                     ctx.zeros(r, np.int64), ctx.zeros(r, np.int64), ctx.zeros(r, np.int64),
                     ctx.to_device(inp["range_start"]), ctx.to_device(inp["range_end"]),
                     rec_start, rec_length))
    return {"answers": answers.get(), "rec_start": rec_start.get(), "rec_length": rec_length.get()}


def reference(seed: int, scale: float) -> dict[str, np.ndarray]:
    inp = inputs(seed, scale)
    keys = inp["keys"]
    pos = np.clip(np.searchsorted(keys, inp["queries"]), 0, len(keys) - 1)
    answers = np.where(keys[pos] == inp["queries"], inp["records"][pos], -1).astype(np.int32)
    lo = np.searchsorted(keys, inp["range_start"])
    hi = np.searchsorted(keys, inp["range_end"])
    return {"answers": answers, "rec_start": lo.astype(np.int32),
            "rec_length": (hi - lo + 1).astype(np.int32)}
