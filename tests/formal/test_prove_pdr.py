"""Unbounded proofs (formal/pdr.py, ABC's PDR): small blocks here; every block in ``--runslow``
and ``gpusched verify``."""

import subprocess
import sys

import pytest

from formal import build, cases_for, proof_blocks
from formal.bmc import prove
from formal.pdr import prove_unbounded

pytestmark = pytest.mark.synth


def _case(block, label_part=""):
    return next(c for c in cases_for(block) if label_part in c.label)


def test_pdr_proves_perf_sat_at_every_depth():
    res = prove_unbounded(build(_case("perf_sat")), timeout=120)
    assert res.status == "proved" and res.engine == "pdr" and res.frames >= 1
    assert "cta_limit <= N_max" in res.invariants


def test_pdr_proves_a_stateless_invariant_set():
    """LRR's grant properties hold for every pointer value: Yosys' ABC pass leaves no state in
    their cone, so the folded model is combinational and is proved by a SAT check."""
    assert prove_unbounded(build(_case("warp_sched", "lrr")), timeout=60).status == "proved"


def test_pdr_counterexample_is_replayed_with_a_named_invariant_and_trace(tmp_path):
    """perf_sat's overshoot needs 15 steps; PDR finds it and BMC to that depth names it."""
    vcd = tmp_path / "cex.vcd"
    res = prove_unbounded(build(_case("perf_sat"), mutant=True), timeout=120, vcd=str(vcd))
    assert res.status == "failed" and res.engine == "pdr"
    assert res.failed == "cta_limit <= N_max" and res.step == 14
    assert res.trace["dut.state"][res.step] == 4 and vcd.read_text().startswith("$")
    # the same counterexample is out of reach one step shorter
    assert prove(build(_case("perf_sat"), mutant=True), res.step).status == "proved"


def test_pdr_timeout_is_undecided_not_proved():
    res = prove_unbounded(build(_case("cta_sched", "steal")), timeout=1)
    assert res.status == "unknown"


def test_cli_prove_defaults_to_unbounded_and_checks_engine_arguments():
    run = lambda *a: subprocess.run([sys.executable, "-c", "from gpusched.cli import main; main()",
                                     "prove", *a], capture_output=True, text=True)
    ok = run("seq_det")
    assert ok.returncode == 0 and "at every depth (unbounded, PDR" in ok.stdout
    bad = run("seq_det", "--engine", "pdr", "--depth", "4")
    assert bad.returncode == 2 and "--depth" in bad.stderr
    bad = run("seq_det", "--engine", "sat")
    assert bad.returncode == 2 and "--engine" in bad.stderr


@pytest.mark.slow
@pytest.mark.parametrize("block", proof_blocks())
def test_unbounded(block):
    for case in cases_for(block):
        if case.pdr:
            assert prove_unbounded(build(case), timeout=1800).status == "proved", case.label
        assert prove_unbounded(build(case, mutant=True), timeout=600).status == "failed"
