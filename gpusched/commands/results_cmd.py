"""``gpusched results query [--db PATH] [--where col=value ...] [--format table|csv|json]
[--all-models]``, ``gpusched results prune [--db PATH] [--dry-run]`` (drop the rows of other
models) and ``gpusched results recover [--db PATH]`` (rebuild a damaged store from its intact
rows)."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from gpusched.commands import DB_HELP

from gpusched.config import ConfigError

results_app = typer.Typer(no_args_is_help=True, help="Read the results store.")
FORMATS = ("table", "csv", "json")


@results_app.command("query")
def query(db: Optional[str] = typer.Option(None, "--db", help=DB_HELP),
          where: Optional[List[str]] = typer.Option(
              None, "--where", help="column=value, column!=value or a numeric "
                                "comparison column>=N (also <=, >, <); repeatable, all must hold"),
          fmt: str = typer.Option("table", "--format", help="table | csv | json"),
          output: Optional[str] = typer.Option(None, "--output", "-o", help="write to this file"),
          cols: Optional[str] = typer.Option(None, "--columns",
                                             help="comma-separated columns to keep"),
          all_models: bool = typer.Option(
              False, "--all-models", help="also the rows of other models (another model "
              "fingerprint, version or input file than the current code's), with a column "
              "current = true/false"),
          plugins: Optional[List[str]] = typer.Option(
              None, "--plugin", help="module registering the runner kind of some rows")):
    """Stored runs of the current model as flat rows: inputs, overrides, params and every stat
    as its own column (the table shows inputs and top-level stats unless --columns says
    otherwise). Rows computed by other code are left out unless --all-models."""
    from gpusched.experiment.query import (TAIL_COLUMNS, columns, current_keys, filter_rows,
                                           flat_row, parse_where, to_csv, to_json)
    from gpusched.experiment.runners import load_plugins
    if fmt not in FORMATS:
        raise ConfigError("--format", fmt, "expected one of " + ", ".join(FORMATS))
    from gpusched.paths import check_output_file
    check_output_file(output, "--output", make_parents=True)
    load_plugins(list(plugins or []))
    runs = _read_runs(db)
    current, unknown = current_keys(runs)
    flat = []
    for r in runs:
        if all_models:
            flat.append({**flat_row(r), "current": r.key in current if r.point.kind not in
                         unknown else None})
        elif r.key in current:
            flat.append(flat_row(r))
    hidden = len(runs) - len(current)
    if hidden and not all_models:
        typer.echo(_hidden_note(runs, current, unknown), err=True)
    rows = filter_rows(flat, parse_where(where or []))
    known = columns(rows)
    if cols:
        chosen = [c.strip() for c in cols.split(",")]
    elif fmt == "table":  # a terminal is narrow: inputs and top-level numbers only
        inputs = {k for r in runs for k in (*r.point.overrides, *r.point.params)}
        shown = ("wall_s", "error", "sm.warp_sched") + (("model", "current") if all_models else ())
        chosen = [c for c in known if c in inputs or c in shown
                  or ("." not in c and c not in TAIL_COLUMNS
                      and not any(isinstance(r.get(c), (list, dict)) for r in rows))]
    else:
        chosen = known
    for c in chosen:
        if rows and c not in known:
            raise ConfigError("--columns", c, "unknown column; known: " + ", ".join(known))
    if fmt == "csv":
        text = to_csv(rows, chosen)
    elif fmt == "json":
        text = to_json(rows, chosen)
    else:
        text = _table(rows, chosen)
    if output:
        Path(output).parent.mkdir(parents=True, exist_ok=True)
        Path(output).write_text(text)
        typer.echo(f"{len(rows)} rows → {output}", err=True)
    else:
        typer.echo(text, nl=False)


@results_app.command("prune")
def prune(db: Optional[str] = typer.Option(None, "--db", help=DB_HELP),
          dry_run: bool = typer.Option(False, "--dry-run", help="count, drop nothing"),
          plugins: Optional[List[str]] = typer.Option(
              None, "--plugin", help="module registering the runner kind of some rows")):
    """Drop the rows of other models: every row the current code would not reuse (another
    model fingerprint, version or input file). Rows of a runner kind no module registers here
    are kept (load it with --plugin)."""
    from gpusched.experiment.query import current_keys
    from gpusched.experiment.runners import load_plugins
    from gpusched.experiment.store import ResultStore
    load_plugins(list(plugins or []))
    runs = _read_runs(db)
    current, unknown = current_keys(runs)
    stale = [r.key for r in runs if r.key not in current and r.point.kind not in unknown]
    kept_unknown = sum(r.point.kind in unknown for r in runs)
    if not dry_run and stale:
        with ResultStore(db or _default()) as store:
            store.delete(stale)
    verb = "would drop" if dry_run else "dropped"
    line = f"{verb} {len(stale)} rows of other models; {len(current)} rows of the current model kept"
    if kept_unknown:
        line += (f"; {kept_unknown} rows of unknown kinds ({', '.join(sorted(unknown))}) kept: "
                 "load their module with --plugin")
    typer.echo(line)


def _default() -> str:
    from gpusched.experiment.store import default_db
    return default_db()


def _read_runs(db: Optional[str]) -> list:
    from gpusched.experiment.store import ResultStore
    path = db or _default()
    if not Path(path).is_file():
        raise ConfigError("--db", path, "no results store there: run a sweep first or pass --db")
    with ResultStore(path, read_only=True) as store:
        return store.runs()


def _hidden_note(runs: list, current: set, unknown: set) -> str:
    """One stderr line: how many rows of other models the query leaves out, and why."""
    other = sum(r.key not in current and r.point.kind not in unknown for r in runs)
    parts = []
    if other:
        parts.append(f"{other} rows of other models left out (--all-models shows them, "
                     "gpusched results prune drops them)")
    if unknown:
        n = sum(r.point.kind in unknown for r in runs)
        parts.append(f"{n} rows of runner kinds no module registers here ("
                     f"{', '.join(sorted(unknown))}) left out: --plugin MODULE")
    return "; ".join(parts)


@results_app.command("recover")
def recover_cmd(db: Optional[str] = typer.Option(None, "--db", help="the damaged " + DB_HELP)):
    """Rebuild a damaged results store from every row that still reads back whole; the damaged
    file is kept beside it as NAME.damaged-<time>. Points whose rows were lost are recomputed by
    the next sweep."""
    from gpusched.experiment.recover import recover
    from gpusched.experiment.store import default_db
    r = recover(db or default_db())
    typer.echo(f"recovered {r.recovered} rows into {r.path} ({r.dropped} rows not whole, "
               f"{r.failed_reads} unreadable regions skipped); damaged file kept as {r.damaged}")


def _table(rows: list[dict], cols: list[str]) -> str:
    """A rich table (keys shortened to 12 hex digits) rendered to text: terminal width on a
    terminal, 250 columns into a pipe or file."""
    import io
    import shutil
    import sys

    from rich.console import Console
    from rich.table import Table

    from gpusched.experiment.query import cell_text
    table = Table(show_lines=False)
    for c in cols:
        table.add_column(c, overflow="fold")
    for r in rows:
        table.add_row(*[(cell_text(r.get(c))[:12] if c == "key" else _short(r.get(c)))
                        for c in cols])
    width = shutil.get_terminal_size().columns if sys.stdout.isatty() else 250
    console = Console(file=io.StringIO(), width=width)
    console.print(table)
    return console.file.getvalue()


def _short(value: object) -> str:
    from gpusched.experiment.query import cell_text
    if isinstance(value, float):
        return f"{value:.6g}"
    text = cell_text(value)
    return text if len(text) <= 40 else text[:39] + "…"


def register(app: typer.Typer) -> None:
    app.add_typer(results_app, name="results")
