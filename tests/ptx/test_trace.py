"""Launches into the timing model: byte-identical traces on repeated runs, the Accel-Sim trace
round trip (write_trace then --trace gives the cycles simulate gives), and the trace cache (a
launch with the same PTX, arguments and input data is executed but not recorded again)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from gpusched import cuda
from workloads.kernels import examples


def _program(cache: Path, seed: int = 1):
    ctx = cuda.Context(cache=cache, progress=False)
    for name in ("bfs_level", "histogram256", "collatz_steps"):
        examples.run(name, ctx, seed=seed, size=24)
    return ctx


def test_repeated_runs_write_byte_identical_traces(tmp_path):
    a = _program(tmp_path / "c1").write_trace(tmp_path / "t1")
    b = _program(tmp_path / "c2").write_trace(tmp_path / "t2")
    files = sorted(p.name for p in a.iterdir())
    assert files == sorted(p.name for p in b.iterdir()) and len(files) > 3
    for f in files:
        assert (a / f).read_bytes() == (b / f).read_bytes(), f


def test_another_seed_gives_other_traces(tmp_path):
    a = _program(tmp_path / "c1", seed=1).write_trace(tmp_path / "t1")
    b = _program(tmp_path / "c2", seed=2).write_trace(tmp_path / "t2")
    assert (a / "kernel-1.traceg").read_bytes() != (b / "kernel-1.traceg").read_bytes()


def test_round_trip_write_trace_then_run_trace_equals_simulate(tmp_path):
    ctx = _program(tmp_path / "c")
    direct = ctx.simulate(preset="gtx480", memory="hierarchy")
    d = ctx.write_trace(tmp_path / "trace", predicates=True)
    gpusched = str(Path(sys.executable).with_name("gpusched"))
    r = subprocess.run([gpusched, "run", "--preset", "gtx480", "--trace", str(d), "--json"],
                       capture_output=True, text=True,
                       env={"GPUSCHED_TRACE_CACHE": str(tmp_path / "c2"), "PATH": ""})
    assert r.returncode == 0, r.stderr
    via_trace = json.loads(r.stdout)
    assert via_trace["cycles"] == direct["cycles"] > 0
    assert via_trace["warp_insts"] == direct["warp_insts"] == sum(x.warp_insts for x in ctx.launches)
    assert [k["cycles"] for k in via_trace["kernels"]] == [k["cycles"] for k in direct["kernels"]]


def test_same_launch_is_found_in_the_trace_cache(tmp_path):
    first = _program(tmp_path / "c")
    again = _program(tmp_path / "c")
    assert first.folders() == again.folders()
    stamp = [f.stat().st_mtime_ns for f in first.folders()]
    third = _program(tmp_path / "c")
    assert [f.stat().st_mtime_ns for f in third.folders()] == stamp     # not rewritten


def test_written_trace_names_real_sass_opcodes(tmp_path):
    d = _program(tmp_path / "c").write_trace(tmp_path / "t")
    text = (d / "kernel-1.traceg").read_text()
    assert "-binary version = 70" in text
    body = [ln.split() for ln in text.splitlines() if ln[:1].isdigit() and len(ln.split()) > 4]
    from sim.workload.opcodes import classify
    ops = {f[3 + int(f[2])] for f in body}
    assert all(classify(op, "volta")[1] for op in ops), ops
    assert {"LDG.E", "STG.E", "ISETP", "BRA", "EXIT"} <= ops
