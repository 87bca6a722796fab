"""CoreSampler (hdl/core_sampler.py vs sim/blocks/core_sampler.py): lockstep, window length,
and the pause property (never acknowledged with instructions in flight, [THESIS §4.4.2.3])."""

from __future__ import annotations

import pytest

from cosim.amaranth_backend import run_lockstep_amaranth, run_sequence
from gpusched.blocks import get_block, parse_params
from sim.blocks.core_sampler import CoreSamplerTwin


@pytest.mark.parametrize("params, seed, cycles", [
    ({}, 1, 15000),
    ({"K": 2, "count_bits": 6, "limit_bits": 3}, 2, 15000),     # cycle counter saturates
])
def test_lockstep_amaranth(params, seed, cycles):
    spec = get_block("core_sampler")
    rep = run_lockstep_amaranth(spec, parse_params(spec, params), cycles, seed)
    assert rep.cycles == cycles and rep.mismatches == 0


def window_inputs(k: int, limit: int, gap: int, drain: int) -> list[dict]:
    """Sample request at cycle 0 with ``drain`` cycles of in-flight work, then one instruction
    per cycle and a CTA completion every ``gap`` cycles; the request stays up."""
    start = drain + 1                       # IDLE → QUIESCE at 1, COUNT from drain + 1
    seq = []
    for c in range(start + k * limit * gap + 4):
        counting = c >= start
        seq.append({"sample_req": 1, "pause_req": 0, "cta_limit": limit,
                    "in_flight": int(c < drain), "instr": int(counting),
                    "cta_done": int(counting and (c - start) % gap == gap - 1)})
    return seq


@pytest.mark.parametrize("k, limit, gap", [(4, 2, 3), (4, 8, 5), (1, 3, 2)])
def test_window_is_k_times_limit_cta_completions(k, limit, gap):
    """Our choice: the window ends at the K × limit-th CTA completion: K·limit·gap cycles here."""
    params = {"K": k}
    spec = get_block("core_sampler")
    seq = window_inputs(k, limit, gap, drain=5)
    rtl = run_sequence(spec, parse_params(spec, params), seq)
    twin = CoreSamplerTwin(k)
    for cycle, (inp, got) in enumerate(zip(seq, rtl)):
        assert twin.step(**inp) == got, cycle
    first_done = next(c for c, o in enumerate(rtl) if o["sample_done"])
    expected = k * limit * gap
    assert rtl[first_done]["sample_cycles"] == expected
    assert rtl[first_done]["sample_instr"] == expected
    assert [o["issue_hold"] for o in rtl[:7]] == [0, 1, 1, 1, 1, 1, 0]   # quiesce 1..5
    assert all(o["sample_done"] for o in rtl[first_done:])            # held while requested


def test_pause_never_acked_with_instructions_in_flight():
    """200 k cycles of the closed-loop SM: whenever pause_ack is high nothing is in flight, every
    pause request is eventually acknowledged, and samples complete."""
    spec = get_block("core_sampler")
    p = parse_params(spec, {})
    twin, stim = spec.make_twin(p), spec.make_stimulus(p, 5)
    prev, acks, samples = None, 0, 0
    for cycle in range(200_000):
        inputs = stim.next(prev)
        out = twin.step(**inputs)
        if out["pause_ack"]:
            assert not inputs["in_flight"], (cycle, inputs, out)
            acks += not (prev or {}).get("pause_ack", 0)
        samples += out["sample_done"] and not (prev or {}).get("sample_done", 0)
        if out["issue_hold"]:
            assert inputs["instr"] == 0, (cycle, inputs)
        prev = out
    assert acks >= 50 and samples >= 50


def test_pause_ack_waits_for_drain():
    """A pause request with work in flight is acked only the cycle after the drain ends."""
    spec = get_block("core_sampler")
    seq = [{"pause_req": 1, "in_flight": int(c < 4)} for c in range(8)]
    rtl = run_sequence(spec, parse_params(spec, {}), seq)
    assert [o["pause_ack"] for o in rtl] == [0, 0, 0, 0, 0, 1, 1, 1]
    assert all(o["issue_hold"] for o in rtl)


@pytest.mark.cosim
def test_lockstep_verilator_short():
    """Default-suite smoke run of the cocotb + Verilator flow (the 100 k runs are slow-marked)."""
    from cosim.runner import run_cosim
    spec = get_block("core_sampler")
    rep = run_cosim(spec, parse_params(spec, {}), 5_000, 3, sim="verilator")
    assert rep.cycles == 5_000


@pytest.mark.cosim
@pytest.mark.slow
@pytest.mark.parametrize("params, seed", [({}, 1), ({"K": 2, "count_bits": 8}, 2)])
def test_lockstep_verilator_100k(params, seed):
    from cosim.runner import run_cosim
    spec = get_block("core_sampler")
    rep = run_cosim(spec, parse_params(spec, params), 100_000, seed, sim="verilator")
    assert rep.cycles == 100_000
