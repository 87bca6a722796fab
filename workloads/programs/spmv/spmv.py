"""Parboil SPMV (OWL's SPMV): y = A·x in JDS format (one thread per row, rows sorted by length),
repeated as Parboil's timing loop does, plus a CSR-scalar pass (one thread per row), on a power-law
matrix and a banded FEM-like matrix from common/sparse.py (spmv.cu)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from workloads.programs.common import sparse

FULL_ROWS = 11948            # Parboil's medium input (bcsstk18): 11,948 rows, 149,090 nonzeros
ITERATIONS = 5               # JDS products per matrix (Parboil's host repeats the kernel)
JDS_BLOCK, CSR_BLOCK = 128, 128
PAD = 32                     # each jagged diagonal starts warp-aligned

INFO = {
    "title": "SpMV, sparse matrix-vector product (JDS and CSR-scalar)",
    "suite": "Parboil",
    "papers": {"owl": "SPMV"},
    "kernels": ("spmv_jds", "spmv_csr_scalar"),
    "default_scale": 1.0,
    "quick_scale": 0.02,
    "inputs": ("a power-law matrix (Zipf row lengths, exponent 2, drawn up to 40 and scaled to a "
               "mean of 12: median 4, σ 23, longest 149 nonzeros; columns near the diagonal) and "
               "a banded FEM-like matrix (8-row blocks, 3 block bands, 60 % fill: 6–24 "
               "nonzeros, mean 14.8, σ 2.4), both n × n; x uniform in [0, 1)"),
    "scale_note": ("scale 1 = n 11,948 rows per matrix, the size of Parboil's medium input "
                   "(bcsstk18); n scales linearly. JDS runs 5 times per matrix, CSR once."),
    "paper_values": {"owl": {"pmem": 2.19, "cinv": 65, "row_sharing": 98, "ctas_per_row": 6}},
}
TOLERANCE = {"y_power_law": (1e-5, 1e-5), "y_banded": (1e-5, 1e-5),
             "y_csr_power_law": (1e-5, 1e-5), "y_csr_banded": (1e-5, 1e-5)}   # float32 sums


def inputs(seed: int, scale: float) -> dict[str, np.ndarray]:
    n = max(64, round(FULL_ROWS * scale))
    out = {}
    for name, m in (("power_law", sparse.power_law(n, 12.0, seed, exponent=2.0, max_len=40)),
                    ("banded", sparse.banded(n, 8, seed + 1))):
        for k, v in m.items():
            out[f"{name}_{k}"] = v
    out["x"] = np.random.default_rng(seed + 2).random(n).astype(np.float32)
    return out


def to_jds(row_start: np.ndarray, cols: np.ndarray, vals: np.ndarray) -> dict[str, np.ndarray]:
    """CSR → JDS: rows sorted by descending length; diagonal d holds the d-th nonzero of each
    row longer than d, padded to a multiple of PAD entries."""
    lengths = np.diff(row_start)
    perm = np.argsort(-lengths, kind="stable").astype(np.int32)
    sorted_len = lengths[perm].astype(np.int32)
    depth = int(sorted_len[0]) if len(sorted_len) else 0
    rows_in = [int(np.sum(sorted_len > d)) for d in range(depth)]
    jd_ptr = np.zeros(depth + 1, np.int32)
    jd_ptr[1:] = np.cumsum([-(-r // PAD) * PAD for r in rows_in])
    data = np.zeros(int(jd_ptr[-1]), np.float32)
    jcols = np.zeros(int(jd_ptr[-1]), np.int32)
    for d, r in enumerate(rows_in):
        src = row_start[perm[:r]] + d
        data[jd_ptr[d]:jd_ptr[d] + r] = vals[src]
        jcols[jd_ptr[d]:jd_ptr[d] + r] = cols[src]
    return {"data": data, "cols": jcols, "jd_ptr": jd_ptr, "row_len": sorted_len, "perm": perm}


def main(ctx, seed: int = 0, scale: float = 1.0) -> dict[str, np.ndarray]:
    data = inputs(seed, scale)
    mod = ctx.load_ptx(Path(__file__).with_suffix(".ptx"))
    x = ctx.to_device(data["x"])
    n = len(data["x"])
    out = {}
    for name in ("power_law", "banded"):
        row, cols, vals = (data[f"{name}_{k}"] for k in ("row_start", "cols", "values"))
        jds = {k: ctx.to_device(v) for k, v in to_jds(row, cols, vals).items()}
        y = ctx.zeros(n, np.float32)
        for _ in range(ITERATIONS):
            mod.launch("spmv_jds", grid=(-(-n // JDS_BLOCK),), block=(JDS_BLOCK,),
                       args=(jds["data"], jds["cols"], jds["jd_ptr"], jds["row_len"], jds["perm"],
                             x, y, np.int32(n)))
        out[f"y_{name}"] = y.get()
        y_csr = ctx.zeros(n, np.float32)
        mod.launch("spmv_csr_scalar", grid=(-(-n // CSR_BLOCK),), block=(CSR_BLOCK,),
                   args=(ctx.to_device(row), ctx.to_device(cols), ctx.to_device(vals), x, y_csr,
                         np.int32(n)))
        out[f"y_csr_{name}"] = y_csr.get()
    return out


def reference(seed: int, scale: float) -> dict[str, np.ndarray]:
    data = inputs(seed, scale)
    x = data["x"].astype(np.float64)
    out = {}
    for name in ("power_law", "banded"):
        m = {k: data[f"{name}_{k}"] for k in ("row_start", "cols", "values")}
        out[f"y_{name}"] = out[f"y_csr_{name}"] = sparse.spmv_numpy(m, x)
    return out
