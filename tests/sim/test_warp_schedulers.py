"""Warp schedulers in the GPU model: the registry's names, oldest and two-level behaviour,
every-cycle stepping, and the model without Amaranth ([GPGPU-Sim shader.cc])."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from gpusched.config import ConfigError
from sim.blocks.port_block import PortBlock
from sim.blocks.provider import BlockProvider, GivenBlocks
from sim.blocks.warp_sched import WarpSchedTwin
from sim.policies.warp_sched import WARP_SCHEDULERS, check_config, parse_warp_scheduler
from sim.workload.kernel import Instr, Op
from sim_helpers import GrantRecorder, config, run
from sim_kernels import independent, make_kernel, workload


def grants_of_scheduler0(policy: str, body, block: int = 256) -> list[int]:
    """One CTA of 8 warps on tiny: scheduler 0 holds SM slots 0, 2, 4, 6 as local 0..3."""
    rec = GrantRecorder()
    run(workload(make_kernel("k", body, block=(block, 1, 1))), "tiny", f"sm.warp_sched={policy}",
        "sm.fetch_per_cycle=8", blocks=rec)
    return rec.of(0)


def load_then_use(c, w) -> list[Instr]:
    """Three independent ALU ops, a global load, then an op that reads the loaded register."""
    return independent(3) + [Instr(Op.LDG, dst=(40,), src=(1,), addrs=tuple(range(w * 128, w * 128 + 128, 4))),
                             Instr(Op.ALU, dst=(41,), src=(40,))]


@pytest.mark.parametrize("text, bad", [
    ("two_level_active:6:lrr:gto", "<outer> = gto"),
    ("two_level_active:x", "<N> = x"),
    ("two_level_active:0", "<N> = 0"),
    ("two_level_active", "<N> missing"),
    ("two_level_active:2:0:1:9", "at most 3"),
    ("lrr:3", "at most 0"),
    ("fifo", "unknown; known: lrr, gto, old, two_level_active:<N>"),
])
def test_bad_names_are_one_line_errors_naming_the_part(text, bad):
    with pytest.raises(ConfigError) as e:
        check_config(config("tiny", f"sm.warp_sched={text}"))
    msg = str(e.value)
    assert msg.startswith("sm.warp_sched = ") and bad in msg and "\n" not in msg


def test_gpgpusim_numeric_levels_are_accepted():
    fam, args = parse_warp_scheduler("two_level_active:4:0:1")
    assert fam.name == "two_level_active" and args == {"N": 4, "inner": "lrr", "outer": "srr"}


def test_n_above_the_slots_of_a_scheduler_is_rejected():
    # tiny: 8 warp slots, 2 schedulers → 4 slots each
    with pytest.raises(ConfigError, match="exceeds the 4 warp slots"):
        check_config(config("tiny", "sm.warp_sched=two_level_active:5"))
    with pytest.raises(ConfigError, match="sm.warps_per_sm"):
        check_config(config("tiny", "sm.warps_per_sm=256", "sm.threads_per_sm=256",
                            "sm.subcores=2"))


def test_old_issues_oldest_first_without_a_greedy_warp():
    # every warp stays ready: the oldest (slot 0) wins every cycle until it finishes
    g = grants_of_scheduler0("old", lambda c, w: independent(12))
    assert g == [0] * 13 + [1] * 13 + [2] * 13 + [3] * 13


def test_two_level_with_n_equal_to_the_slots_rotates_like_lrr():
    g = grants_of_scheduler0("two_level_active:4", lambda c, w: independent(12))
    assert g[:12] == [0, 1, 2, 3] * 3


def test_two_level_keeps_pending_warps_out_until_the_active_ones_wait_on_memory():
    g = grants_of_scheduler0("two_level_active:2", load_then_use)
    # active [0 1]: their 3 ALU ops and loads issue first; both then wait on the load
    # (long-op source), are demoted, and the pending warps 2, 3 take over
    assert sorted(g[:8]) == [0] * 4 + [1] * 4
    assert set(g[8:16]) == {2, 3}
    lrr = grants_of_scheduler0("lrr", load_then_use)
    assert lrr[:4] == [0, 1, 2, 3]


class StepCounter(BlockProvider):
    """Block provider wrapping the registry's twin; counts steps of SM 0's first scheduler."""

    def __init__(self):
        self.n, self.steps = 0, 0

    def block(self, name, instance, params, make_twin):
        if name != "warp_sched":
            return make_twin()
        twin, first, outer = make_twin(), self.n == 0, self
        self.n += 1

        class Counting(PortBlock):
            def step(self, **inputs):
                if first:
                    outer.steps += 1
                return twin.step(**inputs)
        return Counting()


def test_a_two_level_scheduler_is_stepped_every_cycle_its_sm_holds_a_cta():
    counter = StepCounter()
    r = run(workload(make_kernel("k", load_then_use, grid=(6, 1, 1), block=(128, 1, 1))), "tiny",
            "sm.warp_sched=two_level_active:2", blocks=counter)
    rows = [dict(zip(r["ctas"]["fields"], x)) for x in r["ctas"]["rows"]]
    busy = set()
    for x in rows:
        if x["sm"] == 0:
            busy.update(range(x["start"] + 1, x["end"]))
    # placed at the end of cycle `start`, resident from start + 1 until the write-back stage of
    # cycle `end` retires its last warp (before issue): the GPU skips no cycle of that span
    # although most are idle (memory waits)
    assert counter.steps == len(busy)
    assert counter.steps > r["issue"]["issued"] // 4


def test_every_registered_policy_runs_and_is_deterministic():
    wl = workload(make_kernel("k", load_then_use, grid=(8, 1, 1), block=(128, 1, 1)))
    for name in ("lrr", "gto", "old", "two_level_active:2", "youngest"):
        a = run(wl, "tiny", f"sm.warp_sched={name}", memory="hierarchy")
        b = run(wl, "tiny", f"sm.warp_sched={name}", memory="hierarchy")
        assert a == b and a["warp_insts"] == 8 * 4 * 6
    assert set(WARP_SCHEDULERS) >= {"lrr", "gto", "old", "two_level_active", "youngest"}


NO_AMARANTH = textwrap.dedent("""
    import importlib.abc, sys
    class Refuse(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path, target=None):
            if name == "amaranth" or name.startswith("amaranth."):
                raise ImportError("amaranth is not importable here")
    sys.meta_path.insert(0, Refuse())
    import sim.run
    from gpusched.config import get_preset, validate, with_overrides
    from sim.run import load_workload, simulate
    cfg = validate(with_overrides(get_preset("tiny"), ["sm.warp_sched=two_level_active:2"]))
    r = simulate(cfg, load_workload("mixed_like", scale=0.05), memory="hierarchy",
                 sm_controller="onac", cta_limit="perf_sat")
    assert r["cycles"] > 0 and "amaranth" not in sys.modules
    print("ok", r["cycles"])
""")


def test_the_model_runs_where_amaranth_cannot_be_imported():
    out = subprocess.run([sys.executable, "-c", NO_AMARANTH], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.startswith("ok ")


def test_youngest_issues_the_last_launched_warp_first():
    # the docs' model-only example: the four warps launch in slot order, so slot 3 is youngest
    g = grants_of_scheduler0("youngest", lambda c, w: independent(12))
    assert g == [3] * 13 + [2] * 13 + [1] * 13 + [0] * 13


def test_the_documented_example_is_one_file_outside_hdl():
    from pathlib import Path
    doc = (Path(__file__).parents[2] / "docs" / "adding-a-scheduler.md").read_text()
    table = doc.split("## 1.")[1].split("## 2.")[0]
    files = [line.split("`")[1] for line in table.splitlines() if line.startswith("| `")]
    assert files == ["sim/blocks/youngest.py"]
    root = Path(__file__).parents[2]
    assert "POLICY_FAMILIES" in (root / files[0]).read_text()
    assert "youngest" not in (root / "sim" / "policies" / "warp_sched.py").read_text()


class PortRecorder(BlockProvider):
    """Block provider wrapping the registry's twin; keeps every input dict of SM 0's schedulers."""

    def __init__(self):
        self.n, self.inputs = 0, []

    def block(self, name, instance, params, make_twin):
        if name != "warp_sched":
            return make_twin()
        twin, mine, log = make_twin(), self.n < 2, self.inputs
        self.n += 1

        class Recording(PortBlock):
            def step(self, **inputs):
                if mine:
                    log.append(inputs)
                return twin.step(**inputs)
        return Recording()


def test_the_port_carries_launch_fields_and_wait_masks():
    # tiny: 256 threads per SM, CTAs of 96 threads (3 warps) → occupancy limit 2 CTAs per SM
    rec = PortRecorder()
    run(workload(make_kernel("k", load_then_use, grid=(8, 1, 1), block=(96, 1, 1))), "tiny",
        "sm.warp_sched=two_level_active:2", blocks=rec)
    launches = [i for i in rec.inputs if i["launch"]]
    assert launches and all(i["warps_per_cta"] == 3 and i["resident_ctas"] == 2
                            and i["launch_kernel"] == 0 and i["sm_id"] == 0 for i in launches)
    assert {i["launch_cta"] for i in launches} == {0, 1}
    assert any(i["mem_wait"] for i in rec.inputs)           # warps wait on their loads
    for i in rec.inputs:                                    # ready and waiting warps are live
        assert i["ready"] & ~i["valid"] == 0 and i["mem_wait"] & ~i["valid"] == 0
        assert i["ready"] & i["mem_wait"] == 0


class CountingArbiter(WarpSchedTwin):
    """The stock LRR/GTO twin under another class: the model must call it the same way (its
    ``step_port``), not pick a path by its type."""

    calls = 0

    def step_port(self, port) -> None:
        CountingArbiter.calls += 1
        super().step_port(port)


def test_the_stock_arbiter_is_reached_through_its_port_like_any_block():
    wl = workload(make_kernel("k", load_then_use, grid=(8, 1, 1), block=(128, 1, 1)))
    CountingArbiter.calls = 0
    given = GivenBlocks({("warp_sched", f"sm0.sub{j}"): CountingArbiter(4, "gto")
                         for j in range(2)})
    got = run(wl, "tiny", "sm.warp_sched=gto", memory="hierarchy", blocks=given)
    assert CountingArbiter.calls >= got["issue"]["issued"] // 4 > 0
    assert got == run(wl, "tiny", "sm.warp_sched=gto", memory="hierarchy")
