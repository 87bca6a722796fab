"""Program options in workload names (``program:NAME:key=value,...``): parsed, validated against
the program's INFO["options"], passed to ``main`` and part of the cache key; the DeepBench
programs' options select one layer each (SOCGPU's eight benchmarks)."""

from __future__ import annotations

import pytest

from gpusched.config import ConfigError
from sim.workload.program import program_key, program_path, run_program, split_options
from workloads import programs


def test_names_split_into_program_and_options():
    assert split_options("program:deepbench_rnn:cell=gru,mode=infer") == (
        "program:deepbench_rnn", {"cell": "gru", "mode": "infer"})
    assert split_options("program:hotspot") == ("program:hotspot", {})
    assert program_path("program:deepbench_gemm:mode=train") == program_path("program:deepbench_gemm")
    with pytest.raises(ConfigError):
        split_options("program:deepbench_gemm:mode=")


def test_options_are_in_the_cache_key():
    path = program_path("program:deepbench_gemm")
    keys = {program_key(path, 0, 0.01, "volta", o)
            for o in (None, {"mode": "train"}, {"mode": "infer"})}
    assert len(keys) == 3
    assert program_key(path, 0, 0.01, "volta") == program_key(path, 0, 0.01, "volta", {})


@pytest.mark.parametrize("name, field", [("program:deepbench_gemm:shape=train", "shape"),
                                         ("program:deepbench_gemm:mode=test", "mode"),
                                         ("program:hotspot:mode=train", "mode")])
def test_unknown_options_name_the_field(tmp_path, name, field):
    with pytest.raises(ConfigError) as e:
        run_program(name, scale=0.01, root=tmp_path, progress=False)
    assert e.value.where.endswith(f":{field}")


@pytest.mark.parametrize("name, options, kernels", [
    ("deepbench_gemm", {"mode": "train"}, ["gemm_train"]),
    ("deepbench_conv", {"mode": "infer"}, ["conv_infer"]),
    ("deepbench_rnn", {"cell": "gru", "mode": "infer"}, ["rnn_gemv_b1", "gru_cell_forward"]),
])
def test_deepbench_options_run_one_layer_and_match_numpy(tmp_path, name, options, kernels):
    scale = programs.load(name).INFO["quick_scale"]
    assert programs.check(name, seed=3, scale=scale, **options) == []
    spec = ",".join(f"{k}={v}" for k, v in options.items())
    run = run_program(f"program:{name}:{spec}", scale=scale, root=tmp_path, progress=False)
    assert sorted({k.name for k in run.workload.kernels}) == sorted(kernels)


def test_a_layer_alone_gets_the_same_data_as_in_the_whole_run():
    mod = programs.load("deepbench_rnn")
    whole, one = mod.inputs(1, 0.02), mod.inputs(1, 0.02, cell="gru", mode="train")
    assert one and set(one) < set(whole)
    assert all((one[k] == whole[k]).all() for k in one)
