"""[OWL §4.2, Fig. 4B], the rotating-head group assignment (``owl_locality_rot``, ``owl_blp_rot``):
a refilled CTA joins the lowest-priority group and the head moves on once its group has no live
warp; directed on twin and RTL against A3 (a), random lockstep, a mutant caught, and GPU runs."""

from __future__ import annotations

import pytest

from cosim.amaranth_backend import run_lockstep_amaranth, run_sequence
from cosim.lockstep import LockstepMismatch
from gpusched.blocks import get_block, parse_params
from gpusched.config import get_preset, with_overrides
from hdl.params.owl import next_head, tail_group
from sim.blocks.owl import CheckedOwlTwin, OwlSchedTwin
from sim.run import simulate
from sim.workload.catalogue import get_workload

SPEC = get_block("warp_sched")
W, K, N = 16, 4, 4          # 4-warp CTAs, 4 per SM: n = 2 CTAs per group, g_core = 2
CTA = [((1 << K) - 1) << (c * K) for c in range(N)]
ALL = (1 << W) - 1


def _step(ready: int, valid: int, launch: int = 0, cta: int = 0, sm_id: int = 0) -> dict:
    return {"ready": ready, "valid": valid, "launch": launch, "launch_cta": cta,
            "launch_kernel": 3, "warps_per_cta": K, "resident_ctas": N, "sm_id": sm_id}


def _scenario(sm_id: int = 0) -> list[dict]:
    """Fill CTA slots 0-3 (groups 0, 0, 1, 1); probes: all ready; group 1 only; CTA 0 exits;
    CTA 0 refilled; CTAs 0 and 2 ready; CTA 1 exits (twice); CTA 1 refilled; CTAs 0 and 1."""
    seq = [_step(0, sum(CTA[:c + 1]), CTA[c], c, sm_id) for c in range(N)]
    gone0, gone1 = ALL & ~CTA[0], ALL & ~CTA[1]
    seq += [_step(ALL, ALL, sm_id=sm_id), _step(CTA[2] | CTA[3], ALL, sm_id=sm_id),
            _step(gone0, gone0, sm_id=sm_id), _step(0, ALL, CTA[0], 0, sm_id),
            _step(CTA[0] | CTA[2], ALL, sm_id=sm_id),
            _step(gone1, gone1, sm_id=sm_id), _step(gone1, gone1, sm_id=sm_id),
            _step(0, ALL, CTA[1], 1, sm_id), _step(CTA[0] | CTA[1], ALL, sm_id=sm_id)]
    return seq


def _grants(policy: str, inputs: list[dict]) -> tuple[list, OwlSchedTwin]:
    """Grants after the N launches, equal on twin (property checked) and RTL."""
    twin = CheckedOwlTwin(W, policy)
    t = [o["grant_idx"] if o["grant_valid"] else None for o in (twin.step(**i) for i in inputs)]
    params = parse_params(SPEC, {"W": W, "policy": policy})
    r = [o["grant_idx"] if o["grant_valid"] else None for o in run_sequence(SPEC, params, inputs)]
    assert t == r
    return t[N:], twin


def test_head_and_tail_arithmetic():
    assert [next_head(h, 3) for h in range(3)] == [1, 2, 0]
    assert [tail_group(h, 3) for h in range(3)] == [2, 0, 1]
    assert next_head(0, 1) == 0 and tail_group(0, 1) == 0


def test_locality_refill_joins_the_tail_and_the_head_rotates():
    # (a) slot-static: the refilled CTA 0 is group 0 again (top): warp 0, then RR in group 0
    # (CTA 0, later CTAs 0 and 1) while group 1 waits
    got, twin = _grants("owl_locality", _scenario())
    assert got == [0, 8, 4, None, 0, 1, 2, None, 3]
    assert twin.top == 0 and twin.group == [0] * 8 + [1] * 8
    # (b) rotating head: the refilled CTA 0 joins group 1, the tail: with CTA 1 of group 0 not
    # ready, group 1 issues after its last grant (8 → 9); CTA 1 gone: the head moves to group 1
    # (10, 11); the refilled CTA 1 joins the new tail, group 0, behind CTA 0 (now in the head)
    got, twin = _grants("owl_locality_rot", _scenario())
    assert got == [0, 8, 4, None, 9, 10, 11, None, 0]
    assert twin.top == 1 and twin.group == [1] * 4 + [0] * 4 + [1] * 8


@pytest.mark.parametrize("sm_id", [0, 5])
def test_blp_rot_starts_at_the_core_offset(sm_id):
    got, twin = _grants("owl_blp_rot", _scenario(sm_id))
    head = sm_id % 2                                   # g_core = 2
    assert got[0] == (0 if head == 0 else 8)
    if head == 1:       # group 1 is the head: CTA 0's refill joins group 0, the tail, as before
        assert twin.group[:4] == [0] * 4


def _lockstep(params: dict, cycles: int, seed: int, twin=None) -> None:
    p = parse_params(SPEC, params)
    twin = twin or CheckedOwlTwin(p["W"], p["policy"], p["g_size"], p["G"])
    report = run_lockstep_amaranth(SPEC, p, cycles, seed=seed, twin=twin)
    assert report.cycles == cycles and report.mismatches == 0


# the 20 000-cycle lockstep at W = 32 of both variants: tests/blocks/test_owl.py (OWL_POLICIES)
def test_random_lockstep_small_groups():
    _lockstep({"W": 8, "policy": "owl_blp_rot", "g_size": 2, "G": 4}, 5_000, seed=4208)


class RefillKeepsItsSlotGroup(OwlSchedTwin):
    """Mutation: the head rotates but a refill keeps its Algorithm 1 group (A3 (a) refills)."""

    def refill_group(self) -> int:
        return -1


class _Mutant(RefillKeepsItsSlotGroup):
    def advance(self, inputs: dict, g: int) -> None:
        launch = inputs.get("launch", 0)
        keep = None
        if launch and self.rotate and launch & self.used and inputs.get("launch_kernel", 0) == self.kernel:
            from hdl.params.owl import group_of_cta
            keep = group_of_cta(inputs.get("launch_cta", 0), inputs.get("resident_ctas", 0),
                                inputs.get("warps_per_cta", 0), self.g_size, self.n_groups)
        super().advance(inputs, g)
        if keep is not None:
            for w in range(self.n_warps):
                if launch >> w & 1:
                    self.group[w] = keep
            self.masks = self._masks()


def test_lockstep_catches_refills_that_keep_their_slot_group():
    params = parse_params(SPEC, {"W": 32, "policy": "owl_locality_rot"})
    with pytest.raises(LockstepMismatch, match="mismatch at cycle"):
        run_lockstep_amaranth(SPEC, params, 20_000, seed=4100, twin=_Mutant(32, "owl_locality_rot"))


def _gpu(policy: str) -> dict:
    cfg = with_overrides(get_preset("owl"), ["sm.count=4", f"sm.warp_sched={policy}"])
    return simulate(cfg, get_workload("owl_t_stream_shared", scale=0.1), memory="hierarchy")


@pytest.fixture(scope="module")
def rot_run():
    return _gpu("owl_blp_rot")


def test_gpu_run_differs_from_slot_static_with_several_waves(rot_run):
    """48 CTAs on 4 SMs of 8 slots: refills happen, and (b) changes the run; same work."""
    static = _gpu("owl_blp")
    assert len(rot_run["ctas"]["rows"]) > 4 * 8
    assert static["warp_insts"] == rot_run["warp_insts"]
    assert static["cycles"] != rot_run["cycles"]


def test_stepping_only_at_issue_slots_is_exact(rot_run, monkeypatch):
    """The model steps the twin only when its sub-core may issue or launches; the head's state
    (hdl/params/owl.py) then gives the same grants as stepping it every cycle."""
    from sim.policies.warp_sched import WARP_SCHEDULERS
    monkeypatch.setitem(WARP_SCHEDULERS["owl_blp_rot"].extra, "every_cycle", True)
    every = _gpu("owl_blp_rot")
    assert every["cycles"] == rot_run["cycles"]
    assert every["issue"] == rot_run["issue"] and every["ctas"] == rot_run["ctas"]
