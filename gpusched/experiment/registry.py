"""Experiment declarations and their discovery: ``gpusched report PAPER`` imports
``experiments.PAPER`` (or the module path PAPER) and uses its ``EXPERIMENT``.

A paper's module declares only what is specific to it: the grid (full and quick), the metrics
read from each run's stats, the tables and plots, and the headline rows (ours beside the
paper's number). Running, storing and rendering are shared.
"""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Literal

from gpusched.config import ConfigError

from .grid import Grid
from .query import ResultSet


def lookup(stats: dict, path: str) -> object:
    """The value at dotted ``path``; a key may itself contain dots (``memory`` →
    ``l1.hit_rate``), so the longest matching key is tried first. None when absent."""
    parts = path.split(".")
    for k in range(len(parts), 0, -1):
        head = ".".join(parts[:k])
        if isinstance(stats, dict) and head in stats:
            rest = ".".join(parts[k:])
            found = lookup(stats[head], rest) if rest else stats[head]
            if found is not None:
                return found
    return None


@dataclass(frozen=True)
class Metric:
    """A number per run: the stat at dotted path ``stat`` (default: ``name``) times ``scale``
    (e.g. 100 for a rate shown in %), or ``compute(stats)`` for derived values. ``unit``
    appears in table headers and axis labels. A run without the stat contributes nothing."""
    name: str
    label: str
    unit: str = ""
    stat: str | None = None
    scale: float = 1.0
    compute: Callable[[dict], float] | None = None

    def value(self, stats: dict) -> float | None:
        if self.compute is not None:
            return self.compute(stats)
        found = lookup(stats, self.stat or self.name)
        if isinstance(found, (int, float)) and not isinstance(found, bool):
            return found * self.scale
        return None

    def axis_label(self) -> str:
        return f"{self.label} ({self.unit})" if self.unit else self.label


@dataclass(frozen=True)
class Table:
    """A pivot of one metric (mean over seeds): one row per ``rows`` level, one column per
    ``columns`` level."""
    metric: str
    rows: str = "workload"
    columns: str = "sm.warp_sched"
    title: str = ""


@dataclass(frozen=True)
class Plot:
    """A bar chart (groups = ``x`` levels, bars = ``series`` levels) or a line chart of one
    metric (mean over the runs behind each point; whiskers = their standard deviation, across
    ``whiskers``). Bars are always on a linear axis from 0 (``log_y`` applies to lines only).
    ``normalize``: divide each group's bars by the bar of this series level (dashed line at 1.0);
    ``mean``: append mean groups ("geo", "arith"); ``reference``: a dashed line at this value."""
    metric: str
    filename: str
    x: str = "workload"
    series: str | None = "sm.warp_sched"
    style: Literal["bar", "line"] = "bar"
    title: str = ""
    log_y: bool = False
    normalize: str | None = None
    mean: tuple[str, ...] = ()
    reference: float | None = None
    whiskers: str = "seeds"


@dataclass(frozen=True)
class Headline:
    """One headline row: ``ours(results)`` is computed from this run's results; ``paper`` is
    the paper's number (None for baselines without one)."""
    metric: str
    unit: str
    ours: Callable[[ResultSet], float]
    paper: float | None = None
    note: str = ""
    caveat: Callable[[ResultSet], str] | None = None   # what the runs say about this number


@dataclass(frozen=True)
class Experiment:
    """Everything a paper's module declares. ``labels`` names dimensions for humans
    (``{"sm.warp_sched": "warp scheduler"}``), ``names`` their values as the paper does, for
    legends, axes and table headers (``{"cta_scheduler": {"ikra_rr": "G"}}``)."""
    name: str
    title: str
    grid: Grid
    quick: Grid
    metrics: list[Metric]
    tables: list[Table] = field(default_factory=list)
    plots: list[Plot] = field(default_factory=list)
    headline: list[Headline] = field(default_factory=list)
    labels: dict[str, str] = field(default_factory=dict)
    names: dict[str, dict[str, str]] = field(default_factory=dict)
    description: str = ""
    # markdown written after the headline, each from the results (e.g. per-benchmark tables
    # beside the paper's values, which pivot several runs per cell)
    sections: tuple[Callable[[ResultSet], list[str]], ...] = ()
    module: str = ""  # set by get_experiment; workers import it so its runner kinds exist

    @property
    def plugins(self) -> tuple[str, ...]:
        return (self.module,) if self.module else ()

    def metric(self, name: str) -> Metric:
        for m in self.metrics:
            if m.name == name:
                return m
        raise ConfigError(f"experiment {self.name}", name,
                          "unknown metric; declared: " + ", ".join(m.name for m in self.metrics))

    def label(self, dimension: str) -> str:
        return self.labels.get(dimension, dimension)

    def display(self, dimension: str | None, value) -> str:
        """How the paper names ``value`` of ``dimension`` (the value itself if not declared)."""
        return self.names.get(dimension or "", {}).get(str(value), str(value))


def experiment_names() -> list[str]:
    """Modules in the ``experiments`` package that declare ``EXPERIMENT`` at top level (found
    by reading their text: importing every module would pull in RTL and synthesis tools)."""
    import experiments
    declares = re.compile(r"^EXPERIMENT\s*[:=]", re.MULTILINE)
    names = []
    for info in pkgutil.iter_modules(experiments.__path__):
        path = Path(info.module_finder.path) / f"{info.name}.py"
        if path.is_file() and declares.search(path.read_text()):
            names.append(info.name)
    return sorted(names)


def get_experiment(name: str, catalogue: bool = False) -> Experiment:
    """``EXPERIMENT`` of ``experiments.<name>``, or of the module path ``name`` (experiments
    kept outside the package, e.g. in tests). ``catalogue``: the module's ``CATALOGUE``
    instead, the same paper on the catalogue's stand-in workloads (a paper reproduced on the
    program suite keeps its earlier catalogue runs there, labelled)."""
    module = None
    for candidate in (f"experiments.{name}", name):
        try:
            module = importlib.import_module(candidate)
            break
        except ModuleNotFoundError as e:
            if e.name and e.name != candidate and not candidate.startswith(e.name + "."):
                raise  # the module exists but one of its own imports is missing
    if module is None:
        raise ConfigError("PAPER", name, "no such experiment; known: "
                          + ", ".join(experiment_names()))
    attr = "CATALOGUE" if catalogue else "EXPERIMENT"
    exp = getattr(module, attr, None)
    if not isinstance(exp, Experiment):
        if catalogue:
            raise ConfigError("--catalogue", name, f"{name} has no catalogue variant (its "
                              "EXPERIMENT is the only one)")
        raise ConfigError("PAPER", name,
                          f"module {module.__name__} has no EXPERIMENT = Experiment(...)")
    return dataclasses.replace(exp, module=module.__name__)
