"""Area of the thesis's core-level controllers next to the warp scheduler they sit beside.

The thesis gives no area for ONAC, Seq-Det or Perf-Sat ([THESIS]), so this prices our RTL
with the Yosys flow (synth/area.py, sky130hd) and states it as a fraction of one SM's scheduler
logic: 2 baseline GTO warp arbiters of 24 warps each (Table 4.3: 2 GTO schedulers, 48 warps per
core; block ``warp_sched`` with W=24, policy=gto). The SWM detectors (ONAC, Seq-Det) exist once
per GPU, so they are also shown per SM (area / M); Perf-Sat and CoreSampler exist once per SM.

Usage: ``python -m experiments.onac_area [--liberty sky130hd|ge] [--M 32]``
"""

from __future__ import annotations

import argparse

from gpusched.blocks import get_block, parse_params
from synth.area import area

SCHEDULERS_PER_SM = 2            # [THESIS Table 4.3]


def rows(m: int, liberty: str) -> list[dict]:
    """One dict per block: name, params, scope ('GPU' or 'SM'), and the area numbers."""
    plan = [
        ("warp_sched", {"W": 24, "policy": "gto"}, "scheduler"),
        ("onac", {"M": m}, "GPU"),
        ("seq_det", {"M": m}, "GPU"),
        ("perf_sat", {}, "SM"),
        ("core_sampler", {}, "SM"),
    ]
    out = []
    for name, params, scope in plan:
        spec = get_block(name)
        res = area(spec, parse_params(spec, params), liberty)
        out.append({"block": name, "params": res["params"], "scope": scope, "ge": res["ge"],
                    "um2": res["um2"], "flops": res["flops"], "depth": res["depth"],
                    "cells": res["cells"]})
    return out


def report(m: int = 32, liberty: str = "sky130hd") -> str:
    table = rows(m, liberty)
    sm_sched_ge = SCHEDULERS_PER_SM * table[0]["ge"]
    lines = [f"Area ({liberty}); one SM's scheduler logic = {SCHEDULERS_PER_SM} × warp_sched "
             f"W=24 gto = {sm_sched_ge:,.0f} GE",
             f"{'block':<13}{'scope':<10}{'GE':>10}{'µm²':>11}{'flops':>7}{'depth':>7}"
             f"{'× SM sched':>12}{'per SM ×':>10}"]
    for r in table:
        per_sm = r["ge"] / m if r["scope"] == "GPU" else r["ge"]
        um2 = f"{r['um2']:,.0f}" if r["um2"] is not None else "n/a"
        lines.append(f"{r['block']:<13}{r['scope']:<10}{r['ge']:>10,.0f}{um2:>11}{r['flops']:>7}"
                     f"{r['depth']:>7}{r['ge'] / sm_sched_ge:>12.3f}{per_sm / sm_sched_ge:>10.3f}")
    lines.append("'× SM sched' = block GE / one SM's scheduler GE; 'per SM ×' divides GPU-level "
                 f"blocks by M = {m} first. Thesis: no area figure ([THESIS]).")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--liberty", default="sky130hd", choices=("sky130hd", "ge"))
    ap.add_argument("--M", type=int, default=32, help="SMs seen by ONAC / Seq-Det")
    args = ap.parse_args(argv)
    print(report(args.M, args.liberty))


if __name__ == "__main__":
    main()
