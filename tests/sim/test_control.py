"""Barriers, SM pause/resume, the deadlock watchdog, determinism and the ``gpusched run`` CLI."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from sim.policies import Policy
from sim.run import Deadlock, simulate
from sim.workload.kernel import Instr, Op
from sim_helpers import config, run
from sim_kernels import barrier_deadlock, dependent_chain, independent, loads, make_kernel, workload

HERE = Path(__file__).parent


def test_barrier_holds_warps_until_the_last_arrives():
    lat = config().units.alu_latency
    n, m = 30, 20

    def body(bar_op):
        def b(c, w):
            if w == 0:
                return dependent_chain(n) + [Instr(bar_op)]
            return [Instr(bar_op)] + dependent_chain(m)
        return b
    with_bar = run(workload(make_kernel("k", body(Op.BAR), block=(128, 1, 1))))["cycles"]
    without = run(workload(make_kernel("k", body(Op.NOP), block=(128, 1, 1))))["cycles"]
    # warps 1-3 start their m-chain only after warp 0's n-chain reached the barrier
    assert with_bar >= (n + m) * lat
    assert without < with_bar - m * lat + lat


def test_exited_warps_do_not_hold_a_barrier():
    # warp 0 exits without reaching bar.sync; the other warps still pass it (GPGPU-Sim barrier_set_t)
    body = lambda c, w: independent(3) if w == 0 else independent(20) + [Instr(Op.BAR)] + independent(3)
    r = run(workload(make_kernel("k", body, block=(128, 1, 1))))
    assert r["warp_insts"] == 4 + 3 * 25


class PauseSM0(Policy):
    """Pauses SM 0 at the end of cycle ``at``, resumes it at ``until``; records what it saw."""
    per_cycle = True

    def __init__(self, at: int, until: int):
        self.at, self.until, self.drained, self.insts = at, until, None, {}

    def on_cycle(self, now):
        self.insts[now] = self.gpu.sms[0].warp_insts()
        if now == self.at:
            self.gpu.pause_sm(now, 0)
        if now == self.until:
            self.gpu.resume_sm(now, 0)

    def next_wakeup(self, now):
        return next((c for c in (self.at, self.until) if c > now), None)

    def on_sm_drained(self, now, sm):
        self.drained = now


def test_pause_stops_issue_and_acks_when_drained():
    sfu = config().units.sfu_latency
    ctl = PauseSM0(at=30, until=200)
    r = run(workload(make_kernel("k", lambda c, w: dependent_chain(10, Op.SFU))), sm_controller=ctl)
    # the chain issues at 2, 2+sfu, 2+2·sfu, … (first issue 2 cycles after placement); the SFU op
    # in flight at the pause completes at the next multiple, and only then is the pause acked
    in_flight = 2 + sfu * ((30 - 2) // sfu)
    assert ctl.drained == in_flight + sfu
    assert len({ctl.insts[c] for c in range(31, 201) if c in ctl.insts}) == 1
    assert r["sm"]["paused_cycles"][0] == 200 - 30
    assert r["cycles"] > 200 + (10 - (30 - 2) // sfu - 1) * sfu


def test_paused_sm_gets_no_ctas():
    ctl = PauseSM0(at=0, until=10**9)
    r = run(workload(make_kernel("k", lambda c, w: independent(10), grid=(4, 1, 1))), sm_controller=ctl)
    assert r["sm"]["ctas_launched"] == [0, 4]


def result_json(seed=0, **kw):
    wl = workload(make_kernel("k", lambda c, w: independent(15) + loads(3) + [Instr(Op.BAR)] + dependent_chain(4),
                              grid=(7, 1, 1), block=(96, 1, 1)))
    return json.dumps(simulate(config("tiny"), wl, seed=seed, **kw), sort_keys=True)


def test_same_inputs_give_byte_identical_json():
    assert result_json() == result_json()
    assert result_json(sample_interval=50) == result_json(sample_interval=50)


def test_deadlock_watchdog_names_sm_warp_and_reason():
    with pytest.raises(Deadlock) as e:
        simulate(config("tiny"), barrier_deadlock(), watchdog=500)
    msg = str(e.value)
    assert msg.startswith("deadlock at cycle ")
    assert "SM 0 warp 0 (CTA 0" in msg and "waits at barrier; 3/4 warps of its CTA arrived" in msg
    assert "warp 3" in msg and "ended without EXIT" in msg
    assert e.value.cycle >= 500


def gpusched(*args):
    return subprocess.run([sys.executable, "-c", "from gpusched.cli import main; main()", *args],
                          capture_output=True, text=True, cwd=HERE.parent.parent)


def test_cli_deadlock_exits_3():
    p = gpusched("run", "--preset", "tiny", "--workload", f"{HERE}/sim_kernels.py:barrier_deadlock",
                 "--watchdog", "300")
    assert p.returncode == 3, p.stderr
    assert "deadlock at cycle" in p.stderr and "waits at barrier" in p.stderr


def test_cli_run_json_and_bad_input():
    p = gpusched("run", "--preset", "tiny", "--workload", f"{HERE}/sim_kernels.py:small_mix", "--json",
                 "--set", "sm.warp_sched=lrr")
    assert p.returncode == 0, p.stderr
    r = json.loads(p.stdout)
    assert r["warp_insts"] == 4 * 2 * (20 + 8 + 1) and r["warp_sched"] == "lrr"
    bad = gpusched("run", "--preset", "tiny", "--workload", f"{HERE}/sim_kernels.py:small_mix", "--memory", "magic")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "--memory" in bad.stderr


def test_refused_memory_requests_are_retried():
    # a memory with one line in flight per SM refuses the second load until the first is back;
    # every load still completes, and a dependent chain is unaffected by the cap
    from sim.memory.fixed import FixedMemory
    body = lambda c, w: [Instr(Op.LDG, dst=(1 + i,), src=(0,), addrs=tuple(range(i * 128, i * 128 + 128, 4)))
                         for i in range(6)] + [Instr(Op.ALU, dst=(9,), src=tuple(range(1, 7)))]
    wl = lambda: workload(make_kernel("k", body))
    cfg = config()
    capped = simulate(cfg, wl(), memory=FixedMemory(cfg, max_lines=1))
    free = simulate(cfg, wl())
    assert capped["memory"]["refused"] > 0 and capped["warp_insts"] == free["warp_insts"] == 8
    per_load = capped["memory"]["latency"] + cfg.l1.line_bytes // capped["memory"]["bytes_per_cycle"]
    assert capped["cycles"] >= 6 * per_load > free["cycles"]
    assert capped["issue"]["unit_busy"] > 0


def test_concurrent_mode_mixes_kernels_on_one_sm():
    a = make_kernel("a", lambda c, w: independent(40), grid=(2, 1, 1), block=(64, 1, 1))
    b = make_kernel("b", lambda c, w: independent(40), grid=(2, 1, 1), block=(64, 1, 1))
    r = run(workload(a, b), "tiny", "kernels.concurrent_sm=true")
    rows = [dict(zip(r["ctas"]["fields"], x)) for x in r["ctas"]["rows"]]
    on_sm0 = {x["kernel"] for x in rows if x["sm"] == 0 and x["start"] <= 2}
    assert on_sm0 == {0, 1}


@pytest.mark.slow
@pytest.mark.parametrize("preset", ["tiny", "gtx480", "gp102", "ikra_15cu", "thesis"])
def test_every_preset_runs_on_both_memory_systems(preset):
    # the SM code does not care which memory system it gets: same instructions, both finish
    body = lambda c, w: independent(10) + loads(4) + [Instr(Op.STG, src=(4,), addrs=tuple(range(0, 128, 4)))]
    wl = lambda: workload(make_kernel("k", body, grid=(40, 1, 1), block=(128, 1, 1)))
    fixed = simulate(config(preset), wl(), memory="fixed")
    full = simulate(config(preset), wl(), memory="hierarchy")
    assert fixed["warp_insts"] == full["warp_insts"] == 40 * 4 * (10 + 8 + 1 + 1)


class GateSM0(PauseSM0):
    """Pause SM 0, power-gate it once drained, wake it at ``until``."""

    def on_sm_drained(self, now, sm):
        super().on_sm_drained(now, sm)
        self.gpu.gate_sm(now, sm.sm_id)


def test_gating_needs_a_drained_pause_and_is_counted():
    ctl = GateSM0(at=30, until=200)
    r = run(workload(make_kernel("k", lambda c, w: dependent_chain(10, Op.SFU))), sm_controller=ctl)
    assert r["sm"]["gated_cycles"][0] == 200 - ctl.drained
    assert r["sm"]["paused_cycles"][0] == 200 - 30


def test_gating_an_active_sm_is_refused():
    class GateNow(PauseSM0):
        def on_cycle(self, now):
            if now == 5:
                self.gpu.gate_sm(now, 0)
    with pytest.raises(RuntimeError, match="paused and drained"):
        run(workload(make_kernel("k", lambda c, w: independent(20))), sm_controller=GateNow(5, 6))


def test_bench_rejects_unknown_reference():
    p = gpusched("bench", "model", "--only", "nope")
    assert p.returncode == 2 and "compute" in p.stderr


def test_bench_rejects_a_repeat_below_one():
    p = gpusched("bench", "model", "--repeat", "0")
    assert p.returncode == 2 and "--repeat" in p.stderr


def test_bench_keeps_the_fastest_of_its_runs():
    from sim.bench import bench_model
    (row,) = bench_model(["compute"], ["fixed"], repeat=2)
    runs = row["cpu_seconds_runs"]
    assert len(runs) == 2 and row["cpu_seconds"] == min(runs)
    assert row["warp_insts_per_s"] == pytest.approx(row["warp_insts"] / row["cpu_seconds"], rel=0.01)


def test_bench_references_have_fixed_instruction_counts():
    from sim.bench import N_CTAS, WARPS_PER_CTA, reference
    for name, per_warp in (("compute", 500 + 1), ("memory", 64 * 3 + 1), ("mixed", 40 * 11 + 1)):
        k = reference(name).kernels[0]
        assert k.n_ctas * k.warps_per_cta() == N_CTAS * WARPS_PER_CTA
        assert sum(1 for _ in k.stream(0, 0)) == per_warp
