"""warp_sched: directed LRR/GTO rules on both RTL and twin, random lockstep, mutation caught."""

import random

import pytest

from cosim.amaranth_backend import run_lockstep_amaranth, run_sequence
from cosim.lockstep import LockstepMismatch
from gpusched.blocks import get_block, parse_params
from sim.blocks.warp_sched import WarpSchedPort, WarpSchedTwin

LOCKSTEP_CYCLES = 5_000    # random-stimulus lockstep here; the 100k-cycle soaks: gpusched verify

SPEC = get_block("warp_sched")

# (ready, launch, expected grant or None) — [GPGPU-Sim scheduler_unit::cycle()], W = 4.
LRR_CASE = [
    (0b1010, 0, 1),   # start-up: walk begins at slot 0 → first ready is 1
    (0b1011, 0, 3),   # after last=1: 2 not ready, 3 is
    (0b0011, 0, 0),   # after 3: wrap to 0
    (0b0000, 0, None),  # no issue: pointer unchanged
    (0b0011, 0, 1),   # still after 0 → 1
    (0b0010, 0b0010, 1),  # a new warp in the issuing slot does not move the pointer
    (0b0011, 0, 0),
]
GTO_CASE = [
    (0b0110, 0, 1),        # greedy slot 0 not ready → oldest ready (lower slot) 1
    (0b0111, 0, 1),        # greedy 1 ready → 1 again
    (0b1101, 0b0001, 0),   # greedy 1 stalled → oldest of {0,2,3} = 0; slot 0 relaunched (youngest)
    (0b1100, 0, 2),        # oldest of {2,3}
    (0b1001, 0, 3),        # slot 0 is now youngest → 3
    (0b0000, 0, None),     # no issue: greedy stays 3
    (0b1001, 0, 3),        # greedy 3
    (0b0000, 0b0110, None),  # slots 1, 2 relaunched in one cycle: 1 older than 2
    (0b0111, 0, 0),        # greedy 3 not ready → 0 (launched before 1, 2)
    (0b0110, 0, 1),        # 1 older than 2
]


def _expected(case):
    return [None if g is None else g for _, _, g in case]


def _grants(outputs):
    return [o["grant_idx"] if o["grant_valid"] else None for o in outputs]


@pytest.mark.parametrize("policy, case", [("lrr", LRR_CASE), ("gto", GTO_CASE)])
def test_directed_rules_on_twin_and_rtl(policy, case):
    params = parse_params(SPEC, {"W": 4, "policy": policy})
    inputs = [{"ready": r, "launch": l} for r, l, _ in case]
    twin = WarpSchedTwin(4, policy)
    twin_out = [twin.step(**i) for i in inputs]
    rtl_out = run_sequence(SPEC, params, inputs)
    assert _grants(twin_out) == _expected(case)
    assert _grants(rtl_out) == _expected(case)
    for o in rtl_out:  # grant is one-hot and agrees with grant_idx
        assert o["grant"] == (1 << o["grant_idx"] if o["grant_valid"] else 0)


@pytest.mark.parametrize("policy", ["lrr", "gto"])
@pytest.mark.parametrize("w", [4, 8, 32, 64])
def test_random_lockstep_5k_cycles(policy, w):
    """RTL (Amaranth simulator) and twin agree on every output for 20 000 random cycles."""
    _lockstep_clean({"W": w, "policy": policy}, LOCKSTEP_CYCLES, seed=1000 + w)


def _lockstep_clean(params: dict, cycles: int, seed: int) -> None:
    """RTL and twin agree on every output for ``cycles`` random cycles."""
    report = run_lockstep_amaranth(SPEC, parse_params(SPEC, params), cycles, seed=seed)
    assert report.cycles == cycles and report.mismatches == 0


@pytest.mark.parametrize("policy", ["lrr", "gto", "old"])
def test_the_port_record_step_equals_step(policy):
    """The model's call (``step_port`` on the sub-core's reused record) gives the outputs and
    the state update of ``step`` with the same inputs, cycle by cycle (random ready masks,
    launches in some cycles, idle cycles between)."""
    rng = random.Random(5)
    by_dict, by_record = WarpSchedTwin(16, policy), WarpSchedTwin(16, policy)
    port = WarpSchedPort(sm_id=3)
    for _ in range(5_000):
        ready = rng.getrandbits(16) if rng.random() < 0.8 else 0
        launch = rng.getrandbits(16) & rng.getrandbits(16) if rng.random() < 0.1 else 0
        want = by_dict.step(ready=ready, launch=launch)
        port.ready, port.launch = ready, launch
        by_record.step_port(port)
        assert (port.grant, port.grant_valid, port.grant_idx) == \
            (want["grant"], want["grant_valid"], want["grant_idx"])
    assert (by_record.age, by_record.last) == (by_dict.age, by_dict.last)


class LrrFromLastTwin(WarpSchedTwin):
    """Mutation: LRR walks from the last-issued slot itself instead of the slot after it."""

    def pick(self, ready):
        if self.policy == "lrr" and ready >> self.last & 1:
            return self.last
        return super().pick(ready)


class GtoYoungestTwin(WarpSchedTwin):
    """Mutation: GTO falls back to the youngest ready warp instead of the oldest."""

    def pick(self, ready):
        if self.policy != "gto" or not ready or ready >> self.last & 1:
            return super().pick(ready)
        slots = [w for w in range(self.n_warps) if ready >> w & 1]
        return max(slots, key=lambda w: self.age[w])


@pytest.mark.parametrize("policy, mutant", [("lrr", LrrFromLastTwin), ("gto", GtoYoungestTwin)])
def test_lockstep_catches_a_changed_priority_rule(policy, mutant):
    params = parse_params(SPEC, {"W": 8, "policy": policy})
    with pytest.raises(LockstepMismatch) as e:
        run_lockstep_amaranth(SPEC, params, 5_000, seed=7, twin=mutant(8, policy))
    msg = str(e.value)
    assert "mismatch at cycle" in msg and "seed=7" in msg
    assert "inputs: ready=" in msg and "twin:" in msg and "rtl:" in msg


def test_bad_parameters_are_rejected():
    from gpusched.config import ConfigError
    with pytest.raises(ConfigError, match="W"):
        parse_params(SPEC, ["W=65"])
    with pytest.raises(ConfigError, match="policy"):
        parse_params(SPEC, ["policy=fifo"])
    with pytest.raises(ConfigError, match="unknown parameter"):
        parse_params(SPEC, ["M=3"])


# -- oldest first and the two-level active scheduler ([GPGPU-Sim two_level_active_scheduler]) --

OLD_CASE = [
    (0b0110, 0, 1),        # oldest ready (lower slot at start-up)
    (0b0111, 0, 0),        # no greedy entry: the oldest, slot 0
    (0b1101, 0b0001, 0),   # slot 0 relaunched at the edge (youngest from now on)
    (0b1101, 0, 2),        # 0 is now the youngest → 2
    (0b1001, 0, 3),
]


def _two_level_inputs(ready, valid=0b111111, mem_wait=0, barrier=0):
    return {"ready": ready, "launch": 0, "valid": valid, "mem_wait": mem_wait, "barrier": barrier}


# [GPGPU-Sim two_level_active_scheduler]: active list [a b c d e f] (slots 0..5, N = 6); b issues →
# [c d e f a b]; then the entry at the same position (d) issues → [e f a b c d]; with every warp
# ready the list order shows.
ROTATION_CASE = [(_two_level_inputs(0b000010), 1), (_two_level_inputs(0b001000), 3)] + \
    [(_two_level_inputs(0b111111), g) for g in (4, 5, 0, 1, 2, 3, 4)]

# N = 2 of 4 slots: active [0 1], pending [2 3]. Slot 0 waits on memory → demoted to the back,
# 2 promoted: active [1 2], pending [3 0]. A slot that is not valid counts as waiting.
DEMOTION_CASE = [
    (_two_level_inputs(0b1111, valid=0b1111), 0),
    (_two_level_inputs(0b1111, valid=0b1111, mem_wait=0b0001), 1),   # [1 2] → 1 issues → [2 1]
    (_two_level_inputs(0b1100, valid=0b1111), 2),                    # 2 first in [2 1]
]


def test_old_directed_on_twin_and_rtl():
    params = parse_params(SPEC, {"W": 4, "policy": "old"})
    inputs = [{"ready": r, "launch": l} for r, l, _ in OLD_CASE]
    twin = WarpSchedTwin(4, "old")
    twin_out = [twin.step(**i) for i in inputs]
    assert _grants(twin_out) == _grants(run_sequence(SPEC, params, inputs)) == _expected(OLD_CASE)


@pytest.mark.parametrize("w, n, case", [(6, 6, ROTATION_CASE), (8, 6, ROTATION_CASE)])
def test_two_level_rotation_example_on_twin_and_rtl(w, n, case):
    from sim.blocks.two_level import TwoLevelActiveTwin
    params = parse_params(SPEC, {"W": w, "policy": "two_level", "N": n})
    inputs = [i for i, _ in case]
    twin = TwoLevelActiveTwin(w, n)
    twin_out = [twin.step(**i) for i in inputs]
    expected = [g for _, g in case]
    assert _grants(twin_out) == expected
    assert _grants(run_sequence(SPEC, params, inputs)) == expected


def test_two_level_demotes_waiting_warps_and_promotes_the_pending_front():
    from sim.blocks.two_level import TwoLevelActiveTwin
    twin = TwoLevelActiveTwin(4, 2)
    seen = []
    for inputs, want in DEMOTION_CASE[:3]:
        seen.append(twin.step(**inputs)["grant_idx"])
        assert seen[-1] == want
    # after the three cycles: active [1 2] rotated by 2's issue → [1 2]; pending [3 0]
    assert twin.order == [1, 2, 3, 0]
    twin.step(**_two_level_inputs(0, valid=0b1101))      # 1 invalid: demoted, 3 promoted
    assert twin.order == [2, 3, 0, 1]
    params = parse_params(SPEC, {"W": 4, "policy": "two_level", "N": 2})
    rtl = run_sequence(SPEC, params, [i for i, _ in DEMOTION_CASE[:3]])
    assert _grants(rtl) == [g for _, g in DEMOTION_CASE[:3]]


@pytest.mark.parametrize("policy, w, n", [("old", 8, 1), ("old", 32, 1), ("two_level", 4, 2),
                                          ("two_level", 8, 4), ("two_level", 12, 6),
                                          ("two_level", 8, 8)])
def test_random_lockstep_new_policies_5k_cycles(policy, w, n):
    _lockstep_clean({"W": w, "policy": policy, "N": n}, LOCKSTEP_CYCLES, seed=500 + w + n)


def _no_demotion_twin(w, n):
    from sim.blocks.two_level import TwoLevelActiveTwin

    class NoDemotion(TwoLevelActiveTwin):
        """Mutation: waiting warps stay in the active list (no demotion, no promotion)."""

        def partition(self, inputs):
            return list(self.order)
    return NoDemotion(w, n)


def test_lockstep_catches_a_two_level_scheduler_without_demotion():
    params = parse_params(SPEC, {"W": 8, "policy": "two_level", "N": 4})
    with pytest.raises(LockstepMismatch, match="mismatch at cycle"):
        run_lockstep_amaranth(SPEC, params, 5_000, seed=9, twin=_no_demotion_twin(8, 4))


def test_two_level_needs_n_within_the_slots():
    from gpusched.config import ConfigError
    with pytest.raises(ConfigError, match="N = 9"):
        parse_params(SPEC, {"W": 8, "policy": "two_level", "N": 9})


@pytest.mark.slow
@pytest.mark.parametrize("policy, w, n", [("lrr", 32, 1), ("gto", 32, 1), ("old", 32, 1),
                                          ("two_level", 8, 4), ("two_level", 16, 6),
                                          ("two_level", 32, 8)])
def test_random_lockstep_soak_100k_cycles(policy, w, n):
    """The soak behind --runslow: 100 000 random cycles per configuration."""
    _lockstep_clean({"W": w, "policy": policy, "N": n}, 100_000, seed=7000 + w + n)


def test_gpusched_verify_soaks_every_warp_scheduler_policy():
    from gpusched.commands.verify_cmd import SOAK_CYCLES, SOAKS, _checks
    names = [n for n in _checks() if n.startswith("lockstep-warp_sched-")]
    assert len(names) == len(SOAKS) and SOAK_CYCLES >= 100_000
    from hdl.params.warp_sched import POLICIES
    assert {p["policy"] for _, p in SOAKS} == set(POLICIES)
