"""Seq-Det (hdl/seq_det.py vs sim/blocks/seq_det.py): lockstep and the [THESIS §4.4] rule.

Expected values follow [THESIS §4.4]: sample at 32, then 31, 30, ...; stop at the first sample
below 0.98·IPC_all with N_opt = N + 1; a type B kernel takes one sample at 31 cores and returns
to 32.
"""

from __future__ import annotations

import dataclasses
import random

import pytest

from cosim.amaranth_backend import run_lockstep_amaranth
from cosim.stimuli.onac import SwmStimulus, concave_curve
from gpusched.blocks import get_block, parse_params
from sim.blocks.onac import OnacTwin
from sim.blocks.seq_det import SeqDetTwin

BACKPROP = concave_curve(1.0, 9.0, 8.0)        # same curve as tests/blocks/test_onac.py


def ideal_stimulus(m: int, curve, seed: int = 1) -> SwmStimulus:
    return SwmStimulus(m, seed, noise=0.0, edge_prob=0.0, restart_prob=0.0, kernel_limit=1,
                       curve=curve, window=(100_000, 100_000))


def run_twin(twin, stim, max_cycles: int = 400_000) -> int:
    prev = None
    for cycle in range(max_cycles):
        prev = twin.step(**stim.next(prev))
        if prev["done"]:
            return cycle
    raise AssertionError(f"no detection within {max_cycles} cycles")


@pytest.mark.parametrize("params, seed, cycles", [
    ({"M": 4, "count_bits": 12}, 1, 6000),
    ({"M": 6, "count_bits": 10, "ipc_bits": 12, "ipc_frac": 8}, 2, 5000),
])
def test_lockstep_amaranth(params, seed, cycles):
    spec = get_block("seq_det")
    rep = run_lockstep_amaranth(spec, parse_params(spec, params), cycles, seed)
    assert rep.cycles == cycles and rep.mismatches == 0


def test_backprop_sequential_walk():
    """Seq-Det samples 32, 31, ..., 11 on the Backprop curve: 11 is the first below the threshold,
    so N_opt = 12 (= ONAC's answer), after 22 samples against ONAC's 6 ([THESIS §4.4] drawback
    1)."""
    twin = SeqDetTwin(32)
    run_twin(twin, ideal_stimulus(32, BACKPROP))
    assert twin.n_opt == 12
    assert [n for n, _ in twin.samples] == list(range(32, 10, -1))
    onac = OnacTwin(32)
    run_twin(onac, ideal_stimulus(32, BACKPROP))
    assert onac.n_opt == 12 and len(onac.samples) < len(twin.samples)


@pytest.mark.slow
def test_backprop_sequential_walk_rtl():
    """The RTL follows the twin cycle by cycle through the whole 22-sample walk (~26 k cycles)."""
    cycles = run_twin(SeqDetTwin(32), ideal_stimulus(32, BACKPROP)) + 2
    rtl_twin = SeqDetTwin(32)
    spec = dataclasses.replace(get_block("seq_det"),
                               make_stimulus=lambda p, s: ideal_stimulus(32, BACKPROP))
    run_lockstep_amaranth(spec, parse_params(spec, {"M": 32}), cycles, 0, twin=rtl_twin)
    assert rtl_twin.is_done and rtl_twin.n_opt == 12


def test_type_b_one_sample_at_31_then_32():
    twin = SeqDetTwin(32)
    run_twin(twin, ideal_stimulus(32, lambda n: 0.9 * n))
    assert [n for n, _ in twin.samples] == [32, 31]
    assert twin.n_opt == 32 and twin.power_gate == 0


def test_result_is_first_drop_below_threshold():
    """On random concave curves N_opt - 1 is the first sampled count below the threshold and
    every count sampled above N_opt - 1 met it."""
    rng = random.Random(5)
    for trial in range(40):
        a = rng.uniform(0.2, 1.0)
        curve = concave_curve(a, a * rng.uniform(1.5, 10.0), rng.uniform(1.5, 10.0))
        twin = SeqDetTwin(8)
        run_twin(twin, ideal_stimulus(8, curve, seed=trial))
        below = [n for n, ipc in twin.samples[1:] if ipc < twin.thr]
        assert all(ipc >= twin.thr for _, ipc in twin.samples[1:-1]), (trial, twin.samples)
        if below:
            assert below == [twin.n_opt - 1], (trial, twin.samples, twin.n_opt)
        else:
            assert twin.n_opt == 1


@pytest.mark.cosim
@pytest.mark.slow
@pytest.mark.parametrize("params, seed", [({"M": 32}, 1), ({"M": 8, "count_bits": 16}, 2)])
def test_lockstep_verilator_100k(params, seed):
    from cosim.runner import run_cosim
    spec = get_block("seq_det")
    rep = run_cosim(spec, parse_params(spec, params), 100_000, seed, sim="verilator")
    assert rep.cycles == 100_000
