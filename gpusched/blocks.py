"""Registry of blocks: one name → RTL factory, twin factory, parameters and lockstep stimulus.

The CLI (``area``, ``cosim``), the cosim benches and the tests look blocks up here. Each block's
entry is its own module in ``cosim/specs`` (discovered by name). Parameters arrive as ``k=v``
strings and are typed/validated by the entry.
"""

from __future__ import annotations

import re

from dataclasses import dataclass, field
from typing import Any, Callable

from gpusched.config import ConfigError
from hdl.params import Param  # noqa: F401  (the specs' parameter type, used with BlockSpec)


@dataclass(frozen=True)
class BlockSpec:
    name: str
    doc: str
    params: dict[str, Param]
    make_rtl: Callable[[dict], Any]
    make_twin: Callable[[dict], Any]
    make_stimulus: Callable[[dict, int], Any]
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    paper: str = ""
    extra: dict = field(default_factory=dict)
    check: Callable[[dict], None] | None = None    # cross-parameter rule; raises ValueError

    def top_name(self, params: dict) -> str:
        """Verilog module name that encodes the parameters (used as the cache key too)."""
        parts = [self.name] + [f"{k}{params[k]}" for k in sorted(params)]
        name = "_".join(str(p) for p in parts).replace("-", "m")
        return re.sub(r"\W", "_", name)   # list values (LIMITS=1,2) must not need escaping


def _discover() -> dict[str, str]:
    """Block name → module path, one module per block in ``cosim/specs``."""
    import pkgutil
    import cosim.specs
    return {m.name: f"cosim.specs.{m.name}" for m in pkgutil.iter_modules(cosim.specs.__path__)}


def block_names() -> list[str]:
    return sorted(_discover())


def get_block(name: str) -> BlockSpec:
    import importlib
    found = _discover()
    if name not in found:
        raise ConfigError("BLOCK", name, "known blocks: " + ", ".join(sorted(found)))
    return importlib.import_module(found[name]).spec()


def parse_params(spec: BlockSpec, items: list[str] | dict | None) -> dict:
    """Typed, validated parameters from ``k=v`` strings (or a dict); defaults fill the rest."""
    raw = dict(items) if isinstance(items, dict) else {}
    if isinstance(items, list):
        for item in items:
            if "=" not in item:
                raise ConfigError("--param", item, "expected name=value")
            k, v = item.split("=", 1)
            raw[k.strip()] = v.strip()
    out = {}
    for k, v in raw.items():
        if k not in spec.params:
            raise ConfigError(f"--param {k}", v, f"unknown parameter of {spec.name}; known: "
                              + ", ".join(spec.params))
        p = spec.params[k]
        try:
            val = p.type(v) if not isinstance(v, p.type) else v
        except ValueError:
            raise ConfigError(f"--param {k}", v, f"expected {p.allowed}") from None
        if not p.check(val):
            raise ConfigError(f"--param {k}", val, f"expected {p.allowed}")
        out[k] = val
    for k, p in spec.params.items():
        out.setdefault(k, p.default)
    if spec.check is not None:
        try:
            spec.check(out)
        except ValueError as e:
            raise ConfigError("--param", ", ".join(f"{k}={v}" for k, v in out.items()), str(e)) from None
    return out
