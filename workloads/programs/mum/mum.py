"""MUMmerGPU-style read matching (OWL's MUM; kernels: mum.cu, tree: suffix_tree.py): reads
walk the reference's suffix tree from every start offset. Outputs: per read and offset, the
length and reference position of the left-maximal matches of at least 20 bases (0 / -1 else)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from workloads.programs.mum import suffix_tree

THREADS = 256
REFERENCE_AT_SCALE_1 = 65536
READS_AT_SCALE_1 = 16384
READ_LEN = 36
MIN_MATCH = 20
ERROR_RATE = 0.01

INFO = {
    "title": "MUMmerGPU read matching on a suffix tree",
    "suite": "CUDA SDK",
    "papers": {"owl": "MUM"},
    "kernels": ("mum_match", "mum_report"),
    "default_scale": 1.0,
    "quick_scale": 1 / 256,
    "inputs": "a 64 Kbase random reference with 10 % repeats (mutated copies of 200-2000-base "
              "segments) and 16,384 reads of 36 bases (90 % sampled from it with 1 % "
              "substitutions, 10 % random) at scale 1; the suffix tree has ≈ 1.6 nodes per base",
    "scale_note": "scale 1 = 16 K reads on a 64 Kbase reference (MUMmerGPU's own runs "
                  "matched far more reads against whole genomes); reads and reference scale together",
    "paper_values": {"owl": {"pmem": 2.66, "cinv": 72, "row_sharing": 17, "ctas_per_row": 32}},
}


def _sizes(scale: float) -> tuple[int, int]:
    return max(256, int(REFERENCE_AT_SCALE_1 * scale)), max(32, int(READS_AT_SCALE_1 * scale))


def inputs(seed: int, scale: float) -> dict[str, np.ndarray]:
    ref_len, n_reads = _sizes(scale)
    rng = np.random.default_rng(seed)
    ref = rng.integers(0, 4, ref_len).astype(np.uint8)
    copied = 0
    while copied < ref_len // 10:                        # repeats: mutated copies of segments
        k = int(rng.integers(200, 2001)) if ref_len > 4000 else int(rng.integers(20, 100))
        a, b = rng.integers(0, ref_len - k, 2)
        seg = ref[a:a + k].copy()
        flip = rng.random(k) < 0.01
        seg[flip] = rng.integers(0, 4, int(flip.sum()))
        ref[b:b + k] = seg
        copied += k
    starts = rng.integers(0, ref_len - READ_LEN, n_reads)
    reads = ref[starts[:, None] + np.arange(READ_LEN)]
    errors = rng.random(reads.shape) < ERROR_RATE
    reads[errors] = (reads[errors] + rng.integers(1, 4, int(errors.sum()))) % 4
    random_reads = rng.random(n_reads) < 0.1
    reads[random_reads] = rng.integers(0, 4, (int(random_reads.sum()), READ_LEN))
    return {"reference": ref, "reads": reads.astype(np.uint8)}


def main(ctx, seed: int = 0, scale: float = 1.0) -> dict[str, np.ndarray]:
    inp = inputs(seed, scale)
    tree = suffix_tree.build(inp["reference"])
    mod = ctx.load_ptx(Path(__file__).with_suffix(".ptx"))
    n_reads = len(inp["reads"])
    offsets = READ_LEN - MIN_MATCH + 1
    n = n_reads * offsets
    match_len, match_node = ctx.empty(n, np.int32), ctx.empty(n, np.int32)
    d_pos = ctx.to_device(tree["pos"])
    mod.launch("mum_match", grid=(-(-n_reads // THREADS),), block=(THREADS,),
               args=(ctx.to_device(tree["child"]), ctx.to_device(tree["depth"]), d_pos,
                     ctx.to_device(tree["text"]), ctx.to_device(inp["reads"]), np.int32(n_reads),
                     np.int32(READ_LEN), np.int32(MIN_MATCH), match_len, match_node))
    out_len, out_pos = ctx.empty(n, np.int32), ctx.empty(n, np.int32)
    mod.launch("mum_report", grid=(-(-n // THREADS),), block=(THREADS,),
               args=(match_len, match_node, d_pos, np.int32(n), np.int32(offsets),
                     np.int32(MIN_MATCH), out_len, out_pos))
    shape = (n_reads, offsets)
    return {"length": out_len.get().reshape(shape), "position": out_pos.get().reshape(shape)}


def walk(tree: dict, reads: np.ndarray, offsets: int) -> tuple[np.ndarray, np.ndarray]:
    """The kernel's tree walk for every (read, offset) at once: match lengths and end nodes."""
    child, depth, pos, text = tree["child"], tree["depth"], tree["pos"], tree["text"]
    n_reads, length = reads.shape
    r = np.repeat(np.arange(n_reads), offsets)
    i = np.tile(np.arange(offsets), n_reads)
    v, d, end = np.zeros_like(r), np.zeros_like(r), np.zeros_like(r)
    live = np.ones(len(r), bool)
    while live.any():
        a = np.nonzero(live & (i + d < length))[0]
        live[:] = False
        u = child[4 * v[a] + reads[r[a], i[a] + d[a]]]
        a, u = a[u >= 0], u[u >= 0]
        end[a] = u
        du, pu = depth[u], pos[u]
        limit = np.minimum(du, length - i[a])
        k = d[a] + 1
        going = k < limit
        while going.any():
            g = np.nonzero(going)[0]
            same = text[pu[g] + k[g]] == reads[r[a[g]], i[a[g]] + k[g]]
            k[g[same]] += 1
            going[g] = same & (k[g] < limit[g])
        d[a] = k
        on = k >= du
        v[a[on]] = u[on]
        live[a[on]] = True
    return d.reshape(n_reads, offsets), end.reshape(n_reads, offsets)


def reference(seed: int, scale: float) -> dict[str, np.ndarray]:
    inp = inputs(seed, scale)
    tree = suffix_tree.build(inp["reference"])
    offsets = READ_LEN - MIN_MATCH + 1
    length, end = walk(tree, inp["reads"], offsets)
    prev = np.concatenate([np.full((len(length), 1), -1), length[:, :-1]], 1)
    keep = (length >= MIN_MATCH) & (prev <= length)
    return {"length": np.where(keep, length, 0).astype(np.int32),
            "position": np.where(keep, tree["pos"][end], -1).astype(np.int32)}
