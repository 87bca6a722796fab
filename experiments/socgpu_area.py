"""Area table for SOCGPU vs the in-order baseline, one warp ([SOCGPU area]).

    .venv/bin/python -m experiments.socgpu_area [--n 2,4,8,16,32,64] [--liberty sky130hd] [--json]

For each N: Yosys GE, µm² (sky130hd), flops and logic depth of ``socgpu_issue`` (default
parameters: first-ready, non-smart dual issue), the per-warp ratio SOCGPU / ``inorder_issue``
(CAM 8/16) beside the paper's 5.09× (SAED 14 nm, N = 8), and the analytic storage bits beside
the Yosys flop count. Results are cached by ``synth.area`` so a re-run only prints.
"""

from __future__ import annotations

import argparse
import json
import time

from gpusched.blocks import get_block, parse_params

PAPER_RATIO_N8 = 11375.72 / 2234.79          # [SOCGPU area]: 5.09x
PAPER_STORAGE = {2: 286, 4: 588, 8: 1240, 16: 2736, 32: 6496, 64: 17088}
BASELINE_STORAGE = 568


def storage_bits(n: int, s: int = 4, d: int = 2, pw: int = 32, rb: int = 12) -> int:
    """Our analytic storage count: N entries of 141 bits + DM and AGE, N(N-1) each (no rdy_cnt /
    LFSR)."""
    entry = 3 + 2 * pw + (s + d) * rb + 2      # valid issued serial, pc npc, records, unit
    return n * entry + 2 * n * (n - 1)


def measure(ns: list[int], liberty: str = "sky130hd", **socgpu_params) -> dict:
    """Synthesise the baseline and SOCGPU for each N; returns rows with timing per point."""
    from synth.area import area
    base_spec, soc_spec = get_block("inorder_issue"), get_block("socgpu_issue")
    t0 = time.perf_counter()
    base = area(base_spec, parse_params(base_spec, {}), liberty)
    base["seconds"] = round(time.perf_counter() - t0, 1)
    rows = []
    for n in ns:
        t0 = time.perf_counter()
        res = area(soc_spec, parse_params(soc_spec, {"N": n, **socgpu_params}), liberty)
        res["seconds"] = round(time.perf_counter() - t0, 1)
        res["N"] = n
        res["ratio"] = res["ge"] / base["ge"]
        res["storage"] = storage_bits(n)
        rows.append(res)
    return {"baseline": base, "rows": rows}


def table(result: dict) -> str:
    b = result["baseline"]
    lines = [f"baseline inorder_issue (CAM 8/16): {b['ge']:,.0f} GE, {b['um2'] or 0:,.0f} µm², "
             f"{b['flops']} flops (analytic {BASELINE_STORAGE}), depth {b['depth']}",
             "| N | GE | µm² | flops | storage (our storage count) | depth | SOCGPU/baseline | paper | run s (cached: ~0) |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in result["rows"]:
        paper = f"{PAPER_RATIO_N8:.2f}x" if r["N"] == 8 else ""
        um2 = f"{r['um2']:,.0f}" if r["um2"] is not None else "n/a"
        lines.append(f"| {r['N']} | {r['ge']:,.0f} | {um2} | {r['flops']:,} | "
                     f"{PAPER_STORAGE.get(r['N'], r['storage']):,} | {r['depth']} | "
                     f"{r['ratio']:.2f}x | {paper} | {r['seconds']} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", default="2,4,8,16,32,64", help="comma-separated IB sizes")
    ap.add_argument("--liberty", default="sky130hd", choices=("sky130hd", "ge"))
    ap.add_argument("--json", action="store_true", help="print JSON instead of the table")
    args = ap.parse_args(argv)
    result = measure([int(x) for x in args.n.split(",")], args.liberty)
    print(json.dumps(result, indent=1) if args.json else table(result))


if __name__ == "__main__":
    main()
