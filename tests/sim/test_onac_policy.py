"""ONAC / Seq-Det active-SM controller and the Perf-Sat CTA limit in the GPU model
([THESIS §4.3.2.2, §4.4], with our choices where it is silent), on a scaled-down ``thesis`` preset.

8 SMs with half the DRAM clock (so the transpose-like kernel saturates well below 8 SMs on the
fixed-bandwidth memory) and 1-wave sampling windows, so detection fits the small grids. Detection
starts after one ramp-up wave (our choice, the controller's default): an all-SM sample taken from
the kernel's first cycle reads the ramp-up, not the kernel's steady rate.
"""

import json

import pytest

from gpusched.config import get_preset, with_overrides
from sim.policies.onac_ctrl import OnacController
from sim.policies.perf_sat_limit import PerfSatLimit
from sim.run import simulate
from sim.workload.catalogue import get_workload

ONAC_CFG = with_overrides(get_preset("thesis"), ["sm.count=8", "dram.clock_mhz=924"])
BW_BOUND, COMPUTE = ("onac_tp_like", 0.5), ("onac_compute", 0.25)


def run_onac(kernel: tuple[str, float], mode: str = "onac", **kw) -> tuple[dict, OnacController]:
    ctl = OnacController(ONAC_CFG, mode=mode, waves=kw.pop("waves", 1), **kw)
    result = simulate(ONAC_CFG, get_workload(kernel[0], scale=kernel[1]), memory="fixed",
                      sm_controller=ctl)
    return result, ctl


@pytest.fixture(scope="module")
def onac_bw():
    return run_onac(BW_BOUND)


@pytest.fixture(scope="module")
def seqdet_bw():
    return run_onac(BW_BOUND, "seq_det")


@pytest.fixture(scope="module")
def onac_compute():
    return run_onac(COMPUTE)


def blocked_intervals(ctl: OnacController, n_sms: int) -> list[list[tuple[int, int]]]:
    """Per SM, the [from, to) cycles in which the controller let it receive no CTA."""
    spans: list[list[tuple[int, int]]] = [[] for _ in range(n_sms)]
    since: dict[int, int] = {}
    for cycle, sm, allowed in ctl.events:
        if not allowed:
            since[sm] = cycle
        elif sm in since:
            spans[sm].append((since.pop(sm), cycle))
    for sm, cycle in since.items():
        spans[sm].append((cycle, 1 << 62))
    return spans


@pytest.mark.parametrize("which", ["onac_bw", "seqdet_bw"])
def test_no_cta_is_placed_on_a_paused_inactive_or_gated_sm(which, request):
    result, ctl = request.getfixturevalue(which)
    spans = blocked_intervals(ctl, 8)
    rows = result["ctas"]["rows"]
    placed_while_blocked = [(sm, start) for _, _, sm, start, _ in rows
                            if any(a <= start < b for a, b in spans[sm])]
    assert placed_while_blocked == []
    # the check has teeth: other SMs got CTAs while some SM was blocked
    assert any(a <= start < b for _, _, sm, start, _ in rows
               for other in range(8) if other != sm for a, b in spans[other])
    rec = ctl.trace[0]
    n_opt = rec["n_opt"]
    assert not rec["abandoned"] and n_opt < 8
    # the excess SMs drained and were power-gated; the kept ones never were
    assert all(g > 0 for g in result["sm"]["gated_cycles"][n_opt:])
    assert result["sm"]["gated_cycles"][:n_opt] == [0] * n_opt
    assert all(start <= rec["decided"] for _, _, sm, start, _ in rows if sm >= n_opt)
    assert sum(result["sm"]["paused_cycles"][1:]) > 0


def test_onac_keeps_fewer_sms_for_a_bandwidth_bound_kernel(onac_bw, onac_compute):
    bw, comp = onac_bw[1].trace[0], onac_compute[1].trace[0]
    assert comp["n_opt"] == 8
    assert bw["n_opt"] < comp["n_opt"]
    # the accepted count was sampled and met the threshold (251/256 ≥ 0.98 of IPC_all)
    ipc_all = bw["samples"][0]["ipc"]
    assert bw["samples"][0]["n"] == 8 and bw["samples"][1]["n"] == 1
    accepted = bw["samples"][-1]
    assert accepted["n"] == bw["n_opt"] and accepted["ipc"] >= 0.98 * ipc_all
    # every rejected sample was below the threshold
    assert all(s["ipc"] < 0.98 * ipc_all for s in bw["samples"][1:-1])
    assert bw["start"] < bw["decided"] <= bw["done"]


def test_seq_det_takes_more_samples_than_onac(onac_bw, seqdet_bw):
    onac, seq = onac_bw[1].trace[0], seqdet_bw[1].trace[0]
    assert [s["n"] for s in seq["samples"]] == list(range(8, 8 - len(seq["samples"]), -1))
    assert len(seq["samples"]) > len(onac["samples"])
    assert seq["decided"] > onac["decided"]
    # Seq-Det stops at the first count below threshold and keeps one more
    assert seq["n_opt"] == seq["samples"][-1]["n"] + 1


def test_detection_is_abandoned_when_the_kernel_runs_out_of_ctas():
    # 4-wave windows cannot complete on a 48-CTA grid: every SM is handed back, the run finishes
    result, ctl = run_onac(("onac_tp_like", 0.1), waves=4)
    assert ctl.trace[0]["abandoned"] and ctl.trace[0]["n_opt"] is None
    assert len(result["ctas"]["rows"]) == result["kernels"][0]["ctas"]
    assert sum(result["sm"]["gated_cycles"]) == 0


def test_onac_run_is_deterministic(onac_bw):
    again, ctl = run_onac(BW_BOUND)
    assert json.dumps(again, sort_keys=True) == json.dumps(onac_bw[0], sort_keys=True)
    assert ctl.trace == onac_bw[1].trace and ctl.events == onac_bw[1].events


def test_unknown_mode_is_refused():
    with pytest.raises(ValueError, match="seq_det"):
        OnacController(ONAC_CFG, mode="greedy")


def test_perf_sat_limit_stays_in_range_and_is_enforced():
    cfg = with_overrides(get_preset("thesis"), ["sm.count=2"])
    wl = lambda: get_workload("perfsat_mem", scale=0.6)
    ctl = PerfSatLimit(cfg)
    result = simulate(cfg, wl(), memory="hierarchy", cta_limit=ctl)
    base = simulate(cfg, wl(), memory="hierarchy")
    n_max = result["kernels"][0]["occupancy_limit"]
    limits = ctl.trace["limits"]
    assert {r["n_max"] for r in ctl.trace["kernels"]} == {n_max}
    assert all(1 <= lim <= n_max for _, _, lim in limits)
    assert len({lim for _, _, lim in limits}) > 1          # the twins moved the limit
    # every CTA ran exactly once, with the same instructions as the baseline run
    rows = result["ctas"]["rows"]
    assert sorted(cta for _, cta, _, _, _ in rows) == list(range(result["kernels"][0]["ctas"]))
    assert result["warp_insts"] == base["warp_insts"]
    # at each placement the SM's resident CTAs (this one included) did not exceed its limit
    for _, _, sm, start, _ in rows:
        lim = next((l for c, s, l in reversed(limits) if s == sm and c <= start), (n_max + 1) // 2)
        resident = sum(1 for _, _, s, a, e in rows if s == sm and a <= start < e)
        assert resident <= lim


def test_perf_sat_reaches_a_decision_and_keeps_it():
    cfg = with_overrides(get_preset("thesis"), ["sm.count=2"])
    ctl = PerfSatLimit(cfg)
    simulate(cfg, get_workload("perfsat_c_weak", scale=0.6), memory="fixed", cta_limit=ctl)
    done = [r for r in ctl.trace["kernels"] if r["done"] is not None]
    assert done, "no SM finished detection"
    for r in done:
        assert 1 <= r["limit"] <= r["n_max"] and r["windows"] >= 2
        assert [l for c, s, l in ctl.trace["limits"] if s == r["sm"] and c > r["done"]] == []


def test_ramp_up_variants_start_detection_after_k_waves():
    """The registered ramp-up variants (our flagged choice) are the detectors with
    ``skip_waves`` = k, k waves of CTA completions before the start pulse."""
    from sim.policies import make_policy
    cfg = get_preset("thesis")
    for name, mode, k in (("onac_skip3", "onac", 3), ("seq_det_skip0", "seq_det", 0)):
        ctl = make_policy("sm_controller", name, cfg)
        assert (ctl.mode, ctl.skip_waves) == (mode, k)
