"""IKRA CTA scheduler area ([IKRA]): flops, GE, µm² per policy, bits beside Yosys.

Tables:
1. per policy at C CUs, ID_W, QDEPTH (default 15, 32, 32): Yosys flops / GE / µm² (sky130hd) /
   depth, our design's register bits (counted from the RTL's fields), the document's count ([IKRA]),
   and steal-queue bytes per CU beside the paper's 252 B (= 32 × 63 bits);
2. F and S scaling with C (3, 8, 15) at ``--scale-id-w`` (16) and ``--scale-qdepth`` (8);
3. S scaling with QDEPTH (8, 16, 32, 64) at ``--q-sweep-c`` CUs (3) and ``--scale-id-w``.
   The sweeps use smaller ids / queues / CU counts than the headline row because Yosys on
   thousands of per-entry queue registers takes tens of minutes on a shared machine; queue
   flops scale as C × QDEPTH × ID_W, so the headline row is the full-size check.

    python -m experiments.ikra_area [--c 15] [--id-w 32] [--qdepth 32] [--json F]

Each synthesis is cached by synth.area, so a rerun only prints. The flow is the one
``gpusched area`` runs by default (``synth.area.area`` defaults: ABC script ``auto``, replicated
units priced once where the fast script runs), so steal at C=15 is priced hierarchically: +1.2 %
over the flattened netlist (docs/area.md); the ``flow`` column says which ran.
"""

from __future__ import annotations

import argparse
import json
import time

from gpusched.blocks import get_block
from hdl.ikra.params import GRID_WIDTHS, POLICIES, IkraShape
from synth.area import area

PAPER_QUEUE_BYTES = 32 * 63 / 8          # 252 B per CU ([IKRA])


def paper_bits_per_cu(policy: str, id_w: int, qdepth: int) -> int:
    """Per-CU storage from [IKRA]'s counts: C/R two ids, F + 1 direction bit, S the queue fields."""
    q_w = qdepth.bit_length()
    return {"rr": 0, "chunk": 2 * id_w, "reset": 2 * id_w, "flip": 2 * id_w + 1,
            "steal": qdepth * id_w + 3 * id_w + (1 + id_w) + 3 * q_w + 2}[policy]


def design_bits(policy: str, c: int, id_w: int, qdepth: int) -> dict[str, int]:
    """Register bits of our RTL, field by field (hdl/cta_sched.py, hdl/ikra/*)."""
    sh = IkraShape(c, id_w, qdepth, policy)
    cw, q_w = sh.cu_w, sh.q_w
    glob = 1 + (sh.init_cycles).bit_length() + 2 * id_w + 1   # active, init_left, N, retired, pulse
    if policy != "rr":
        glob += id_w + max(1, (c - 1).bit_length())               # divider quotient + remainder
    per_cu = 0
    if policy == "rr":
        glob += id_w + cw                                         # next_tb, last_cu
    elif policy in ("chunk", "reset", "flip"):
        per_cu = 2 * id_w                                         # lo, hi (one end walks)
        glob += 2 * cw if policy == "chunk" else (1 if policy == "flip" else 0)
    else:
        per_cu = qdepth * id_w + 3 * id_w + 1 + id_w + 3 * q_w + 1 + 1 + cw
        glob += 1 + 1 + 1 + sum(GRID_WIDTHS)                      # phase, fresh, reinit, dims
    return {"per_cu": per_cu, "global": glob, "total": c * per_cu + glob}


def measure(policy: str, c: int, id_w: int, qdepth: int) -> dict:
    spec = get_block("cta_sched")
    params = {"C": c, "ID_W": id_w, "QDEPTH": qdepth, "policy": policy, "check": 0}
    t0 = time.perf_counter()
    res = area(spec, params)           # the defaults of gpusched area: abc auto, hierarchical
    bits = design_bits(policy, c, id_w, qdepth)
    return {"policy": policy, "C": c, "ID_W": id_w, "QDEPTH": qdepth,
            "flops": res["flops"], "ge": res["ge"], "um2": res["um2"], "depth": res["depth"],
            "abc": res.get("abc", "auto"), "hier": res.get("hier", 0),
            "design_bits": bits["total"], "design_bits_per_cu": bits["per_cu"],
            "paper_bits_per_cu": paper_bits_per_cu(policy, id_w, qdepth),
            "queue_bytes_per_cu": qdepth * id_w / 8 if policy == "steal" else 0.0,
            "seconds": round(time.perf_counter() - t0, 1)}


def flow(row: dict) -> str:
    """Which synthesis ran: the ABC script, and hierarchical (copies merged) or flat."""
    return f"{row['abc']}, " + (f"hierarchical ({row['hier']} copies merged)" if row["hier"]
                               else "flat")


def table(rows: list[dict], title: str) -> str:
    head = ("| policy | C | ID_W | QDEPTH | Yosys flops | our bits | paper bits/CU | ours bits/CU | "
            "GE | µm² | depth | queue B/CU (paper 252) | flow | synth s |")
    lines = [f"### {title}", "", head, "|" + "---|" * 14]
    for r in rows:
        lines.append(f"| {r['policy']} | {r['C']} | {r['ID_W']} | {r['QDEPTH']} | {r['flops']:,} | "
                     f"{r['design_bits']:,} | {r['paper_bits_per_cu']:,} | "
                     f"{r['design_bits_per_cu']:,} | {r['ge']:,.0f} | {r['um2']:,.0f} | "
                     f"{r['depth']} | {r['queue_bytes_per_cu']:g} | {flow(r)} | {r['seconds']} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--c", type=int, default=15)
    ap.add_argument("--id-w", type=int, default=32)
    ap.add_argument("--qdepth", type=int, default=32)
    ap.add_argument("--scale-id-w", type=int, default=16)
    ap.add_argument("--scale-qdepth", type=int, default=8)
    ap.add_argument("--q-sweep-c", type=int, default=3)
    ap.add_argument("--skip-headline", action="store_true")
    ap.add_argument("--skip-scaling", action="store_true")
    ap.add_argument("--json", help="also write all rows to this file")
    a = ap.parse_args(argv)
    out = {}
    if not a.skip_headline:
        out["per_policy"] = [measure(p, a.c, a.id_w, a.qdepth) for p in POLICIES]
        print(table(out["per_policy"], f"Per policy, C={a.c}, ID_W={a.id_w}, QDEPTH={a.qdepth}"))
        print(f"\nPaper: {PAPER_QUEUE_BYTES:g} B of steal queue per CU (32 × 63 bits); ours at "
              f"ID_W={a.id_w}: {a.qdepth * a.id_w / 8:g} B; at ID_W=63: {a.qdepth * 63 / 8:g} B.",
              flush=True)
    if not a.skip_scaling:
        w, q = a.scale_id_w, a.scale_qdepth
        out["scale_q"] = [measure("steal", a.q_sweep_c, w, qd) for qd in (8, 16, 32, 64)]
        print("\n" + table(out["scale_q"], f"Steal scaling with QDEPTH (C={a.q_sweep_c}, ID_W={w})"),
              flush=True)
        out["scale_c"] = [measure(pol, c, w, q) for pol in ("flip", "steal") for c in (3, 8, 15)]
        print("\n" + table(out["scale_c"], f"Scaling with C (ID_W={w}, QDEPTH={q})"), flush=True)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
