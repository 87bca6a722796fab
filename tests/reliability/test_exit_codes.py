"""Exit codes a script can trust, per command: 0 success, 1 a failed check, 2 bad input (one line,
no traceback), 3 deadlock, 130 interrupted. Usage errors raised by typer's bundled click and by
the separately installed click both end as one line and exit 2."""

import json
import signal
import subprocess
import time

import pytest

from .conftest import CLI, SIM_TESTS, cli_env, gpusched, one_line_error, sigint_default

TOY_GRID = """\
[sweep]
name = "toy"
kind = "toy"
preset = "tiny"
workloads = {workloads}
seeds = [0, 1]

[sweep.params]
delay = {delay}
"""


def toy_grid(path, workloads=("alpha", "beta"), delay=0.0):
    path.write_text(TOY_GRID.format(workloads=json.dumps(list(workloads)), delay=delay))
    return path


@pytest.mark.parametrize("args, fragment", [
    ((), "missing command"),
    (("config",), "gpusched config: error: missing command"),
    (("run", "--seed", "abc"), "--seed = 'abc': Input should be a valid integer"),
    (("run", "--seed", "1.5"), "--seed = '1.5'"),
    (("run", "--seed=1.5"), "--seed = '1.5'"),
    (("--nope",), "No such option: --nope"),
    (("nosuch",), "No such command 'nosuch'"),
    (("run", "--preset"), "'--preset' requires an argument"),
    (("config", "show"), "Missing argument 'preset'"),
    (("sweep",), "Missing argument"),
    (("results", "query", "--where"), "'--where' requires an argument"),
    (("bench", "model", "--repeat", "x"), "--repeat = 'x'"),
])
def test_usage_errors_are_one_line_and_exit_2(cli, args, fragment):
    line = one_line_error(cli(*args))
    assert fragment in line and line.startswith("gpusched")


def test_usage_error_in_a_real_process_is_one_line():
    """The installed entry point, not only main() in this process."""
    line = one_line_error(gpusched("run", "--seed", "abc"))
    assert "(see 'gpusched run --help')" in line


@pytest.mark.parametrize("exc_module", ["typer._click.exceptions", "click.exceptions"])
def test_usage_errors_of_either_click_are_recognised(exc_module):
    """typer ≥ 0.20 raises its bundled click's exceptions, older typer the installed click's."""
    import importlib

    from gpusched.cli import _click_kind
    mod = pytest.importorskip(exc_module)
    assert _click_kind(mod.UsageError("x")) == "usage"
    assert _click_kind(mod.BadParameter("x")) == "usage"
    abort = getattr(mod, "Abort", None) or importlib.import_module("typer").Abort
    assert _click_kind(abort()) == "abort"
    assert _click_kind(ValueError("x")) is None
    importlib.import_module("gpusched.cli")


def test_help_exits_0(cli):
    r = cli("run", "--help")
    assert r.returncode == 0 and "--preset" in r.stdout


# ---- each command: success and bad input ----------------------------------------------------

@pytest.mark.parametrize("args", [
    ("config", "list"),
    ("config", "show", "tiny"),
    ("workloads", "--json"),
    ("run", "--preset", "tiny", "--workload", "mem_stream", "--scale", "0.05", "--memory", "fixed",
     "--json"),
])
def test_commands_succeed_with_0(cli, args):
    r = cli(*args)
    assert r.returncode == 0, r.stderr


@pytest.mark.parametrize("args, fragment", [
    (("config", "show", "nosuch"), "preset = 'nosuch'"),
    (("run", "--preset", "tiny", "--workload", "nosuch"), "workload = 'nosuch'"),
    (("run", "--preset", "tiny", "--workload", "mem_stream", "--memory", "dram"), "--memory"),
    (("workloads", "--scale", "0"), "scale = 0.0"),
    (("bench", "model", "--repeat", "0"), "--repeat = 0"),
    (("area", "nosuch"), "BLOCK = 'nosuch'"),
    (("cosim", "warp_sched", "--sim", "modelsim"), "--sim"),
    (("results", "query", "--db", "/nonexistent/r.sqlite"), "--db"),
    (("report", "nosuch"), "PAPER = 'nosuch'"),
    (("reproduce", "nosuch"), "PAPER = 'nosuch'"),
    (("demo", "--jobs", "0"), "--jobs = 0"),
    (("sweep", "/nonexistent/grid.toml"), "cannot read grid file"),
])
def test_commands_reject_bad_input_with_2(cli, args, fragment):
    assert fragment in one_line_error(cli(*args))


# ---- 1: a check that failed -----------------------------------------------------------------

def test_cosim_mismatch_exits_1(cli, monkeypatch):
    """Before: the mismatch's typer.Exit(1) was returned by typer and ignored (exit 0)."""
    from cosim.lockstep import LockstepMismatch

    import gpusched.commands.blocks_cmd as blocks_cmd

    def mismatch(*a, **k):
        raise LockstepMismatch("warp_sched cycle 17: grant twin=1 rtl=2")
    monkeypatch.setattr(blocks_cmd, "run_one", mismatch)
    r = cli("cosim", "warp_sched", "--cycles", "10", "--sim", "amaranth")
    assert r.returncode == 1 and "cycle 17" in r.stderr


def test_demo_with_failed_points_exits_1(cli, monkeypatch, tmp_path):
    import gpusched.commands.report_cmd as report_cmd
    monkeypatch.setattr(report_cmd, "make_report", lambda *a, **k: 6)  # six points failed
    r = cli("demo", "--db", tmp_path / "r.sqlite")
    assert r.returncode == 1 and "failed" in r.stdout


def test_reproduce_with_failed_points_exits_1_and_report_0(cli, monkeypatch, tmp_path):
    """reproduce is the scriptable one: failed points → 1; report renders them and exits 0."""
    import gpusched.commands.report_cmd as report_cmd
    monkeypatch.setattr(report_cmd, "make_report", lambda *a, **k: 3)   # three points failed
    assert cli("reproduce", "toy_paper", "--quick", "--db", tmp_path / "r.sqlite").returncode == 1
    assert cli("report", "toy_paper", "--quick", "--db", tmp_path / "r.sqlite").returncode == 0


def test_sweep_with_failed_points_exits_1(cli, tmp_path):
    grid = toy_grid(tmp_path / "g.toml", workloads=("alpha", "boom"))
    r = cli("sweep", grid, "--plugin", "toy_kinds", "--db", tmp_path / "r.sqlite", "--jobs", "1", "-q")
    assert r.returncode == 1 and "failed: toy tiny boom" in r.stderr
    ok = cli("sweep", toy_grid(tmp_path / "ok.toml"), "--plugin", "toy_kinds",
             "--db", tmp_path / "r.sqlite", "--jobs", "1", "-q")
    assert ok.returncode == 0, ok.stderr


# ---- 3: deadlock ----------------------------------------------------------------------------

def test_run_deadlock_exits_3(cli):
    r = cli("run", "--preset", "tiny", "--workload", f"{SIM_TESTS}/sim_kernels.py:barrier_deadlock",
            "--watchdog", "500", "--memory", "fixed")
    assert r.returncode == 3 and r.stderr.startswith("gpusched: deadlock at cycle")


# ---- 130: interrupted -----------------------------------------------------------------------

def _interrupt_after(args, ready, tmp_path, procs=None) -> subprocess.CompletedProcess:
    """Start ``gpusched args`` in its own process group, wait until ``ready()`` (past start-up:
    a signal during the interpreter's own start-up is not ours to handle), then send SIGINT to
    the group (what Ctrl-C in a terminal does)."""
    import os
    proc = subprocess.Popen([*CLI, *map(str, args)], env=cli_env(), start_new_session=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=sigint_default)
    if procs is not None:
        procs.append(proc)
    start = time.monotonic()
    while proc.poll() is None and not ready() and time.monotonic() - start < 60:
        time.sleep(0.05)
    assert proc.poll() is None, "finished before it could be interrupted"
    os.killpg(proc.pid, signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    return subprocess.CompletedProcess(args, proc.returncode, out, err)


def test_sweep_interrupted_exits_130_so_sweep_and_report_stops(tmp_path):
    """Before: 0, so ``gpusched sweep g.toml && gpusched report …`` carried on."""
    import sqlite3
    db = tmp_path / "r.sqlite"
    grid = toy_grid(tmp_path / "g.toml", workloads=("alpha", "beta", "gamma", "delta"), delay=0.3)

    def some_rows():
        try:
            with sqlite3.connect(db, timeout=1) as c:
                return c.execute("SELECT count(*) FROM runs").fetchone()[0] >= 2
        except sqlite3.Error:
            return False
    r = _interrupt_after(["sweep", grid, "--plugin", "toy_kinds", "--db", db, "--jobs", "2", "-q"],
                         some_rows, tmp_path)
    assert r.returncode == 130, r.stderr
    assert "run the same command again to resume" in r.stderr and "Traceback" not in r.stderr


def _cpu_seconds(pid: int) -> float:
    import os
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


def test_run_interrupted_exits_130(tmp_path):
    procs = []
    r = _interrupt_after(["run", "--preset", "gtx480", "--workload", "mem_stream", "--scale", "5"],
                         lambda: procs and _cpu_seconds(procs[0].pid) > 1.5, tmp_path, procs)
    assert r.returncode == 130 and "Traceback" not in r.stderr, r.stderr


def test_interrupt_tests_pass_when_the_suite_runs_in_the_background(tmp_path):
    """``make test &`` or ``nohup make test``: the shell ignores SIGINT for the whole suite. The
    interrupting tests set their child's disposition themselves (before: the child inherited the
    ignored SIGINT, ran to its end and exited 0)."""
    old = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        procs = []
        r = _interrupt_after(["run", "--preset", "gtx480", "--workload", "mem_stream", "--scale",
                              "5"], lambda: procs and _cpu_seconds(procs[0].pid) > 1.0, tmp_path,
                             procs)
    finally:
        signal.signal(signal.SIGINT, old)
    assert r.returncode == 130, r.stderr[-500:]
