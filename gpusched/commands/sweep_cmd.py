"""``gpusched sweep GRID.toml [--jobs N] [--scheduler ADDR] [--retry-failed] [--db PATH]``."""

from __future__ import annotations

import sys
from typing import List, Optional

import typer

from gpusched.commands import DB_HELP

from gpusched.experiment.point import Point
from gpusched.signals import Terminated, signals_raise
from gpusched.experiment.sweep import SweepSummary

JOBS_HELP = "local worker processes (default: all cores; 1 = in this process)"
SCHEDULER_HELP = "Dask scheduler tcp://host:port, or 'local' for a LocalCluster"
PLUGIN_HELP = "module to import first (registers runner kinds); also $GPUSCHED_PLUGINS"


def plugin_list(plugins: list[str] | None) -> tuple[str, ...]:
    """``--plugin`` values plus ``$GPUSCHED_PLUGINS``, imported here so kinds are known."""
    from gpusched.experiment.runners import load_plugins, plugins_from_env
    names = tuple(dict.fromkeys(plugins_from_env() + list(plugins or [])))
    load_plugins(list(names))
    return names


def execute_points(name: str, points: list[Point], db: str, jobs: int | None,
                   scheduler: str | None, plugins: tuple[str, ...], resume: bool = True,
                   retry_failed: bool = False, show_progress: bool = True) -> SweepSummary:
    """Open the store, run what is missing, print the summary (and the first failures)."""
    from gpusched.experiment.executors import make_executor
    from gpusched.experiment.store import ResultStore
    from gpusched.experiment.sweep import run_sweep
    from gpusched.paths import check_output_file
    check_output_file(db, "--db", make_parents=True)
    executor = make_executor(jobs, scheduler, plugins)
    with ResultStore(db) as store, signals_raise():
        try:
            summary = run_sweep(name, points, store, executor, resume=resume,
                                retry_failed=retry_failed, show_progress=show_progress,
                                note=lambda text: typer.echo(f"sweep {name}: {text}", err=True))
        except (KeyboardInterrupt, Terminated) as e:
            again = ("run the same command again to resume" if resume else
                     "--no-resume reruns every point, so the same command starts over")
            typer.echo(f"{'terminated' if isinstance(e, Terminated) else 'interrupted'}: finished "
                       f"points are saved in {db}; {again}", err=True)
            raise typer.Exit(e.exit_code if isinstance(e, Terminated) else 130) from None
    typer.echo(summary.line() + f" → {db}")
    for label, error in summary.failures[:5]:
        typer.echo(f"  failed: {label}: {error}", err=True)
    if len(summary.failures) > 5:
        typer.echo(f"  … and {len(summary.failures) - 5} more (gpusched results query "
                   f"--db {db} --where status=failed)", err=True)
    return summary


def sweep(grid: str = typer.Argument(..., help="grid .toml file (format: docs/experiments.md)"),
          jobs: Optional[int] = typer.Option(None, "--jobs", "-j", help=JOBS_HELP),
          scheduler: Optional[str] = typer.Option(None, "--scheduler", help=SCHEDULER_HELP),
          resume: bool = typer.Option(True, "--resume/--no-resume",
                                      help="skip points already stored (--no-resume reruns all)"),
          retry_failed: bool = typer.Option(False, "--retry-failed",
                                            help="rerun points stored as failed"),
          db: Optional[str] = typer.Option(None, "--db", help=DB_HELP),
          plugin: Optional[List[str]] = typer.Option(None, "--plugin", help=PLUGIN_HELP),
          quiet: bool = typer.Option(False, "--quiet", "-q", help="no progress bar")):
    """Run every point of a grid that is not in the results store yet."""
    from gpusched.experiment.grid import load_grid
    from gpusched.experiment.store import default_db
    plugins = plugin_list(plugin)
    g = load_grid(grid)
    points = g.check()
    summary = execute_points(g.name, points, db or default_db(), jobs, scheduler, plugins,
                             resume, retry_failed, show_progress=not quiet)
    if summary.failures:
        sys.exit(1)


def register(app: typer.Typer) -> None:
    app.command("sweep")(sweep)
