"""sim/multiprog/concurrent.py: Table 5.2's metrics ([THESIS §5.5.1]), pair runs on the ch.5
machine under the ck_dispatch kernel schedulers, utilisations, bad input."""

import pytest

from gpusched.config import ConfigError
from sim.multiprog.concurrent import (ch5_config, check_names, kernel_cycles, pair_metrics,
                                      peak_ipc, run_concurrent, slowdowns)

PAIR = "add_2_loops+stream_1_words"
SCALE = 0.25                  # 160 CTAs per kernel: more than one wave of 8 per SM


def test_pair_metrics_follow_the_definitions():
    m = pair_metrics({"a": 100, "b": 60}, interleaved=128, leftover=150)
    assert m["sequential"] == 160                       # Table 5.2: the sum of the alone runs
    assert m["max_speedup"] == pytest.approx(160 / 100)  # over the longer kernel
    assert m["achieved"] == pytest.approx(160 / 128)
    assert m["efficiency"] == pytest.approx((160 / 128) / (160 / 100))
    assert m["achieved_vs_leftover"] == pytest.approx(150 / 128)
    assert "leftover" not in pair_metrics({"a": 1, "b": 1}, 1)
    with pytest.raises(ValueError):
        pair_metrics({"a": 100}, 50)
    with pytest.raises(ValueError):
        pair_metrics({"a": 100, "b": 0}, 50)


def test_peak_ipc_of_the_ch5_machine():
    cfg = ch5_config()
    # Table 5.1: 16 cores, 2 schedulers each issuing one warp instruction every 2 cycles
    assert peak_ipc(cfg) == pytest.approx(16.0)
    assert cfg.sm.warps_per_sm == 64 and cfg.kernels.concurrent_sm


@pytest.fixture(scope="module")
def runs():
    cfg = ch5_config()
    out = {p: run_concurrent(cfg, PAIR, p, 0, SCALE)
           for p in ("ck_sequential", "ck_interleaved", "ck_baseline")}
    for name in PAIR.split("+"):
        out[name] = run_concurrent(cfg, name, "ck_sequential", 0, SCALE)
    return out


def test_pairs_overlap_only_when_interleaved(runs):
    seq = {k["name"]: k for k in runs["ck_sequential"]["kernels"]}
    inter = {k["name"]: k for k in runs["ck_interleaved"]["kernels"]}
    add, stream = PAIR.split("+")
    # interleaved: both kernels start at once; left-over: the second starts later
    assert inter[stream]["start"] < inter[add]["end"] and inter[add]["start"] < 5
    assert seq[stream]["start"] > inter[stream]["start"] + 100


def test_same_work_alone_and_paired(runs):
    alone = {n: runs[n]["kernels"][0] for n in PAIR.split("+")}
    for policy in ("ck_sequential", "ck_interleaved", "ck_baseline"):
        for k in runs[policy]["kernels"]:
            ipc_cycles = k["ipc"] * k["cycles"]
            assert ipc_cycles == pytest.approx(alone[k["name"]]["ipc"] * alone[k["name"]]["cycles"])


def test_utilisations_are_fractions_of_peak(runs):
    for r in runs.values():
        assert 0 < r["compute_util"] <= 1 and 0 < r["mem_util"] <= 1
        assert r["compute_util"] == pytest.approx(r["ipc"] / 16.0)
    # the stream kernel moves more DRAM bytes per cycle than the add kernel
    assert runs["stream_1_words"]["mem_util"] > runs["add_2_loops"]["mem_util"]


def test_slowdowns_against_alone(runs):
    alone = {n: runs[n]["cycles"] for n in PAIR.split("+")}
    sd = slowdowns(runs["ck_interleaved"], alone)
    assert set(sd) == set(alone)
    kc = kernel_cycles(runs["ck_interleaved"])
    assert all(sd[n] == pytest.approx(kc[n] / alone[n]) for n in alone)


@pytest.mark.parametrize("workload", ["add_2_loops+stream_1_words+stream_2_words",
                                      "add_2_loops+add_2_loops", "add_2_loops+no_such_kernel",
                                      "+stream_1_words"])
def test_bad_workloads_name_the_field(workload):
    with pytest.raises(ConfigError) as e:
        check_names(workload)
    assert e.value.where == "workload"


def test_needs_kernels_sharing_sms():
    cfg = ch5_config(("kernels.concurrent_sm=false",))
    with pytest.raises(ConfigError) as e:
        run_concurrent(cfg, PAIR, scale=SCALE)
    assert e.value.where == "kernels.concurrent_sm"


def test_oracle_limit_is_perf_sats_rule():
    from sim.multiprog.concurrent import oracle_limit
    # speed = 1 / cycles: 1 → 2 gains 67 %, 2 → 3 gains 1.7 % (< 2 %): stop at 2
    assert oracle_limit({1: 100, 2: 60, 3: 59, 4: 50}) == 2
    assert oracle_limit({1: 100, 2: 90, 3: 80}) == 3                # every step gains
    assert oracle_limit({1: 100, 2: 120, 3: 50}) == 1               # a loss stops it too


def test_optimal_ctas_sweeps_every_limit_and_caches(tmp_path):
    from sim.multiprog.concurrent import optimal_ctas, oracle_limit
    cfg = ch5_config()
    got = optimal_ctas(cfg, "perfsat_c_weak", 0, 0.1, cache_dir=tmp_path)
    top = max(got["cycles"])
    assert sorted(got["cycles"]) == list(range(1, top + 1)) and top >= 2
    assert got["limit"] == oracle_limit(got["cycles"])
    assert got["cycles"][1] > got["cycles"][top]        # more CTAs per SM: faster here
    assert len(list(tmp_path.iterdir())) == 1
    assert optimal_ctas(cfg, "perfsat_c_weak", 0, 0.1, cache_dir=tmp_path) == got
