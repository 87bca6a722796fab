"""Sweep grids: the cartesian product of presets × workloads × overrides × params × seeds.

A grid comes from a TOML file (``gpusched sweep GRID.toml``) or from an experiment module.
Every input error names its file and line, so a typo in a 40-line grid is found at once.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from pathlib import Path

from gpusched.config import ConfigError
from gpusched.config.toml_file import read_toml

from gpusched.limits import MAX_GRID_POINTS, check_seed

from .point import Point, Scalar, canonical_json, flatten
from .runners import get_kind

SWEEP_KEYS = ("name", "kind", "preset", "workloads", "seeds", "overrides", "params")
# Where a runner's ConfigError names an input, the grid key it comes from.
_ERROR_KEYS = {"workload": "workloads", "seed": "seeds", "preset": "preset", "kind": "kind"}


@dataclass(frozen=True)
class Grid:
    """A sweep declaration. ``overrides``/``params`` map a key to the list of values to sweep
    (a scalar means one value). ``source`` is the file it came from, for error locations."""
    name: str
    workloads: list[str]
    preset: list[str] = field(default_factory=lambda: ["tiny"])
    seeds: list[int] = field(default_factory=lambda: [0])
    overrides: dict[str, list[Scalar]] = field(default_factory=dict)
    params: dict[str, list[Scalar]] = field(default_factory=dict)
    kind: str = "model"
    source: str | None = None

    def points(self) -> list[Point]:
        """Every point, in a stable order (presets, workloads, overrides, params, seeds)."""
        o_keys, p_keys = sorted(self.overrides), sorted(self.params)
        o_axes = [_as_list(self.overrides[k]) for k in o_keys]
        p_axes = [_as_list(self.params[k]) for k in p_keys]
        out = []
        for preset, workload, o_vals, p_vals, seed in itertools.product(
                _as_list(self.preset), _as_list(self.workloads), itertools.product(*o_axes),
                itertools.product(*p_axes), _as_list(self.seeds)):
            out.append(Point(preset=preset, workload=workload, seed=seed,
                             overrides=dict(zip(o_keys, o_vals)), params=dict(zip(p_keys, p_vals)),
                             kind=self.kind))
        return out

    def check(self) -> list[Point]:
        """The points, after the runner kind checked each distinct input combination; a bad
        input raises ConfigError located at ``source``'s line."""
        try:
            kind = get_kind(self.kind)
        except ConfigError as e:
            raise self._located(e) from None
        n = 1
        for axis in [self.preset, self.workloads, self.seeds, *self.overrides.values(),
                     *self.params.values()]:
            n *= len(_as_list(axis))
        if n > MAX_GRID_POINTS:
            raise ConfigError(self.source or self.name, f"{n:,} points", f"a grid of at most "
                              f"{MAX_GRID_POINTS:,} points: split it into several sweeps")
        points = self.points()
        if kind.check is not None:
            seen = set()
            for p in points:     # JSON: true and 1 are two values here (in Python, equal ones)
                sig = canonical_json([p.preset, p.workload, p.overrides, p.params])
                if sig in seen:
                    continue
                seen.add(sig)
                try:
                    kind.check(p)
                except ConfigError as e:
                    raise self._located(e) from None
        return points

    def _located(self, e: ConfigError) -> ConfigError:
        if not self.source:
            return e
        key = _ERROR_KEYS.get(e.where, e.where)
        return ConfigError(f"{locate(self.source, key, e.value)} {e.where}", e.value, e.allowed)


def _as_list(value) -> list:
    return list(value) if isinstance(value, (list, tuple)) else [value]


def locate(path: str, key: str, value: object = None) -> str:
    """``path:line`` of ``key`` (as ``key =`` or ``"key":``; the full dotted key first, then its
    last part), or of the quoted ``value`` at or after that line; ``path`` if neither is found."""
    try:
        lines = Path(path).read_text().splitlines()
    except OSError:
        return path
    start = None
    for name in dict.fromkeys([key, key.rsplit(".", 1)[-1]]):
        pattern = re.compile(r'^\s*["\']?' + re.escape(name) + r'["\']?\s*[=:]')
        start = next((i for i, line in enumerate(lines) if pattern.search(line)), None)
        if start is not None:
            break
    if isinstance(value, str) and value:
        quoted = (f'"{value}"', f"'{value}'")
        hit = next((i for i, line in enumerate(lines) if i >= (start or 0)
                    and any(q in line for q in quoted)), None)
        if hit is not None:
            return f"{path}:{hit + 1}"
    return f"{path}:{start + 1}" if start is not None else path


def load_grid(path: str | Path) -> Grid:
    """Parse a grid file (format in docs/experiments.md); raise ConfigError at file:line."""
    path = str(path)
    data, _ = read_toml(path, "grid file")

    def fail(key: str, value: object, allowed: str):
        raise ConfigError(f"{locate(path, key)} {key}", value, allowed)

    for top in data:
        if top != "sweep":
            fail(top, data[top], "unknown top-level key; a grid file has one [sweep] table")
    sweep = data.get("sweep")
    if not isinstance(sweep, dict):
        raise ConfigError(path, "", "no [sweep] table: see docs/experiments.md for the format")
    for key in sweep:
        if key not in SWEEP_KEYS:
            fail(key, sweep[key],
                 "unknown grid key; known: " + ", ".join(SWEEP_KEYS))

    def strings(key: str, default: list | None) -> list[str]:
        value = sweep.get(key, default)
        if value is None:
            fail(key, None, "required")
        values = _as_list(value)
        if not values or not all(isinstance(v, str) and v for v in values):
            fail(key, value, "expected a non-empty string or list of strings")
        return values

    seeds = _as_list(sweep.get("seeds", [0]))
    if not seeds or not all(isinstance(s, int) and not isinstance(s, bool) for s in seeds):
        fail("seeds", sweep.get("seeds"), "expected an integer or a non-empty list of integers")
    for s in seeds:
        try:
            check_seed("seeds", s)
        except ConfigError as e:
            fail("seeds", s, e.allowed)
    axes = {}
    for table in ("overrides", "params"):
        raw = sweep.get(table, {})
        if not isinstance(raw, dict):
            fail(table, raw, f"expected a table: [sweep.{table}] with key = [values]")
        twice = _spelled_twice(raw)
        if twice:
            fail(twice, None, "given twice: a quoted \"a.b\" and a dotted a.b (or [a] b) "
                              "spell the same key; keep one")
        axes[table] = {}
        for key, value in flatten(raw).items():   # TOML dotted keys → one level
            values = _as_list(value)
            if not values or not all(isinstance(v, (str, int, float, bool)) for v in values):
                fail(key, value, "expected a value or a non-empty list of values")
            axes[table][key] = values
    name = sweep.get("name", Path(path).stem)
    kind = sweep.get("kind", "model")
    for key, value in (("name", name), ("kind", kind)):
        if not isinstance(value, str) or not value:
            fail(key, value, "expected a non-empty string")
    return Grid(name=name, workloads=strings("workloads", None), preset=strings("preset", ["tiny"]),
                seeds=seeds, overrides=axes["overrides"], params=axes["params"], kind=kind,
                source=path)


def _spelled_twice(table: dict, prefix: str = "") -> str | None:
    """A dotted key that two spellings of ``table`` give (``"sm.count"`` and ``sm.count``):
    ``flatten`` would silently keep one of them."""
    seen: set[str] = set()

    def walk(node: dict, prefix: str) -> str | None:
        for key, value in node.items():
            full = f"{prefix}{key}"
            if isinstance(value, dict):
                found = walk(value, full + ".")
            else:
                found = full if full in seen else None
                seen.add(full)
            if found:
                return found
        return None
    return walk(table, prefix)


