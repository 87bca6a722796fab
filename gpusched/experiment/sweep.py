"""Run a set of points into the store: skip what is stored, run the rest, record each result.

Resuming is the default because keys are content hashes: re-running the same sweep after a
crash (or a SIGKILL) only computes the missing points.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from .executors import Executor
from .point import Point
from .store import ResultStore


@dataclass
class SweepSummary:
    """What a sweep did: ``stored`` points were already in the store and skipped; ``ran`` were
    executed now (``failed`` of them raised); ``failures`` are (label, error) of the grid's
    failed points at the end, whether failed now or earlier."""
    name: str
    total: int
    stored: int = 0
    ran: int = 0
    failed: int = 0
    wall_s: float = 0.0
    failures: list[tuple[str, str]] = field(default_factory=list)

    def line(self) -> str:
        text = (f"sweep {self.name}: {self.total} points, {self.stored} already stored, "
                f"{self.ran} run ({self.failed} failed) in {self.wall_s:.1f} s")
        if self.failures:
            text += (f"; {len(self.failures)} failed points in the store "
                     "(rerun them with --retry-failed)")
        return text


def unique(points: list[Point]) -> list[Point]:
    """Points with distinct keys, first occurrence kept (a grid may repeat a value)."""
    seen: dict[str, Point] = {}
    for p in points:
        seen.setdefault(p.key, p)
    return list(seen.values())


def plan(points: list[Point], statuses: dict[str, str], resume: bool = True,
         retry_failed: bool = False) -> list[Point]:
    """The points to run: those not stored, plus failed ones with ``retry_failed``, or all of
    them without ``resume``."""
    if not resume:
        return list(points)
    return [p for p in points
            if p.key not in statuses or (retry_failed and statuses[p.key] == "failed")]


def run_sweep(name: str, points: list[Point], store: ResultStore, executor: Executor, *,
              resume: bool = True, retry_failed: bool = False,
              show_progress: bool = True) -> SweepSummary:
    """Execute the planned points and record each outcome as it arrives."""
    points = unique(points)
    statuses = store.statuses()
    todo = plan(points, statuses, resume, retry_failed)
    summary = SweepSummary(name, len(points), stored=len(points) - len(todo))
    todo_keys = {p.key for p in todo}
    failed_before = sum(1 for p in points
                        if p.key not in todo_keys and statuses.get(p.key) == "failed")
    start = time.perf_counter()
    with _Progress(name, len(points), summary.stored, failed_before, show_progress) as bar:
        if todo:
            for point, outcome in executor.run(todo):
                store.record(point, outcome, sweep=name)
                summary.ran += 1
                summary.failed += outcome.status == "failed"
                bar.advance(failed_before + summary.failed)
    summary.wall_s = time.perf_counter() - start
    keys = {p.key: p for p in points}
    summary.failures = [(keys[r.key].label(), r.error or "") for r in store.runs(list(keys))
                        if r.status == "failed"]
    return summary


class _Progress:
    """Rich progress bar on stderr: done/total, failures, elapsed and ETA."""

    def __init__(self, name: str, total: int, completed: int, failed: int, enabled: bool):
        self.enabled = enabled
        if not enabled:
            return
        from rich.console import Console
        from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn,
                                   TimeElapsedColumn, TimeRemainingColumn)
        self.progress = Progress(
            TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
            TextColumn("[red]{task.fields[failed]} failed"), TimeElapsedColumn(),
            TextColumn("ETA"), TimeRemainingColumn(), console=Console(stderr=True))
        self.task = self.progress.add_task(name, total=total, completed=completed,
                                          failed=failed)

    def __enter__(self) -> "_Progress":
        if self.enabled:
            self.progress.start()
        return self

    def advance(self, failed: int) -> None:
        if self.enabled:
            self.progress.update(self.task, advance=1, failed=failed)

    def __exit__(self, *exc) -> None:
        if self.enabled:
            self.progress.stop()
