"""The SOCGPU per-warp issue RTL (hdl/socgpu_issue.py) as the issue blocks of one SM in a GPU run.

``sm.issue=socgpu`` on ``tiny`` (N = 8 IB entries, local policy ``first``): the eight warp slots
of SM 0 get one ``socgpu_issue`` instance each behind ``cosim.gpu_socgpu.PortIssue`` (the
model's block API over the flat ports, one clock per model event); SM 1 keeps the fast model.
First without a simulator: the port path over the twins gives the stock model's stats. Then
cocotb + Verilator: RTL alone gives the twin-only stats, lockstep reports no mismatch, and a
twin whose dependence matrix forgets WAR is caught inside the GPU run.
"""

from __future__ import annotations

import json

import pytest

from cosim.gpu_scenarios import canonical, run
from cosim.gpu_socgpu import gpu_socgpu, socgpu_params_list
from cosim.lockstep import LockstepMismatch
from cosim.runner import run_in_loop
from cosim.simulators import available
from gpusched.blocks import get_block
from sim.blocks.socgpu_issue import SocgpuIssueTwin, overlap
from sim.workload.kernel import Instr, Kernel, Op, Workload

cosim = pytest.mark.cosim
needs_verilator = pytest.mark.skipif(not available("verilator"), reason="verilator not installed")

SOC = ["sm.issue=socgpu", "sm.ib_entries=8"]
SHORT = {"preset": "tiny", "workload": "graph_like", "scale": 0.02, "overrides": SOC}
LONG = {"preset": "tiny", "workload": "graph_like", "scale": 0.08, "overrides": SOC}


def kwargs_for(scenario=SHORT, **extra) -> dict:
    return {"params_list": socgpu_params_list(scenario["preset"], scenario["overrides"]),
            **scenario, **extra}


class NoWarTwin(SocgpuIssueTwin):
    """Mutant: the dependence rule forgets WAR (a younger write may pass an older read)."""

    def conflict(self, a, b) -> bool:
        if a.serial or b.serial:
            return True
        return (any(overlap(s, d) for s in a.src for d in b.dst)
                or any(overlap(d, e) for d in a.dst for e in b.dst))


def no_war_twin(p: dict) -> NoWarTwin:
    return NoWarTwin(**p)


def war_kernel(seed: int = 0, scale: float = 1.0) -> Workload:
    """Loops of LDG r1; ALU r2 <- r1, r3 (waits for the load); ALU r3 <- r4 (WAR on r3 only):
    the correct block holds the last ALU behind the older reader, the mutant issues it early.
    (The catalogue workloads never make a WAR-only hazard matter on ``tiny``.)"""
    def stream(cta: int, warp: int):
        for it in range(max(1, int(20 * scale))):
            a = (cta * 64 + warp * 8 + it) * 128
            yield Instr(Op.LDG, (1,), (20,), tuple(range(a, a + 128, 4)))
            yield Instr(Op.ALU, (2,), (1, 3))
            yield Instr(Op.ALU, (3,), (4,))
            yield Instr(Op.ALU, (5,), (2,))
        yield Instr(Op.EXIT)
    return Workload("war", [Kernel("war", (4, 1, 1), (64, 1, 1), 8, 0, stream)])


WAR = {"preset": "tiny", "workload": f"{__name__}:war_kernel", "scale": 1.0, "overrides": SOC}


def _same(a: dict, b: dict) -> bool:
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


# -- port path == stock model (no simulator) ---------------------------------------------------

def test_port_path_over_twins_reproduces_the_stock_model():
    kw = kwargs_for()
    stock = gpu_socgpu(None, **kw)["runs"][0]
    ports = gpu_socgpu(None, **kw, port_twins=True)["runs"][0]
    assert _same(ports["stats"], stock["stats"]) and ports["cycles"] == stock["cycles"]
    assert ports["block_steps"] > 1000 and all(s > 0 for s in ports["slot_steps"])
    assert stock["stats"]["issue_stage"]["kind"] == "socgpu"


def test_the_mutant_changes_the_run_through_the_ports():
    """Sanity for the mutation test: with the mutant in place of the twins the port path is
    not the stock model (the adapter's own check or the stats give it away)."""
    kw = kwargs_for(WAR)
    stock = gpu_socgpu(None, **kw)["runs"][0]
    blocks = [NoWarTwin(**p) for p in kw["params_list"]]
    try:
        got = gpu_socgpu(blocks, **kw)["runs"][0]
    except AssertionError:
        return
    assert not _same(got["stats"], stock["stats"])


# -- RTL in the GPU run (cocotb + Verilator) ---------------------------------------------------

@pytest.fixture(scope="module")
def twin_only():
    return run("socgpu_issue", kwargs_for(), "twin")


@cosim
@needs_verilator
# lockstep compares the RTL with the twin every cycle, so the RTL-only run is the slow suite's
@pytest.mark.parametrize("mode", [pytest.param("rtl", marks=pytest.mark.slow), "lockstep"])
def test_rtl_issue_blocks_of_one_sm_give_the_twin_only_stats(mode, twin_only):
    got = run("socgpu_issue", kwargs_for(), mode)
    assert got["mismatch"] is None
    want, res = twin_only["result"]["runs"][0], got["result"]["runs"][0]
    assert res["stats"] == want["stats"] and res["cycles"] == want["cycles"]
    assert got["steps"] == res["slot_steps"] and min(got["steps"]) > 0 and sum(got["steps"]) > 1000
    print(f"socgpu_issue {mode}: {res['cycles']} GPU cycles, {res['block_steps']} block steps "
          f"{got['steps']}, {got['seconds']:.1f} s")


@cosim
@needs_verilator
def test_lockstep_catches_a_twin_that_forgets_war():
    kw = kwargs_for(WAR, twin=f"{__name__}:no_war_twin")
    with pytest.raises(LockstepMismatch) as err:
        run_in_loop(get_block("socgpu_issue"), kw["params_list"],
                    "cosim.gpu_socgpu:gpu_socgpu", kw, lockstep=True)
    assert str(err.value).startswith("socgpu_issue[u"), str(err.value)


@cosim
@needs_verilator
@pytest.mark.slow
def test_long_run_rtl_only_and_lockstep():
    kw = kwargs_for(LONG)
    want = canonical(gpu_socgpu(None, **kw))["runs"][0]
    assert want["cycles"] >= 50_000
    for mode in ("rtl", "lockstep"):
        got = run("socgpu_issue", kw, mode)
        res = got["result"]["runs"][0] if got["result"] else None
        assert got["mismatch"] is None and res["stats"] == want["stats"], mode
        print(f"socgpu_issue {mode} {LONG['workload']}@{LONG['scale']}: {res['cycles']} GPU "
              f"cycles, {res['block_steps']} block steps, {got['seconds']:.1f} s")
