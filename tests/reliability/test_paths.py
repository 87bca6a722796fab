"""Paths and resources (issue 37, item 3): an output path that is a directory, a file where a
folder is needed or a missing folder is bad input (exit 2); a read-only or full filesystem is a
resource that failed (exit 1) — one line naming the path and the system's reason, checked
before the long part of a command runs. A read-only or full filesystem is not a damaged results
store, and ``results query`` reads a store on a read-only filesystem.

Read-only and full filesystems are temporary tmpfs mounts where the machine allows them (root
with CAP_SYS_ADMIN), else a folder without write permission (a user other than root); else the
case is skipped and ``test_resource_problems_are_told_from_damage`` covers the classification
with a monkeypatched filesystem."""

import os
import shutil
import sqlite3
import subprocess
from pathlib import Path

import pytest

from .conftest import gpusched, one_line_error
from .test_exit_codes import toy_grid


def no_run(monkeypatch):
    """Make every long step fail the test: a path check must come first."""
    def refuse(*a, **kw):
        raise AssertionError("the long step ran before the path was checked")
    import cosim.runner
    import gpusched.commands.prove_cmd
    import sim.run
    monkeypatch.setattr(sim.run, "simulate", refuse)
    monkeypatch.setattr(cosim.runner, "run_cosim", refuse)
    monkeypatch.setattr(gpusched.commands.prove_cmd, "prove_block", refuse)


RUN = ["run", "--preset", "tiny", "--workload", "mixed_like", "--scale", "0.02", "--profile",
       "warp-states", "--profile-plot"]


@pytest.mark.parametrize("make, reason", [
    (lambda d: d, "Is a directory"),
    (lambda d: d / "missing" / "x.png", "No such file or directory"),
    (lambda d: d / "afile" / "x.png", "Not a directory"),
])
def test_a_bad_output_path_is_refused_before_the_run(cli, tmp_path, monkeypatch, make, reason):
    no_run(monkeypatch)
    (tmp_path / "afile").write_text("x")
    path = make(tmp_path)
    line = one_line_error(cli(*RUN, path))
    assert "--profile-plot" in line and str(path) in line and reason in line


@pytest.mark.parametrize("args, option", [
    (["cosim", "warp_sched", "--param", "W=8", "--cycles", "100", "--waves", "{d}/no/w.vcd"],
     "--waves"),
    (["prove", "warp_sched", "--vcd", "{d}"], "--vcd"),
    (["sweep", "{grid}", "--plugin", "toy_kinds", "--db", "{d}/afile/r.sqlite"], "--db"),
    (["results", "query", "--db", "{store}", "-o", "{d}"], "--output"),
    (["workloads", "--export", "mem_stream", "--out", "{d}/afile"], "--out"),
])
def test_other_output_options_are_checked_first(cli, tmp_path, monkeypatch, args, option):
    no_run(monkeypatch)
    (tmp_path / "afile").write_text("x")
    store = tmp_path / "s.sqlite"
    cli("sweep", toy_grid(tmp_path / "s.toml"), "--plugin", "toy_kinds", "--db", store,
        "--jobs", "1", "-q")
    fill = dict(d=tmp_path, grid=toy_grid(tmp_path / "g.toml"), store=store)
    line = one_line_error(cli(*[a.format(**fill) for a in args]))
    assert option in line, line


def test_stdout_on_a_full_device_is_one_line():
    with open("/dev/full", "w") as full:
        r = subprocess.run([*gpusched_cmd(), "config", "show", "tiny"], stdout=full,
                           stderr=subprocess.PIPE, text=True)
    assert r.returncode == 1 and r.stderr == "gpusched: error: stdout: No space left on device\n"


def gpusched_cmd():
    from .conftest import CLI
    return CLI


# ---- read-only and full filesystems ---------------------------------------------------------

def _mount(where: Path, opts: str) -> bool:
    where.mkdir(parents=True, exist_ok=True)
    return os.geteuid() == 0 and shutil.which("mount") is not None and subprocess.run(
        ["mount", "-t", "tmpfs", "-o", opts, "tmpfs", str(where)],
        capture_output=True).returncode == 0


@pytest.fixture
def read_only_dir(tmp_path):
    """A folder on a read-only filesystem (or one the user cannot write), with a results store
    in it: the path of the store."""
    d = tmp_path / "ro"
    store = tmp_path / "store.sqlite"
    r = gpusched("sweep", toy_grid(tmp_path / "g.toml"), "--plugin", "toy_kinds", "--db", store,
                 "--jobs", "1", "-q")
    assert r.returncode == 0, r.stderr
    if _mount(d, "size=4m"):
        shutil.copy(store, d / "r.sqlite")
        subprocess.run(["mount", "-o", "remount,ro", str(d)], check=True)
        yield d / "r.sqlite"
        subprocess.run(["umount", str(d)], check=False)
    elif os.geteuid() != 0:
        d.mkdir(exist_ok=True)
        shutil.copy(store, d / "r.sqlite")
        d.chmod(0o555)
        yield d / "r.sqlite"
        d.chmod(0o755)
    else:
        pytest.skip("no tmpfs mount here and root writes anywhere")


@pytest.fixture
def full_dir(tmp_path):
    """A folder on a full filesystem holding a results store: the path of the store."""
    d = tmp_path / "full"
    store = tmp_path / "store.sqlite"
    assert gpusched("sweep", toy_grid(tmp_path / "g.toml"), "--plugin", "toy_kinds", "--db",
                    store, "--jobs", "1", "-q").returncode == 0
    if not _mount(d, "size=256k"):
        pytest.skip("no tmpfs mount here")
    shutil.copy(store, d / "r.sqlite")
    with open(d / "filler", "wb") as f:
        try:
            f.write(b"\0" * (1 << 20))
            f.flush()
        except OSError:
            pass
    yield d / "r.sqlite"
    subprocess.run(["umount", str(d)], check=False)


def test_query_reads_a_store_on_a_read_only_filesystem(read_only_dir):
    r = gpusched("results", "query", "--db", read_only_dir, "--format", "json", "--plugin",
                 "toy_kinds")
    assert r.returncode == 0, r.stderr               # before: "damaged results store", exit 2
    assert r.stdout.count('"status": "done"') == 4


def test_a_sweep_into_a_read_only_store_says_so(read_only_dir, tmp_path):
    r = gpusched("sweep", toy_grid(tmp_path / "g2.toml", workloads=("gamma",)), "--plugin",
                 "toy_kinds", "--db", read_only_dir, "-q")
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 1 and len(lines) == 1, r.stderr
    assert str(read_only_dir.parent) in lines[0] and "damaged" not in lines[0]
    assert "Read-only file system" in lines[0] or "Permission denied" in lines[0]


def test_a_sweep_into_a_store_on_a_full_disk_says_so(full_dir, tmp_path):
    r = gpusched("sweep", toy_grid(tmp_path / "g2.toml", workloads=("gamma",)), "--plugin",
                 "toy_kinds", "--db", full_dir, "-q")
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 1 and len(lines) == 1, r.stderr
    assert "No space left on device" in lines[0] and "damaged" not in lines[0]
    q = gpusched("results", "query", "--db", full_dir, "--format", "json", "--plugin", "toy_kinds")
    assert q.returncode == 0 and q.stdout.count('"status": "done"') == 4, q.stderr


def test_a_plot_onto_a_full_disk_is_refused_before_the_run(full_dir, cli, monkeypatch):
    no_run(monkeypatch)
    line = one_line_error_code(cli(*RUN, full_dir.parent / "plot.png"), 1)
    assert str(full_dir.parent) in line and "No space left on device" in line


def test_a_trace_cache_on_a_read_only_filesystem_is_one_line(read_only_dir, tmp_path):
    from sim.run import load_workload
    from sim.workload.tracegen import write_trace_dir
    trace = write_trace_dir(tmp_path / "t", load_workload("mixed_like", scale=0.02))
    r = subprocess.run([*gpusched_cmd(), "run", "--preset", "tiny", "--trace", str(trace)],
                       capture_output=True, text=True,
                       env=dict(os.environ, GPUSCHED_TRACE_CACHE=str(read_only_dir.parent / "tc")))
    line = one_line_error_code(r, 1)
    assert str(read_only_dir.parent) in line


def one_line_error_code(r, code: int) -> str:
    assert r.returncode == code, (r.returncode, r.stderr[-2000:])
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in r.stderr, r.stderr
    return lines[0]


def test_resource_problems_are_told_from_damage(tmp_path, monkeypatch):
    """Without mounts: a store whose folder reports a read-only filesystem raises the OSError
    of that, not StoreDamaged."""
    import errno

    from gpusched.experiment import store as store_mod
    path = tmp_path / "r.sqlite"
    sqlite3.connect(path).close()
    real = os.statvfs

    class ReadOnly:
        def __init__(self, st):
            self.st = st

        def __getattr__(self, name):
            value = getattr(self.st, name)
            return value | os.ST_RDONLY if name == "f_flag" else value
    monkeypatch.setattr(store_mod.os, "statvfs", lambda p: ReadOnly(real(p)))

    def refuse(*a, **kw):
        raise sqlite3.OperationalError("attempt to write a readonly database")
    monkeypatch.setattr(store_mod.sqlite3, "connect", refuse)
    with pytest.raises(OSError) as e:
        store_mod.ResultStore(path)
    assert e.value.errno == errno.EROFS and e.value.filename == str(path)
