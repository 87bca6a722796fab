"""Perf-Sat (hdl/perf_sat.py vs sim/blocks/perf_sat.py): lockstep, limit range, [THESIS §4.3.2.2]
example.

The worked example of [THESIS §4.3.2.2]: N_max = 15, N_opt = 12 → start at 8, two samples at 9,
then 10, 11, 12, 13, a second sample at 13, N_opt = 12 after 8 sample periods.
"""

from __future__ import annotations

import dataclasses
import pytest

from cosim.amaranth_backend import run_lockstep_amaranth
from gpusched.blocks import get_block, parse_params
from sim.blocks.perf_sat import PerfSatTwin


class ConvexStallSM:
    """Deterministic SM: first CTA completes ``one_tb`` cycles after kernel start; stalled
    cycles arrive at rate (base + |N − n_opt|)/16 per cycle for the limit N in force, spread
    evenly (a fractional accumulator), so window totals follow a convex curve with its minimum
    at ``n_opt``."""

    def __init__(self, n_max: int, n_opt: int, one_tb: int = 64, base: int = 2):
        self.n_max, self.n_opt, self.one_tb, self.base = n_max, n_opt, one_tb, base
        self.cycle, self.frac = 0, 0

    def next(self, prev_out: dict | None) -> dict:
        c = self.cycle
        self.cycle += 1
        limit = prev_out["cta_limit"] if prev_out else 1
        self.frac += self.base + abs(limit - self.n_opt)
        stalls = min(2, self.frac // 16)
        self.frac -= stalls * 16
        return {"kernel_start": int(c == 0), "n_max": self.n_max,
                "cta_done": int(c == self.one_tb), "stalls": stalls if c > 0 else 0}


def run_twin(twin: PerfSatTwin, sm, max_cycles: int = 100_000) -> list[int]:
    """Closed loop until done; returns the limit after each change (first value = N0)."""
    prev, limits = None, []
    for cycle in range(max_cycles):
        prev = twin.step(**sm.next(prev))
        if cycle > 0 and (not limits or limits[-1] != twin.limit):
            limits.append(twin.limit)
        if twin.is_done:
            return limits
    raise AssertionError("Perf-Sat did not finish")


def lockstep_with(stim, cycles: int, twin, params: dict | None = None):
    spec = dataclasses.replace(get_block("perf_sat"), make_stimulus=lambda p, s: stim)
    return run_lockstep_amaranth(spec, parse_params(spec, params or {}), cycles, 0, twin=twin)


@pytest.mark.parametrize("params, seed, cycles", [
    ({}, 1, 12000),
    ({"n_bits": 3, "tb_bits": 6, "period_bits": 8, "stall_bits": 10}, 2, 12000),
])
def test_lockstep_amaranth(params, seed, cycles):
    spec = get_block("perf_sat")
    rep = run_lockstep_amaranth(spec, parse_params(spec, params), cycles, seed)
    assert rep.cycles == cycles and rep.mismatches == 0


def test_worked_example_twin_and_rtl():
    twin = PerfSatTwin()
    limits = run_twin(twin, ConvexStallSM(15, 12))
    assert limits == [8, 9, 10, 11, 12, 13, 12]
    assert twin.periods == 8 and twin.limit == 12
    cycles = 64 + 8 * 64 * 15 + 4                 # One_TB + 8 periods of One_TB × N_max
    rtl_twin = PerfSatTwin()
    lockstep_with(ConvexStallSM(15, 12), cycles, rtl_twin)
    assert rtl_twin.is_done and rtl_twin.limit == 12 and rtl_twin.periods == 8


@pytest.mark.parametrize("n_max", [1, 2, 3, 6, 8, 15])
def test_finds_minimum_of_convex_stall_curve(n_max):
    """With noise-free convex stall curves the detected limit is the stall minimum ([THESIS
    §4.3.2.1])."""
    for n_opt in range(1, n_max + 1):
        twin = PerfSatTwin()
        run_twin(twin, ConvexStallSM(n_max, n_opt))
        assert twin.limit == n_opt, (n_max, n_opt)


def test_limit_always_in_range_under_random_stimulus():
    """200 k cycles of random kernels: 1 ≤ cta_limit ≤ N_max of the running kernel, always."""
    spec = get_block("perf_sat")
    p = parse_params(spec, {})
    twin, stim = spec.make_twin(p), spec.make_stimulus(p, 11)
    prev, dones, n_max = None, 0, 1
    for cycle in range(200_000):
        inputs = stim.next(prev)
        out = twin.step(**inputs)
        assert 1 <= out["cta_limit"] <= n_max, (cycle, out, n_max)
        if inputs["kernel_start"]:          # captured at this edge: bounds the next outputs
            n_max = inputs["n_max"] or 1
        dones += out["done"] and not (prev or {}).get("done", 0)
        prev = out
    assert dones >= 10


def test_toggle_fallback_stops_at_n0_plus_1():
    """[THESIS §4.3.2.2] Phase 2: flat stalls never confirm a direction; the 4th WI↔WD flip stops at
    the conservative ⌈N_max/2⌉ + 1."""
    class FlatStalls(ConvexStallSM):
        def next(self, prev_out):
            return super().next(prev_out) | {"stalls": 1}
    twin = PerfSatTwin()
    limits = run_twin(twin, FlatStalls(10, 5))
    assert limits == [5, 6, 5, 6, 5, 6]            # N0 = 5; flips at windows 2..4; stop at 6
    assert twin.limit == 6 and twin.periods == 5


@pytest.mark.cosim
@pytest.mark.slow
@pytest.mark.parametrize("params, seed", [({}, 1), ({"n_bits": 4, "tb_bits": 12, "period_bits": 16,
                                                    "stall_bits": 20}, 2)])
def test_lockstep_verilator_100k(params, seed):
    from cosim.runner import run_cosim
    spec = get_block("perf_sat")
    rep = run_cosim(spec, parse_params(spec, params), 100_000, seed, sim="verilator")
    assert rep.cycles == 100_000
