"""Run a set of points into the store: skip what is stored, run the rest, record each result.

Resuming is the default because keys are content hashes: re-running the same sweep after a
crash (or a SIGKILL) only computes the missing points.

Two sweeps on one store share the work: each claims a point just before it runs it (the
executors pull points lazily), skips points another live sweep has claimed, and at the end waits
for those to be recorded (or runs them itself if their claimant went away without recording).
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass, field
from typing import Callable, Iterator

from gpusched.limits import duration

from .executors import Executor
from .point import Point
from .store import ResultStore, make_owner

POLL_S = 0.5   # how often a sweep looks for points another sweep is computing
LONG_SWEEP_POINTS = 50   # a sweep with this many points to run says what its first one took


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
    elsewhere: int = 0
    wall_s: float = 0.0
    failures: list[tuple[str, str]] = field(default_factory=list)

    def line(self) -> str:
        text = (f"sweep {self.name}: {self.total} points, {self.stored} already stored, "
                f"{self.ran} run ({self.failed} failed) in {self.wall_s:.1f} s")
        if self.elsewhere:
            text += f", {self.elsewhere} computed meanwhile by another sweep on this store"
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
              show_progress: bool = True, poll_s: float = POLL_S,
              note: Callable[[str], None] | None = None) -> SweepSummary:
    """Execute the planned points and record each outcome as it arrives. ``note(text)`` is
    told, in a long sweep, how long its first point took and what that makes for all."""
    points = unique(points)
    statuses = store.statuses()
    todo = plan(points, statuses, resume, retry_failed)
    summary = SweepSummary(name, len(points), stored=len(points) - len(todo))
    todo_keys = {p.key for p in todo}
    failed_before = sum(1 for p in points
                        if p.key not in todo_keys and statuses.get(p.key) == "failed")
    remaining = {p.key: p for p in todo}
    owner, seen = make_owner(), store.versions()
    start = time.perf_counter()

    def claimed() -> Iterator[Point]:
        for p in list(remaining.values()):
            state = store.claim(p.key, owner, seen.get(p.key))
            if state == "claimed":
                yield p
            elif state == "recorded" and remaining.pop(p.key, None) is not None:
                summary.elsewhere += 1
                bar.advance(None)

    with _Progress(name, len(points), summary.stored, failed_before, show_progress) as bar:
        try:
            while remaining:
                with contextlib.closing(executor.run(claimed())) as results:  # type: ignore[arg-type]
                    for point, outcome in results:
                        store.record(point, outcome, sweep=name, owner=owner)
                        remaining.pop(point.key, None)
                        summary.ran += 1
                        summary.failed += outcome.status == "failed"
                        if summary.ran == 1 and note and len(todo) >= LONG_SWEEP_POINTS:
                            note(f"the first point took {duration(outcome.wall_s)}: about "
                                 f"{duration(outcome.wall_s * len(todo))} of compute for the "
                                 f"{len(todo):,} points to run, shared by the workers")
                        bar.advance(failed_before + summary.failed)
                if remaining:
                    _wait_for_others(store, remaining, seen, owner, summary, bar, poll_s)
        finally:
            store.release_all(owner)
    summary.wall_s = time.perf_counter() - start
    keys = {p.key: p for p in points}
    summary.failures = [(keys[r.key].label(), r.error or "") for r in store.runs(list(keys))
                        if r.status == "failed"]
    return summary


def _wait_for_others(store: ResultStore, remaining: dict[str, Point], seen: dict[str, tuple],
                     owner, summary: SweepSummary, bar: "_Progress", poll_s: float) -> None:
    """Wait while other sweeps compute the points they claimed; return once every remaining
    point is recorded, or some point is free again (its claimant stopped without recording)."""
    while remaining:
        others = store.claimed_elsewhere(set(remaining), owner)
        versions = store.versions()
        for key in [k for k in remaining if k not in others and versions.get(k) != seen.get(k)]:
            remaining.pop(key)
            summary.elsewhere += 1
            bar.advance(None)
        if any(k not in others for k in remaining):
            return
        time.sleep(poll_s)


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

    def advance(self, failed: int | None) -> None:
        if self.enabled:
            extra = {} if failed is None else {"failed": failed}
            self.progress.update(self.task, advance=1, **extra)

    def __exit__(self, *exc) -> None:
        if self.enabled:
            self.progress.stop()
