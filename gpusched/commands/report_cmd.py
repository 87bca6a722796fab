"""``gpusched report PAPER [--quick]`` and ``gpusched reproduce PAPER [--quick]``.

``report`` runs the experiment's points that are not stored yet (reusing the rest) and renders
``reports/PAPER/``; ``reproduce`` is the same with the full sweep controls (retry failed points,
rerun everything, Dask) and a non-zero exit when points failed.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import List, Optional

import typer

from gpusched.commands import DB_HELP

from gpusched.config import ConfigError
from gpusched.commands.sweep_cmd import (JOBS_HELP, PLUGIN_HELP, SCHEDULER_HELP, execute_points,
                                         plugin_list)

OUT_HELP = "output directory (default reports/PAPER)"
CATALOGUE_HELP = ("the paper on the catalogue's stand-in workloads (its runs before the program "
                  "suite; reports/PAPER-catalogue) instead of on the programs")


def make_report(paper: str, quick: bool, db: str | None, out: str | None, jobs: int | None,
                scheduler: str | None, plugins: tuple[str, ...], run: bool = True,
                resume: bool = True, retry_failed: bool = False, quiet: bool = False,
                catalogue: bool = False) -> int:
    """Sweep (unless ``run`` is off) and render; returns the number of failed points."""
    from gpusched.experiment.registry import get_experiment
    from gpusched.experiment.report import write_report
    from gpusched.experiment.store import ResultStore, default_db
    exp = get_experiment(paper, catalogue)
    grid = exp.quick if quick else exp.grid
    points = grid.check()
    db = db or default_db()
    from gpusched.paths import check_output_dir
    check_output_dir(out or f"reports/{exp.name}", "--out")      # before the sweep, not after
    failures = 0
    if run:
        summary = execute_points(grid.name, points, db, jobs, scheduler,
                                 tuple(dict.fromkeys(plugins + exp.plugins)), resume,
                                 retry_failed, show_progress=not quiet)
        failures = len(summary.failures)
    with ResultStore(db) as store:
        runs = store.runs([p.key for p in points])
    out = out or f"reports/{exp.name}"
    if not run and points and not runs and (Path(out) / "report.md").exists():
        # Keys include a fingerprint of the model code: after a code change nothing matches, and
        # rendering would replace an existing report with an empty one.
        raise ConfigError("--no-run", exp.name, f"none of the {len(points)} points is stored for "
                          f"the current code (changed since the sweep?); {out}/ left as it is "
                          "(rows of other models: gpusched results query --all-models)")
    say = None if quiet else (lambda text: typer.echo(f"… {text}", err=True))
    files = write_report(exp, points, runs, out, quick, progress=say)
    typer.echo(f"report {exp.name}: {files.markdown}, {files.headline}, {len(files.images)} plots")
    return failures


def report(paper: str = typer.Argument(..., help="experiment module in experiments/, or "
                                       "designspace (every mechanism's gain against its gates)"),
           quick: bool = typer.Option(False, "--quick", help="the small grid (minutes, not hours)"),
           db: Optional[str] = typer.Option(None, "--db", help=DB_HELP),
           out: Optional[str] = typer.Option(None, "--out", help=OUT_HELP),
           jobs: Optional[int] = typer.Option(None, "--jobs", "-j", help=JOBS_HELP),
           run: bool = typer.Option(True, "--run/--no-run",
                                    help="run missing points first (--no-run: stored ones only)"),
           plugin: Optional[List[str]] = typer.Option(None, "--plugin", help=PLUGIN_HELP),
           catalogue: bool = typer.Option(False, "--catalogue", help=CATALOGUE_HELP),
           quiet: bool = typer.Option(False, "--quiet", "-q", help="no progress bar")):
    """Render reports/PAPER/report.md + headline.json + plots, running missing points.

    ``gpusched report designspace``: every mechanism's stored headline against its RTL's gates
    (reports/designspace/; runs nothing, synthesises blocks not yet priced)."""
    if paper == DESIGNSPACE:
        make_designspace(db, out, quiet)
        return
    make_report(paper, quick, db, out, jobs, None, plugin_list(plugin), run=run, quiet=quiet,
                catalogue=catalogue)


DESIGNSPACE = "designspace"


def make_designspace(db: str | None, out: str | None, quiet: bool) -> None:
    from gpusched.experiment.designspace import collect, synth_area, write
    from gpusched.experiment.store import ResultStore, default_db
    from synth.area import resolve_liberty
    say = None if quiet else (lambda text: typer.echo(f"… {text}", err=True))
    db = db or default_db()
    if not Path(db).is_file():
        raise ConfigError("--db", db, "no results store there: reproduce a paper first "
                                      "(gpusched reproduce socgpu --quick) or pass --db")
    with ResultStore(db) as store:
        rows = collect(store, synth_area(resolve_liberty("auto"), progress=say), progress=say)
    files = write(rows, out or f"reports/{DESIGNSPACE}")
    reproduced = sum(r.grid != "" for r in rows)
    typer.echo(f"report {DESIGNSPACE}: {files[0]}, {files[1]}, {len(files) - 2} plots "
               f"({reproduced}/{len(rows)} mechanisms reproduced)")


def reproduce(paper: str = typer.Argument(..., help="experiment module in experiments/"),
              quick: bool = typer.Option(False, "--quick", help="the small grid"),
              db: Optional[str] = typer.Option(None, "--db", help=DB_HELP),
              out: Optional[str] = typer.Option(None, "--out", help=OUT_HELP),
              jobs: Optional[int] = typer.Option(None, "--jobs", "-j", help=JOBS_HELP),
              scheduler: Optional[str] = typer.Option(None, "--scheduler", help=SCHEDULER_HELP),
              resume: bool = typer.Option(True, "--resume/--no-resume",
                                          help="skip stored points (--no-resume reruns all)"),
              retry_failed: bool = typer.Option(False, "--retry-failed",
                                                help="rerun points stored as failed"),
              plugin: Optional[List[str]] = typer.Option(None, "--plugin", help=PLUGIN_HELP),
              catalogue: bool = typer.Option(False, "--catalogue", help=CATALOGUE_HELP),
              quiet: bool = typer.Option(False, "--quiet", "-q", help="no progress bar")):
    """Sweep the paper's grid, then render its report; exit 1 if points failed."""
    failures = make_report(paper, quick, db, out, jobs, scheduler, plugin_list(plugin), run=True,
                           resume=resume, retry_failed=retry_failed, quiet=quiet,
                           catalogue=catalogue)
    if failures:
        sys.exit(1)


def register(app: typer.Typer) -> None:
    app.command("report")(report)
    app.command("reproduce")(reproduce)
