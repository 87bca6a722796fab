"""Bounded model checks: each block's invariants hold, each block's mutant is caught with a
counterexample trace. Short depths here; ``gpusched verify`` runs depth 20."""

import subprocess
import sys

import pytest

from formal import build, cases_for, proof_blocks
from formal.bmc import format_trace, prove

pytestmark = pytest.mark.synth


def _case(block, label_part=""):
    return next(c for c in cases_for(block) if label_part in c.label)


def test_warp_sched_lrr_invariants_hold():
    res = prove(build(_case("warp_sched", "lrr")), 12)
    assert res.status == "proved" and "at most one grant" in res.invariants


def test_mutant_is_caught_with_a_trace(tmp_path):
    vcd = tmp_path / "cex.vcd"
    res = prove(build(cases_for("warp_sched")[0], mutant=True), 6, vcd=str(vcd))
    assert res.status == "failed" and res.failed in res.invariants
    # the trace shows the corrupted grant: slot 0 granted while no warp is ready
    assert res.trace["dut.grant"][res.step] == 1 and res.trace["dut.ready"][res.step] == 0
    assert "dut.grant" in format_trace(res).splitlines()[0]
    assert vcd.read_text().startswith("$")


@pytest.mark.parametrize("block,invariant", [
    ("onac", "sample_req changes only once acknowledged"),
    ("seq_det", "sample_req changes only once acknowledged"),
    ("cta_sched", "no two CUs get the same id in a cycle")])
def test_each_mutant_is_caught_by_its_invariant(block, invariant):
    res = prove(build(cases_for(block)[0], mutant=True), 8)
    assert res.status == "failed" and res.failed == invariant
    assert all(len(v) >= res.step + 1 for v in res.trace.values())


def test_short_proofs_hold():
    assert prove(build(cases_for("seq_det")[0]), 8).status == "proved"
    assert prove(build(cases_for("cta_sched")[0]), 9).status == "proved"


def test_perf_sat_mutant_needs_a_deep_trace():
    """The overshoot needs the FSM to reach SI at N_max: caught at depth 16, not at depth 8."""
    case = _case("perf_sat")
    assert prove(build(case, mutant=True), 8).status == "proved"
    res = prove(build(case, mutant=True), 16)
    assert res.status == "failed" and res.failed == "cta_limit <= N_max"
    assert res.trace["dut.state"][res.step] == 4                 # SI


def test_cli_prove_exit_codes():
    run = lambda *a: subprocess.run([sys.executable, "-c", "from gpusched.cli import main; main()",
                                     "prove", *a], capture_output=True, text=True)
    n = len(cases_for("warp_sched"))
    ok = run("warp_sched", "--depth", "4")
    assert ok.returncode == 0 and "invariants hold to depth 4" in ok.stdout
    assert ok.stdout.splitlines()[0].startswith(f"warp_sched: {n} proof case(s) at fixed small")
    assert ok.stdout.rstrip().endswith(f"warp_sched: {n}/{n} cases proved")
    caught = run("warp_sched", "--depth", "4", "--mutant")
    assert caught.returncode == 0 and "FAILED" in caught.stdout and "step" in caught.stdout
    assert caught.stdout.rstrip().endswith(f"{n}/{n} mutants caught")
    bad = run("nosuch")
    assert bad.returncode == 2 and "blocks with proofs" in bad.stderr


@pytest.mark.slow
@pytest.mark.parametrize("block", proof_blocks())
def test_full_depth(block):
    for case in cases_for(block):
        assert prove(build(case), case.depth).status == "proved"
        assert prove(build(case, mutant=True), case.depth).status == "failed"


def test_socgpu_dependence_matrix_invariants_hold_and_the_ignoring_mutant_is_caught():
    """The DM invariants (no issue with a row bit set, exact column clearing on write-back, rows
    name only live older entries, the DM equals the operand overlaps) hold; a block that issues
    every pending entry regardless of its DM row is caught at its first issue."""
    case = _case("socgpu_issue")
    res = prove(build(case), 6)
    assert res.status == "proved"
    assert "a write-back clears exactly its column" in res.invariants
    assert "the DM agrees with the stored operands" in res.invariants
    bad = prove(build(case, mutant=True), 6)
    assert bad.status == "failed" and bad.failed == "no entry issues while a bit of its DM row is set"
    assert bad.trace["dut.grant"][bad.step] == 1


def test_the_solver_is_boolector_when_its_wheel_is_installed(monkeypatch):
    from formal.bmc import solver
    monkeypatch.delenv("GPUSCHED_SOLVER", raising=False)
    name, path = solver()
    assert name == "boolector"
    monkeypatch.setenv("GPUSCHED_SOLVER", "z3")
    assert solver()[0] == "z3"
def test_ck_dispatch_invariants_hold_and_the_over_cap_mutant_is_caught():
    case = _case("ck_dispatch", "interleaved")
    assert prove(build(case), 5).status == "proved"
    res = prove(build(case, mutant=True), 5)
    assert res.status == "failed" and res.failed == "an accepted CTA stays within the core's max blocks"
