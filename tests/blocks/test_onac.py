"""ONAC (hdl/onac.py vs sim/blocks/onac.py): lockstep, secant properties, thesis example, mutant.

Numbers come from the thesis: the Backprop-K2 trace of [THESIS §4.4.2] (first estimate 9, then 10,
the 4th estimate detects 12 = oracle on a 32-core GPU) and the 0.98 × IPC_all acceptance rule (our
choice).
"""

from __future__ import annotations

import dataclasses
import random

import pytest

from cosim.amaranth_backend import run_lockstep_amaranth
from cosim.lockstep import LockstepMismatch
from cosim.stimuli.onac import SwmStimulus, concave_curve
from gpusched.blocks import get_block, parse_params
from hdl.params.swm import SwmState
from sim.blocks.onac import OnacTwin

# Backprop-like curve: 1 warp-IPC per core, smooth roof at 9 (knee sharpness 8). Chosen so that
# the oracle (smallest N with IPC(N) >= 0.98·IPC(32)) is 12, as for BP-K2 in [THESIS §4.4.1, Table 4.4].
BACKPROP = concave_curve(1.0, 9.0, 8.0)
FRAC = 10                       # default IPC fraction bits (U6.10, our choice)


def ideal_stimulus(m: int, curve, seed: int = 1, **kw) -> SwmStimulus:
    """Noise-free single-kernel stimulus with equal 4-wave windows of 100 000 cycles."""
    return SwmStimulus(m, seed, noise=0.0, edge_prob=0.0, restart_prob=0.0, kernel_limit=1,
                       curve=curve, window=(100_000, 100_000), **kw)


def run_twin(twin, stim, max_cycles: int = 200_000) -> int:
    """Closed loop until ``done``; returns the cycle count."""
    prev = None
    for cycle in range(max_cycles):
        prev = twin.step(**stim.next(prev))
        if prev["done"]:
            return cycle
    raise AssertionError(f"no detection within {max_cycles} cycles (state {twin.state!r})")


def lockstep_with(block: str, params: dict, stim, cycles: int, twin=None):
    """RTL vs twin in Amaranth's simulator, driven by a given stimulus object."""
    spec = get_block(block)
    spec = dataclasses.replace(spec, make_stimulus=lambda p, s: stim)
    return run_lockstep_amaranth(spec, parse_params(spec, params), cycles, seed=0, twin=twin)


@pytest.mark.parametrize("params, seed, cycles", [
    ({"M": 4, "count_bits": 12}, 1, 6000),
    ({"M": 7, "count_bits": 10, "ipc_bits": 12, "ipc_frac": 8}, 2, 6000),
    ({"M": 32}, 3, 3000),
])
def test_lockstep_amaranth(params, seed, cycles):
    spec = get_block("onac")
    rep = run_lockstep_amaranth(spec, parse_params(spec, params), cycles, seed)
    assert rep.cycles == cycles and rep.mismatches == 0


def test_random_stimulus_covers_every_state():
    """The lockstep stimulus reaches every FSM state and completes many detections."""
    spec = get_block("onac")
    p = parse_params(spec, {"M": 4, "count_bits": 12})
    twin, stim = spec.make_twin(p), spec.make_stimulus(p, 1)
    seen, dones, prev = set(), 0, None
    for _ in range(8000):
        out = twin.step(**stim.next(prev))
        seen.add(out["state"])
        dones += out["done"] and not (prev or {}).get("done", 0)
        prev = out
    assert seen == {s.value for s in SwmState}
    assert dones >= 10


def test_backprop_example_twin():
    """[THESIS §4.4.2]: IPC_1 line gives 9, then 10, and the 4th estimate detects 12 (= oracle)."""
    twin = OnacTwin(32)
    run_twin(twin, ideal_stimulus(32, BACKPROP))
    assert twin.estimates[0] == 1                       # one-core sample ([THESIS §4.4.2.3] Init)
    assert twin.estimates[1:] == [9, 10, 11, 12]
    assert twin.n_opt == 12
    oracle = min(n for n in range(1, 33) if BACKPROP(n) >= 0.98 * BACKPROP(32))
    assert oracle == 12
    # every SM beyond 12 is inactive and gated; the first 12 stay active
    assert twin.active == (1 << 12) - 1
    assert twin.power_gate == ((1 << 32) - 1) & ~((1 << 12) - 1)


def test_backprop_example_rtl():
    """The RTL follows the twin cycle by cycle through the whole Backprop detection."""
    twin = OnacTwin(32)
    cycles = run_twin(OnacTwin(32), ideal_stimulus(32, BACKPROP)) + 2
    lockstep_with("onac", {"M": 32}, ideal_stimulus(32, BACKPROP), cycles, twin=twin)
    assert twin.is_done and twin.n_opt == 12 and twin.estimates[1:] == [9, 10, 11, 12]


def test_type_b_linear_curve_reaches_all_cores():
    """[THESIS §4.4.2] Pathfinder-like (linear) curve: ONAC ends at 32 (N_max accepted without
    sampling)."""
    twin = OnacTwin(32)
    run_twin(twin, ideal_stimulus(32, lambda n: 0.9 * n))
    assert twin.n_opt == 32 and twin.estimates[-1] == 32
    assert twin.power_gate == 0


def measured_ipc(curve, k: int, m: int, window: int = 100_000) -> int:
    """Chip IPC (fixed point) the ideal stimulus makes the detector see with k SMs sampled:
    each SM reports round(IPC/k · window) instructions, the SWM floors instr·2^F / window."""
    per_sm = (round(max(0.0, curve(k) / k) * window) << FRAC) // window
    return min(k * min(per_sm, (1 << 16) - 1), (1 << 16) - 1)


@pytest.mark.parametrize("m, trials", [(8, 60), (32, 12)])
def test_estimates_monotone_bounded_and_meet_threshold(m, trials):
    """On random concave curves (no noise): estimates rise strictly, detection ends within M
    estimates, the chosen N keeps IPC(N) ≥ 0.98·IPC_all on the curve it measured, and it is the
    smallest such N (the secant under-estimates on a concave curve, [THESIS §4.4.2])."""
    rng = random.Random(7 + m)
    exact = 0
    for trial in range(trials):
        a = rng.uniform(0.2, 1.0)
        curve = concave_curve(a, a * rng.uniform(1.5, 1.3 * m), rng.uniform(1.5, 10.0))
        twin = OnacTwin(m)
        run_twin(twin, ideal_stimulus(m, curve, seed=trial))
        est = twin.estimates
        assert all(x < y for x, y in zip(est, est[1:])), (trial, est)
        assert len(twin.samples) <= m + 1, (trial, twin.samples)
        n = twin.n_opt
        ipc = {k: measured_ipc(curve, k, m) for k in range(1, m + 1)}
        thr = ipc[m] * 251 >> 8
        assert ipc[n] >= thr, (trial, n, ipc[n], thr)
        assert ipc[n] >= 0.98 * ipc[m], (trial, n, ipc[n], ipc[m])
        oracle = min(k for k in range(1, m + 1) if ipc[k] >= thr)
        assert oracle <= n <= oracle + 1, (trial, n, oracle, est)
        exact += n == oracle
    assert exact >= trials - trials // 10   # per-SM flooring may break concavity by an LSB


def test_non_positive_slope_guard_steps_by_one():
    """Our choice: IPC_cur ≤ IPC_prev (a flat stretch) makes the next estimate N_cur + 1."""
    step = lambda n: 2.0 if n < 5 else 8.0      # IPC_1 = 2, flat up to 4 cores, 8 from 5 on
    twin = OnacTwin(8)
    run_twin(twin, ideal_stimulus(8, step))
    assert twin.estimates == [1, 4, 5]           # ⌈0.98·8 / 2⌉ = 4; IPC(4) = IPC(1) → 4 + 1
    assert twin.n_opt == 5


def test_mutant_floor_rounding_is_caught():
    """An off-by-one in the secant rounding (floor instead of ceil) is reported by lockstep with
    the cycle, the inputs and both outputs, and breaks the Backprop example."""
    mutant = OnacTwin(32, secant_ceil=False)
    run_twin(mutant, ideal_stimulus(32, BACKPROP))
    assert mutant.estimates[1] != 9             # ⌊9.0·0.98 / 1⌋ = 8: the property test fails
    cycles = run_twin(OnacTwin(32), ideal_stimulus(32, BACKPROP)) + 2
    with pytest.raises(LockstepMismatch) as exc:
        lockstep_with("onac", {"M": 32}, ideal_stimulus(32, BACKPROP), cycles,
                      twin=OnacTwin(32, secant_ceil=False))
    msg = str(exc.value)
    assert "mismatch at cycle" in msg and "n_est" in msg and "twin:" in msg and "rtl:" in msg


def test_restoring_divider_quotient_remainder_and_latency():
    """The shared divider: exact quotient / remainder after exactly ``dividend_bits`` busy cycles;
    division by zero gives an all-ones quotient (documented in hdl/onac_parts/divider.py)."""
    from amaranth.sim import Simulator
    from hdl.onac_parts.divider import RestoringDivider
    dw, dv = 20, 12
    dut = RestoringDivider(dw, dv)
    rng = random.Random(3)
    cases = [(0, 1), (1, 1), ((1 << dw) - 1, 1), ((1 << dw) - 1, (1 << dv) - 1), (12345, 0)]
    cases += [(rng.getrandbits(dw), rng.randint(1, (1 << dv) - 1)) for _ in range(25)]

    async def bench(ctx):
        for a, b in cases:
            ctx.set(dut.start, 1)
            ctx.set(dut.dividend, a)
            ctx.set(dut.divisor, b)
            await ctx.tick()
            ctx.set(dut.start, 0)
            busy = 0
            while ctx.get(dut.busy):
                busy += 1
                await ctx.tick()
            assert busy == dw, (a, b, busy)
            q = ctx.get(dut.quotient)
            if b == 0:
                assert q == (1 << dw) - 1
            else:
                assert (q, ctx.get(dut.remainder)) == divmod(a, b), (a, b)

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()


@pytest.mark.cosim
@pytest.mark.slow
@pytest.mark.parametrize("params, seed", [({"M": 32}, 1), ({"M": 8, "count_bits": 16}, 2)])
def test_lockstep_verilator_100k(params, seed):
    from cosim.runner import run_cosim
    spec = get_block("onac")
    rep = run_cosim(spec, parse_params(spec, params), 100_000, seed, sim="verilator")
    assert rep.cycles == 100_000
