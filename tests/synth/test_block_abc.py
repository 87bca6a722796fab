"""A block's own ABC preference under ``--abc auto`` (kernel_sched's deep-arithmetic policies:
the fast script at every size, docs/area.md); the rest still choose by size."""

import pytest

from gpusched.blocks import get_block, parse_params
from synth.area import area

pytestmark = pytest.mark.synth


def test_deep_arithmetic_policies_use_the_fast_script_and_small_blocks_keep_yosys(tmp_path,
                                                                                  monkeypatch):
    monkeypatch.setenv("GPUSCHED_CACHE", str(tmp_path))
    ks = get_block("kernel_sched")
    small = {"K": 2, "NSM": 2}
    assert area(ks, parse_params(ks, small | {"policy": "srtf_zero"}), liberty="ge")["abc"] == "fast"
    assert area(ks, parse_params(ks, small | {"policy": "fifo"}), liberty="ge")["abc"] == "yosys"
    ws = get_block("warp_sched")
    assert area(ws, parse_params(ws, {"W": 4, "policy": "lrr"}), liberty="ge")["abc"] == "yosys"
