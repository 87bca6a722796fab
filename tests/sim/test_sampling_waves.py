"""Intra-kernel sampling (sim/sampling_waves.py): a long uniform launch is simulated at its first
waves and its last wave, the CTAs between estimated at the steady rate; a launch whose rate
keeps changing is simulated in full; the result says which."""

from __future__ import annotations

import json

import numpy as np
import pytest

from gpusched import cuda
from gpusched.commands.run_cmd import sampled_lines
from gpusched.config import ConfigError, resolve_config
from sim import sampling, sampling_waves
from sim.run import simulate
from sim.workload.kernel import Workload
from workloads.kernels import examples

SMS = 4                                          # a small gtx480: short waves, quick runs


def _cfg():
    return resolve_config("gtx480", [f"sm.count={SMS}"])


@pytest.fixture(scope="module")
def ctx(tmp_path_factory):
    return cuda.Context(cache=tmp_path_factory.mktemp("cache"), progress=False)


@pytest.fixture(scope="module")
def stencil(ctx):
    """One stencil launch of 16 waves (128-thread CTAs, 8 per SM)."""
    m = ctx.load_ptx(examples.PTX)
    w, h = 16 * 16, 8 * 32                       # 512 CTAs
    a = ctx.to_device(np.random.default_rng(1).random((h, w), dtype=np.float32))
    m.launch("stencil5", grid=(w // 16, h // 8), block=(16, 8),
             args=(a, ctx.empty((h, w), np.float32), np.int32(w), np.int32(h)))
    wl = ctx.workload("stencil")
    wl.kernels = wl.kernels[-1:]                 # the context's other launches left out
    return wl


def test_uniform_launch_is_cut_and_estimated_within_its_tolerance(stencil):
    cfg = _cfg()
    k = stencil.kernels[0]
    wave = cfg.sm.count * min(cfg.sm.max_ctas_per_sm, cfg.sm.threads_per_sm // k.threads_per_cta)
    assert k.n_ctas >= 16 * wave
    full = simulate(cfg, stencil, memory="hierarchy")
    samp = simulate(cfg, stencil, memory="hierarchy", sample="waves")
    s = samp["sampling"]
    cut, = s["waves"]["cut"]
    assert s["mode"] == "waves" and s["waves"]["full"] == []
    assert cut["wave_ctas"] == wave and cut["ctas"] == k.n_ctas
    head, tail = sampling_waves.HEAD_WAVES * wave, k.n_ctas - (k.n_ctas - 1) // wave * wave
    assert cut["simulated_ctas"] == [[0, head], [k.n_ctas - tail, k.n_ctas]]
    assert samp["warp_insts"] == full["warp_insts"]
    simulated = {row[1] for row in samp["ctas"]["rows"]}
    assert len(simulated) == head + tail
    # the estimate is off by at most the tolerance the steady state was accepted with, on the
    # estimated part; the detailed part is the full run's own
    estimated = s["waves"]["estimated_cycles"]
    assert 0 < estimated and abs(samp["cycles"] - full["cycles"]) <= sampling_waves.DEFAULT_TOLERANCE * estimated
    assert samp["kernels"][0]["cycles"] == samp["cycles"]
    line, = sampled_lines(s)
    assert f"launch 0: {head + tail} of {k.n_ctas} CTAs simulated" in line


def test_combined_with_kernel_sampling_and_deterministic(stencil):
    """One launch: kernel sampling simulates it, so kernels,waves equals waves alone."""
    runs = [simulate(_cfg(), stencil, memory="hierarchy", sample=spec)
            for spec in ("kernels,waves", "kernels,waves", "waves")]
    assert json.dumps(runs[0], sort_keys=True) == json.dumps(runs[1], sort_keys=True)
    s = runs[0]["sampling"]
    assert s["mode"] == "kernels,waves" and s["simulated"] == [0]
    assert s["waves"]["cut"] == runs[2]["sampling"]["waves"]["cut"]
    assert runs[0]["cycles"] == runs[2]["cycles"]
    assert len(sampled_lines(s)) == 2


GATHER = """
.version 9.0
.target sm_75
.address_size 64
.visible .entry gather(.param .u64 gather_param_0, .param .u64 gather_param_1,
                       .param .u64 gather_param_2)
{
    .reg .b32 %r<6>;
    .reg .f32 %f<2>;
    .reg .b64 %rd<12>;
    ld.param.u64 %rd1, [gather_param_0];
    ld.param.u64 %rd2, [gather_param_1];
    ld.param.u64 %rd3, [gather_param_2];
    mov.u32 %r1, %ctaid.x;
    mov.u32 %r2, %ntid.x;
    mov.u32 %r3, %tid.x;
    mad.lo.s32 %r4, %r1, %r2, %r3;
    cvta.to.global.u64 %rd4, %rd1;
    cvta.to.global.u64 %rd5, %rd2;
    cvta.to.global.u64 %rd6, %rd3;
    mul.wide.s32 %rd7, %r4, 4;
    add.s64 %rd8, %rd5, %rd7;
    ld.global.u32 %r5, [%rd8];
    mul.wide.u32 %rd9, %r5, 4;
    add.s64 %rd10, %rd4, %rd9;
    ld.global.f32 %f1, [%rd10];
    add.s64 %rd11, %rd6, %rd7;
    st.global.f32 [%rd11], %f1;
    ret;
}
"""


@pytest.fixture(scope="module")
def gather(ctx, tmp_path_factory):
    """One gather launch of 16 waves whose stride doubles with every wave (wave j: each warp's
    loads span 2**j lines, up to 32): every wave costs more cycles per instruction than the one
    before."""
    cfg = _cfg()
    path = tmp_path_factory.mktemp("gather") / "gather.ptx"
    path.write_text(GATHER)
    m = ctx.load_ptx(path)
    wave = cfg.sm.count * cfg.sm.max_ctas_per_sm                 # 128-thread CTAs: 8 per SM
    n = 16 * wave * 128
    i = np.arange(n)
    stride = 1 << np.minimum(i // 128 // wave, 5)
    idx = ((i * stride) % n).astype(np.uint32)
    src = ctx.to_device(np.arange(n, dtype=np.float32))
    m.launch("gather", grid=(n // 128,), block=(128,),
             args=(src, ctx.to_device(idx), ctx.empty(n, np.float32)))
    return ctx.workload("gather").kernels[-1]   # the context's earlier launches left out


def test_launch_whose_rate_keeps_changing_is_simulated_in_full(gather):
    cfg = _cfg()
    wl = Workload("gather", [gather])
    full = simulate(cfg, wl, memory="hierarchy")
    samp = simulate(cfg, wl, memory="hierarchy", sample="waves")
    w = samp["sampling"]["waves"]
    assert w["full"] == [0] and w["cut"] == []
    assert samp["cycles"] == full["cycles"]
    why, = w["not_steady"]
    assert why["warm_up"] is None and why["cycles"] == full["kernels"][0]["cycles"]
    drift = (max(why["rate_windows"]) - min(why["rate_windows"])) / why["rate_windows"][-1]
    assert drift > sampling_waves.DEFAULT_TOLERANCE and f"{drift:.1%}" in why["why"]
    assert "not steady, simulated in full: launch 0 (rate windows" in sampled_lines(samp["sampling"])[0]


def test_only_the_unsteady_launch_is_rerun_in_full(stencil, gather):
    """Steady stencil, unsteady gather, steady stencil: the stencils stay cut, the gather is
    simulated in full after the first stencil as it ran cut (its warm-up), and the total is
    the first detailed run's with the gather's full cycles in place of its cut ones, plus the
    stencils' estimated CTAs."""
    cfg = _cfg()
    wl = Workload("mixed", [stencil.kernels[0], gather, stencil.kernels[0]])
    samp = simulate(cfg, wl, memory="hierarchy", sample="waves")
    w = samp["sampling"]["waves"]
    assert [c["launch"] for c in w["cut"]] == [0, 2] and w["full"] == [1]
    assert w["not_steady"][0]["warm_up"] == 0

    cuts = sampling_waves.plan(cfg, wl)
    assert sorted(cuts) == [0, 1, 2]
    first = simulate(cfg, sampling_waves.shortened(wl, cuts), memory="hierarchy")
    alone = simulate(cfg, sampling_waves.shortened(Workload("pair", wl.kernels[:2]), {0: cuts[0]}),
                     memory="hierarchy")
    gather_cycles = alone["kernels"][1]["cycles"]
    assert samp["kernels"][1]["cycles"] == gather_cycles == w["not_steady"][0]["cycles"]
    assert samp["kernels"][1]["ctas"] == gather.n_ctas and "simulated_ctas" not in samp["kernels"][1]
    estimated = sum(c["estimated_cycles"] for c in w["cut"])
    assert estimated == w["estimated_cycles"] > 0
    assert samp["cycles"] == (first["cycles"] - first["kernels"][1]["cycles"] + gather_cycles
                              + estimated)
    assert samp["warp_insts"] == sum(k.meta["warp_insts"] for k in wl.kernels)
    line, = sampled_lines(samp["sampling"])
    assert "not steady, simulated in full: launch 1 (" in line and "after launch 0 as warm-up" in line


def test_cta_schedulers_choosing_ids_are_refused(stencil):
    with pytest.raises(ConfigError) as e:
        simulate(_cfg(), stencil, memory="hierarchy", sample="kernels,waves",
                 cta_scheduler="ikra_steal")
    assert str(e.value).startswith("--sample =") and "ikra_steal" in str(e.value)
    assert "\n" not in str(e.value)


def test_specs_are_validated_with_one_line_errors():
    assert sampling.parse("waves") == sampling.SampleSpec(waves=sampling_waves.DEFAULT_TOLERANCE)
    assert sampling.parse("kernels:0.1,waves:0.02") == sampling.SampleSpec(kernels=0.1, waves=0.02)
    for spec, field in (("waves:2", "--sample.waves"), ("waves:x", "--sample.waves"),
                        ("waves,waves", "--sample"), ("wave", "--sample")):
        with pytest.raises(ConfigError) as e:
            sampling.parse(spec)
        assert str(e.value).startswith(field + " =") and "\n" not in str(e.value)


def test_a_sweep_point_with_a_bad_spec_is_refused_before_the_sweep():
    from gpusched.experiment.point import Point
    from gpusched.experiment.runners import check_model
    check_model(Point(preset="tiny", workload="compute_only", params={"sample": "kernels,waves"}))
    with pytest.raises(ConfigError, match="--sample"):
        check_model(Point(preset="tiny", workload="compute_only", params={"sample": "wave"}))
