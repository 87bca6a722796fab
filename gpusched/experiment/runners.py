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
    def check(name: str, value) -> None:
        from sim.policies import resolve_policy
        resolve_policy(kind, str(value))
    return check


def _typed_check(default: object):
    """A check that a grid value has the type of the parameter's default (a config value's
    rule: ``true`` is not a number, ``1`` is not a flag); counts (integer defaults) are >= 1."""
    def check(name: str, value: object) -> None:
        if isinstance(default, bool):
            if not isinstance(value, bool):
                raise ConfigError(name, value, "expected true or false")
        elif isinstance(default, int):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigError(name, value, "expected an integer >= 1")
        elif isinstance(default, float):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
                raise ConfigError(name, value, "expected a number > 0")
        elif isinstance(default, str) and not isinstance(value, str):
            raise ConfigError(name, value, "expected a string")
    return check


def _check_rtl(name: str, value) -> None:
    from gpusched.rtl_opts import rtl_selections
    rtl_selections(value)


# a grid point's RTL in the loop, as ``gpusched run --rtl``: comma-separated BLOCK[@INSTANCE]
def _check_sample(name: str, value: object) -> None:
    """A sampling spec (sim/sampling.py) or ``none``, checked before the sweep starts."""
    if value != "none":
        from sim.sampling import parse
        parse(str(value))


RTL_PARAMS = {"rtl": _check_rtl, "rtl_sim": ("verilator", "amaranth", "twin"),
              "lockstep": (True, False)}


def _model_parameters() -> dict:
    """Keyword parameters ``simulate`` accepts → their allowed names, a check raising
    ConfigError (called with the name and value: the type of the default, or a policy name), or
    None (any value)."""
    import sim.run
    sig = inspect.signature(sim.run.simulate)
    out: dict = {"scale": _typed_check(1.0)}
    for name, param in sig.parameters.items():
        if param.kind is param.VAR_KEYWORD:
            out.update({kind: _policy_check(kind) for kind in getattr(sim.run, "POLICIES", {})})
        elif name not in ("cfg", "workload", "seed", "progress", "blocks"):
            default = param.default
            out[name] = (_typed_check(default) if isinstance(default, (bool, int, float, str))
                         else None)
    out.update(RTL_PARAMS)
    if "sample" in out:
        out["sample"] = _check_sample
    if "memory" in out and hasattr(sim.run, "MEMORY_KINDS"):
        out["memory"] = tuple(sim.run.MEMORY_KINDS)
    return out


def check_model(point: Point) -> None:
    """Preset, overrides, workload and params must be known before a sweep starts."""
    from gpusched.config import resolve_config
    from gpusched.config import from_dict
    from gpusched.config.validate import check_block_limits, check_watchdog
    nested: dict = {}
    for path, value in point.overrides.items():    # typed as in a config file: true is not 1
        *heads, last = path.split(".")
        node = nested
        for h in heads:
            node = node.setdefault(h, {}) if isinstance(node.get(h, {}), dict) else {}
        node[last] = value
    from_dict(nested, base=resolve_config(point.preset, []))
    cfg = resolve_config(point.preset, override_strings(point.overrides))
    try:
        known = _model_parameters()
        from sim.run import load_workload
        from sim.policies.warp_sched import check_config
    except ImportError as e:
        raise ConfigError("kind", "model", f"the GPU model is not importable yet ({e})") from None
    check_config(cfg)           # the model's own names (sm.warp_sched)
    for name, value in point.params.items():
        if name not in known:
            raise ConfigError(name, value, "unknown model parameter; known: " + ", ".join(known))
        allowed = known[name]
        if callable(allowed):
            allowed(name, value)
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
    from gpusched.config import resolve_config
    from sim.run import load_workload, simulate
    cfg = resolve_config(point.preset, override_strings(point.overrides))
    params = dict(point.params)
    scale = float(params.pop("scale", 1.0))
    params.setdefault("memory", "hierarchy")
    rtl = [params.pop(k, None) for k in ("rtl", "rtl_sim", "lockstep")]
    workload = load_workload(point.workload, seed=point.seed, scale=scale, preset=cfg.name)
    from gpusched.rtl_opts import rtl_provider, rtl_selections, run_with_rtl
    chosen = rtl_selections(rtl[0])         # none: the twins, whatever rtl_sim / lockstep say
    blocks = rtl_provider(chosen, rtl[1] or "verilator", bool(rtl[2])) if chosen else \
        rtl_provider(None)
    return run_with_rtl(blocks, lambda b: simulate(cfg, workload, seed=point.seed, blocks=b,
                                                   **params), cli=False)


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
