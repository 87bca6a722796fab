"""Render an experiment's results: ``report.md`` (tables, plots, headline) and
``headline.json`` (``[{"metric", "paper", "ours", "unit", "note", "caveat"}]``; ``caveat``: what
the runs say about the number, e.g. that a mechanism never acted, also at the end of ``note``)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import gpusched
from gpusched import jsonout

from . import plots
from .point import Point
from .query import ResultSet, flat_row
from .registry import Experiment, Table
from .store import Run


@dataclass(frozen=True)
class ReportFiles:
    markdown: Path
    headline: Path
    images: list[Path]


def results_of(exp: Experiment, runs: list[Run]) -> ResultSet:
    """Finished runs as flat rows with one extra column per declared metric."""
    rows = []
    for run in runs:
        if run.status != "done":
            continue
        row = flat_row(run)
        for m in exp.metrics:
            row[m.name] = m.value(run.stats or {})
        rows.append(row)
    return ResultSet(rows)


def _num(value: float | None) -> str:
    """4 significant digits; whole numbers (cycles, counts) with thousands separators."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    if isinstance(value, (int, float)) and abs(value) >= 1000:
        return f"{value:,.0f}"
    return f"{value:.4g}" if isinstance(value, float) else str(value)


def _json_number(value: float | None) -> float | None:
    return None if value is None or (isinstance(value, float) and math.isnan(value)) else value


def _not_computable(exp: Experiment, results: ResultSet, metric: str, error: Exception,
                    quick: bool) -> str:
    """Why a headline row has no number, in words: a workload the grid does not run, no
    finished runs, a missing statistic, or the row's own explanation."""
    if not results.rows:
        return "not computable: no finished runs"
    present = set(results.levels("workload"))
    text = f"{metric} {error}"
    absent = [w for w in getattr(exp.grid, "workloads", []) if w not in present and w in text]
    if absent:
        where = "the quick grid (run without --quick)" if quick else "the finished runs"
        return f"not computable: {', '.join(absent)} is not in {where}"
    if isinstance(error, KeyError):
        return f"not computable: the runs lack the statistic {error}"
    if isinstance(error, ZeroDivisionError):
        return "not computable: its denominator is zero on these runs"
    return f"not computable: {error}"


def headline_rows(exp: Experiment, results: ResultSet, quick: bool = False) -> list[dict]:
    rows = []
    for h in exp.headline:
        note = h.note
        try:
            ours = _json_number(float(h.ours(results)))
        except (ArithmeticError, LookupError, ValueError, TypeError) as e:
            why = _not_computable(exp, results, h.metric, e, quick)
            ours, note = None, f"{note} ({why})".strip()
        else:
            if ours is None:        # NaN: no runs to average over
                why = _not_computable(exp, results, h.metric, ValueError("no runs to compute it from"), quick)
                note = f"{note} ({why})".strip()
        caveat = h.caveat(results) if h.caveat is not None and results.rows else ""
        if caveat:
            note = f"{note}; {caveat}" if note else caveat
        rows.append({"metric": h.metric, "paper": h.paper, "ours": ours, "unit": h.unit,
                     "note": note, "caveat": caveat or None})
    return rows


def _table_md(exp: Experiment, spec: Table, results: ResultSet) -> list[str]:
    metric = exp.metric(spec.metric)
    cols = results.levels(spec.columns)
    unit = f" ({metric.unit})" if metric.unit else ""
    title = spec.title or f"{metric.label}{unit}, mean over seeds"
    lines = [f"### {title}", "",
             "| " + " | ".join([exp.label(spec.rows)] + [exp.display(spec.columns, c) for c in cols])
             + " |",
             "|" + "---|" * (len(cols) + 1)]
    for r in results.levels(spec.rows):
        cells = [_num(results.mean(metric.name, {spec.rows: r, spec.columns: c})) for c in cols]
        lines.append("| " + " | ".join([exp.display(spec.rows, r)] + cells) + " |")
    return lines + [""]


def write_report(exp: Experiment, points: list[Point], runs: list[Run], out_dir: str | Path,
                 quick: bool = False, progress=None) -> ReportFiles:
    """Write report.md, headline.json and one PNG (+ PDF) per declared plot into ``out_dir``;
    ``progress(text)`` is told before each plot (rendering takes seconds each)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    order = {p.key: i for i, p in enumerate(points)}
    runs = sorted((r for r in runs if r.key in order), key=lambda r: order[r.key])
    results = results_of(exp, runs)  # grid order, so table columns and bars follow the grid
    by_key = {r.key: r for r in runs}
    failed = [(p, by_key[p.key]) for p in points if p.key in by_key
              and by_key[p.key].status == "failed"]
    missing = [p for p in points if p.key not in by_key]
    headline = headline_rows(exp, results, quick)
    (out / "headline.json").write_text(jsonout.dumps(headline, indent=1) + "\n")
    images = []
    for i, spec in enumerate(exp.plots if results.rows else []):
        if progress is not None:
            progress(f"rendering plot {i + 1}/{len(exp.plots)}: {spec.filename}")
        images.append(plots.render(exp, spec, results, out))

    grid = exp.quick if quick else exp.grid
    now = datetime.now(timezone.utc).isoformat(timespec="seconds")
    md = [f"# {exp.title}", ""]
    if exp.description:
        md += [exp.description.strip(), ""]
    md += [f"Grid `{grid.name}` ({'quick' if quick else 'full'}): {len(points)} points — "
           f"{len(results.rows)} done, {len(failed)} failed, {len(missing)} missing. "
           f"Runner `{grid.kind}`, presets {', '.join(map(str, grid.preset))}, "
           f"seeds {', '.join(map(str, grid.seeds))}. gpusched {gpusched.__version__}, {now}.", "",
           "## Headline", "", "| metric | paper | ours | unit | note |", "|---|---|---|---|---|"]
    md += [f"| {h['metric']} | {_num(h['paper'])} | {_num(h['ours'])} | {h['unit']} | "
           f"{h['note']} |" for h in headline]
    md += [""]
    for section in exp.sections if results.rows else ():
        md += section(results) + [""]
    if exp.tables:
        md += ["## Tables", ""]
        for spec in exp.tables:
            md += _table_md(exp, spec, results)
    if images:
        md += ["## Plots", "", "Bars and points: mean over the runs behind each point. Each plot "
               "also as a PDF beside its PNG (same name).", ""]
        for spec, path in zip(exp.plots, images):
            md += [f"![{spec.title or spec.metric}]({path.name})", "",
                   f"*{spec.title or spec.metric}.* {plots.caption(exp, spec, results)}", ""]
    if failed or missing:
        md += ["## Points without results", ""]
        md += [f"- failed: `{p.label()}`: {run.error}" for p, run in failed]
        md += [f"- missing: `{p.label()}`" for p in missing]
        md += [""]
    md += ["## Reproduce", "", "```", f"gpusched reproduce {exp.name}"
           + (" --quick" if quick else ""), "```", ""]
    (out / "report.md").write_text("\n".join(md))
    return ReportFiles(out / "report.md", out / "headline.json", images)
