"""experiments/srtf_programs.py + srtf_program_runs.py: SRTF on the program suite (issue 34) —
the grids check and name the suite's programs, the runner's input checks, one tiny pair and one
kernel alone in the cycle-level model, and the headline's means on synthetic rows."""

import math

import pytest

from gpusched.config import ConfigError
from gpusched.experiment.point import Point
from gpusched.experiment.query import ResultSet
from gpusched.experiment.registry import get_experiment

OVR = {"kernels.concurrent_sm": True}
JPEG = "program:jpeg~jpeg_dct+program:jpeg~jpeg_idct"


def test_grids_check_and_name_the_papers_kernels():
    from workloads import programs
    exp = get_experiment("srtf")
    assert exp.name == "srtf" and get_experiment("srtf", catalogue=True).name == "srtf-catalogue"
    quick, full = exp.quick.check(), exp.grid.check()
    pairs = {p.workload for p in full if p.params["task"] == "pair"}
    assert len(pairs) == 56
    for w in {p.workload for p in full}:
        for member in w.split("+"):
            name, _, kernel = member.removeprefix("program:").partition("~")
            info = programs.load(name).INFO
            assert "srtf" in info["papers"] and (not kernel or kernel in info["kernels"])
    assert len(quick) < len(full) / 10
    assert {p.params["offset"] for p in quick if p.params["task"] == "pair"} == {"100"}


def _point(workload, **params):
    return Point(preset="gtx480", workload=workload, seed=0, overrides=dict(OVR),
                 params={"task": "pair", "policy": "srtf", "offset": "100", "scale": 0.02,
                         **params}, kind="srtf_program")


@pytest.mark.parametrize("workload, params, field", [
    ("ercb_aes_d+program:sha1", {}, "workload"),
    ("program:sha1@0.1+program:nlm2", {}, "workload"),
    ("program:nosuch+program:nlm2", {}, "workload"),
    (JPEG, {"task": "alone"}, "workload"),
    ("program:nlm2", {}, "workload"),
    (JPEG, {"waves": 2}, "waves"),
    (JPEG, {"offset": "150%"}, "offset"),
    (JPEG, {"task": "check", "offset": "25%"}, "offset"),
    ("program:nlm2", {"task": "check"}, "workload"),
])
def test_runner_checks_name_the_field(workload, params, field):
    from experiments.srtf_program_runs import check_point
    with pytest.raises(ConfigError) as e:
        check_point(_point(workload, **params))
    assert e.value.where == field


def test_a_tiny_pair_and_a_kernel_alone_run(tmp_path, monkeypatch):
    from experiments.srtf_program_runs import check_point, run_point
    from experiments.srtf_programs import table5
    monkeypatch.chdir(tmp_path)                     # the T^SP cache
    p = _point(JPEG, policy="srtf_zero")        # T^SP per member stands for its kernel
    check_point(p)
    s = run_point(p)
    assert len(s["ntt"]) == 2 and all(x >= 1.0 - 1e-9 for x in s["ntt"])
    assert s["stp"] == pytest.approx(sum(1 / x for x in s["ntt"]))
    alone = run_point(_point("program:jpeg~jpeg_idct", task="alone", policy="srtf_fifo",
                             scale=0.05))     # 32 blocks: SMs with a second block predict
    t5 = alone["table5"]
    assert t5["R"] == table5("program:jpeg~jpeg_idct")[0]     # Table 5's 8 resident blocks
    assert t5["threads"] == 64 and t5["blocks"] == 32 and 0 < t5["standalone"] <= alone["cycles"]
    assert alone["predictions"] == len(alone["pred_ratio"]) > 0
    check = run_point(_point(JPEG, task="check", policy="srtf_fifo"))
    assert check["cycle"]["t_sp"] == s["t_sp"]                  # the same cycle-level members
    for model in ("cycle", "block"):
        assert check[model]["stp"] == pytest.approx(sum(1 / x for x in check[model]["ntt"]))
    # block records fitted to each kernel's cycle-level standalone runtime
    assert check["block"]["t_sp"] == pytest.approx(check["cycle"]["t_sp"], rel=0.02)


def test_headline_means():
    from experiments.srtf_programs import mean, ratio
    rows = [{"task": "pair", "workload": w, "policy": pol, "offset": "100", "stp": stp}
            for w, pol, stp in (("a+b", "srtf", 1.0), ("b+a", "srtf", 2.0),
                                ("a+b", "srtf_fifo", 1.0), ("b+a", "srtf_fifo", 1.0))]
    rs = ResultSet(rows)
    assert mean("srtf", "stp", "arith")(rs) == 1.5
    assert mean("srtf", "stp", "harm")(rs) == pytest.approx(4 / 3)
    assert mean("srtf", "stp")(rs) == pytest.approx(math.sqrt(2))
    assert ratio(mean("srtf", "stp"), mean("srtf_fifo", "stp"))(rs) == pytest.approx(math.sqrt(2))
    with pytest.raises(ValueError):
        mean("mpmax", "stp")(rs)
