"""SRTF-family kernel schedulers in the GPU model (sim/policies/srtf.py; [SRTF FIFO, MPMax] (checks
ours)): the controller's rows as dispatched, sampling on SM0, switching, FIFO order, MPMax caps."""

from __future__ import annotations

import pytest

from gpusched.config import ConfigError
from sim.blocks.kernel_sched import KernelSchedTwin
from sim.policies.srtf import SRTF_KERNEL_SCHEDULERS
from sim_helpers import run
from sim_kernels import independent, make_kernel, workload

CONCURRENT = "kernels.concurrent_sm=true"


def long_then_short(len_long=400, len_short=60, arrival=100, block_long=64, grid_short=16):
    a = make_kernel("long", lambda c, w: independent(len_long), grid=(64, 1, 1),
                    block=(block_long, 1, 1))
    b = make_kernel("short", lambda c, w: independent(len_short), grid=(grid_short, 1, 1),
                    block=(64, 1, 1), arrival=arrival)
    return workload(a, b)


class Watch:
    """Wraps a registered SRTF-family scheduler; records every placement with the controller's
    state at that moment and checks the properties of our test plan."""

    def __init__(self, name, controller=None):
        self.name, self.rows, self.controller = name, [], controller

    def __call__(self, cfg):
        base = SRTF_KERNEL_SCHEDULERS[self.name]
        rows = self.rows

        class Watched(base):
            controller = self.controller or base.controller

            def on_cta_start(self, now, sm, cta):
                c, k = self.ctrl, cta.run.slot
                rows.append({"now": now, "sm": sm.sm_id, "k": k, "run": c.run, "samp": c.samp,
                             "pair": c.pair,
                             "run_left": c.left[c.run] if c.run is not None else False,
                             "resident": self.gpu.dispatch.resident_blocks(sm.sm_id, cta.run),
                             "cap": c.caps[k], "older_left": [j for j in c.order[:c.order.index(k)]
                                                             if c.left[j]]})
                super().on_cta_start(now, sm, cta)
        self.policy = Watched(cfg)
        return self.policy


def run_watched(name, wl=None, *overrides, controller=None):
    w = Watch(name, controller)
    r = run(wl or long_then_short(), "tiny", CONCURRENT, *overrides, kernel_scheduler=w)
    return r, w


def test_srtf_short_kernel_overtakes_the_long_one():
    fifo = run(long_then_short(), "tiny", CONCURRENT, kernel_scheduler="srtf_fifo")
    r, w = run_watched("srtf")
    short_fifo, short_srtf = fifo["kernels"][1], r["kernels"][1]
    assert short_srtf["end"] < short_fifo["start"]       # done before FIFO even starts it
    assert r["policy_reports"]["kernel_scheduler"]["switches"] == [[0, 1, "sample"]]
    first_short = next(x for x in w.rows if x["k"] == 1)
    assert first_short["sm"] == 0 and first_short["samp"] == 1     # sampled on SM0 first
    assert all(k["end"] > 0 for k in r["kernels"])                 # no starvation


def check_srtf_rows(rows):
    assert rows
    for x in rows:
        if x["samp"] is not None and x["sm"] == 0:
            assert x["k"] == x["samp"], x             # SM0 only samples
        elif x["k"] != x["run"]:
            assert not x["run_left"], x               # back-fill only in run's tail
        assert x["resident"] <= x["cap"]


def check_fifo_rows(rows):
    assert rows and all(not x["older_left"] for x in rows)


class Sm0KeepsRun(KernelSchedTwin):
    """Mutant (our test plan): SM0 still dispatches ``run`` (first) while sampling."""

    def row(self, sm):
        out = super().row(sm)
        if self.samp is not None and sm == self.sample_sm:
            out = [(self.run, self.caps[self.run])] + out
        return out


class FifoBypass(KernelSchedTwin):
    """Mutant (our test plan): FIFO lets a newer kernel take blocks the older one cannot."""

    def row(self, sm):
        if self.policy == "fifo":
            return [(k, self.caps[k]) for k in self.order if self.left[k]]
        return super().row(sm)


# tiny: two 3-warp blocks of the long kernel leave 2 warps and 2 slots, where a 2-warp block of
# the short kernel fits while the long one does not
NARROW = {"block_long": 96}


def test_srtf_dispatches_only_run_outside_sampling_and_backfill():
    check_srtf_rows(run_watched("srtf")[1].rows)
    with pytest.raises(AssertionError):
        check_srtf_rows(run_watched("srtf", controller=Sm0KeepsRun)[1].rows)


def test_srtf_fifo_never_lets_a_newer_kernel_bypass():
    r, w = run_watched("srtf_fifo", long_then_short(**NARROW))
    check_fifo_rows(w.rows)
    assert r["kernels"][1]["start"] > r["kernels"][0]["start"]
    with pytest.raises(AssertionError):
        check_fifo_rows(run_watched("srtf_fifo", long_then_short(**NARROW),
                                    controller=FifoBypass)[1].rows)


def test_mpmax_placements_respect_caps_and_both_kernels_share_sms():
    r, w = run_watched("mpmax")
    assert all(x["resident"] <= x["cap"] for x in w.rows)
    # tiny: 4 block slots, 2-warp blocks of both kernels → each capped at 3 while both run
    both = [x for x in w.rows if x["now"] > 200 and x["k"] == 0 and x["now"] < r["kernels"][1]["end"]]
    assert both and max(x["cap"] for x in both) == 3
    assert r["kernels"][1]["start"] < r["kernels"][0]["end"]


def test_adaptive_shares_and_caps_the_shorter_kernel():
    # short: 24 blocks per SM of 300 instructions vs long 32 of 400: 2 · T_S > T_L
    wl = long_then_short(len_short=300, grid_short=48)
    r, w = run_watched("adaptive", wl)
    sharing = r["policy_reports"]["kernel_scheduler"]["sharing"]
    assert sharing and sharing[0] == [1, 0, "enter"]
    shared = [x for x in w.rows if x["pair"] is not None and x["k"] == x["pair"][0]]
    assert shared and all(x["resident"] <= 3 for x in shared)     # S at most 3 blocks per SM
    assert {x["k"] for x in w.rows if x["pair"] is not None} == {0, 1}
    srtf = run(wl, "tiny", CONCURRENT, kernel_scheduler="srtf")
    assert not srtf["policy_reports"]["kernel_scheduler"].get("sharing")
    assert r != srtf


def test_srtf_needs_concurrent_sm():
    with pytest.raises(ConfigError, match="kernels.concurrent_sm"):
        run(long_then_short(), "tiny", kernel_scheduler="srtf")


def test_srtf_run_is_deterministic():
    a = run(long_then_short(), "tiny", CONCURRENT, kernel_scheduler="srtf")
    b = run(long_then_short(), "tiny", CONCURRENT, kernel_scheduler="srtf")
    assert a == b


def test_zero_sampling_srtf_switches_without_a_sample():
    from sim.policies.srtf import ZeroSamplingKernelScheduler
    wl = long_then_short()
    alone = {k.name: run(workload(k), "tiny", CONCURRENT)["cycles"] for k in long_then_short().kernels}
    r = run(wl, "tiny", CONCURRENT,
            kernel_scheduler=lambda cfg: ZeroSamplingKernelScheduler(cfg, alone))
    srtf = run(long_then_short(), "tiny", CONCURRENT, kernel_scheduler="srtf")
    assert r["policy_reports"]["kernel_scheduler"]["switches"][0][:2] == [0, 1]
    # no sampling phase: the short kernel starts as soon as a slot frees anywhere, not on SM0 only
    assert r["kernels"][1]["end"] <= srtf["kernels"][1]["end"]
    with pytest.raises(ConfigError, match="standalone"):
        run(long_then_short(), "tiny", CONCURRENT,
            kernel_scheduler=lambda cfg: ZeroSamplingKernelScheduler(cfg, {"long": 1}))


# -- knobs through scheduler names ([SRTF]: srtf[:h_pct[:sample_sm[:samples[:resident]]]]) -----

def test_knob_names_build_the_scheduler_with_its_knobs():
    from gpusched.config import get_preset, with_overrides
    from sim.blocks.srtf_pred import SrtfPredFixedR
    from sim.policies import make_policy
    cfg = with_overrides(get_preset("tiny"), [CONCURRENT])
    ks = make_policy("kernel_scheduler", "adaptive:10:free:2:R", cfg)
    c = ks.ctrl
    assert (ks.policy, c.h, c.sample_free, c.sample_size) == ("adaptive", 0.1, True, 2)
    assert ks.predictor_twin is SrtfPredFixedR       # each SM's predictor twin (resident R)
    plain = make_policy("kernel_scheduler", "srtf:0", cfg).ctrl
    assert (plain.h, plain.sample_sm, plain.sample_size) == (0.0, 0, 1)
    for bad in ("srtf:100", "srtf:0:sm3", "srtf:0:sm0:0", "srtf:0:sm0:1:min", "srtf:1:2:3:4:5"):
        with pytest.raises(ConfigError) as e:
            make_policy("kernel_scheduler", bad, cfg)
        assert e.value.where == "kernel_scheduler"


def test_free_sampling_sm_samples_on_the_first_sm_with_room():
    r, w = run_watched("srtf")
    first_fixed = next(x for x in w.rows if x["k"] == 1)
    w2 = Watch("srtf")
    made = w2.__call__

    def free(cfg):
        ks = made(cfg)
        ks.ctrl.sample_free, ks.ctrl.sample_sm = True, None
        return ks
    r2 = run(long_then_short(), "tiny", CONCURRENT, kernel_scheduler=free)
    first_free = next(x for x in w2.rows if x["k"] == 1)
    assert first_free["samp"] == 1 and first_free["now"] <= first_fixed["now"]
    assert r2["policy_reports"]["kernel_scheduler"]["sample_sm"] == "free"
    assert all(k["end"] > 0 for k in r2["kernels"])


def test_hysteresis_knob_cuts_switches_between_near_equal_kernels():
    """h = 10 %: a switch back needs a 10 % shorter remaining time ([SRTF])."""
    tw = KernelSchedTwin(8, 15, "srtf", hysteresis=0.1)
    tw.arrive(0, 3000, 8)
    tw.arrive(1, 200, 8)
    tw.update(2, 0, rem=4000, pred=8000, t=1000, res=8)
    tw.update(0, 1, rem=3000, pred=3500, t=400, res=8)           # the sample decides on plain <
    assert tw.run == 1
    tw.update(6, 0, rem=2800, pred=6000, t=1000, res=8)           # 2800 > 0.9 · 3000: stay
    assert tw.run == 1
    tw.update(6, 0, rem=2600, pred=6000, t=1000, res=8)           # 2600 < 2700: switch back
    assert tw.run == 0 and tw.switches[-1] == (1, 0, "update")
