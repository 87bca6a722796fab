"""Experiment infrastructure: run points keyed by content, a SQLite results store, resumable
sweeps on a local pool or Dask, flat queries, and reports declared per paper.

Layers (each file one concern): ``point`` (inputs + key) → ``runners`` (kinds: how a point
runs) → ``grid`` (TOML/Python declarations → points) → ``executors`` (where points run) →
``sweep`` (skip stored, run the rest, record) → ``store`` (SQLite) → ``query``, ``report``,
``plots`` (reading), with ``registry`` holding the per-paper ``Experiment`` declarations.
"""

from .grid import Grid, load_grid
from .point import Point
from .registry import Experiment, Headline, Metric, Plot, Table, get_experiment
from .runners import Outcome, register_kind
from .store import ResultStore

__all__ = ["Experiment", "Grid", "Headline", "Metric", "Outcome", "Plot", "Point", "ResultStore",
           "Table", "get_experiment", "load_grid", "register_kind"]
