"""Helpers for the reliability tests: the toy plugins of tests/experiment importable (here and
in ``gpusched`` subprocesses), a subprocess runner (the in-process
``cli`` fixture is in tests/conftest.py)."""

import os
import signal
import subprocess
import sys
from pathlib import Path

EXPERIMENT_TESTS = Path(__file__).parent.parent / "experiment"
SIM_TESTS = Path(__file__).parent.parent / "sim"
if str(EXPERIMENT_TESTS) not in sys.path:
    sys.path.insert(0, str(EXPERIMENT_TESTS))

CLI = [sys.executable, "-c", "from gpusched.cli import main; main()"]


def cli_env() -> dict:
    """Environment for ``gpusched`` subprocesses: toy plugins importable, no inherited store."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in [str(EXPERIMENT_TESTS), env.get("PYTHONPATH", "")] if p)
    for name in ("GPUSCHED_DB", "GPUSCHED_PLUGINS", "TOY_FLAKY_FAILS"):
        env.pop(name, None)
    return env


def sigint_default() -> None:
    """``preexec_fn`` of a child a test interrupts: SIGINT's and SIGHUP's default dispositions, as
    a foreground job has them. A shell running the suite in the background (``make test &``)
    ignores SIGINT and ``nohup`` ignores SIGHUP; the child would inherit that, and rightly keep
    ignoring them."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGHUP, signal.SIG_DFL)


def gpusched(*args, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([*CLI, *map(str, args)], capture_output=True, text=True, env=cli_env(),
                          **kw)


def one_line_error(r: subprocess.CompletedProcess) -> str:
    """The single stderr line of a bad-input exit (asserts exit 2, one line, no traceback)."""
    assert r.returncode == 2, (r.returncode, r.stdout[-2000:], r.stderr[-2000:])
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in r.stderr, r.stderr
    return lines[0]
