"""The ck_dispatch twin as the GPU model's kernel scheduler (sim/policies/ck_dispatch.py,
[THESIS §5.4]): each policy's placement seen in the CTA table."""

from __future__ import annotations

import pytest

from gpusched.config import ConfigError, get_preset, with_overrides
from sim.run import simulate
from sim.workload.catalogue import get_workload

CONC = ["kernels.concurrent_sm=true", "kernels.max_concurrent=4"]


def _run(ks: str, overrides=CONC):
    cfg = with_overrides(get_preset("tiny"), list(overrides))
    return simulate(cfg, get_workload("mixed_like", scale=0.1), memory="hierarchy", kernel_scheduler=ks)


@pytest.fixture(scope="module")
def runs():
    return {ks: _run(ks) for ks in ("ck_baseline", "ck_sequential", "ck_interleaved")}


def _overlaps(result) -> set:
    """(SM, kernel a, kernel b) with CTAs of a and b resident on the SM at the same time."""
    rows = result["ctas"]["rows"]
    out = set()
    for k1, _, s1, a1, e1 in rows:
        for k2, _, s2, a2, e2 in rows:
            if s1 == s2 and k1 < k2 and a1 < e2 and a2 < e1:
                out.add((s1, k1, k2))
    return out


def test_every_policy_runs_every_kernel_to_completion(runs):
    for ks, r in runs.items():
        assert all(k["end"] >= 0 for k in r["kernels"]), ks
        assert r["policy_reports"]["kernel_scheduler"]["policy"] == ks
        done = r["policy_reports"]["kernel_scheduler"]["completed"]
        assert {int(i): c for i, c in done.items()} == {k["index"]: k["end"] for k in r["kernels"]}


def test_baseline_never_mixes_kernels_on_an_sm_and_interleaved_does(runs):
    assert _overlaps(runs["ck_baseline"]) == set()
    assert _overlaps(runs["ck_interleaved"])


def test_sequential_issues_a_kernel_only_after_the_previous_one_is_fully_issued(runs):
    rows = runs["ck_sequential"]["ctas"]["rows"]
    first = {}
    last = {}
    for k, _, _, start, _ in rows:
        first[k] = min(first.get(k, start), start)
        last[k] = max(last.get(k, start), start)
    for k in sorted(first)[1:]:
        assert first[k] >= last[k - 1]


def test_interleaved_respects_the_per_sm_share_while_both_have_ctas_left(runs):
    r = runs["ck_interleaved"]
    limits = {k["index"]: k["occupancy_limit"] for k in r["kernels"]}
    last_issue = {}
    for k, _, _, start, _ in r["ctas"]["rows"]:
        last_issue[k] = max(last_issue.get(k, start), start)
    for k, _, sm, start, _ in r["ctas"]["rows"]:
        others_left = any(j != k and last_issue[j] > start and first_start(r, j) <= start for j in limits)
        if not others_left:
            continue
        resident = sum(1 for k2, _, s2, a2, e2 in r["ctas"]["rows"]
                       if k2 == k and s2 == sm and a2 <= start < e2)
        assert resident <= max(1, limits[k] // 2)


def first_start(r, k):
    return min(start for k2, _, _, start, _ in r["ctas"]["rows"] if k2 == k)


def test_a_full_ksb_fails_the_launch_and_the_kernel_waits():
    r = _run("ck_interleaved", ["kernels.concurrent_sm=true", "kernels.max_concurrent=1"])
    assert r["policy_reports"]["kernel_scheduler"]["launch_failures"] > 0
    ends = [k["end"] for k in r["kernels"]]
    starts = [k["start"] for k in r["kernels"]]
    assert all(s > e for s, e in zip(starts[1:], ends))       # one row: strictly one after another


def test_needs_concurrent_sms():
    with pytest.raises(ConfigError, match="kernels.concurrent_sm"):
        _run("ck_interleaved", ["kernels.max_concurrent=4"])


def test_table_5_1_machine():
    """[THESIS Table 5.1]: Table 3.1's machine (16 cores, 1300 MHz, 8 CTAs, 48 warps, 2 schedulers
    at one instruction per 2 cycles, 177 GB/s) plus 16 LD/ST units per core, a 16-row KSB."""
    cfg = get_preset("thesis_ch5")
    sm, d = cfg.sm, cfg.dram
    assert (sm.count, cfg.core_clock_mhz, sm.max_ctas_per_sm, sm.warps_per_sm, sm.subcores,
            sm.issue_interval) == (16, 1300.0, 8, 48, 2, 2)
    assert cfg.units.ldst_shared and cfg.units.ldst_ii == 2          # 16 lanes: a warp per 2 cycles
    assert d.channels * d.bus_bytes * d.data_rate * d.clock_mhz / 1e3 == pytest.approx(177, abs=1)
    assert cfg.kernels.max_concurrent == 16 and cfg.kernels.concurrent_sm
    ch3 = get_preset("thesis_ch3")                                    # "the ch.3 preset plus 16 LD/ST"
    assert (cfg.sm, cfg.dram, cfg.l1, cfg.l2) == (ch3.sm, ch3.dram, ch3.l1, ch3.l2)


def test_interleaved_share_is_a_parameter():
    r = _run("ck_interleaved:1")
    rows = r["ctas"]["rows"]
    last_issue = {}
    for k, _, _, start, _ in rows:
        last_issue[k] = max(last_issue.get(k, start), start)
    # while another kernel still has CTAs to issue, an SM holds at most 1 CTA of each kernel
    for k, _, sm, start, _ in rows:
        if any(j != k and last_issue[j] > start and first_start(r, j) <= start for j in last_issue):
            assert sum(1 for k2, _, s2, a2, e2 in rows if k2 == k and s2 == sm and a2 <= start < e2) <= 1
    with pytest.raises(ConfigError, match="share"):
        _run("ck_interleaved:0")


def test_a_kernels_launch_side_share_takes_precedence():
    """``kernel.meta["ck_share"]`` (the offline-optimal CTA count of a Rodinia pair, [THESIS
    §5.4]) caps that kernel's CTAs per SM while another kernel has CTAs to issue; the other
    kernel keeps the scheduler's share (half of its 8)."""
    from dataclasses import replace
    from sim.multiprog.compose import Member, compose
    from sim.workload.kernel import Workload
    cfg = with_overrides(get_preset("thesis_ch5"), ["sm.warps_per_sm=64", "sm.threads_per_sm=2048"])
    wl = compose([Member("stream_1_words"), Member("add_2_loops")], 0, 0.25, 16)
    ks = [replace(k, meta={**k.meta, "ck_share": 1}) if k.name == "add_2_loops" else k
          for k in wl.kernels]
    r = simulate(cfg, Workload(wl.name, ks), memory="hierarchy", kernel_scheduler="ck_interleaved")
    rows = r["ctas"]["rows"]
    last_issue = {}
    for k, _, _, start, _ in rows:
        last_issue[k] = max(last_issue.get(k, start), start)
    most = {}
    for k, _, sm, start, _ in rows:
        if any(j != k and last_issue[j] > start and first_start(r, j) <= start for j in last_issue):
            n = sum(1 for k2, _, s2, a2, e2 in rows if k2 == k and s2 == sm and a2 <= start < e2)
            most[k] = max(most.get(k, 0), n)
    add = next(k["index"] for k in r["kernels"] if k["name"] == "add_2_loops")
    assert most[add] == 1
    assert most[1 - add] == 4
