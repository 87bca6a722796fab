"""srtf_pred (hdl/srtf_pred.py vs sim/blocks/srtf_pred.py): random lockstep, Eq. 2 on hand-computed
cases, the predictor properties of our test plan, and the mutants the lockstep must catch."""

from __future__ import annotations

import dataclasses

import pytest

from cosim.amaranth_backend import run_lockstep_amaranth, run_sequence
from cosim.lockstep import LockstepMismatch
from gpusched.blocks import get_block, parse_params
from hdl.params.srtf_pred import CTL_CAP, CTL_END, CTL_LAUNCH, CTL_SEED, PredShape, eq2_rem
from sim.blocks.srtf_pred import SrtfPredTwin

SMALL = {"K": 4, "SLOTS": 4, "CW": 10, "BW": 4, "RW": 3}     # saturation and wrap within reach


@pytest.mark.parametrize("params, seed", [({}, 1), (SMALL, 2)], ids=["default", "small"])
def test_lockstep_amaranth(params, seed):
    spec = get_block("srtf_pred")
    rep = run_lockstep_amaranth(spec, parse_params(spec, params), 20_000, seed)
    assert rep.cycles == 20_000


class ResidentIsR(SrtfPredTwin):
    """Mutant: Eq. 2 divides by R_k, ignoring the cap (the document's form)."""

    def divisor(self, k):
        return self.rmax[k]


class ResampleEveryEnd(SrtfPredTwin):
    """Mutant (our test plan): t re-sampled at every block end, not only after a slice boundary."""

    def sample_t(self, k, dur):
        return dur


@pytest.mark.parametrize("mutant", [ResidentIsR, ResampleEveryEnd])
def test_lockstep_catches_mutant_twin(mutant):
    spec = get_block("srtf_pred")
    p = parse_params(spec, {})
    with pytest.raises(LockstepMismatch):
        run_lockstep_amaranth(spec, p, 20_000, 1, twin=mutant())


def test_lockstep_catches_mutant_rtl():
    """The RTL built with ``use_rmax`` (R instead of min(R, cap)) against the good twin."""
    from hdl.srtf_pred import SrtfPred
    spec = get_block("srtf_pred")
    bad = dataclasses.replace(spec, make_rtl=lambda p: SrtfPred(use_rmax=True))
    with pytest.raises(LockstepMismatch):
        run_lockstep_amaranth(bad, parse_params(spec, {}), 20_000, 1)


# -- directed cases, run on the twin and the RTL alike ---------------------------------------------

def cmd(kind, k, total=0, res=0, t=0):
    return {"ctl_valid": 1, "ctl_kind": kind, "ctl_k": k, "ctl_total": total, "ctl_res": res,
            "ctl_t": t}


def start(slot, k):
    return {"blk_start_valid": 1, "blk_start_slot": slot, "blk_start_k": k}


def script(events: dict[int, dict], cycles: int) -> list[dict]:
    """Inputs per cycle: ``events[c]`` at cycle c, idle otherwise; upd_ready always 1."""
    return [{"upd_ready": 1, **events.get(c, {})} for c in range(cycles)]


def run_both(inputs: list[dict]) -> tuple[list[dict], SrtfPredTwin]:
    twin = SrtfPredTwin()
    outs = [twin.step(**i) for i in inputs]
    assert run_sequence(get_block("srtf_pred"), parse_params(get_block("srtf_pred"), {}),
                        inputs) == outs
    return outs, twin


def updates(outs):
    return [(c, o) for c, o in enumerate(outs) if o["upd_valid"]]


LAT = PredShape().pred_lat      # 66 = 1 + 16 + 48 + 1 (our cycle contract for [SRTF])


def test_first_block_end_gives_eq2_after_pred_lat():
    # kernel 0: 10 blocks on this SM, R = 4; one block in slot 0 from cycle 1 to 101 (t = 100)
    outs, twin = run_both(script({0: cmd(CTL_LAUNCH, 0, total=10, res=4), 1: start(0, 0),
                                  101: {"blk_end": 1}}, 101 + 1 + LAT + 3))
    assert LAT == 66
    ups = updates(outs)
    assert [c for c, _ in ups] == [101 + 1 + LAT]       # the sequencer starts the cycle after
    u = ups[0][1]
    # Eq. 2: Active = 100 resident cycles; Rem = floor((10 − 1) · 100 / 4) = 225
    assert (u["upd_k"], u["upd_t"], u["upd_res"], u["upd_rem"], u["upd_pred"]) == (0, 100, 4, 225, 325)
    assert all(not o["pvalid"] for o in outs[:101 + 1 + LAT])      # no prediction before
    assert outs[-1]["pvalid"] == 1 and twin.active[0] == 100


def test_t_resampled_only_after_a_slice_boundary_and_cap_divides():
    # two blocks: slot 0 ends at 101 (t = 100), slot 1 ends at 400 (no boundary: t stays 100);
    # then CAP(0, 2) re-slices: slot 2's block, 500..650, re-samples t = 150 and divides by 2
    ev = {0: cmd(CTL_LAUNCH, 0, total=10, res=4), 1: start(0, 0), 2: start(1, 0),
          101: {"blk_end": 1}, 400: {"blk_end": 2}, 480: cmd(CTL_CAP, 0, res=2),
          500: start(2, 0), 650: {"blk_end": 4}}
    outs, _ = run_both(script(ev, 650 + 1 + LAT + 2))
    recs = [o for _, o in updates(outs)]
    assert [(r["upd_t"], r["upd_res"], r["upd_rem"]) for r in recs] == [
        (100, 4, 9 * 100 // 4), (100, 4, 8 * 100 // 4), (150, 2, 7 * 150 // 2)]
    # Active: slot 0 or 1 resident over cycles 1..399, slot 2 over 500..649
    assert recs[-1]["upd_pred"] == 399 + 150 + 7 * 150 // 2


def test_launch_of_another_kernel_reslices_and_seed_keeps_a_prediction():
    ev = {0: cmd(CTL_LAUNCH, 0, total=20, res=8), 1: start(0, 0), 51: {"blk_end": 1},
          200: cmd(CTL_LAUNCH, 1, total=5, res=2),           # slice boundary for kernel 0
          201: start(1, 0), 281: {"blk_end": 2},              # re-sampled: t = 80
          360: cmd(CTL_SEED, 0, t=7), 361: cmd(CTL_SEED, 1, t=30)}    # after the second record
    outs, twin = run_both(script(ev, 361 + LAT + 2))
    recs = [o for _, o in updates(outs)]
    assert [r["upd_t"] for r in recs] == [50, 80]
    assert twin.t[0] == 80                                    # SEED did not overwrite kernel 0
    # kernel 1 had no prediction: seeded with t0 = 30 → Pred = Active 0 + floor(5 · 30 / 2)
    assert twin.pvalid[1] == 1 and twin.pred[1] == 75 and twin.reslice[1] == 1
    assert [r["upd_k"] for r in recs] == [0, 0]               # SEED emits no record


def test_end_reslices_others_and_two_ends_in_one_cycle():
    # slots 0 and 1 of kernel 0 end in the same cycle: the lower slot re-samples t (60), the
    # higher sees Reslice = 0 and keeps it (its own duration is 59)
    ev = {0: cmd(CTL_LAUNCH, 0, total=9, res=3), 1: cmd(CTL_LAUNCH, 1, total=4, res=1),
          2: start(0, 0), 3: start(1, 0), 62: {"blk_end": 3}}
    outs, twin = run_both(script(ev, 62 + 2 * LAT + 4))
    recs = [(c, o) for c, o in updates(outs)]
    assert [c for c, _ in recs] == [63 + LAT, 64 + 2 * LAT]      # the record holds one cycle
    assert [o["upd_t"] for _, o in recs] == [60, 60]
    assert [o["upd_rem"] for _, o in recs] == [8 * 60 // 3, 7 * 60 // 3]
    assert twin.done[0] == 2 and twin.reslice[1] == 1           # kernel 1 never sampled


def test_update_waits_for_upd_ready_and_blocks_commands():
    ev = {0: cmd(CTL_LAUNCH, 0, total=3, res=1), 1: start(0, 0), 11: {"blk_end": 1}}
    inputs = [{**i, "upd_ready": int(c >= 11 + 1 + LAT + 5)} for c, i in
              enumerate(script(ev, 11 + LAT + 10))]
    twin = SrtfPredTwin()
    outs = [twin.step(**i) for i in inputs]
    assert run_sequence(get_block("srtf_pred"), parse_params(get_block("srtf_pred"), {}),
                        inputs) == outs
    held = [c for c, o in enumerate(outs) if o["upd_valid"]]
    assert held == list(range(12 + LAT, 12 + LAT + 6))        # until the handshake at +5
    assert all(not outs[c]["ctl_ready"] for c in held)


def test_eq2_reference_clamps_and_saturates():
    sh = PredShape(CW=10, BW=4, RW=3)
    assert eq2_rem(5, 7, 100, 2, sh) == 0                     # Done > Total: clamp at 0
    assert eq2_rem(15, 0, 1000, 1, sh) == 1023                # saturates at 2^CW − 1
    assert eq2_rem(10, 1, 100, 4, PredShape()) == 225


def test_random_updates_match_the_integer_reference():
    """Every record of a random run equals Eq. 2 on the entry's state when its job started."""
    spec = get_block("srtf_pred")
    p = parse_params(spec, SMALL)

    class Recording(SrtfPredTwin):
        def _start_job(self, k, t, is_seed):
            super()._start_job(k, t, is_seed)
            ref = eq2_rem(self.total[k], self.done[k], t, self.resident[k], self.shape)
            self.expect = (k, ref, t)
    twin, stim = Recording(**p), spec.make_stimulus(p, 5)
    prev, n = None, 0
    for _ in range(30_000):
        inputs = stim.next(prev)
        out = twin.step(**inputs)
        if out["upd_valid"] and inputs["upd_ready"]:
            n += 1
        if out["upd_valid"] and (prev is None or not prev["upd_valid"]):
            assert (out["upd_k"], out["upd_rem"], out["upd_t"]) == twin.expect
        prev = out
    assert n > 100


@pytest.mark.cosim
@pytest.mark.slow
@pytest.mark.parametrize("params, seed", [({}, 1), (SMALL, 2)], ids=["default", "small"])
def test_lockstep_verilator_200k(params, seed):
    from cosim.runner import run_cosim
    spec = get_block("srtf_pred")
    rep = run_cosim(spec, parse_params(spec, params), 200_000, seed, sim="verilator")
    assert rep.cycles == 200_000


def test_skip_equals_stepping_quiet_cycles():
    """The model's fast path: ``skip(n)`` over ``quiet_cycles()`` equals n input-free steps."""
    import copy
    spec = get_block("srtf_pred")
    p = parse_params(spec, SMALL)
    twin, stim = SrtfPredTwin(**p), spec.make_stimulus(p, 9)
    prev, checked = None, 0
    for cycle in range(20_000):
        q = twin.quiet_cycles()
        if cycle % 97 == 0 and q != 0:
            n = min(q if q is not None else 300, 300)
            a, b = copy.deepcopy(twin), copy.deepcopy(twin)
            a.skip(n)
            outs = [b.step(upd_ready=1) for _ in range(n)]
            assert all(o == outs[0] for o in outs)          # nothing observable moved
            assert vars(a) == vars(b), cycle
            checked += 1
        prev = twin.step(**stim.next(prev))
    assert checked > 50
    with pytest.raises(ValueError):
        twin.skip(-1)


def test_resident_variant_r_divides_by_r_after_a_cap():
    """[SRTF] knob: the document's Resident = R (SrtfPredFixedR) ignores CAP in Eq. 2."""
    from sim.blocks.srtf_pred import SrtfPredFixedR
    ev = {0: cmd(CTL_LAUNCH, 0, total=10, res=4), 1: start(0, 0), 80: cmd(CTL_CAP, 0, res=2),
          101: {"blk_end": 1}}
    inputs = script(ev, 101 + 1 + LAT + 2)
    fixed, tw = SrtfPredFixedR(), SrtfPredTwin()
    rec = [o for o in map(lambda i: fixed.step(**i), inputs) if o["upd_valid"]][0]
    ref = [o for o in map(lambda i: tw.step(**i), inputs) if o["upd_valid"]][0]
    assert (rec["upd_t"], rec["upd_rem"]) == (100, 9 * 100 // 4)    # cap 2, but divided by R = 4
    assert ref["upd_rem"] == 9 * 100 // 2                            # the default: min(R, cap)
