"""``gpusched demo``: the quick default job that ``make demo`` runs.

A real experiment on the GPU model: the baseline warp schedulers LRR and GTO on three catalogue
workloads (cache-sensitive, memory-bound streaming, compute-only) on the ``gtx480`` preset with
the full memory hierarchy — the quick grid of ``experiments/baseline_warp.py``. Points go through
the results store (``results/``, so a second run is instant) and the report is written to
``reports/baseline_warp/``.
"""

from __future__ import annotations

from typing import Optional

import typer

from gpusched.commands import DB_HELP


def demo(jobs: Optional[int] = typer.Option(None, "--jobs", "-j", help="worker processes (default: all cores)"),
         db: Optional[str] = typer.Option(None, "--db", help=DB_HELP)):
    """LRR vs GTO on three catalogue workloads (gtx480, quick sizes): warp IPC table and report."""
    from gpusched.commands import stdout_console
    from rich.table import Table

    from gpusched.commands.report_cmd import make_report
    from gpusched.commands.run_cmd import hit_rate_text
    from gpusched.experiment.registry import get_experiment
    from gpusched.experiment.store import ResultStore, default_db

    exp = get_experiment("baseline_warp")
    db = db or default_db()
    failures = make_report("baseline_warp", True, db, None, jobs, None, ())
    points = exp.quick.check()
    with ResultStore(db) as store:
        runs = {(r.point.workload, r.point.overrides["sm.warp_sched"]): r
                for r in store.runs([p.key for p in points])}
    table = Table(title="LRR vs GTO on gtx480 (memory hierarchy, quick sizes)")
    for col in ("workload", "warp IPC lrr", "warp IPC gto", "GTO/LRR", "L1 hit lrr", "L1 hit gto"):
        table.add_column(col, justify="right")
    for workload in dict.fromkeys(p.workload for p in points):
        lrr, gto = runs.get((workload, "lrr")), runs.get((workload, "gto"))
        if not (lrr and gto and lrr.stats and gto.stats):
            table.add_row(workload, "failed", "failed", "", "", "")
            continue
        hit = lambda r: hit_rate_text(r.stats["memory"]["l1"])
        table.add_row(workload, f"{lrr.stats['ipc']:.2f}", f"{gto.stats['ipc']:.2f}",
                      f"{gto.stats['ipc'] / lrr.stats['ipc']:.3f}", hit(lrr), hit(gto))
    stdout_console().print(table)
    if failures:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.command("demo")(demo)
