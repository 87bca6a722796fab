"""A block's own ABC preference under ``--abc auto`` (kernel_sched: the fast script at every
size, docs/area.md); other blocks still choose by size."""

import pytest

from gpusched.blocks import get_block, parse_params
from synth.area import area

pytestmark = pytest.mark.synth


def test_kernel_sched_auto_uses_its_fast_script_and_small_blocks_keep_yosys(tmp_path, monkeypatch):
    monkeypatch.setenv("GPUSCHED_CACHE", str(tmp_path))
    ks = get_block("kernel_sched")
    res = area(ks, parse_params(ks, {"K": 2, "NSM": 2, "policy": "fifo"}), liberty="ge")
    assert res["abc"] == "fast"
    ws = get_block("warp_sched")
    assert area(ws, parse_params(ws, {"W": 4, "policy": "lrr"}), liberty="ge")["abc"] == "yosys"
