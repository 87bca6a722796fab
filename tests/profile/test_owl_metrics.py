"""OWL's metrics profiler (sim/profile/owl_metrics.py, [OWL]): CINV, MemoryBlockCycles,
NoWarpCycles and per-bank RBL on hand-computed tiny runs; exact under idle-cycle skipping;
every other statistic unchanged with it on."""

import json
import sys
from pathlib import Path

import pytest

from gpusched.config import ConfigError, get_preset, with_overrides
from sim.policies import AllActive
from sim.run import simulate
from sim.workload.catalogue import get_workload
from sim.workload.kernel import Instr, Op

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "sim"))
from sim_kernels import make_kernel, workload  # noqa: E402

ONE_SCHEDULER = ("sm.count=2", "sm.subcores=1")


class EveryCycle(AllActive):
    """Makes every SM run every cycle: no cycle is skipped."""
    per_cycle = True

    def on_cycle(self, now: int) -> None:
        for sm in self.gpu.sms:
            sm.poke(now + 1)


def _run(wl, overrides=(), memory="fixed", **kw):
    cfg = with_overrides(get_preset("tiny"), list(overrides))
    return simulate(cfg, wl, memory=memory, profile=("owl",), **kw)


def _load_then_use(addrs_list):
    """One warp: per address a one-sector load and an ALU op that reads its result."""
    def body(cta, warp):
        out = []
        for a in addrs_list:
            out += [Instr(Op.LDG, dst=(2,), src=(3,), addrs=(a,) * 32), Instr(Op.ALU, dst=(4,), src=(2,))]
        return out
    return workload(make_kernel("k", body))


@pytest.mark.parametrize("interval", [1, 4])
def test_one_load_on_two_sms_by_hand(interval):
    """SM 0 runs one warp: LDG at cycle 2 (CTA placed at the end of cycle 0, fetch in 1), the
    dependent ALU at T (the load's data back), EXIT once the IB is refilled; SM 1 never gets a
    CTA. Cycles 3 … T−1 are memory-blocked (123 of them with the tiny fixed memory)."""
    r = _run(_load_then_use([0]), ONE_SCHEDULER + (f"sm.issue_interval={interval}",))
    o = r["owl"]
    cycles = r["cycles"]
    alu = get_preset("tiny").units.alu_latency
    (_, _, _, _, end), = r["ctas"]["rows"]
    assert cycles == end + 1
    blocked = o["per_sm"][0][2]
    t_data = 3 + blocked                       # first cycle the ALU can issue
    assert blocked == 123
    if interval == 1:
        # issues at 2 (LDG), T (ALU), T+1 (EXIT); the ALU writes back at T+alu, which retires
        # the CTA at that cycle's write-back, before its issue stage: no CTA in cycle 0 and end
        assert end == t_data + alu
        assert o["per_sm"][0] == [0, cycles - 3, blocked, 2, blocked]
    else:
        # issues at 2, T and T+4 (the interval); EXIT at T+4 retires the warp in that issue
        # stage, the last cycle: active [2,6) ∪ [T,T+4) ∪ {T+4}
        assert end == t_data + 4
        assert o["per_sm"][0] == [0, cycles - 9, blocked, 1, blocked]
    assert o["per_sm"][1] == [1, cycles, 0, cycles, 0]
    assert o["inactive_cycles"] == o["per_sm"][0][1] + cycles
    assert o["cinv"] == pytest.approx(o["inactive_cycles"] / (2 * cycles))
    assert o["no_warp_fraction"] == pytest.approx(o["no_warp_cycles"] / (2 * cycles))
    assert o["memory_block_fraction"] == pytest.approx(blocked / (2 * cycles))
    assert "rbl" not in o                      # fixed memory: no DRAM banks


def test_rbl_per_bank_by_hand():
    """tiny's map: channel = a[8] mod 2, bank = a[12:11], row = a >> 14. Loads in order:
    0 (ch0 b0 row0: closed), 512 (ch0 b0 row0: hit), 16384 (ch0 b0 row1: conflict),
    2048 (ch0 b1: closed), 256 (ch1 b0: closed)."""
    r = _run(_load_then_use([0, 512, 16384, 2048, 256]), ONE_SCHEDULER, memory="hierarchy")
    rbl = r["owl"]["rbl"]
    banks = {(ch, b): counts for ch, b, *counts in rbl["per_bank"]}
    assert len(banks) == 2 * 4
    assert banks[(0, 0)] == [1, 3, 0, 0]
    assert banks[(0, 1)] == [0, 1, 0, 0]
    assert banks[(1, 0)] == [0, 1, 0, 0]
    assert sum(sum(c) for c in banks.values()) == 1 + 3 + 1 + 1
    assert rbl["bank_mean"] == pytest.approx((1 / 3 + 0 + 0) / 3)
    assert rbl["aggregate"] == pytest.approx(1 / 5) == r["memory"]["dram"]["row_hit_rate"]
    assert rbl["bank_mean_with_prefetch"] == rbl["bank_mean"]


def test_memory_block_needs_every_live_warp_waiting():
    """Two warps: one waits on a load, the other runs a long ALU chain. While the chain runs
    the SM is not memory-blocked; the single-warp run of the load alone is."""
    alone = _run(_load_then_use([0]), ONE_SCHEDULER)["owl"]["memory_block_cycles"]

    def body(cta, warp):
        if warp == 0:
            return [Instr(Op.LDG, dst=(2,), src=(3,), addrs=(0,) * 32), Instr(Op.ALU, dst=(4,), src=(2,))]
        return [Instr(Op.ALU, dst=(1,), src=(1,)) for _ in range(20)]
    both = _run(workload(make_kernel("k", body, block=(64, 1, 1))), ONE_SCHEDULER)["owl"]
    chain = 20 * get_preset("tiny").units.alu_latency
    assert 0 < both["memory_block_cycles"] <= alone - chain + 4


def test_memory_stall_also_counts_warps_held_at_a_busy_ld_st_unit():
    """Two warps, each a load and its use, LD/ST unit held 20 cycles per access: warp 0's LDG
    issues at 2; warp 1 (fetched in cycle 2) is ready from 3 but waits for the unit until 22
    while warp 0 waits on memory: 19 cycles memory-stalled but not memory-blocked."""
    def body(cta, warp):
        return [Instr(Op.LDG, dst=(2,), src=(3,), addrs=(128 * warp,) * 32),
                Instr(Op.ALU, dst=(4,), src=(2,))]
    o = _run(workload(make_kernel("k", body, block=(64, 1, 1))),
             ONE_SCHEDULER + ("units.ldst_ii=20",))["owl"]
    assert o["memory_stall_cycles"] - o["memory_block_cycles"] == 19
    assert o["memory_stall_fraction"] == pytest.approx(o["memory_stall_cycles"] / (2 * o["cycles"]))


@pytest.fixture(scope="module")
def mixed():
    wl = lambda: get_workload("mixed_like", scale=0.05)
    cfg = with_overrides(get_preset("tiny"), ["sm.issue_interval=2"])
    plain = simulate(cfg, wl(), memory="hierarchy")
    prof = simulate(cfg, wl(), memory="hierarchy", profile=("owl", "warp-states"))
    every = simulate(cfg, wl(), memory="hierarchy", profile=("owl",), sm_controller=EveryCycle)
    return plain, prof, every


def test_profiling_leaves_every_other_statistic_unchanged(mixed):
    plain, prof, _ = mixed
    rest = {k: v for k, v in prof.items() if k not in ("owl", "warp_states")}
    assert json.dumps(rest, sort_keys=True) == json.dumps(plain, sort_keys=True)
    assert "owl" not in plain and "warp_states" in prof


def test_exact_under_idle_cycle_skipping(mixed):
    _, prof, every = mixed
    assert every["cycles"] == prof["cycles"]
    assert every["owl"] == prof["owl"]


def test_inactive_cycles_agree_with_the_issue_slot_counts():
    """With one scheduler per SM a cycle is active iff its slot issued or sat in the issue
    interval, which the issue-slot reasons count independently."""
    r = simulate(with_overrides(get_preset("owl"), ["sm.count=4"]),
                 get_workload("owl_t_stream_shared", scale=0.05), memory="hierarchy", profile=("owl",))
    slots = r["cycles"] * 4
    assert r["owl"]["inactive_cycles"] == slots - r["issue"]["issued"] - r["issue"]["issue_interval"]
    assert r["owl"]["rbl"]["aggregate"] == r["memory"]["dram"]["row_hit_rate"]
    assert 0 < r["owl"]["memory_block_cycles"] <= r["owl"]["memory_stall_cycles"] < slots


def test_unknown_profile_is_a_one_line_error():
    with pytest.raises(ConfigError, match="allowed: warp-states, owl"):
        simulate(get_preset("tiny"), _load_then_use([0]), profile=("owls",))


def test_the_run_text_shows_the_owl_table():
    import subprocess
    import sys
    r = subprocess.run([sys.executable, "-c", "from gpusched.cli import main; main()", "run",
                        "--preset", "tiny", "--workload", "mem_stream", "--scale", "0.05",
                        "--memory", "hierarchy", "--profile", "owl"],
                       capture_output=True, text=True, env={"COLUMNS": "200", "PATH": ""})
    assert r.returncode == 0, r.stderr
    assert "OWL metrics" in r.stdout and "MemoryStall" in r.stdout and "RBL bank mean" in r.stdout
