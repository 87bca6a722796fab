"""Shared helpers: the test plugin modules (toy_kinds, toy_paper) importable by name here and in
``gpusched`` subprocesses (via PYTHONPATH), a subprocess runner and a grid-file writer."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import toy_kinds  # noqa: E402,F401  (registers the toy kind in this process)


def cli_env() -> dict:
    """Environment for ``gpusched`` subprocesses: plugins importable, no inherited store."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in [str(HERE), env.get("PYTHONPATH", "")] if p)
    env.pop("GPUSCHED_DB", None)
    env.pop("GPUSCHED_PLUGINS", None)
    env.pop("TOY_FLAKY_FAILS", None)
    return env


def gpusched(*args, cwd=None, **popen) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", "from gpusched.cli import main; main()",
                           *map(str, args)], capture_output=True, text=True, env=cli_env(),
                          cwd=cwd, **popen)


def write_grid(path: Path, workloads=("alpha", "beta"), seeds=(0, 1), policies=("lrr", "gto"),
               delay: float = 0.0, extra: str = "") -> Path:
    """A toy grid file: len(workloads) × len(policies) × len(seeds) points."""
    path.write_text(
        "[sweep]\n"
        'name = "toy"\n'
        'kind = "toy"\n'
        'preset = "tiny"\n'
        f"workloads = {list(workloads)!r}\n".replace("'", '"')
        + f"seeds = {list(seeds)!r}\n"
        + extra
        + "\n[sweep.overrides]\n"
        + f'"sm.warp_sched" = {list(policies)!r}\n'.replace("'", '"')
        + "\n[sweep.params]\n"
        + f"delay = {delay!r}\n")
    return path


@pytest.fixture
def toy_grid(tmp_path):
    return lambda **kw: write_grid(tmp_path / "grid.toml", **kw)
