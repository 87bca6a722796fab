"""Runner kinds: how a point is executed, by name. ``model`` runs the cycle-level GPU model.

The registry is open: a plugin module (``--plugin mod`` or ``GPUSCHED_PLUGINS=mod1,mod2``)
calls ``register_kind`` at import time; workers import the same plugins before running, so
kinds work in pool processes and on Dask workers alike.
"""

from __future__ import annotations

import importlib
import inspect
import json
import os
import socket
import time
import traceback
from dataclasses import dataclass
from typing import Callable

from gpusched.config import ConfigError

from .point import Point, override_strings

RunFn = Callable[[Point], dict]
CheckFn = Callable[[Point], None]


@dataclass(frozen=True)
class RunnerKind:
    """``run(point) -> stats`` (JSON-ready dict, deterministic in the point's inputs);
    ``check(point)`` raises ConfigError for bad inputs before any work starts."""
    name: str
    run: RunFn
    check: CheckFn | None = None


_KINDS: dict[str, RunnerKind] = {}


def register_kind(name: str, run: RunFn, check: CheckFn | None = None) -> RunnerKind:
    """Add (or replace, when a plugin is re-imported) the runner kind ``name``."""
    kind = RunnerKind(name, run, check)
    _KINDS[name] = kind
    return kind


def get_kind(name: str) -> RunnerKind:
    if name not in _KINDS:
        raise ConfigError("kind", name, "unknown runner kind; known: " + ", ".join(sorted(_KINDS))
                          + " (plugins add kinds: --plugin MODULE)")
    return _KINDS[name]


def kind_names() -> list[str]:
    return sorted(_KINDS)


def plugins_from_env() -> list[str]:
    """Plugin module names listed in ``GPUSCHED_PLUGINS`` (comma separated)."""
    return [m.strip() for m in os.environ.get("GPUSCHED_PLUGINS", "").split(",") if m.strip()]


def ensure_kinds(names: set[str]) -> set[str]:
    """Import what registers the kinds ``names`` (for reading stored rows of any kind): the
    plugins of ``GPUSCHED_PLUGINS``, then the modules of the ``experiments`` package that call
    ``register_kind``. Returns the names still unknown."""
    missing = set(names) - set(_KINDS)
    if missing:
        load_plugins(plugins_from_env())
        missing -= set(_KINDS)
    if missing:
        import pkgutil
        from pathlib import Path

        import experiments
        for info in pkgutil.iter_modules(experiments.__path__):
            path = Path(info.module_finder.path) / f"{info.name}.py"   # type: ignore[union-attr]
            if path.is_file() and "register_kind(" in path.read_text():
                importlib.import_module(f"experiments.{info.name}")
        missing -= set(_KINDS)
    return missing


def load_plugins(modules: list[str]) -> None:
    """Import plugin modules so they register their kinds (idempotent)."""
    for name in modules:
        try:
            importlib.import_module(name)
        except ImportError as e:
            raise ConfigError("--plugin", name, f"cannot import: {e}") from None


# ---- the GPU model ----------------------------------------------------------------------------

def _policy_check(kind: str):
    """A check of a policy name of ``kind`` (plain or family syntax; raises ConfigError)."""
    def check(value) -> None:
        from sim.policies import resolve_policy
        resolve_policy(kind, str(value))
    return check


def _model_parameters() -> dict:
    """Keyword parameters ``simulate`` accepts → their allowed names, a check raising
    ConfigError, or None (any value)."""
    import sim.run
    sig = inspect.signature(sim.run.simulate)
    out: dict[str, tuple[str, ...] | None] = {"scale": None}
    for name, param in sig.parameters.items():
        if param.kind is param.VAR_KEYWORD:
            out.update({kind: _policy_check(kind) for kind in getattr(sim.run, "POLICIES", {})})
        elif name not in ("cfg", "workload", "seed", "progress"):
            out[name] = None
    if "memory" in out and hasattr(sim.run, "MEMORY_KINDS"):
        out["memory"] = tuple(sim.run.MEMORY_KINDS)
    return out


def check_model(point: Point) -> None:
    """Preset, overrides, workload and params must be known before a sweep starts."""
    from gpusched.commands.config_cmd import resolve_config
    from gpusched.config.validate import check_block_limits, check_watchdog
    cfg = resolve_config(point.preset, override_strings(point.overrides))
    try:
        known = _model_parameters()
        from sim.run import load_workload
    except ImportError as e:
        raise ConfigError("kind", "model", f"the GPU model is not importable yet ({e})") from None
    for name, value in point.params.items():
        if name not in known:
            raise ConfigError(name, value, "unknown model parameter; known: " + ", ".join(known))
        allowed = known[name]
        if callable(allowed):
            allowed(value)
        elif allowed is not None and value not in allowed:
            raise ConfigError(name, value, "allowed: " + ", ".join(allowed))
    load_workload(point.workload, seed=point.seed, scale=point.params.get("scale", 1.0),
                  preset=cfg.name)
    import sim.run
    watchdog = point.params.get("watchdog", getattr(sim.run, "DEFAULT_WATCHDOG", 100_000))
    if isinstance(watchdog, int) and watchdog >= 1:
        check_watchdog(cfg, watchdog)
    check_block_limits(cfg, {k: v for k, v in point.params.items()
                             if k in getattr(sim.run, "POLICIES", {})})


def run_model(point: Point) -> dict:
    """Build the config, load the workload (a catalogue name, ``file.py:function`` or an
    Accel-Sim trace directory: sim.run.load_workload) and simulate it (with the full memory
    hierarchy unless the point names another memory)."""
    from gpusched.commands.config_cmd import resolve_config
    from sim.run import load_workload, simulate
    cfg = resolve_config(point.preset, override_strings(point.overrides))
    params = dict(point.params)
    scale = float(params.pop("scale", 1.0))
    params.setdefault("memory", "hierarchy")
    workload = load_workload(point.workload, seed=point.seed, scale=scale, preset=cfg.name)
    return simulate(cfg, workload, seed=point.seed, **params)


register_kind("model", run_model, check_model)


# ---- executing one point (in a worker) --------------------------------------------------------

@dataclass(frozen=True)
class Outcome:
    """What a worker sends back: the parent alone writes it to the store."""
    key: str
    status: str          # "done" | "failed"
    stats: dict | None
    error: str | None
    wall_s: float
    host: str


def _plain(value: object) -> object:
    """numpy scalars and arrays → Python numbers and lists (anything else is an error)."""
    if hasattr(value, "tolist"):
        return value.tolist()
    raise TypeError(f"stats value {value!r} of type {type(value).__name__} is not JSON-ready")


def execute(inputs: dict, plugins: tuple[str, ...] = ()) -> Outcome:
    """Run one point from its plain inputs; never raises for a failing point (the error text is
    the outcome). Takes plain data so it pickles to pool processes and Dask workers."""
    point = Point.from_inputs(inputs)
    start = time.perf_counter()
    try:
        load_plugins(list(plugins))
        stats = get_kind(point.kind).run(point)
        if not isinstance(stats, dict):
            raise TypeError(f"runner kind {point.kind!r} returned {type(stats).__name__}, not dict")
        outcome_stats, status, error = json.loads(json.dumps(stats, default=_plain)), "done", None
    except Exception as e:  # a failing point is data, not a crash of the sweep
        tb = traceback.extract_tb(e.__traceback__)
        where = f" at {tb[-1].filename}:{tb[-1].lineno}" if tb else ""
        outcome_stats, status, error = None, "failed", f"{type(e).__name__}: {e}{where}"
    return Outcome(point.key, status, outcome_stats, error, time.perf_counter() - start,
                   socket.gethostname())
