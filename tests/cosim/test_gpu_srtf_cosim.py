"""One SM's srtf_pred inside an SRTF GPU-model run (cosim/gpu_srtf.py): the port path equals the
twins' fast path; with cocotb + Verilator the RTL in the loop gives the twin-only stats, lockstep
reports no mismatch, and a twin re-sampling t at every block end is caught."""

from __future__ import annotations

import pytest

from cosim.gpu_srtf import gpu_srtf_pred, run, srtf_pred_params
from cosim.simulators import available
from sim.blocks.srtf_pred import SrtfPredTwin

needs_verilator = pytest.mark.skipif(not available("verilator"), reason="verilator not installed")
# mixed_like on gtx480: nine kernels arriving in a row, blocks of several kernels on each SM
SCENARIO = {"preset": "gtx480", "workload": "mixed_like", "scale": 0.5}


def kwargs(**extra) -> dict:
    return {"params_list": [srtf_pred_params("gtx480")], **SCENARIO, **extra}


class StepOnly:
    """The twin behind ``step``/``peek`` only, as an RTL block is seen (its skip hook says no
    cycle is quiet: stepped every cycle)."""

    def __init__(self, p):
        self.twin = SrtfPredTwin(p["K"], p["SLOTS"], p["CW"], p["BW"], p["RW"])

    def step(self, **inputs):
        return self.twin.step(**inputs)

    def peek(self):
        return self.twin.outputs()

    def quiet_cycles(self):
        return 0


def resample_every_end(p):
    """Mutant scoreboard: t re-sampled at every block end."""
    class ResampleEveryEnd(SrtfPredTwin):
        def sample_t(self, k, dur):
            return dur
    return ResampleEveryEnd(p["K"], p["SLOTS"], p["CW"], p["BW"], p["RW"])


@pytest.mark.parametrize("policy", ["srtf", "adaptive"])
def test_port_path_equals_the_fast_twin_path(policy):
    kw = kwargs(policy=policy)
    fast = gpu_srtf_pred(None, **kw)["runs"][0]
    port = gpu_srtf_pred([StepOnly(kw["params_list"][0])], **kw)["runs"][0]
    assert port["stats"] == fast["stats"]
    assert port["block_steps"] == port["cycles"] - 1 > fast["block_steps"] > 0
    assert fast["stats"]["policy_reports"]["kernel_scheduler"]["records"] > 20


@pytest.mark.cosim
@pytest.mark.slow
@needs_verilator
@pytest.mark.parametrize("mode", ["rtl", "lockstep"])
def test_rtl_predictor_in_the_loop_equals_the_twins(mode):
    ref = run(kwargs(), "twin")["result"]["runs"][0]
    got = run(kwargs(), mode)
    assert got["mismatch"] is None
    assert got["result"]["runs"][0]["stats"] == ref["stats"]


@pytest.mark.cosim
@pytest.mark.slow
@needs_verilator
def test_lockstep_in_the_loop_catches_a_mutant():
    """t re-sampled at every end. (The R-for-min(R, cap) mutant needs a cap below R on SM 0,
    which only Adaptive's sharing sets and mixed_like's shared kernels have R ≤ 3 already: the
    block lockstep of tests/blocks/test_srtf_pred.py catches it.)"""
    got = run(kwargs(twin=f"{__name__}:resample_every_end"), "lockstep")
    assert got["mismatch"] and "upd_" in got["mismatch"], got["mismatch"]


@needs_verilator
def test_command_line_runs_the_rtl_in_lockstep():
    """``python -m cosim.gpu_srtf``: the simulator must import the scenario by its module name,
    not ``__main__`` (the command line once failed with 'cocotb bench wrote no result')."""
    import json
    import subprocess
    import sys
    # the small top of the in-loop tests below (tiny, 4 kernel slots): its build is shared
    done = subprocess.run([sys.executable, "-m", "cosim.gpu_srtf", "--mode", "lockstep",
                           "--preset", "tiny", "--set", "kernels.max_concurrent=4",
                           "--scale", "0.2"], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    line = json.loads(done.stdout.strip().splitlines()[-1])
    assert line["mismatch"] is None and line["equal_to_twins"] is True and line["cycles"] > 0


# -- the kernel_sched controller and one srtf_pred, both RTL, in a GPU run (gpu_srtf_sched) --------

# tiny (2 SMs) with 4 kernel slots: mixed_like × 0.2 runs 11.5 k cycles with several samples and
# switches, small enough for the default suite (kernel_sched K = 4, NSM = 2)
SMALL = {"preset": "tiny", "workload": "mixed_like", "scale": 0.2,
         "overrides": ["kernels.max_concurrent=4"]}


def sched_kwargs(policy: str = "srtf", **extra) -> dict:
    from cosim.gpu_srtf import kernel_sched_params
    over = SMALL["overrides"]
    return {"params_list": [kernel_sched_params("tiny", policy, over),
                            srtf_pred_params("tiny", over)], **SMALL, "policy": policy, **extra}


def test_port_controller_reproduces_its_decisions_in_the_gpu_model():
    """Twins only: the port path runs, samples and switches, and the rows it decodes follow the
    controller (srtf: several switches; srtf_fifo: none)."""
    from cosim.gpu_srtf import gpu_srtf_sched
    srtf = gpu_srtf_sched(None, **sched_kwargs())["runs"][0]
    rep = srtf["stats"]["policy_reports"]["kernel_scheduler"]
    assert len(rep["switches"]) >= 3 and rep["records"] > 20
    assert srtf["block_steps"][0] == srtf["cycles"]           # stepped every cycle
    fifo = gpu_srtf_sched(None, **sched_kwargs("srtf_fifo"))["runs"][0]
    assert fifo["stats"]["policy_reports"]["kernel_scheduler"]["switches"] == []
    assert fifo["cycles"] != srtf["cycles"]


class RunOnSampleSM:
    """Mutant controller: SM 0 keeps dispatching ``run`` while it samples (our test plan for
    [SRTF])."""

    def __new__(cls, *a, **kw):
        from sim.blocks.kernel_sched import KernelSchedTwin

        class Mutant(KernelSchedTwin):
            def row(self, sm):
                r = super().row(sm)
                if self.samp is not None and sm == self.sample_sm and self.run is not None:
                    r = r + [(self.run, self.caps[self.run])]
                return r
        return Mutant(*a, **kw)


def mutant_on_sample_sm(p):
    """Scoreboard twins for the loop: the mutant controller, the stock predictor twin."""
    from gpusched.blocks import get_block
    from sim.blocks.kernel_sched import KernelSchedPorts
    if "NSM" not in p:
        return get_block("srtf_pred").make_twin(p)
    return KernelSchedPorts(p["K"], p["NSM"], p["CW"], p["BW"], p["RW"], p["policy"],
                            controller=RunOnSampleSM, FW=p["FW"], LIMITS=p["LIMITS"])


@needs_verilator
def test_rtl_controller_and_predictor_in_the_loop_equal_the_twins():
    from cosim.gpu_srtf import run_sched
    ref = run_sched(sched_kwargs(), "twin")["result"]["runs"][0]
    got = run_sched(sched_kwargs(), "lockstep")
    assert got["mismatch"] is None
    run0 = got["result"]["runs"][0]
    assert run0["stats"] == ref["stats"] and got["steps"][0] == ref["cycles"]


def _lockstep_equals_twin(policy: str) -> dict:
    """The RTL controller of ``policy`` in lockstep in the GPU run: no mismatch and the twin-only
    run's statistics; returns the twin-only run."""
    from cosim.gpu_srtf import run_sched
    ref = run_sched(sched_kwargs(policy), "twin")["result"]["runs"][0]
    got = run_sched(sched_kwargs(policy), "lockstep")
    assert got["mismatch"] is None and got["result"]["runs"][0]["stats"] == ref["stats"]
    return ref


@pytest.mark.cosim
@pytest.mark.slow
@needs_verilator
def test_rtl_mpmax_controller_in_the_loop_equals_the_twins():
    """MPMax caps from the RTL's footprint search steer the same GPU run as the twin's."""
    _lockstep_equals_twin("mpmax")


@pytest.mark.cosim
@pytest.mark.slow
@needs_verilator
def test_rtl_zero_sampling_controller_in_the_loop_equals_the_twins():
    """Zero-sampling SRTF ([SRTF zero-sampling]): T^SP at arrival and every block end through the ports."""
    ref = _lockstep_equals_twin("srtf_zero")
    assert ref["switches"] >= 3


@pytest.mark.cosim
@pytest.mark.slow
@needs_verilator
def test_rtl_adaptive_controller_in_the_loop_equals_the_twins():
    """Adaptive ([SRTF SRTF/Adaptive]): sharing entered and left by the RTL steers the same GPU
    run."""
    _lockstep_equals_twin("adaptive")


def test_port_adaptive_enters_and_leaves_sharing():
    """Twins only: the port path's ``mode`` output shows Adaptive sharing in the GPU run."""
    from cosim.gpu_srtf import gpu_srtf_sched
    run0 = gpu_srtf_sched(None, **sched_kwargs("adaptive"))["runs"][0]
    log = run0["stats"]["policy_reports"]["kernel_scheduler"]["sharing"]
    assert [why for _, why in log].count("enter") >= 2 and log[-1][1] == "leave"


def test_port_zero_sampling_switches_on_block_ends():
    """Twins only: the port path feeds block ends (``done_*``) and switches on them."""
    from cosim.gpu_srtf import gpu_srtf_sched
    run0 = gpu_srtf_sched(None, **sched_kwargs("srtf_zero"))["runs"][0]
    assert run0["switches"] >= 3 and run0["block_steps"][0] == run0["cycles"]
    assert run0["stats"]["policy_reports"]["kernel_scheduler"]["records"] > 20


@needs_verilator
def test_lockstep_in_the_loop_catches_a_controller_dispatching_run_while_sampling():
    from cosim.gpu_srtf import run_sched
    got = run_sched(sched_kwargs(twin=f"{__name__}:mutant_on_sample_sm"), "lockstep")
    assert got["mismatch"] and "kernel_sched" in got["mismatch"] and "allow" in got["mismatch"]
