"""Caches never lie (issue 37, item 1): a damaged, truncated, foreign or partial entry of the
compiled-trace, area or Verilog/Verilator caches is reported in one stderr line and rebuilt —
the run gives the result of a clean cache, never the damaged entry's. Each case compares with
the same run on a cold cache."""

import json
import os
import shutil
from pathlib import Path

import pytest

from gpusched import cache
from sim.workload.tracegen import write_trace_dir

RUN = ("run", "--preset", "tiny", "--memory", "fixed", "--json", "--trace")


@pytest.fixture(scope="module")
def trace(tmp_path_factory) -> Path:
    from sim.run import load_workload
    return write_trace_dir(tmp_path_factory.mktemp("trace"), load_workload("mixed_like", scale=0.05))


def result(r) -> tuple[int, int]:
    assert r.returncode == 0, r.stderr
    res = json.loads(r.stdout)
    return res["cycles"], res["warp_insts"]


def cache_lines(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("gpusched: cache:")]


def entries(root: Path) -> list[Path]:
    """Compiled kernels, largest stream first."""
    found = [e for e in root.iterdir() if e.is_dir() and e.name[0] != "." and e.name != "digests"]
    return sorted(found, key=lambda e: -(e / "stream.bin").stat().st_size)


def flip(path: Path) -> None:
    data = bytearray(path.read_bytes())
    for i in range(8, len(data), max(1, len(data) // 8)):
        data[i] ^= 0x5A
    path.write_bytes(bytes(data))


def foreign(entry: Path) -> None:
    """Another kernel's compiled folder under this kernel's name (a copied or renamed entry)."""
    other = entries(entry.parent)[1]
    shutil.rmtree(entry)
    shutil.copytree(other, entry)


DAMAGES = {
    "random bytes over index.bin": lambda e: (e / "index.bin").write_bytes(
        os.urandom((e / "index.bin").stat().st_size)),
    "stream.bin cut in half": lambda e: os.truncate(e / "stream.bin",
                                                    (e / "stream.bin").stat().st_size // 2),
    "garbage meta.json": lambda e: (e / "meta.json").write_bytes(b"\x00garbage{"),
    "flipped bytes in stream.bin": lambda e: flip(e / "stream.bin"),
    "meta.json = {statics: []}": lambda e: (e / "meta.json").write_text('{"statics": []}'),
    "foreign entry": foreign,
    "partial entry (index.bin missing)": lambda e: (e / "index.bin").unlink(),
    "unsealed entry": lambda e: (e / cache.SEAL).unlink(),
    "seal of another key": lambda e: (e / cache.SEAL).write_text(
        (e / cache.SEAL).read_text().replace("sha256=", "sha256=0")),
}


@pytest.mark.parametrize("damage", list(DAMAGES))
def test_a_damaged_compiled_trace_is_reported_and_recompiled(cli, trace, tmp_path, monkeypatch,
                                                             damage):
    monkeypatch.setenv("GPUSCHED_TRACE_CACHE", str(tmp_path / "cache"))
    clean = cli(*RUN, trace)
    assert cache_lines(clean.stderr) == []
    DAMAGES[damage](entries(tmp_path / "cache")[0])
    again = cli(*RUN, trace)
    assert result(again) == result(clean)          # before: wrong numbers, exit 130, tracebacks
    lines = cache_lines(again.stderr)
    assert len(lines) == 1 and "rebuilding it" in lines[0], again.stderr
    third = cli(*RUN, trace)                         # rebuilt: sound again, nothing reported
    assert result(third) == result(clean) and cache_lines(third.stderr) == []


def test_gpusched_cache_moves_the_trace_cache(cli, trace, tmp_path, monkeypatch):
    monkeypatch.delenv("GPUSCHED_TRACE_CACHE", raising=False)
    monkeypatch.setenv("GPUSCHED_CACHE", str(tmp_path / "moved"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    result(cli(*RUN, trace))
    assert entries(tmp_path / "moved" / "traces")
    assert not (tmp_path / "home").exists()


def test_an_entry_is_hashed_once_per_process(trace, tmp_path, monkeypatch):
    """Verification is by checksum once, then by stat (the reading path pays nothing more)."""
    from sim.workload import trace_store
    hashed = []
    real = cache._file_sha256
    monkeypatch.setattr(cache, "_file_sha256", lambda p: hashed.append(p) or real(p))
    kernel = trace / "kernel-1.traceg"
    entry = trace_store.compiled(kernel, tmp_path)
    hashed.clear()
    for _ in range(3):
        assert trace_store.compiled(kernel, tmp_path) == entry
    assert len(hashed) == 3            # meta.json, index.bin, stream.bin: once
    os.utime(entry / "stream.bin")     # touched: hashed again (and still sound)
    hashed.clear()
    trace_store.compiled(kernel, tmp_path)
    assert len(hashed) == 3


def test_a_digest_record_with_a_changed_digit_is_not_believed(trace, tmp_path):
    """The per-path record of a trace's SHA-256 is sealed too: a damaged one would name another
    trace's compiled entry."""
    from sim.workload import trace_store
    kernel = trace / "kernel-1.traceg"
    digest = trace_store.content_digest(kernel, tmp_path)
    (record,) = (tmp_path / "digests").iterdir()
    record.write_text(record.read_text().replace(digest, "0" + digest[1:]))
    assert trace_store.content_digest(kernel, tmp_path) == digest


# ---- the seal API ---------------------------------------------------------------------------

def test_seal_publish_and_problems(tmp_path):
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    (tmp / "a.bin").write_bytes(b"abc")
    (tmp / "sub").mkdir()
    (tmp / "sub" / "b.txt").write_text("x")
    cache.seal(tmp, "key-1")
    entry = cache.publish(tmp, tmp_path / "entry", "key-1")
    assert cache.problem(entry, "key-1") is None and not tmp.exists()
    assert "another key" in cache.problem(entry, "key-2")
    (entry / "sub" / "b.txt").write_text("y")
    assert "does not match its checksum" in cache.problem(entry, "key-1")
    (entry / "a.bin").write_bytes(b"ab")
    assert "truncated" in cache.problem(entry, "key-1")
    (entry / cache.SEAL).write_text("{")
    assert "damaged seal" in cache.problem(entry, "key-1")
    (entry / cache.SEAL).unlink()
    assert "not sealed" in cache.problem(entry, "key-1")
    new = tmp_path / "new"                       # publishing over an unsound entry replaces it
    new.mkdir()
    (new / "a.bin").write_bytes(b"abc")
    cache.seal(new, "key-1")
    assert cache.publish(new, entry, "key-1") == entry and cache.verified(entry, "key-1")
    late = tmp_path / "late"                     # a sound entry another process published first
    late.mkdir()
    (late / "a.bin").write_bytes(b"zzz")
    cache.seal(late, "key-1")
    cache.publish(late, entry, "key-1")
    assert (entry / "a.bin").read_bytes() == b"abc" and not late.exists()


@pytest.mark.parametrize("content, why", [
    (b"", "damaged"), (b"[1,2,3]", "damaged"), (b'{"key": "k", "sha256": "0", "value": 1}',
                                                "checksum"),
    (b"\xff\xfe", "unreadable"),
])
def test_a_damaged_one_file_entry_reads_as_missing_and_is_reported(tmp_path, capsys, content,
                                                                   why):
    path = tmp_path / "e.json"
    cache.write_json(path, "k", {"cells": 35})
    assert cache.read_json(path, "k") == {"cells": 35}
    assert cache.read_json(path, "other") is None and "another key" in capsys.readouterr().err
    path.write_bytes(content)
    assert cache.read_json(path, "k") is None
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and why in err[0] and str(path) in err[0]


# ---- area -----------------------------------------------------------------------------------

AREA = ("area", "warp_sched", "--param", "policy=lrr", "--param", "W=4", "--liberty", "ge",
        "--json")


@pytest.fixture(scope="module")
def area_cache(tmp_path_factory) -> tuple[Path, dict]:
    """A cache holding one area result, and that result (computed on a cold cache)."""
    root = tmp_path_factory.mktemp("area-cache")
    return root, _area_in(root)[0]


def _area_in(root: Path) -> tuple[dict, str]:
    import subprocess
    import sys
    env = dict(os.environ, GPUSCHED_CACHE=str(root))
    r = subprocess.run([sys.executable, "-c", "from gpusched.cli import main; main()", *AREA],
                       capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout), r.stderr


@pytest.mark.parametrize("kind, damage", [
    ("area_index", b""), ("area_index", b"[1,2,3]"), ("area_index", "digit"),
    ("area", "digit"),
])
def test_a_damaged_area_entry_is_reported_and_redone(area_cache, tmp_path, kind, damage):
    root, clean = area_cache
    work = tmp_path / "cache"
    shutil.copytree(root, work)
    files = list((work / kind).glob("*.json"))
    assert files
    for f in files:
        f.write_bytes(f.read_bytes().replace(b'"flops": ', b'"flops": 1', 1)
                      if damage == "digit" else damage)
    if kind == "area":                 # the index answers first: drop it
        for f in (work / "area_index").glob("*.json"):
            f.unlink()
    got, err = _area_in(work)
    assert got == clean                # before: tracebacks, or 12 flops for 2 with exit 0
    assert len(cache_lines(err)) == 1, err


# ---- Verilog and simulator builds -----------------------------------------------------------

def test_a_damaged_verilog_entry_is_regenerated(tmp_path, monkeypatch, capsys):
    from cosim import build
    monkeypatch.setenv("GPUSCHED_CACHE", str(tmp_path))
    made = []

    def text():
        made.append(1)
        return "module top(); endmodule\n"
    path = build._sealed_verilog("top", "k1", text)
    assert build._sealed_verilog("top", "k1", text) == path and len(made) == 1
    path.write_text("module top(")                          # cut
    assert build._sealed_verilog("top", "k1", text).read_text() == text() and len(made) == 3
    assert len(cache_lines(capsys.readouterr().err)) == 1


class FakeRunner:
    """A cocotb runner whose build writes a 'binary' (and records that it ran)."""

    def __init__(self):
        self.builds, self.settings = 0, 0

    def build(self, build_dir, log_file, hdl_toplevel, **kw):
        self.settings += 1
        if getattr(self, "_execute", None) is not None:      # build_once: settings only
            return
        self.builds += 1
        (Path(build_dir) / hdl_toplevel).write_bytes(b"\x7fELF binary")
        Path(log_file).write_text("built")


def test_a_sealed_build_is_not_rebuilt_and_a_damaged_one_is(tmp_path, capsys):
    from cosim.runner import build_once
    runner, build_dir = FakeRunner(), tmp_path / "top_build"
    said = []
    kw = dict(hdl_toplevel="top", sources=[])
    assert build_once(runner, build_dir, "k", kw, announce=lambda: said.append(1))
    assert not build_once(runner, build_dir, "k", kw, announce=lambda: said.append(1))
    assert runner.builds == 1 and runner.settings == 2 and len(said) == 1   # announced once
    (build_dir / "top").write_bytes(os.urandom(64))          # the simulator overwritten
    assert build_once(runner, build_dir, "k", kw) and runner.builds == 2
    assert (build_dir / "top").read_bytes() == b"\x7fELF binary"
    (build_dir / cache.SEAL).unlink()                        # an interrupted build
    (build_dir / "junk.o").write_bytes(b"half")
    assert build_once(runner, build_dir, "k", kw) and runner.builds == 3
    assert not (build_dir / "junk.o").exists()               # wiped before the build
    assert len(cache_lines(capsys.readouterr().err)) == 2
    assert build_once(runner, build_dir, "other key", kw) and runner.builds == 4


# ---- PTX launches (the same compiled form, written by the PTX front end) --------------------

EXAMPLE = Path(__file__).parents[2] / "docs" / "example"


@pytest.mark.parametrize("damage", ["launch stream.bin", "program manifest"])
def test_a_damaged_ptx_launch_or_program_entry_is_reported_and_redone(cli, tmp_path, monkeypatch,
                                                                       damage):
    monkeypatch.setenv("GPUSCHED_TRACE_CACHE", str(tmp_path / "cache"))
    args = ("run", "--preset", "tiny", "--memory", "fixed", "--json", "--program",
            EXAMPLE / "vecadd.py", "--scale", "0.01")
    clean = cli(*args)
    if damage == "program manifest":
        (manifest,) = (tmp_path / "cache" / "programs").glob("*.json")
        manifest.write_text(manifest.read_text().replace('"seed": 0', '"seed": 1'))
    else:
        (launch,) = (tmp_path / "cache" / "ptx").iterdir()
        flip(launch / "stream.bin")
    again = cli(*args)
    assert result(again) == result(clean)
    assert len(cache_lines(again.stderr)) == 1, again.stderr
    assert cache_lines(cli(*args).stderr) == []
