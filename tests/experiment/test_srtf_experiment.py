"""experiments/srtf.py + srtf_runs.py: the grids (56 ordered pairs × 5 policies × 3 offsets),
the runner kind's input checks, one real point, and the headline formulas on synthetic rows."""

import pytest

from gpusched.config import ConfigError
from gpusched.experiment.point import Point
from gpusched.experiment.query import ResultSet
from gpusched.experiment.registry import get_experiment

OVR = {"kernels.concurrent_sm": True}


def test_grids():
    exp = get_experiment("srtf", catalogue=True)
    pts = exp.grid.points()
    pairs = [p for p in pts if p.params["task"] == "pair"]
    assert len({p.workload for p in pairs}) == 56
    main = [p for p in pairs if len(p.params) == 3 and ":" not in p.params["policy"]]
    assert len(main) == 56 * 5 * 3
    assert {p.params["offset"] for p in pairs} == {"100", "25%", "50%"}
    assert {p.params["policy"] for p in main} == {"srtf_fifo", "mpmax", "srtf", "adaptive",
                                                  "srtf_zero"}
    from experiments.srtf_ablations import VARIANTS
    knob = [p for p in pairs if ":" in p.params["policy"]]
    assert len(knob) == 56 * len(VARIANTS) and {p.params["offset"] for p in knob} == {"100"}
    assert len([p for p in pts if p.params["task"] == "alone"]) == 8
    assert len([p for p in pts if p.params["task"] == "check"]) == 12 * 3
    ablation = [p for p in pairs if "share_cap" in p.params or "timing" in p.params]
    assert len(ablation) == 56 * 2 + 56 * 3
    quick = exp.quick.points()
    assert len(quick) < len(pts) / 10
    assert len([p for p in quick if ":" in p.params.get("policy", "")]) == 4 * len(VARIANTS)


def _point(workload, **params):
    return Point(preset="gtx480", workload=workload, seed=0, overrides=dict(OVR),
                 params={"task": "pair", "policy": "srtf", "offset": "100", "timing": "spec",
                         **params}, kind="srtf_mp")


@pytest.mark.parametrize("workload, params, field", [
    ("ercb_aes_d+ercb_nope", {}, "workload"),
    ("ercb_aes_d+ercb_sad", {"share_cap": 0}, "share_cap"),
    ("ercb_aes_d+ercb_sad", {"task": "alone"}, "workload"),
    ("ercb_aes_d+ercb_sad", {"task": "fly"}, "task"),
    ("ercb_aes_d+ercb_sad", {"policy": "lottery"}, "kernel_scheduler"),
    ("ercb_jpeg_d+ercb_sad", {"offset": "10000000"}, "offset"),
    ("ercb_jpeg_d+ercb_sad", {"offset": "150%"}, "offset"),
    ("ercb_jpeg_d+ercb_sad", {"waves": 3}, "waves"),
])
def test_runner_checks_name_the_field(workload, params, field, tmp_path, monkeypatch):
    from experiments.srtf_runs import check_srtf
    monkeypatch.chdir(tmp_path)           # the T^SP cache
    with pytest.raises(ConfigError) as e:
        check_srtf(_point(workload, **params))
    assert e.value.where == field


def test_too_many_kernels_for_max_concurrent(tmp_path, monkeypatch):
    from experiments.srtf_runs import check_srtf
    monkeypatch.chdir(tmp_path)
    p = _point("ercb_aes_d+ercb_sad+ercb_jpeg_d")
    p = Point(preset="gtx480", workload=p.workload, seed=0,
              overrides={**OVR, "kernels.max_concurrent": 2}, params=p.params, kind="srtf_mp")
    with pytest.raises(ConfigError) as e:
        check_srtf(p)
    assert e.value.where == "kernels.max_concurrent"


def test_one_point_runs(tmp_path, monkeypatch):
    from experiments.srtf_runs import check_srtf, run_srtf
    monkeypatch.chdir(tmp_path)
    p = _point("ercb_aes_e+ercb_jpeg_d", scale=0.1)
    check_srtf(p)
    s = run_srtf(p)
    assert s["offset"] == "100" and len(s["ntt"]) == 2 and s["switches"] >= 1
    assert s["sjf"]["stp"] >= s["stp"] - 1e-9        # SRTF never beats the SJF oracle here
    assert s["ljf"]["stp"] <= s["sjf"]["stp"]


def _rows():
    rows = []
    for w, f, s, a in (("a+b", (1.2, 4.0, 0.2), (1.5, 2.0, 0.5), (1.4, 2.2, 0.6)),
                       ("b+a", (1.8, 1.2, 0.8), (1.6, 1.3, 0.7), (1.6, 1.3, 0.7))):
        for pol, (stp, antt, fair) in (("srtf_fifo", f), ("srtf", s), ("adaptive", a)):
            rows.append({"task": "pair", "workload": w, "policy": pol, "offset": "100",
                         "stp": stp, "antt": antt, "fairness": fair, "sjf.stp": 1.9,
                         "pred_ratio": [0.4, 1.0, 1.1, 3.0],
                         "sharing": [[0, 1, "enter"]] if pol == "adaptive" and w == "a+b" else []})
    rows.append({"task": "check", "block.ntt": [1.1, 2.0], "cycle.ntt": [1.0, 2.0]})
    return ResultSet(rows)


def test_headline_formulas():
    from experiments.srtf import check_error, gm, ratio, sharing_count, within_2x, worst
    rs = _rows()
    assert gm("srtf", "stp")(rs) == pytest.approx((1.5 * 1.6) ** 0.5)
    assert ratio(gm("srtf_fifo", "antt"), gm("srtf", "antt"))(rs) == pytest.approx(
        (4.0 * 1.2) ** 0.5 / (2.0 * 1.3) ** 0.5)
    assert worst("srtf_fifo")(rs) == 4.0
    assert sharing_count(rs) == 1
    assert within_2x("pair", "srtf")(rs) == 50.0
    assert check_error(rs) == pytest.approx(10.0)
    assert check_error(rs, None) == pytest.approx(5.0)
    with pytest.raises(ValueError):
        gm("mpmax", "stp")(rs)


def test_knob_ablation_formulas_compare_on_the_same_pairs():
    from experiments.srtf_ablations import change, gm_knob, median_sampling, stp_knob, switches
    rows = [{"task": "pair", "offset": "100", "workload": w, "policy": pol, "stp": stp,
             "antt": antt, "fairness": 0.5, "switches": sw, "delays.sampling": d}
            for w, pol, stp, antt, sw, d in (
                ("a+b", "srtf", 1.5, 2.0, 4, [100, 300]), ("b+a", "srtf", 1.2, 3.0, 2, [500]),
                ("c+d", "srtf", 9.9, 9.9, 0, []),         # no variant run here: left out
                ("a+b", "srtf:10", 1.8, 1.5, 1, [100]), ("b+a", "srtf:10", 1.2, 3.0, 0, [50]))]
    rs = ResultSet(rows)
    assert change("srtf:10", "srtf", "stp")(rs) == pytest.approx(
        (1.8 * 1.2) ** 0.5 / (1.5 * 1.2) ** 0.5)
    assert gm_knob("srtf:10", "srtf", "antt")(rs) == pytest.approx((1.5 * 3.0) ** 0.5)
    assert switches("srtf", "srtf:10")(rs) == 3.0
    assert median_sampling("srtf", "srtf:10")(rs) == 300.0
    with pytest.raises(ValueError):
        change("srtf:0:free", "srtf", "stp")(rs)
    run = {"offset": "100", "sjf": 1, "stp": 1.4}
    assert stp_knob({**run, "variant": "srtf:10"}) == 1.4 and stp_knob({**run, "variant": "srtf"}) == 1.4
    assert stp_knob({**run, "variant": "mpmax"}) is None
