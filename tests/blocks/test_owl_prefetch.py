"""owl_prefetch (hdl/owl_prefetch.py vs sim/blocks/owl_prefetch.py): random lockstep, the
engine's properties on every cycle, directed episodes of [OWL §4.4] on twin and RTL, and the mutant
"a prefetcher that ignores pending demands" caught."""

from __future__ import annotations

import dataclasses

import pytest

from cosim.amaranth_backend import run_lockstep_amaranth, run_sequence
from cosim.lockstep import LockstepMismatch
from gpusched.blocks import get_block, parse_params
from hdl.params.owl_prefetch import AVG_FRAC, ema_next
from sim.blocks.owl_prefetch import OwlPrefetchTwin

LOCKSTEP_CYCLES = 5_000    # random-stimulus lockstep here; the 100k-cycle soaks: gpusched verify

SETS = [({}, 1), ({"SCHEME": "a"}, 2), ({"BANKS": 3, "LINES": 8, "LOWER": 2, "HIGHER": 5}, 3)]
IDS = ["scheme_b", "scheme_a", "small"]


@pytest.mark.parametrize("params, seed", SETS, ids=IDS)
def test_lockstep_amaranth(params, seed):
    spec = get_block("owl_prefetch")
    rep = run_lockstep_amaranth(spec, parse_params(spec, params), LOCKSTEP_CYCLES, seed)
    assert rep.cycles == LOCKSTEP_CYCLES


class IgnoresDemands(OwlPrefetchTwin):
    """Mutant: prefetches even while a demand to the open row is pending."""

    def eligible(self, b, hit, other, hold):
        return not other or hold


def check_properties(twin: OwlPrefetchTwin, stim, cycles: int) -> dict:
    """Drive ``twin`` with ``stim`` and assert the properties on every cycle, from state kept
    here (not the twin's): no prefetch beside a pending row-hit demand or into a busy bank, no
    line twice per activation, never more than LINES per activation, scheme A never with a
    conflicting demand, scheme B's row-hold and conflict prefetches only below C."""
    sh = twin.shape
    read = [set() for _ in range(sh.BANKS)]
    count = [0] * sh.BANKS
    opened = [False] * sh.BANKS
    avg, prev, seen = 0, None, {"pf": 0, "conflict_pf": 0}
    for _ in range(cycles):
        inp = stim.next(prev)
        b = inp["cmd_bank"]
        if inp["cmd_act"]:
            read[b], count[b], opened[b] = set(), 0, True
        if inp["cmd_pf"]:
            count[b] += 1
        if inp["cmd_mark"]:
            read[b].add(inp["cmd_line"])
        out = twin.step(**inp)
        c_high = inp["q_len"] < avg >> AVG_FRAC
        assert out["c_high"] == c_high
        c = sh.HIGHER if c_high else sh.LOWER
        for bank in range(sh.BANKS):
            if out["hold"] >> bank & 1:
                assert sh.SCHEME == "b" and count[bank] < c and opened[bank]
        if out["pf_valid"]:
            pb, line = out["pf_bank"], out["pf_line"]
            seen["pf"] += 1
            assert not inp["hit_pending"] >> pb & 1, "prefetch with a demand to the open row pending"
            assert inp["bank_ready"] >> pb & 1 and opened[pb]
            assert line not in read[pb], "a line fetched twice in one activation"
            assert count[pb] < sh.LINES
            if inp["other_pending"] >> pb & 1:
                seen["conflict_pf"] += 1
                assert sh.SCHEME == "b" and count[pb] < c, "prefetch past its limit beside a conflict"
        if inp["tick"]:
            avg = ema_next(avg, inp["q_len"])
        prev = out
    return seen


@pytest.mark.parametrize("params, seed", SETS, ids=IDS)
def test_properties_every_cycle(params, seed):
    spec = get_block("owl_prefetch")
    p = parse_params(spec, params)
    seen = check_properties(spec.make_twin(p), spec.make_stimulus(p, seed), 20_000)
    assert seen["pf"] > 5_000
    assert (seen["conflict_pf"] > 500) == (p["SCHEME"] == "b")


def test_properties_catch_the_mutant():
    spec = get_block("owl_prefetch")
    p = parse_params(spec, {})
    with pytest.raises(AssertionError, match="open row pending"):
        check_properties(IgnoresDemands(), spec.make_stimulus(p, 1), 20_000)


def test_lockstep_catches_mutant_twin():
    spec = get_block("owl_prefetch")
    with pytest.raises(LockstepMismatch):
        run_lockstep_amaranth(spec, parse_params(spec, {}), 20_000, 1, twin=IgnoresDemands())


def test_lockstep_catches_mutant_rtl():
    from hdl.owl_prefetch import OwlPrefetch
    spec = get_block("owl_prefetch")
    bad = dataclasses.replace(spec, make_rtl=lambda p: OwlPrefetch(ignore_demands=True))
    with pytest.raises(LockstepMismatch):
        run_lockstep_amaranth(bad, parse_params(spec, {}), 20_000, 1)


# -- directed episodes, on the twin and the RTL alike ----------------------------------------------

def run_both(params: dict, inputs: list[dict]) -> list[dict]:
    spec = get_block("owl_prefetch")
    p = parse_params(spec, params)
    twin = spec.make_twin(p)
    outs = [twin.step(**i) for i in inputs]
    assert run_sequence(spec, p, inputs) == outs
    return outs


def episode(scheme: str, q_len: int = 0, tick: int = 1) -> list[dict]:
    """Bank 1 opens a row by a demand to line 5, one more demand hit waits for two cycles, then
    the engine prefetches (each proposal taken); from cycle 6 a demand to another row waits."""
    steps = [{"cmd_bank": 1, "cmd_act": 1, "cmd_mark": 1, "cmd_line": 5, "hit_pending": 0b10}]
    steps.append({"hit_pending": 0b10})
    for _ in range(34):
        steps.append({})
    for i, s in enumerate(steps):
        s.setdefault("bank_ready", 0b1111)
        s["q_len"], s["tick"] = q_len, tick
        s["other_pending"] = 0b10 if i >= 6 else 0
        s["SCHEME"] = scheme
    return steps


def drive(scheme: str, **kw) -> list[dict]:
    """Run the episode closed-loop: each proposal is issued and reported the next cycle."""
    steps = episode(scheme, **kw)
    params = {"SCHEME": scheme}
    spec = get_block("owl_prefetch")
    twin = spec.make_twin(parse_params(spec, params))
    inputs, outs = [], []
    for s in steps:
        s = {k: v for k, v in s.items() if k != "SCHEME"}
        if outs and outs[-1]["pf_valid"]:
            s.update(cmd_bank=outs[-1]["pf_bank"], cmd_mark=1, cmd_line=outs[-1]["pf_line"], cmd_pf=1)
        inputs.append(s)
        outs.append(twin.step(**s))
    assert run_both(params, inputs) == outs
    return outs


def test_scheme_a_stops_at_the_first_conflicting_demand():
    outs = drive("a")
    assert [o["pf_valid"] for o in outs[:2]] == [0, 0]        # a demand hit to the row waits
    assert [(o["pf_bank"], o["pf_line"]) for o in outs[2:6]] == [(1, 0), (1, 1), (1, 2), (1, 3)]
    assert not any(o["pf_valid"] or o["hold"] for o in outs[6:])


def test_scheme_b_prefetches_c_lines_beside_a_conflict_then_stops():
    outs = drive("b")                       # q_len 0 is not below the average 0: C = LOWER = 8
    lines = [o["pf_line"] for o in outs if o["pf_valid"]]
    assert lines == [0, 1, 2, 3, 4, 6, 7, 8]                   # line 5 was read by the demand
    assert all(o["hold"] == 0b10 for o in outs[:10]) and not any(o["hold"] for o in outs[11:])


def test_scheme_b_takes_16_lines_when_the_queue_is_below_its_average():
    spec = get_block("owl_prefetch")
    twin = spec.make_twin(parse_params(spec, {}))
    for _ in range(200):                    # a long busy spell: the average climbs toward 40
        twin.step(q_len=40, tick=1)
    assert twin.step(q_len=3)["c_high"] == 1
    assert twin.step(q_len=60)["c_high"] == 0
