"""The program suite: real GPU programs written by the project in CUDA C from the published
algorithms (docs/workloads.md). Each lives in ``programs/NAME/``: ``NAME.cu`` (kernels),
``NAME.ptx`` and ``NAME.ptxas.json`` (committed, ``make ptx``), ``NAME.py`` (host program):

    INFO = {"title": ..., "suite": ..., "papers": {"owl": "BFS", ...}, "kernels": (...),
            "default_scale": 1.0, "quick_scale": 0.05, "inputs": "what the input is"}
    def inputs(seed: int, scale: float) -> dict[str, np.ndarray]      # deterministic per seed
    def main(ctx, seed: int = 0, scale: float = 1.0) -> dict[str, np.ndarray]   # launches
    def reference(seed: int, scale: float) -> dict[str, np.ndarray]   # numpy, the same outputs
    TOLERANCE = {"output": (rtol, atol)}                               # default: exact

``check(name)`` runs a program functionally and compares its outputs with ``reference``.
"""

from __future__ import annotations

import importlib
from pathlib import Path

import numpy as np

HERE = Path(__file__).parent
REQUIRED = ("INFO", "inputs", "main", "reference")


def names() -> list[str]:
    return sorted(p.name for p in HERE.iterdir()
                  if p.is_dir() and (p / f"{p.name}.py").is_file() and p.name != "common")


def load(name: str):
    if name not in names():
        raise KeyError(name)
    mod = importlib.import_module(f"workloads.programs.{name}.{name}")
    missing = [a for a in REQUIRED if not hasattr(mod, a)]
    if missing:
        raise AttributeError(f"program {name} lacks {', '.join(missing)}")
    return mod


class _NullSink:
    def chunk(self, streams) -> None:
        pass

    def close(self, warp_insts: int) -> None:
        return None


def run_functional(name: str, seed: int = 0, scale: float | None = None, progress: bool = False):
    """Run program ``name`` on the front end without recording; → (outputs, context)."""
    from ptx.host import Context
    mod = load(name)
    scale = mod.INFO["default_scale"] if scale is None else scale
    ctx = Context(sink_factory=lambda info: _NullSink(), progress=progress)
    return mod.main(ctx, seed=seed, scale=scale), ctx


def compare(outputs: dict, expected: dict, tolerance: dict) -> list[str]:
    """One line per output that differs from the reference beyond its tolerance."""
    bad = []
    for key, want in expected.items():
        if key not in outputs:
            bad.append(f"{key}: missing from the program's outputs")
            continue
        got, want = np.asarray(outputs[key]), np.asarray(want)
        rtol, atol = tolerance.get(key, (0.0, 0.0))
        if got.shape != want.shape:
            bad.append(f"{key}: shape {got.shape}, reference {want.shape}")
        elif rtol == atol == 0.0:
            if not np.array_equal(got, want):
                bad.append(f"{key}: {int(np.sum(got != want))} of {got.size} values differ")
        elif not np.allclose(got, want, rtol=rtol, atol=atol, equal_nan=True):
            err = float(np.nanmax(np.abs(got.astype(np.float64) - want.astype(np.float64))))
            bad.append(f"{key}: max error {err:.3g} beyond rtol {rtol}, atol {atol}")
    return bad


def check(name: str, seed: int = 0, scale: float | None = None) -> list[str]:
    mod = load(name)
    scale = mod.INFO["default_scale"] if scale is None else scale
    outputs, _ = run_functional(name, seed, scale)
    return compare(outputs, mod.reference(seed, scale), getattr(mod, "TOLERANCE", {}))
