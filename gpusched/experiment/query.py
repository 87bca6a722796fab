"""Stored runs as flat rows (one column per input and per stat) for tables, CSV, JSON, pandas.

Column names: ``key status kind preset workload seed``, then each config override by its
dotted path (``sm.warp_sched``), each runner param by name, each stat by its dotted path
(``l1.hit_rate``; a stat whose name clashes with an input becomes ``stats.<name>``), then
``wall_s host version model sweep finished_at error``. Lists stay lists (JSON text in CSV).
The statistic ``warp_sched`` (the warp scheduler in force) is the column ``sm.warp_sched``: one
column whether or not the grid overrides it.

``model`` is the model fingerprint a row ran on (fingerprint.py); ``current_keys`` tells which rows
the current code would reuse — what ``gpusched results query`` shows unless ``--all-models``.
"""

from __future__ import annotations

import csv
import io
import json
import math
from dataclasses import dataclass
from typing import Iterable

from gpusched import jsonout
from gpusched.config import ConfigError

from .point import flatten
from .store import Run

LEAD_COLUMNS = ("key", "status", "kind", "preset", "workload", "seed")
TAIL_COLUMNS = ("wall_s", "host", "version", "model", "sweep", "finished_at", "error")


def flat_row(run: Run) -> dict:
    """One run as a flat dict in column order."""
    p = run.point
    row = {"key": run.key, "status": run.status, "kind": p.kind, "preset": p.preset,
           "workload": p.workload, "seed": p.seed}
    row.update(p.overrides)
    row.update(p.params)
    stats = flatten(run.stats or {})
    if "warp_sched" in stats:       # the policy in force: the config's own column
        row["sm.warp_sched"] = stats.pop("warp_sched")
    for name, value in stats.items():
        row[f"stats.{name}" if name in row or name in TAIL_COLUMNS else name] = value
    row.update({"wall_s": run.wall_s, "host": run.host, "version": run.version,
                "model": run.model, "sweep": run.sweep, "finished_at": run.finished_at,
                "error": run.error})
    return row


def current_keys(runs: list[Run]) -> tuple[set[str], set[str]]:
    """(keys of the rows the current code would reuse: the key their inputs make now is the
    stored one, so model fingerprint, version and input files all match; kinds no module
    registers here, whose rows cannot be judged)."""
    from .runners import ensure_kinds
    unknown = ensure_kinds({r.point.kind for r in runs})
    current = set()
    for r in runs:
        if r.point.kind in unknown:
            continue
        try:
            if r.point.key == r.key:
                current.add(r.key)
        except (ConfigError, OSError, ValueError):
            pass            # inputs that no longer resolve: not the current model's row
    return current, unknown


def cell_text(value: object) -> str:
    """How a value is written in CSV cells and compared by ``--where``."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, dict)):
        return json.dumps(value)
    return str(value)


# comparison operators of ``--where``, longest first so ``>=`` is not read as ``>``
WHERE_OPS = (">=", "<=", "!=", ">", "<", "=")


@dataclass(frozen=True)
class Condition:
    """One ``--where`` clause: ``column OP value``; ``=`` and ``!=`` compare the cell's text,
    the ordering operators compare numbers."""
    column: str
    op: str
    value: str

    def holds(self, cell: object) -> bool:
        if self.op == "=":
            return cell_text(cell) == self.value
        if self.op == "!=":
            return cell_text(cell) != self.value
        if isinstance(cell, bool) or not isinstance(cell, (int, float)):
            return False  # a missing or non-numeric cell is outside every numeric range
        want = float(self.value)
        return {">=": cell >= want, "<=": cell <= want, ">": cell > want, "<": cell < want}[self.op]


def parse_where(clauses: Iterable[str]) -> list[Condition]:
    """``["workload=alpha", "cycles>=1e5", "sm.warp_sched!=gto"]`` → conditions (all must hold)."""
    out = []
    for text in clauses:
        op = next((o for o in WHERE_OPS if o in text), None)
        if op is None:
            raise ConfigError("--where", text, "expected column=value, column!=value or a numeric "
                                               "comparison column>=N, <=, >, <")
        # the first operator in the text splits it (a value may itself contain '=')
        at = min(text.index(o) for o in WHERE_OPS if o in text)
        op = next(o for o in WHERE_OPS if text.startswith(o, at))
        column, value = text[:at].strip(), text[at + len(op):].strip()
        if not column:
            raise ConfigError("--where", text, "no column before " + op)
        if op not in ("=", "!="):
            try:
                float(value)
            except ValueError:
                raise ConfigError("--where", text, f"{op} compares numbers: {value!r} is not "
                                                   "a number") from None
        out.append(Condition(column, op, value))
    return out


def filter_rows(rows: list[dict], where: list[Condition]) -> list[dict]:
    """Rows where every condition holds; an unknown column is an input error."""
    known = columns(rows)
    for cond in where:
        if rows and cond.column not in known:
            raise ConfigError("--where", cond.column, "unknown column; known: " + ", ".join(known))
    return [r for r in rows if all(c.holds(r.get(c.column)) for c in where)]


def columns(rows: list[dict]) -> list[str]:
    """Union of the rows' columns, in first-seen order, tail columns last."""
    seen = dict.fromkeys(c for r in rows for c in r if c not in TAIL_COLUMNS)
    return list(seen) + [c for c in TAIL_COLUMNS if any(c in r for r in rows)]


def to_csv(rows: list[dict], cols: list[str]) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(cols)
    for r in rows:
        writer.writerow([cell_text(r.get(c)) for c in cols])
    return buf.getvalue()


def to_json(rows: list[dict], cols: list[str]) -> str:
    return jsonout.dumps([{c: r.get(c) for c in cols} for r in rows], indent=1) + "\n"


# ---- analysis helpers for reports -------------------------------------------------------------

def geomean(values: Iterable[float]) -> float:
    vals = list(values)
    if not vals or any(v <= 0 for v in vals):
        return float("nan")
    return math.exp(sum(math.log(v) for v in vals) / len(vals))


@dataclass(frozen=True)
class ResultSet:
    """Flat rows of finished runs (plus one column per experiment metric) and the small
    aggregations reports need; seeds are averaged."""
    rows: list[dict]

    def select(self, where: dict | None = None, **kw) -> "ResultSet":
        """Rows whose columns equal the values (use ``where`` for dotted column names)."""
        want = {**(where or {}), **kw}
        return ResultSet([r for r in self.rows
                          if all(cell_text(r.get(c)) == cell_text(v) for c, v in want.items())])

    def values(self, column: str) -> list:
        return [r[column] for r in self.rows if r.get(column) is not None]

    def levels(self, column: str) -> list:
        """Distinct values of a column in first-seen order (grid order)."""
        return list(dict.fromkeys(r.get(column) for r in self.rows))

    def mean(self, column: str, where: dict | None = None) -> float:
        vals = self.select(where).values(column)
        return sum(vals) / len(vals) if vals else float("nan")

    def std(self, column: str, where: dict | None = None) -> float:
        vals = self.select(where).values(column)
        if len(vals) < 2:
            return 0.0
        m = sum(vals) / len(vals)
        return math.sqrt(sum((v - m) ** 2 for v in vals) / (len(vals) - 1))

    def ratio(self, column: str, axis: str, numerator, denominator, over: str = "workload"
              ) -> float:
        """Geometric mean over ``over`` of mean(column | axis=numerator) /
        mean(column | axis=denominator): e.g. GTO-over-LRR IPC speedup across workloads."""
        ratios = []
        for level in self.levels(over):
            num = self.mean(column, {axis: numerator, over: level})
            den = self.mean(column, {axis: denominator, over: level})
            if den and not math.isnan(num) and not math.isnan(den):
                ratios.append(num / den)
        return geomean(ratios)
