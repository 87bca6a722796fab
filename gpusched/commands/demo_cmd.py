"""``gpusched demo``: the quick default job that ``make demo`` runs.

Until the GPU model lands this prices both baseline warp arbiters and measures the cosim
throughput; later issues replace it with an experiment.
"""

from __future__ import annotations

import typer


def demo(cycles: int = typer.Option(20_000, help="cosim cycles for the throughput line")):
    """Area table of LRR and GTO for W = 8..64, then Verilator cosim throughput."""
    from rich.console import Console
    from rich.table import Table

    from gpusched.blocks import get_block, parse_params
    from gpusched.commands.blocks_cmd import run_one
    from synth.area import area

    spec = get_block("warp_sched")
    table = Table(title="warp_sched area (Yosys, sky130hd)")
    for col in ("policy", "W", "cells", "GE", "µm²", "flops", "depth"):
        table.add_column(col, justify="right")
    for policy in ("lrr", "gto"):
        for w in (8, 16, 32, 64):
            r = area(spec, parse_params(spec, {"W": w, "policy": policy}))
            table.add_row(policy, str(w), f"{r['cells']:,}", f"{r['ge']:,.0f}", f"{r['um2']:,.0f}",
                          f"{r['flops']:,}", str(r["depth"]))
    Console().print(table)
    params = parse_params(spec, {"W": 32, "policy": "gto"})
    rep = run_one(spec, params, cycles, 1, "verilator", None)
    typer.echo(f"cosim warp_sched W=32 gto: {rep.cycles:,} cycles RTL vs twin, 0 mismatches, "
               f"verilator {rep.cycles_per_s:,.0f} cycles/s")


def register(app: typer.Typer) -> None:
    app.command("demo")(demo)
