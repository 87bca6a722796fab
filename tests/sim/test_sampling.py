"""Kernel sampling (sim/sampling.py): representative launches simulated, the others estimated;
the result says so; the estimate stays close to the full run on an iterative program."""

from __future__ import annotations

import numpy as np
import pytest

from gpusched import cuda
from gpusched.config import resolve_config
from gpusched.config import ConfigError
from sim import sampling
from sim.run import simulate
from sim.workload.catalogue import get_workload
from workloads.kernels import examples


@pytest.fixture(scope="module")
def program(tmp_path_factory):
    """An iterative program: 20 launches of one stencil step (the host swaps buffers)."""
    ctx = cuda.Context(cache=tmp_path_factory.mktemp("cache"), progress=False)
    m = ctx.load_ptx(examples.PTX)
    w, h = 96, 64
    a = ctx.to_device(np.random.default_rng(1).random((h, w), dtype=np.float32))
    b = ctx.empty((h, w), np.float32)
    for _ in range(20):
        m.launch("stencil5", grid=(w // 16, h // 8), block=(16, 8), args=(a, b, np.int32(w), np.int32(h)))
        a, b = b, a
    return ctx.workload("stencil")


def test_sampled_run_is_close_to_the_full_run_and_says_so(program):
    cfg = resolve_config("gtx480", [])
    full = simulate(cfg, program, memory="hierarchy")
    sampled = simulate(cfg, program, memory="hierarchy", sample="kernels")
    s = sampled["sampling"]
    assert len(s["simulated"]) < len(program.kernels) == s["launches"] == 20
    assert sampled["warp_insts"] == full["warp_insts"]
    assert abs(sampled["cycles"] / full["cycles"] - 1) < 0.03
    assert [k["index"] for k in sampled["kernels"]] == list(range(20))
    assert sum(k["estimated"] for k in sampled["kernels"]) == 20 - len(s["simulated"])
    assert s["groups"][0]["members"] == 20 and len(s["groups"][0]["representatives"]) == 2


def test_different_launches_are_grouped_apart(tmp_path):
    ctx = cuda.Context(cache=tmp_path, progress=False)
    examples.run("bfs_level", ctx, seed=1, size=64)          # frontiers grow then shrink
    wl = ctx.workload("bfs")
    groups = sampling.plan(wl, 0.05)
    assert len(groups) > 1
    assert sorted(i for g in groups for i in g.members) == list(range(len(wl.kernels)))
    insts = [k.meta["warp_insts"] for k in wl.kernels]
    for g in groups:
        lo, hi = min(insts[i] for i in g.members), max(insts[i] for i in g.members)
        assert hi <= lo / 0.95 * 1.0001 or len(g.members) == 1


def test_bad_specs_and_workloads_without_instruction_counts_are_refused():
    for spec in ("kernel", "kernels:2", "kernels:x", "warps"):
        with pytest.raises(ConfigError):
            sampling.parse(spec)
    assert sampling.parse("kernels:0.1") == sampling.SampleSpec(kernels=0.1)
    with pytest.raises(ConfigError, match="needs each launch's warp instructions"):
        simulate(resolve_config("tiny", []), get_workload("compute_only", scale=0.05), sample="kernels")
