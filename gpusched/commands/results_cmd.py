"""``gpusched results query [--db PATH] [--where col=value ...] [--format table|csv|json]`` and
``gpusched results recover [--db PATH]`` (rebuild a damaged store from its intact rows)."""

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
                                             help="comma-separated columns to keep")):
    """Stored runs as flat rows: inputs, overrides, params and every stat as its own column
    (the table shows inputs and top-level stats unless --columns says otherwise)."""
    from gpusched.experiment.query import (TAIL_COLUMNS, columns, filter_rows, flat_row,
                                           parse_where, to_csv, to_json)
    from gpusched.experiment.store import ResultStore, default_db
    if fmt not in FORMATS:
        raise ConfigError("--format", fmt, "expected one of " + ", ".join(FORMATS))
    from gpusched.paths import check_output_file
    check_output_file(output, "--output", make_parents=True)
    path = db or default_db()
    if not Path(path).is_file():
        raise ConfigError("--db", path, "no results store there: run a sweep first or pass --db")
    with ResultStore(path, read_only=True) as store:
        runs = store.runs()
    rows = filter_rows([flat_row(r) for r in runs], parse_where(where or []))
    known = columns(rows)
    if cols:
        chosen = [c.strip() for c in cols.split(",")]
    elif fmt == "table":  # a terminal is narrow: inputs and top-level numbers only
        inputs = {k for r in runs for k in (*r.point.overrides, *r.point.params)}
        chosen = [c for c in known if c in inputs or c in ("wall_s", "error")
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
