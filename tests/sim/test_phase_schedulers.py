"""Phase-aware warp schedulers in the GPU model ([THESIS §3.4.2.2]): the port's phase inputs,
the policies' visible behaviour, the CLI names."""

from __future__ import annotations

import pytest

from sim.blocks.port_block import PortBlock
from sim.blocks.provider import BlockProvider
from sim.workload.kernel import Instr, Op
from sim.workload.phases import DIST_BITS, kernel_phases
from sim_helpers import GrantRecorder, run
from sim_kernels import make_kernel, workload


def _with_pcs(instrs):
    for i, ins in enumerate(instrs):
        ins.pc, ins.next_pc = 8 * i, 8 * i + 8
    return instrs


def alu_only(c, w):
    return _with_pcs([Instr(Op.ALU, dst=(1 + i % 8,), src=(0,)) for i in range(12)]
                     + [Instr(Op.EXIT)])


def load_then_use(c, w):
    addrs = tuple(range(w * 128, w * 128 + 128, 4))
    return _with_pcs([Instr(Op.ALU, dst=(1 + i,), src=(0,)) for i in range(3)]
                     + [Instr(Op.LDG, dst=(40,), src=(1,), addrs=addrs),
                        Instr(Op.LDG, dst=(42,), src=(2,), addrs=addrs),
                        Instr(Op.ALU, dst=(41,), src=(40,)), Instr(Op.ALU, dst=(43,), src=(41,)),
                        Instr(Op.ALU, dst=(44,), src=(42,)), Instr(Op.EXIT)])


class InputRecorder(BlockProvider):
    """Block provider wrapping the registry's twin; keeps the inputs of SM 0's first scheduler."""

    def __init__(self):
        self.n, self.inputs = 0, []

    def block(self, name, instance, params, make_twin):
        if name != "warp_sched":
            return make_twin()
        twin, first, seen = make_twin(), self.n == 0, self.inputs
        self.n += 1

        class Recording(PortBlock):
            def step(self, **inputs):
                if first:
                    seen.append(inputs)
                return twin.step(**inputs)
        return Recording()


def _grants(policy, body, **kw):
    rec = GrantRecorder()
    run(workload(make_kernel("k", body, block=(256, 1, 1))), "tiny", f"sm.warp_sched={policy}",
        "sm.fetch_per_cycle=8", blocks=rec, **kw)
    return rec.of(0)


def test_single_level_keeps_issuing_the_warp_nearest_its_phase_end():
    # all four warps ready: the first (oldest on the tie) moves closer to its phase end with
    # every instruction, so it keeps the grant (LRR would rotate)
    assert _grants("phase", alu_only) == [0] * 13 + [1] * 13 + [2] * 13 + [3] * 13
    assert _grants("lrr", alu_only)[:4] == [0, 1, 2, 3]


def test_the_port_carries_phase_distances_and_outstanding_long_operations():
    rec = InputRecorder()
    kernel = make_kernel("k", load_then_use, grid=(2, 1, 1), block=(128, 1, 1))
    run(workload(kernel), "tiny", "sm.warp_sched=phase", blocks=rec)
    known = set(kernel_phases(kernel).distance)
    seen = set()
    for i in rec.inputs:
        for s in range(4):
            if i["valid"] >> s & 1:
                seen.add(i["distance"] >> (s * DIST_BITS) & 511)
        assert i["mem_wait"] & ~i["long_out"] == 0          # waiting on one ⇒ one outstanding
    assert seen <= known | {511} and len(seen & known) >= 3
    # some cycle has a warp with a load outstanding whose next instruction does not wait on it
    assert any(i["long_out"] & ~i["mem_wait"] & i["valid"] for i in rec.inputs)


def test_two_level_issues_only_from_the_ready_queue():
    g = _grants("tlgto:2", load_then_use)
    # two warps enter the ready queue; the others wait in the active queue until both wait
    # on their loads
    assert set(g[:10]) == {0, 1} and sorted(g[:10]) == [0] * 5 + [1] * 5


@pytest.mark.parametrize("name", ["phase", "tlrr", "tlgto", "tlphase", "tlphase:4",
                                  "tlphase_rr"])
def test_gpusched_run_with_each_phase_scheduler(cli, name):
    args = ("run", "--preset", "tiny", "--workload", "bp_k2_like", "--scale", "0.05",
            "--warp-scheduler", name, "--json")
    first, second = cli(*args), cli(*args)
    assert first.returncode == 0, first.stderr
    assert first.stdout == second.stdout


def test_an_explicit_ready_queue_larger_than_the_slots_is_a_one_line_error(cli):
    r = cli("run", "--preset", "tiny", "--workload", "bp_k2_like", "--scale", "0.05",
            "--warp-scheduler", "tlrr:9")
    assert r.returncode == 2 and "sm.warp_sched" in r.stderr and "<N> = 9" in r.stderr


@pytest.mark.parametrize("policy", ["tlphase", "phase"])
def test_the_compiled_phase_inputs_equal_the_reference(monkeypatch, policy):
    """sim/issue/phase_port.py (the model's path, compiled with the SM core) gives the values of
    sim.workload.phases.port_inputs on every cycle's live slots."""
    import sim.issue.phase_port as port
    from sim.workload import phases
    fast, calls = port.port_inputs, []

    def both(slots):
        got = fast(slots)
        assert got == phases.port_inputs(slots)
        calls.append(got)
        return got
    monkeypatch.setattr(port, "port_inputs", both)
    kernel = make_kernel("k", load_then_use, grid=(4, 1, 1), block=(128, 1, 1))
    run(workload(kernel), "tiny", f"sm.warp_sched={policy}")
    assert len(calls) > 100 and any(c["long_out"] for c in calls) and any(c["distance"] for c in calls)
