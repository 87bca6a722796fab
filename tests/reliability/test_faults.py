"""Fault injection (issue 37, item 7): signals at random phases of long commands, and operating-
system errors (full disk, read-only filesystem, permission, I/O) injected into random writes.
After a signal no process of the command is left, no temporary folder remains, no cache entry
is left half-written, and the exit status is 128 + the signal; an injected error gives one line
naming the path (exit 1 or 2), never a traceback. Damaged cache files are fuzzed in test_fuzz.

Like test_fuzz, each property has a fast slice (default suite) and a long one (``--runslow``,
``gpusched verify faults``; ``$GPUSCHED_FUZZ_EXAMPLES`` examples); ``-s`` prints the tally and
``$GPUSCHED_FUZZ_REPORT=FILE`` writes it (with test_fuzz's) as JSON."""

import errno
import os
import random
import signal
import subprocess
import tempfile
import time
import uuid
from pathlib import Path

import pytest
from hypothesis import strategies as st

from gpusched.cache import SEAL, problem

from .conftest import CLI, cli_env, sigint_default
from .test_fuzz import OUTCOMES, both, gpusched, report_outcomes  # noqa: F401 (the tally)
from .test_no_orphans import tagged

TOY_GRID = """[sweep]
name = "faults"
kind = "toy"
preset = "tiny"
workloads = ["alpha", "beta", "gamma", "delta"]
seeds = [0, 1, 2]

[sweep.params]
delay = 0.15
"""

_TRACE: dict = {}


def _trace() -> Path:
    if not _TRACE:
        from sim.run import load_workload
        from sim.workload.tracegen import write_trace_dir
        d = Path(tempfile.mkdtemp(prefix="gpusched-faults-trace-"))
        _TRACE["dir"] = write_trace_dir(d, load_workload("mixed_like", scale=0.5))
    return _TRACE["dir"]


def commands(work: Path) -> dict[str, list]:
    """Long commands, each on its own cold cache in ``work``."""
    grid = work / "g.toml"
    grid.write_text(TOY_GRID)
    return {
        "run": ["run", "--preset", "gtx480", "--workload", "mem_stream", "--scale", "2"],
        "trace run": ["run", "--preset", "tiny", "--trace", _trace(), "--json"],
        "sweep": ["sweep", grid, "--plugin", "toy_kinds", "--db", work / "r.sqlite", "--jobs",
                  "2", "-q"],
        "area": ["area", "warp_sched", "--param", "W=16", "--param", "policy=gto", "--liberty",
                 "ge"],
        "prove": ["prove", "warp_sched", "--engine", "bmc", "--depth", "12"],
    }


def _cpu(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


def _temps(cache: Path) -> set[Path]:
    tmp = Path(tempfile.gettempdir())
    return ({p for p in (cache / "yosys").glob("tmp*")} | {p for p in (cache / "formal").glob("tmp*")}
            | {p for p in (cache / "traces").glob(".compiling-*")}
            | {p for p in tmp.glob("gpusched_cosim_*")})


def _signal_at_a_random_phase(name, sig, delay):
    with tempfile.TemporaryDirectory() as d:
        work = Path(d)
        cache = work / "cache"
        tag = uuid.uuid4().hex
        env = cli_env() | {"GPUSCHED_TEST_TAG": tag, "GPUSCHED_CACHE": str(cache),
                           "GPUSCHED_TRACE_CACHE": str(cache / "traces")}
        before = _temps(cache)
        proc = subprocess.Popen([*CLI, *map(str, commands(work)[name])], env=env, text=True,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                start_new_session=True, preexec_fn=sigint_default)
        start = time.monotonic()
        while proc.poll() is None and _cpu(proc.pid) < 0.4 and time.monotonic() - start < 60:
            time.sleep(0.02)          # past the interpreter's start-up: ours to handle from here
        time.sleep(delay)
        finished = proc.poll() is not None
        if not finished:
            os.kill(proc.pid, sig)
        out, err = proc.communicate(timeout=120)
        deadline = time.monotonic() + 10
        while (left := tagged(tag)) and time.monotonic() < deadline:
            time.sleep(0.1)
        for pid in tagged(tag, pids=True):
            os.kill(pid, signal.SIGKILL)
        expected = 0 if finished else 128 + sig
        assert "Traceback" not in err, err[-3000:]
        assert proc.returncode in (0, expected), (proc.returncode, err[-2000:])
        assert left == [], left
        assert _temps(cache) - before == set()
        traces = cache / "traces"
        for entry in (traces.iterdir() if traces.exists() else []):
            if entry.is_dir() and entry.name[0] != "." and entry.name != "digests":
                assert (entry / SEAL).exists() and problem(entry, _key(entry)) is None
        phase = "finished first" if proc.returncode == 0 else f"exit {proc.returncode}"
        OUTCOMES[("signals at random phases", f"{name} {signal.Signals(sig).name}: {phase}")] += 1


def _key(entry: Path) -> str:
    import json
    return json.loads((entry / SEAL).read_text())["key"]


SIGNALS = st.sampled_from([signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
test_signals_fast, test_signals_long = both(
    _signal_at_a_random_phase, st.sampled_from(["run", "trace run", "sweep", "area", "prove"]),
    SIGNALS, st.floats(0.0, 2.5), fast_examples=3)


# ---- operating-system errors injected into writes -------------------------------------------

ERRNOS = [errno.ENOSPC, errno.EROFS, errno.EACCES, errno.EIO, errno.EDQUOT]


class Injected:
    """Raise OSError(code) from the ``nth`` call of a write primitive, naming its path."""

    def __init__(self, code: int, nth: int):
        self.code, self.nth, self.calls, self.fired = code, nth, 0, False

    def wrap(self, real, path_arg):
        def call(*args, **kwargs):
            self.calls += 1
            if self.calls == self.nth and not self.fired:
                self.fired = True
                path = path_arg(args, kwargs)
                raise OSError(self.code, os.strerror(self.code), path)
            return real(*args, **kwargs)
        return call


WRITERS = {
    "os.replace": (os, "replace", lambda a, k: str(a[1])),
    "os.rename": (os, "rename", lambda a, k: str(a[1])),
    "tempfile.mkstemp": (tempfile, "mkstemp", lambda a, k: str(k.get("dir", tempfile.gettempdir()))),
    "tempfile.mkdtemp": (tempfile, "mkdtemp", lambda a, k: str(k.get("dir", tempfile.gettempdir()))),
    "os.mkdir": (os, "mkdir", lambda a, k: str(a[0])),
}


def _injected_errors(target, writer, code, nth):
    """A command on a cold cache with one write failing: success (the write was not needed),
    or one line naming a path with exit 1 (a resource) or 2 (a path named wrongly)."""
    import shutil
    module, attr, path_arg = WRITERS[writer]
    with tempfile.TemporaryDirectory() as d:
        work = Path(d)
        args = {"trace run": ["run", "--preset", "tiny", "--trace", _small_trace(work),
                              "--memory", "fixed", "--json"],
                "query -o": ["results", "query", "--db", _store(work), "-o", work / "o" / "q.csv"],
                "sweep": ["sweep", _grid(work), "--plugin", "toy_kinds", "--db", work / "s.sqlite",
                          "--jobs", "1", "-q"],
                "area": ["area", "warp_sched", "--param", "W=4", "--param", "policy=lrr",
                         "--liberty", "ge"]}[target]
        inject = Injected(code, nth)
        real = getattr(module, attr)
        env = {"GPUSCHED_CACHE": str(work / "cache"), "GPUSCHED_TRACE_CACHE": str(work / "tc")}
        old = {k: os.environ.get(k) for k in env}
        os.environ.update(env)
        setattr(module, attr, inject.wrap(real, path_arg))
        try:
            status, out, err = gpusched(*args)
        finally:
            setattr(module, attr, real)
            for k, v in old.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
        assert "Traceback" not in err, err[-3000:]
        if status:
            # progress lines may come first (area names its stages); the error is one last line
            lines = err.strip().splitlines()
            said = [line for line in lines if line.startswith("gpusched:")]
            assert status in (1, 2) and said == lines[-1:], err
            assert os.strerror(code) in lines[-1] or not inject.fired, lines[-1]
        kind = (f"{target}, {writer}: " + ("not reached" if not inject.fired else
                                          "exit 0 (recovered)" if not status else f"exit {status}"))
        OUTCOMES[("injected OS errors", kind)] += 1
        shutil.rmtree(work / "cache", ignore_errors=True)


def _small_trace(work: Path) -> Path:
    from sim.run import load_workload
    from sim.workload.tracegen import write_trace_dir
    return write_trace_dir(work / "trace", load_workload("mixed_like", scale=0.02))


def _grid(work: Path) -> Path:
    g = work / "g.toml"
    g.write_text(TOY_GRID.replace("delay = 0.15", "delay = 0.0"))
    return g


def _store(work: Path) -> Path:
    db = work / "q.sqlite"
    status, out, err = gpusched("sweep", _grid(work), "--plugin", "toy_kinds", "--db", db,
                                "--jobs", "1", "-q")
    assert status == 0, err
    return db


test_injected_errors_fast, test_injected_errors_long = both(
    _injected_errors, st.sampled_from(["trace run", "query -o", "sweep", "area"]),
    st.sampled_from(sorted(WRITERS)), st.sampled_from(ERRNOS), st.integers(1, 6),
    fast_examples=8)


def test_the_fault_suite_runs_in_gpusched_verify():
    from gpusched.commands.verify_cmd import _checks
    assert "faults" in _checks()
