"""kernel_sched (sim/blocks/kernel_sched.py, hdl/kernel_sched.py): FIFO / MPMax / SRTF / Adaptive /
zero-sampling decisions on hand-made event sequences ([SRTF FIFO, MPMax, SRTF/Adaptive, SJF]; the
checks are ours), the tie mutant, and the RTL (fifo, srtf) in random lockstep with the port-level
twin."""

from __future__ import annotations

import dataclasses

import pytest

from cosim.amaranth_backend import run_lockstep_amaranth
from cosim.lockstep import LockstepMismatch
from gpusched.blocks import get_block, parse_params
from hdl.params.srtf_pred import CTL_CAP, CTL_END, CTL_LAUNCH, CTL_SEED
from sim.blocks.kernel_sched import KernelSchedTwin

# gtx480 per-SM limits: threads, registers, shared memory, block slots, warps ([SRTF])
GTX480 = (1536, 32768, 49152, 8, 48)
SLOT_LIMITED = (64, 64 * 8, 0, 1, 2)       # 2-warp blocks: R = 8, bound by the 8 block slots


def test_mpmax_two_slot_limited_kernels_get_cap_7():
    tw = KernelSchedTwin(8, 15, "mpmax", GTX480)
    tw.arrive(0, 1000, 8, SLOT_LIMITED)
    assert tw.row(3) == [(0, 8)]                      # alone: no co-runner to leave room for
    tw.arrive(1, 1000, 8, SLOT_LIMITED)
    assert tw.row(3) == [(0, 7), (1, 7)]              # [SRTF MPMax] example: 7 of the 8 slots each
    tw.end(0)
    assert tw.row(3) == [(1, 8)]                      # the reservation is released at the end


def test_mpmax_cap_leaves_every_resource_for_one_block_of_the_other():
    big = (256, 256 * 21, 8192, 1, 8)                 # AES-like: R = 6
    small = (128, 128 * 44, 0, 1, 4)                  # RayTracing-like: R = 5 (registers)
    tw = KernelSchedTwin(8, 15, "mpmax", GTX480)
    tw.arrive(0, 500, 6, big)
    tw.arrive(1, 500, 5, small)
    for k, other in ((0, small), (1, big)):
        cap = dict(tw.row(0))[k]
        fp = big if k == 0 else small
        assert cap >= 1
        assert all(cap * f + o <= lim for f, o, lim in zip(fp, other, GTX480) if f)


def test_fifo_allows_only_the_oldest_kernel_with_blocks_left():
    tw = KernelSchedTwin(8, 15, "fifo")
    tw.arrive(0, 100, 6)
    tw.arrive(1, 100, 8)
    assert tw.row(0) == [(0, 6)] and tw.row(14) == [(0, 6)]
    tw.dispatched_all(0)
    assert tw.row(0) == [(1, 8)]                      # fills the slots of 0's last wave


def srtf_pair(cls=KernelSchedTwin) -> KernelSchedTwin:
    tw = cls(8, 15, "srtf", GTX480)
    tw.arrive(0, 3000, 8)                             # long kernel runs
    tw.arrive(1, 200, 8)                              # short one arrives: sampled on SM0
    return tw


def test_srtf_samples_on_sm0_and_switches_to_the_shorter():
    tw = srtf_pair()
    assert tw.samp == 1 and tw.row(0) == [(1, 8)] and tw.row(1) == [(0, 8)]
    tw.update(4, 0, rem=90_000, pred=100_000, t=1000, res=8)      # run's prediction
    tw.update(5, 1, rem=500, pred=900, t=400, res=8)              # not from SM0: no decision
    assert tw.samp == 1 and tw.run == 0
    tw.update(0, 1, rem=600, pred=1000, t=400, res=8)
    assert (tw.run, tw.samp) == (1, None) and tw.switches == [(0, 1, "sample")]
    assert tw.row(0) == tw.row(7) == [(1, 8)]         # the old kernel is no longer dispatched
    assert tw.commands[-1] == (CTL_SEED, 1, 0, 0, 400)
    assert [c[0] for c in tw.commands[:2]] == [CTL_LAUNCH, CTL_LAUNCH]
    tw.dispatched_all(1)
    assert tw.row(3) == [(1, 8), (0, 8)]              # tail back-fill with next()
    tw.end(1)
    assert tw.run == 0 and tw.commands[-1] == (CTL_END, 1, 0, 0, 0)


def test_srtf_losing_sample_waits_and_sm0_returns_to_run():
    tw = srtf_pair()
    tw.update(0, 1, rem=5000, pred=6000, t=400, res=8)            # run has no prediction yet
    assert tw.samp == 1                                            # decided once it has one
    tw.update(2, 0, rem=4000, pred=8000, t=1000, res=8)
    assert (tw.run, tw.samp, tw.switches) == (0, None, [])
    assert tw.row(0) == [(0, 8)]


def tie_keeps_incumbent(cls) -> bool:
    """Equal remaining times: the running kernel stays (our choice where [SRTF] is silent)."""
    tw = srtf_pair(cls)
    tw.update(2, 0, rem=700, pred=800, t=100, res=8)
    tw.update(0, 1, rem=700, pred=900, t=300, res=8)
    tw.update(3, 0, rem=700, pred=800, t=100, res=8)               # a later update, still a tie
    return tw.run == 0 and not tw.switches


class SwitchesOnTies(KernelSchedTwin):
    """Mutant: a controller that switches on ties."""

    @staticmethod
    def better(rem, incumbent):
        return rem <= incumbent


def test_ties_keep_the_incumbent_and_the_tie_mutant_is_caught():
    assert tie_keeps_incumbent(KernelSchedTwin)
    assert not tie_keeps_incumbent(SwitchesOnTies)


def test_srtf_switches_back_when_the_estimate_changes():
    tw = srtf_pair()
    tw.update(2, 0, rem=4000, pred=8000, t=1000, res=8)
    tw.update(0, 1, rem=3000, pred=3500, t=400, res=8)
    assert tw.run == 1
    tw.update(6, 1, rem=5000, pred=6000, t=700, res=8)            # the short one got longer
    assert tw.run == 0 and tw.switches[-1] == (1, 0, "update")


def test_bad_policy_is_refused():
    with pytest.raises(ValueError, match="policy"):
        KernelSchedTwin(8, 15, "sjf")


def adaptive_pair(pred_short: int) -> KernelSchedTwin:
    """L: 200 blocks per SM, t = 1000, R = 8, so T_L = 25,000; S sampled with ``pred_short``."""
    tw = KernelSchedTwin(8, 15, "adaptive", GTX480)
    tw.arrive(0, 3000, 8)
    tw.arrive(1, 1800, 8)
    tw.update(2, 0, rem=24_900, pred=25_000, t=1000, res=8)       # L alone: T_L
    tw.update(0, 1, rem=pred_short - 100, pred=pred_short, t=1000, res=8)
    return tw


def test_adaptive_shares_only_if_2_ts_exceeds_tl():
    tw = adaptive_pair(15_000)                                   # 30,000 > 25,000: share
    assert tw.run == 1 and tw.pair == (1, 0) and tw.sharing_log == [(1, 0, "enter")]
    assert tw.row(0) == tw.row(9) == [(1, 3), (0, 8)]           # S capped at 3, L beside it
    assert tw.commands[-1] == (CTL_CAP, 1, 0, 3, 0)
    tw2 = adaptive_pair(12_500)                                  # 25,000 = 25,000: SRTF only
    assert tw2.run == 1 and tw2.pair is None and tw2.row(4) == [(1, 8)]


def test_adaptive_monitors_the_spread_and_never_reenters():
    tw = adaptive_pair(15_000)
    # L at residency 5 beside S: NB1 = 15,000·5/1000 = 75, TS2 = 125·1000/8; sd_S = 1,
    # sd_L = 1.225: spread 0.225 < T_S/T_L = 0.6, keep sharing
    tw.update(6, 0, rem=20_000, pred=25_000, t=1000, res=5)
    tw.update(5, 1, rem=15_000, pred=20_000, t=1300, res=3)     # sd_S 1.33, sd_L 1.3
    assert tw.pair == (1, 0)
    tw.update(5, 1, rem=30_000, pred=40_000, t=2000, res=3)     # sd_S 2.67, sd_L 1.6: leave
    assert tw.pair is None and tw.sharing_log[-1] == (1, 0, "spread")
    assert tw.row(3) == [(1, 8)] and tw.commands[-1] == (CTL_CAP, 1, 0, 8, 0)
    tw.update(6, 1, rem=10_000, pred=15_000, t=1000, res=8)
    assert tw.pair is None                                        # the pair shared once


def test_adaptive_sharing_ends_with_a_kernel():
    tw = adaptive_pair(15_000)
    tw.end(0)
    assert tw.pair is None and tw.sharing_log[-1] == (1, 0, "end") and tw.row(2) == [(1, 8)]


def test_zero_sampling_knows_remaining_times_from_arrival():
    tw = KernelSchedTwin(8, 15, "srtf_zero", GTX480)
    tw.arrive(0, 100, 8, t_sp=10_000)
    tw.arrive(1, 50, 8, t_sp=3_000)
    assert tw.samp is None and tw.run == 1 and tw.switches == [(0, 1, "oracle")]
    for _ in range(40):
        tw.block_done(1)
    assert tw.G[1].rem == 3_000 * 10 // 50 and tw.run == 1
    tw.update(0, 1, rem=10**6, pred=10**6, t=5, res=8)           # predictor records ignored
    assert tw.run == 1


# -- RTL (hdl/kernel_sched.py) against the port-level twin ------------------------------------------

SMALL = {"K": 4, "NSM": 2, "CW": 10, "BW": 10, "RW": 3}


# MPMax at K = 4, NSM = 2 with 8-bit footprints and small limits, so caps of 1, reservations
# that do not fit and kernels alone all occur
MPMAX = {**SMALL, "policy": "mpmax", "FW": 8, "LIMITS": "96,255,200,8,12"}


@pytest.mark.parametrize("params, cycles", [({**SMALL, "policy": "srtf"}, 12_000),
                                            ({**SMALL, "policy": "fifo"}, 6_000),
                                            (MPMAX, 6_000),
                                            ({**SMALL, "policy": "srtf_zero"}, 8_000),
                                            ({**SMALL, "policy": "adaptive"}, 12_000),
                                            ({"NSM": 3}, 1_500)],
                         ids=["srtf", "fifo", "mpmax", "srtf_zero", "adaptive", "default"])
def test_lockstep_amaranth(params, cycles):
    spec = get_block("kernel_sched")
    rep = run_lockstep_amaranth(spec, parse_params(spec, params), cycles, 3)
    assert rep.cycles == cycles


def test_lockstep_catches_the_tie_mutant_twin_and_rtl():
    from hdl.kernel_sched import KernelSched
    from sim.blocks.kernel_sched import KernelSchedPorts
    spec = get_block("kernel_sched")
    p = parse_params(spec, SMALL)
    with pytest.raises(LockstepMismatch):
        run_lockstep_amaranth(spec, p, 12_000, 3, twin=KernelSchedPorts(
            4, 2, 10, 10, 3, controller=SwitchesOnTies))
    bad = dataclasses.replace(spec, make_rtl=lambda q: KernelSched(4, 2, 10, 10, 3, ties_switch=True))
    with pytest.raises(LockstepMismatch):
        run_lockstep_amaranth(bad, p, 12_000, 3)


def test_port_twin_takes_one_event_per_cycle_and_holds_commands():
    from sim.blocks.kernel_sched import KernelSchedPorts
    tw = KernelSchedPorts(4, 2, 10, 10, 3)
    o = tw.step(arr_valid=1, arr_k=2, arr_blocks=9, arr_R=3)
    assert o["arr_ready"] == 1 and not o["run_valid"]
    o = tw.step(arr_valid=1, arr_k=1, arr_blocks=4, arr_R=2)     # LAUNCH of 2 not taken yet
    assert (o["run_valid"], o["run"], o["ctl_valid"], o["ctl_kind"], o["ctl_total"]) == (1, 2, 1, CTL_LAUNCH, 5)
    assert o["arr_ready"] == 0 and o["allow"] == (1 << 2) | (1 << 6) and o["first"] == 0b1010
    o = tw.step(arr_valid=1, arr_k=1, arr_blocks=4, arr_R=2, ctl_ready=1)
    o = tw.step(arr_valid=1, arr_k=1, arr_blocks=4, arr_R=2)     # accepted now: 1 is sampled
    o = tw.step()
    assert (o["samp_valid"], o["samp"]) == (1, 1) and o["allow"] == (1 << 1) | (1 << 6)


# -- knobs ([SRTF]): sample size, free sampling SM -----------------------------------------------

def test_sample_size_2_waits_for_a_second_record_from_the_sampling_sm():
    tw = KernelSchedTwin(8, 15, "srtf", GTX480, sample_size=2)
    tw.arrive(0, 3000, 8)
    tw.arrive(1, 200, 8)
    tw.update(4, 0, rem=90_000, pred=100_000, t=1000, res=8)
    tw.update(0, 1, rem=600, pred=1000, t=400, res=8)             # first record: no decision
    assert (tw.run, tw.samp) == (0, 1)
    tw.update(3, 1, rem=500, pred=900, t=400, res=8)              # not from the sampling SM
    assert tw.samp == 1
    tw.update(0, 1, rem=550, pred=950, t=400, res=8)
    assert (tw.run, tw.samp) == (1, None) and tw.switches == [(0, 1, "sample")]


def test_free_sampling_sm_samples_where_it_is_bound():
    tw = KernelSchedTwin(8, 15, "srtf", GTX480, sample_sm=None)
    tw.arrive(0, 3000, 8)
    tw.arrive(1, 200, 8)
    assert tw.samp == 1 and tw.sample_sm is None
    assert tw.row(0) == tw.row(6) == [(0, 8)]                     # nobody samples before binding
    tw.bind_sample_sm(6)
    tw.bind_sample_sm(2)                                          # the first binding holds
    assert tw.row(6) == [(1, 8)] and tw.row(0) == [(0, 8)]
    tw.update(4, 0, rem=90_000, pred=100_000, t=1000, res=8)
    tw.update(0, 1, rem=600, pred=1000, t=400, res=8)             # SM 0 is not the sampler now
    assert tw.samp == 1
    tw.update(6, 1, rem=600, pred=1000, t=400, res=8)
    assert (tw.run, tw.samp) == (1, None)


class NoReservation(KernelSchedTwin):
    """Mutant MPMax: caps ignore the composite co-runner (every running kernel at its R)."""

    def _recompute_caps(self):
        for k in self.order:
            self.caps[k] = self.R[k]


def test_mpmax_lockstep_catches_a_controller_without_the_reservation():
    from sim.blocks.kernel_sched import KernelSchedPorts
    spec = get_block("kernel_sched")
    p = parse_params(spec, MPMAX)
    with pytest.raises(LockstepMismatch, match="cap"):
        run_lockstep_amaranth(spec, p, 6_000, 3, twin=KernelSchedPorts(
            4, 2, 10, 10, 3, "mpmax", controller=NoReservation, FW=8, LIMITS=MPMAX["LIMITS"]))


def test_mpmax_rtl_gives_the_section_2_6_example():
    """Two slot-limited kernels on gtx480 limits: cap 7 each, the older first ([SRTF MPMax])."""
    from cosim.amaranth_backend import run_sequence
    spec = get_block("kernel_sched")
    p = parse_params(spec, {"K": 2, "NSM": 2, "policy": "mpmax"})
    fp = sum(v << (16 * r) for r, v in enumerate(SLOT_LIMITED))
    arrive = [{"arr_valid": 1, "arr_k": k, "arr_blocks": 1000, "arr_R": 8, "arr_fp": fp,
               "ctl_ready": 1} for k in (1, 0, 0)]           # 0 waits while LAUNCH(1) is out
    outs = run_sequence(spec, p, arrive + [{"ctl_ready": 1}] * 3)
    last = outs[-1]
    assert last["allow"] == 0b1111 and last["cap"] == (7 | 7 << 5) * (1 | 1 << 10)
    assert last["first"] == 0b11 and last["prio"] == 0b01        # slot 1 arrived first


# -- zero-sampling SRTF in the RTL ([SRTF zero-sampling]) ----------------------------------------------------

class ZeroStale(KernelSchedTwin):
    """Mutant zero-sampling: block ends do not refresh the remaining time (T^SP stays)."""

    def block_done(self, k):
        if k in self.order:
            self._oracle_switch()


def test_zero_sampling_lockstep_catches_stale_remaining_times():
    from sim.blocks.kernel_sched import KernelSchedPorts
    spec = get_block("kernel_sched")
    p = parse_params(spec, {**SMALL, "policy": "srtf_zero"})
    with pytest.raises(LockstepMismatch, match="run"):
        run_lockstep_amaranth(spec, p, 8_000, 3, twin=KernelSchedPorts(
            4, 2, 10, 10, 3, "srtf_zero", controller=ZeroStale))


def test_zero_sampling_rtl_switches_when_block_ends_make_next_shorter():
    """T^SP 900 (100 blocks) and then 600 (10 blocks): 1 runs; after d block ends of 0 its rem is
    900 · (100 − d) // 100, below 600 first at d = 34, and 0 runs again. Records are ignored."""
    from cosim.amaranth_backend import run_sequence
    spec = get_block("kernel_sched")
    p = parse_params(spec, {**SMALL, "policy": "srtf_zero"})
    seq = [{"arr_valid": 1, "arr_k": 0, "arr_blocks": 100, "arr_R": 2, "arr_tsp": 900,
            "ctl_ready": 1},
           {"ctl_ready": 1},
           {"arr_valid": 1, "arr_k": 1, "arr_blocks": 10, "arr_R": 2, "arr_tsp": 600,
            "ctl_ready": 1},
           {"ctl_ready": 1},
           {"upd_valid": 1, "upd_k": 0, "upd_rem": 1, "upd_t": 1}]
    seq += [{"done_valid": 1, "done_k": 0}] * 40 + [{}]
    outs = run_sequence(spec, p, seq)
    assert (outs[4]["run"], outs[4]["samp_valid"], outs[4]["upd_ready"]) == (1, 0, 1)
    assert outs[5]["run"] == 1                                    # the record changed nothing
    assert outs[5]["done_ready"] == 1 and outs[5]["upd_ready"] == 0
    runs = [o["run"] for o in outs[5:]]
    assert runs.index(0) == 34 and set(runs[34:]) == {0}
    assert outs[-1]["allow"] == 0b0001_0001 and outs[-1]["first"] == 0


def test_a_sample_that_becomes_run_ends_without_a_decision_rtl_and_twin():
    """run (0) ends while 1 is sampled and next() is 1: 1 runs everywhere and the sample ends
    ([SRTF] compares a waiting sample with run); RTL and port twin agree cycle by cycle."""
    from cosim.amaranth_backend import run_sequence
    from sim.blocks.kernel_sched import KernelSchedPorts
    spec = get_block("kernel_sched")
    p = parse_params(spec, {**SMALL, "policy": "srtf"})
    seq = [{"arr_valid": 1, "arr_k": 0, "arr_blocks": 10, "arr_R": 2, "ctl_ready": 1},
           {"ctl_ready": 1},
           {"arr_valid": 1, "arr_k": 1, "arr_blocks": 10, "arr_R": 2, "ctl_ready": 1},
           {"ctl_ready": 1},
           {"all_dispatched": 0b0001},
           {"kernel_end": 0b0001},
           {}, {"ctl_ready": 1}, {}, {}]
    outs = run_sequence(spec, p, seq)
    tw = KernelSchedPorts(4, 2, 10, 10, 3, "srtf")
    assert [tw.step(**inp) for inp in seq] == outs
    assert (outs[4]["run"], outs[4]["samp_valid"], outs[4]["samp"]) == (0, 1, 1)
    assert (outs[-1]["run"], outs[-1]["run_valid"], outs[-1]["samp_valid"]) == (1, 1, 0)
    assert outs[-1]["allow"] == 0b0010_0010


# -- Adaptive in the RTL ([SRTF SRTF/Adaptive]) -------------------------------------------------

class NoSpreadTest(KernelSchedTwin):
    """Mutant Adaptive: sharing never ends on the spread test (only with a kernel)."""

    def _monitor_sharing(self):
        pass


def test_adaptive_lockstep_shares_and_catches_a_controller_without_the_spread_test():
    from cosim.stimuli.kernel_sched import KernelSchedStimulus
    from sim.blocks.kernel_sched import KernelSchedPorts
    tw, st, prev, multi = KernelSchedPorts(4, 2, 10, 10, 3, "adaptive"), \
        KernelSchedStimulus(4, 2, 10, 10, 3, 3), None, 0
    for _ in range(12_000):                 # the stimulus reaches every sharing path
        prev = tw.step(**st.next(prev))
        multi += len(tw.cmds) > 1
    whys = {why for _, _, why in tw.ctrl.sharing_log}
    assert whys == {"enter", "spread", "end"} and multi > 10
    spec = get_block("kernel_sched")
    p = parse_params(spec, {**SMALL, "policy": "adaptive"})
    with pytest.raises(LockstepMismatch):
        run_lockstep_amaranth(spec, p, 12_000, 3, twin=KernelSchedPorts(
            4, 2, 10, 10, 3, "adaptive", controller=NoSpreadTest))
