"""Signals and concurrent sweeps: SIGTERM or SIGKILL of ``sweep --jobs N`` leaves no worker,
forkserver or resource tracker behind (``sweep | cat`` returns), SIGINT exits 130 and SIGTERM
143, a resume after any of them gives exactly the rows of a clean sweep, and two sweeps on one
store compute every point once."""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .conftest import CLI, cli_env, sigint_default

GRID = """\
[sweep]
name = "toy"
kind = "toy"
preset = "tiny"
workloads = ["alpha", "beta", "gamma", "delta"]
seeds = [0, 1, 2, 3, 4]

[sweep.params]
delay = {delay}
"""
N_POINTS = 20


def grid(tmp_path, delay=0.2) -> Path:
    path = tmp_path / "g.toml"
    path.write_text(GRID.format(delay=delay))
    return path


def group_members(pgid: int) -> list[str]:
    """Command lines of the live (not zombie) processes in process group ``pgid``."""
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
            fields = text[text.rindex(")") + 2:].split()
            if int(fields[2]) == pgid and fields[0] != "Z":
                out.append((stat.parent / "cmdline").read_bytes().replace(b"\0", b" ").decode()[:100])
        except (OSError, ValueError):
            continue
    return out


def left_after(pgid: int, seconds: float = 10.0) -> list[str]:
    """The group's processes still alive ``seconds`` after asking (0 expected much sooner)."""
    deadline = time.monotonic() + seconds
    while (alive := group_members(pgid)) and time.monotonic() < deadline:
        time.sleep(0.1)
    return alive


def rows(db) -> int:
    try:
        with sqlite3.connect(db, timeout=1) as c:
            return c.execute("SELECT count(*) FROM runs").fetchone()[0]
    except sqlite3.Error:
        return 0


def start_sweep(g, db, jobs=2, env=None) -> subprocess.Popen:
    return subprocess.Popen([*CLI, "sweep", str(g), "--plugin", "toy_kinds", "--db", str(db),
                             "--jobs", str(jobs), "-q"], env=env or cli_env(),
                            start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, preexec_fn=sigint_default)


def wait_rows(proc, db, n, limit=30.0):
    start = time.monotonic()
    while proc.poll() is None and rows(db) < n and time.monotonic() - start < limit:
        time.sleep(0.02)
    assert proc.poll() is None, "the sweep finished before the signal"


def stored_stats(db) -> dict:
    with sqlite3.connect(db) as c:
        assert c.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        return {k: (s, json.loads(st)) for k, s, st in c.execute("SELECT key, status, stats FROM runs")}


@pytest.fixture(scope="module")
def clean(tmp_path_factory):
    """The rows of an uninterrupted sweep of the same grid."""
    tmp = tmp_path_factory.mktemp("clean")
    proc = start_sweep(grid(tmp), tmp / "clean.sqlite", jobs=2)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    return stored_stats(tmp / "clean.sqlite")


@pytest.mark.parametrize("sig, to_group, code", [
    (signal.SIGTERM, False, 143),     # `kill PID`: the parent only
    (signal.SIGINT, True, 130),       # Ctrl-C: the terminal signals the whole group
    (signal.SIGKILL, False, -9),      # the parent killed outright: its workers must follow
])
def test_signal_leaves_no_process_and_resume_equals_a_clean_sweep(tmp_path, clean, sig, to_group,
                                                                  code):
    g, db = grid(tmp_path), tmp_path / "r.sqlite"
    proc = start_sweep(g, db)
    wait_rows(proc, db, 3)
    assert len(group_members(proc.pid)) >= 3          # parent, forkserver, workers (+ tracker)
    (os.killpg if to_group else os.kill)(proc.pid, sig)
    # communicate() returns only when every holder of the stdout/stderr pipes has exited:
    # this is `gpusched sweep … | cat` returning
    proc.wait(timeout=20)     # reap the parent at once, as a shell does
    try:
        out, err = proc.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        pytest.fail(f"the sweep's pipes are still held by: {group_members(proc.pid)}")
    assert proc.returncode == code, err
    if code > 0:
        assert "run the same command again to resume" in err and "Traceback" not in err
    assert left_after(proc.pid) == []
    resumed = start_sweep(g, db, jobs=2)
    out, err = resumed.communicate(timeout=60)
    assert resumed.returncode == 0, err
    assert stored_stats(db) == clean


def test_two_sweeps_on_one_store_compute_each_point_once(tmp_path, clean):
    g, db, log = grid(tmp_path), tmp_path / "r.sqlite", tmp_path / "runs.log"
    env = cli_env() | {"TOY_RUN_LOG": str(log)}
    first = start_sweep(g, db, env=env)
    wait_rows(first, db, 1)
    second = start_sweep(g, db, env=env)
    outs = [p.communicate(timeout=60) for p in (first, second)]
    assert [p.returncode for p in (first, second)] == [0, 0], outs
    computed = log.read_text().split()
    assert len(computed) == N_POINTS and len(set(computed)) == N_POINTS
    assert stored_stats(db) == clean
    import re
    for out, _ in outs:   # every point of each sweep: stored before, run by it, or by the other
        m = re.search(r"(\d+) points, (\d+) already stored, (\d+) run", out)
        total, stored, ran = map(int, m.groups())
        other = re.search(r"(\d+) computed meanwhile by another sweep", out)
        assert stored + ran + (int(other.group(1)) if other else 0) == total == N_POINTS, out
    with sqlite3.connect(db) as c:
        assert c.execute("SELECT count(*) FROM claims").fetchone()[0] == 0


def test_a_stale_claim_of_a_dead_sweep_is_taken_over(tmp_path):
    import toy_kinds  # noqa: F401  (registers the toy kind: a point's key names its kind's code)
    from gpusched.experiment.point import Point
    from gpusched.experiment.runners import Outcome
    from gpusched.experiment.store import ResultStore, make_owner
    p = Point("tiny", "alpha", kind="toy")
    dead = ("host:dead", 2 ** 22 + 12345, make_owner()[2])   # a pid that does not exist here
    with ResultStore(tmp_path / "r.sqlite") as store:
        assert store.claim(p.key, dead) == "claimed"
        me = make_owner()
        assert store.claimed_elsewhere({p.key}, me) == set()
        assert store.claim(p.key, me) == "claimed"             # the dead sweep's claim is stale
        other = ("other", os.getpid(), me[2])
        assert store.claim(p.key, other) == "held"             # held by `me`, which is alive
        assert store.claimed_elsewhere({p.key}, other) == {p.key}
        store.record(p, Outcome(p.key, "done", {}, None, 0.1, "h"), owner=me)
        assert store.claim(p.key, other) == "recorded"         # computed since `other` looked
        assert store.conn.execute("SELECT count(*) FROM claims").fetchone()[0] == 0


class _SignalInDestructor:
    """Sends ``sig`` to this process from its ``__del__``: the handler runs there, where an
    exception cannot propagate (as in the import system's module-lock callback)."""

    def __init__(self, sig):
        self.sig = sig

    def __del__(self):
        signal.raise_signal(self.sig)
        sum(range(1000))            # bytecodes: the handler runs inside this destructor


@pytest.mark.parametrize("sig, exc", [(signal.SIGTERM, "Terminated"), (signal.SIGHUP, "Terminated"),
                                      (signal.SIGINT, "KeyboardInterrupt")])
def test_a_signal_raised_inside_a_destructor_is_delivered_again_not_lost(sig, exc, capsys):
    from gpusched import signals
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    old_hup = signal.signal(signal.SIGHUP, signal.SIG_DFL)   # under nohup it is ignored
    try:
        with pytest.raises(BaseException) as caught:
            with signals.signals_raise():
                bomb = _SignalInDestructor(sig)
                del bomb
                deadline = time.monotonic() + 5
                while time.monotonic() < deadline:  # the re-delivered signal raises out of here
                    pass
    finally:
        signal.signal(signal.SIGINT, old)
        signal.signal(signal.SIGHUP, old_hup)
    assert type(caught.value).__name__ == exc
    assert "Exception ignored" not in capsys.readouterr().err


def test_a_signal_after_the_command_still_exits_128_plus_its_number():
    """Between the end of the command and the end of the process (printing, exiting) a SIGTERM
    exits 143, as inside the command, not by the signal's default action (-15)."""
    code = ("import os, signal, sys\n"
            "from gpusched.signals import signals_raise\n"
            "with signals_raise(final=True):\n"
            "    pass\n"
            "print('done', flush=True)\n"
            "os.kill(os.getpid(), signal.SIGTERM)\n"
            "sys.exit(0)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout) == (143, "done\n")
