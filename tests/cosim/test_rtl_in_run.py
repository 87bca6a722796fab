"""RTL at any block instance of a GPU run through the block provider (cosim/provider.py) and the
CLI's ``--rtl BLOCK[@INSTANCE] [--rtl-sim …] [--lockstep]``: the statistics equal the twin run's
on every backend, a mutant twin is caught by ``--lockstep`` (exit 1, first differing cycle), a
selection that matches nothing is one line and exit 2.

Default suite: every block of the README's table at its point on the twin and Amaranth
backends, the warp scheduler on Verilator (its library is cached, so a
second run costs seconds) and the CLI checks. ``--runslow``: every block on Verilator too."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from cosim.lockstep import LockstepMismatch
from cosim.provider import RtlProvider, parse_selection
from cosim.simulators import available
from gpusched.config import ConfigError, get_preset, with_overrides
from sim.blocks.inorder_issue import InorderIssueTwin
from sim.blocks.warp_sched import WarpSchedTwin
from sim.run import load_workload, simulate

needs_verilator = pytest.mark.skipif(not available("verilator"), reason="verilator not installed")

# block -> (selection, preset, workload, scale, overrides, policies): each a short run in which
# the block at that instance is busy.
POINTS = {
    "warp_sched": ("warp_sched@sm0", "tiny", "mem_stream", 0.05, (), {}),
    "cta_sched": ("cta_sched", "tiny", "ikra_work_stealing", 0.02, (),
                  {"cta_scheduler": "ikra_steal"}),
    "onac": ("onac", "thesis", "onac_tp_like", 0.2, ("sm.count=8", "dram.clock_mhz=924"),
             {"sm_controller": "onac"}),
    "seq_det": ("seq_det", "thesis", "onac_tp_like", 0.2, ("sm.count=8", "dram.clock_mhz=924"),
                {"sm_controller": "seq_det"}),
    "core_sampler": ("core_sampler@sm1", "thesis", "onac_tp_like", 0.2,
                     ("sm.count=8", "dram.clock_mhz=924"), {"sm_controller": "onac"}),
    "perf_sat": ("perf_sat@sm0", "gtx480", "perfsat_mem", 0.1, (), {"cta_limit": "perf_sat"}),
    "ck_dispatch": ("ck_dispatch", "tiny", "rnn_like", 0.2, ("kernels.concurrent_sm=true",),
                    {"kernel_scheduler": "ck_interleaved"}),
    "srtf_pred": ("srtf_pred@sm0", "tiny", "mixed_like", 0.2, ("kernels.concurrent_sm=true",),
                  {"kernel_scheduler": "srtf"}),
    "owl_prefetch": ("owl_prefetch@mc0", "gtx480", "owl_t_stream_shared", 0.05,
                     ("dram.prefetch=owl_b",), {}),
    "socgpu_issue": ("socgpu_issue@sm0.w0", "tiny", "mixed_like", 0.1,
                     ("sm.issue=socgpu", "sm.ib_entries=8"), {}),
    "kernel_sched": ("kernel_sched", "tiny", "mixed_like", 0.1, ("kernels.concurrent_sm=true",),
                     {"kernel_scheduler": "srtf"}),
    "inorder_issue": ("inorder_issue@sm0.w0", "tiny", "mixed_like", 0.1,
                      ("sm.issue=inorder_issue", "sm.dual_issue=true"), {}),
}
# points whose model default is a method-level path with its own timing: their RTL runs equal
# the registry twin behind the same ports (``--rtl-sim twin``), docs/architecture.md
PORT_TWIN_REFERENCE = {"kernel_sched"}


def run(block: str, provider=None) -> dict:
    sel, preset, wl, scale, over, pol = POINTS[block]
    cfg = with_overrides(get_preset(preset), list(over))
    kw = {"blocks": provider} if provider is not None else {}
    return simulate(cfg, load_workload(wl, seed=0, scale=scale), memory="hierarchy", **pol, **kw)


def same(a: dict, b: dict) -> bool:
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def check(block: str, backend: str, lockstep: bool) -> None:
    prov = RtlProvider([parse_selection(POINTS[block][0])], backend, lockstep)
    try:
        got = run(block, prov)
    finally:
        prov.close()
    assert prov.placed, f"{block}: no instance was replaced"
    assert all(obj.cycles > 0 for _, obj in prov.placed.values()), prov.report()
    if block in PORT_TWIN_REFERENCE:
        ref = RtlProvider([parse_selection(POINTS[block][0])], "twin")
        assert same(got, run(block, ref))
    else:
        assert same(got, run(block))


@pytest.mark.cosim
@needs_verilator
def test_a_verilator_warp_scheduler_gives_the_twin_statistics():
    check("warp_sched", "verilator", lockstep=False)


@pytest.mark.parametrize("block", sorted(POINTS))
def test_every_block_behind_the_provider_as_its_twin(block):
    """Backend ``twin``: the registry twin behind the ports, in lockstep with another."""
    check(block, "twin", lockstep=True)


@pytest.mark.cosim
@pytest.mark.parametrize("block", sorted(POINTS))
def test_every_block_in_amaranth_in_lockstep(block):
    check(block, "amaranth", lockstep=True)


@pytest.mark.slow       # a Verilator build of each block takes minutes on a cold cache
@pytest.mark.cosim
@needs_verilator
@pytest.mark.parametrize("block", sorted(POINTS))
def test_every_block_in_verilator_in_lockstep(block):
    check(block, "verilator", lockstep=True)


def test_selections_name_known_blocks_and_instances():
    assert str(parse_selection("warp_sched@sm0")) == "warp_sched@sm0"
    sel = parse_selection("warp_sched@sm0")
    assert sel.covers("warp_sched", "sm0.sub1") and not sel.covers("warp_sched", "sm10.sub0")
    with pytest.raises(ConfigError, match="known blocks"):
        parse_selection("warp_shed@sm0")


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", "from gpusched.cli import main; main()", *args],
                          capture_output=True, text=True, timeout=600)


BASE = ("run", "--preset", "tiny", "--workload", "mem_stream", "--scale", "0.05", "--json")


def test_a_selection_matching_no_instance_is_one_line_and_exit_2():
    out = cli(*BASE, "--rtl", "cta_sched", "--rtl-sim", "twin")   # rr: no cta_sched in the run
    assert out.returncode == 2 and "matched no block instance" in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


def test_lockstep_needs_rtl():
    out = cli(*BASE, "--lockstep")
    assert out.returncode == 2 and "needs --rtl" in out.stderr


class OldestNotGreedy(WarpSchedTwin):
    """Mutant: GTO without the greedy warp (always the oldest ready)."""

    def pick(self, ready: int) -> int:
        return self.oldest(ready) if ready else -1

    def choose(self, inputs: dict) -> int:
        return self.pick(inputs.get("ready", 0))


MUTANT_CLI = """
import sys
import cosim.specs.warp_sched as ws
from test_rtl_in_run import OldestNotGreedy
ws.make_twin = lambda p: OldestNotGreedy(p["W"], p["policy"])
from gpusched.cli import main
main()
"""


@pytest.mark.cosim
@needs_verilator
def test_the_cli_lockstep_catches_a_mutant_twin():
    from pathlib import Path
    here = str(Path(__file__).parent)
    out = subprocess.run([sys.executable, "-c", MUTANT_CLI, *BASE, "--rtl", "warp_sched@sm0",
                          "--lockstep"], capture_output=True, text=True, timeout=600,
                         env={**__import__("os").environ, "PYTHONPATH": here})
    assert out.returncode == 1, out.stderr
    assert "mismatch at cycle" in out.stderr and "warp_sched@sm0.sub" in out.stderr
    assert "inputs:" in out.stderr and "twin:" in out.stderr and "rtl:" in out.stderr


MUTANT_RTL_CLI = """
import cosim.specs.warp_sched as ws
from hdl.warp_sched import WarpSched
from hdl.common import first_one_hot


class LrrWithoutPointer(WarpSched):
    \"\"\"Mutant RTL: LRR that forgets its last-issued pointer (always the lowest ready slot).\"\"\"

    def _lrr(self, m, last_hot):
        return first_one_hot(m, self.ready, self.n_warps, "pick_any")


ws.make_rtl = lambda p: LrrWithoutPointer(p["W"], p["policy"])
from gpusched.cli import main
main()
"""


@pytest.mark.cosim
def test_the_cli_lockstep_catches_a_mutant_rtl_at_a_warp_scheduler():
    """``--rtl warp_sched@sm0 --lockstep`` with a mutant RTL (a subclass of the LRR arbiter):
    exit 1, the first differing cycle, the inputs and both outputs on stderr."""
    out = subprocess.run([sys.executable, "-c", MUTANT_RTL_CLI, *BASE, "--warp-scheduler", "lrr",
                          "--rtl", "warp_sched@sm0", "--rtl-sim", "amaranth", "--lockstep"],
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 1, out.stderr
    err = out.stderr
    assert "mismatch at cycle" in err and "warp_sched@sm0.sub" in err, err
    assert "inputs: ready=" in err and "twin:" in err and "rtl:" in err, err


def test_the_cli_runs_a_warp_scheduler_in_lockstep_with_its_statistics():
    """``--rtl warp_sched@sm0 --lockstep`` from the command line (twin backend: no simulator)
    prints the statistics of the run without ``--rtl``."""
    plain = cli(*BASE)
    rtl = cli(*BASE, "--rtl", "warp_sched@sm0", "--rtl-sim", "twin", "--lockstep")
    assert plain.returncode == 0 and rtl.returncode == 0, rtl.stderr
    assert json.loads(rtl.stdout) == json.loads(plain.stdout)
    assert "warp_sched@sm0.sub0" in rtl.stderr and "warp_sched@sm0.sub1" in rtl.stderr


def test_a_mismatch_raises_with_the_first_cycle():
    class Broken(WarpSchedTwin):
        def choose(self, inputs: dict) -> int:
            return -1
    prov = RtlProvider([parse_selection("warp_sched@sm0.sub0")], "twin", lockstep=True,
                       twin=lambda name, p: Broken(p["W"], p["policy"]))
    with pytest.raises(LockstepMismatch, match="mismatch at cycle"):
        run("warp_sched", prov)


GRID = """
[sweep]
name = "rtl_grid"
preset = "tiny"
workloads = ["mem_stream"]
[sweep.params]
scale = 0.05
rtl = ["", "warp_sched@sm0"]
rtl_sim = "twin"
lockstep = true
"""


def test_a_sweep_accepts_rtl_and_gives_the_twin_statistics(tmp_path):
    grid = tmp_path / "grid.toml"
    grid.write_text(GRID)
    db = tmp_path / "r.sqlite"
    env = {**__import__("os").environ, "GPUSCHED_DB": str(db)}
    out = subprocess.run([sys.executable, "-c", "from gpusched.cli import main; main()", "sweep",
                          str(grid), "--jobs", "1"], capture_output=True, text=True, timeout=600,
                         cwd=tmp_path, env=env)
    assert out.returncode == 0, out.stderr
    q = subprocess.run([sys.executable, "-c", "from gpusched.cli import main; main()", "results",
                        "query", "--format", "json"], capture_output=True, text=True,
                       timeout=600, cwd=tmp_path, env=env)
    rows = json.loads(q.stdout)
    cycles = {r.get("params.rtl", r.get("rtl")): r.get("cycles") for r in rows}
    assert len(rows) == 2 and len(set(cycles.values())) == 1, cycles
    assert all(isinstance(c, int) and c > 0 for c in cycles.values()), cycles


class NeverDual(InorderIssueTwin):
    """Mutant baseline issue block: never offers the second entry."""

    def outputs(self) -> dict:
        out = super().outputs()
        self._c2 = False
        return {**out, "cand2_valid": 0, "cand2_idx": 0, "cand2_unit": 0}


MUTANT_ISSUE_CLI = """
import sim.blocks.inorder_issue as ii
from test_rtl_in_run import NeverDual
ii.InorderIssueTwin = NeverDual
from gpusched.cli import main
main()
"""

ISSUE_BASE = ("run", "--preset", "tiny", "--workload", "mixed_like", "--scale", "0.1",
              "--set", "sm.issue=inorder_issue", "--set", "sm.dual_issue=true", "--json")


@pytest.mark.cosim
def test_the_cli_lockstep_catches_a_mutant_at_an_issue_block():
    """``--rtl inorder_issue@sm0.w0 --lockstep`` (Amaranth RTL) against a mutant twin that never
    offers dual issue: exit 1 naming the instance, the cycle, the inputs and both outputs."""
    from pathlib import Path
    out = subprocess.run([sys.executable, "-c", MUTANT_ISSUE_CLI, *ISSUE_BASE, "--rtl",
                          "inorder_issue@sm0.w0", "--rtl-sim", "amaranth", "--lockstep"],
                         capture_output=True, text=True, timeout=600,
                         env={**__import__("os").environ, "PYTHONPATH": str(Path(__file__).parent)})
    assert out.returncode == 1, out.stderr
    err = out.stderr
    assert "mismatch at cycle" in err and "inorder_issue@sm0.w0" in err and "cand2_valid" in err
    assert "inputs:" in err and "twin:" in err and "rtl:" in err, err


def test_an_issue_block_alone_is_checked_against_the_model_view():
    """Without lockstep, the issue point checks every clock of the block against its own view
    of the IB: a block that never offers dual issue stops the run naming the output."""
    from sim.blocks.provider import GivenBlocks
    from sim.issue.port_inorder import block_params
    _, preset, wl, scale, over, _ = POINTS["inorder_issue"]
    cfg = with_overrides(get_preset(preset), list(over))
    p = block_params(cfg)
    given = GivenBlocks({("inorder_issue", "sm0.w0"): NeverDual(**p)})
    with pytest.raises(AssertionError, match=r"inorder_issue\[sm0.w0\] step \d+: cand2_valid"):
        simulate(cfg, load_workload(wl, seed=0, scale=scale), memory="hierarchy", blocks=given)
