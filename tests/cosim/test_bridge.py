"""RTL instances inside a Python driver: same results as twins, lockstep on every step."""

import pytest

from cosim.runner import run_in_loop
from cosim.scenarios import random_stimulus
from gpusched.blocks import get_block, parse_params

SPEC = get_block("warp_sched")
pytestmark = pytest.mark.cosim
PARAMS = [parse_params(SPEC, {"W": 8, "policy": "gto"}), parse_params(SPEC, {"W": 16, "policy": "lrr"})]
KWARGS = {"block": "warp_sched", "params_list": PARAMS, "cycles": 2_000, "seed": 11}


def test_rtl_in_the_loop_equals_twin_only_run():
    twins = [SPEC.make_twin(p) for p in PARAMS]
    expected = random_stimulus(twins, **KWARGS)
    rtl_only = run_in_loop(SPEC, PARAMS, "cosim.scenarios:random_stimulus", KWARGS, lockstep=False)
    assert rtl_only["result"] == expected
    assert rtl_only["steps"] == [2_000, 2_000]


def test_lockstep_in_the_loop():
    both = run_in_loop(SPEC, PARAMS, "cosim.scenarios:random_stimulus", KWARGS, lockstep=True)
    assert both["steps"] == [2_000, 2_000] and both["mismatch"] is None
