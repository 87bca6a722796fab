"""Yosys area flow on warp_sched: flop counts from the architecture, GE/µm² consistency."""

import json
import subprocess
import sys

import pytest

from gpusched.blocks import get_block, parse_params
from synth.area import NAND2_UM2, area

SPEC = get_block("warp_sched")
pytestmark = pytest.mark.synth


def _log2(w):
    return (w - 1).bit_length()


@pytest.mark.parametrize("w", [8, 16])
def test_flops_match_the_architecture(w):
    """LRR stores only the last-issued index; GTO adds the W(W-1)-bit age matrix."""
    lrr = area(SPEC, parse_params(SPEC, {"W": w, "policy": "lrr"}))
    gto = area(SPEC, parse_params(SPEC, {"W": w, "policy": "gto"}))
    assert lrr["flops"] == _log2(w)
    assert gto["flops"] == _log2(w) + w * (w - 1)
    for r in (lrr, gto):
        assert r["ge"] == pytest.approx(r["um2"] / NAND2_UM2, abs=0.1)
        assert r["cells"] > 0 and r["depth"] > 0
    assert gto["ge"] > lrr["ge"]


def test_depth_grows_logarithmically():
    """Find-first is a log-depth prefix tree: 8× more warps adds a few levels, not 8× depth."""
    d8 = area(SPEC, parse_params(SPEC, {"W": 8, "policy": "lrr"}))["depth"]
    d64 = area(SPEC, parse_params(SPEC, {"W": 64, "policy": "lrr"}))["depth"]
    assert d8 < d64 <= d8 + 12


def test_ge_library_mode():
    r = area(SPEC, parse_params(SPEC, {"W": 8, "policy": "gto"}), liberty="ge")
    assert r["um2"] is None and r["ge"] > 0 and r["flops"] == 3 + 56


def test_cli_area_json():
    out = subprocess.run([sys.executable, "-c", "from gpusched.cli import main; main()", "area",
                          "warp_sched", "--param", "W=32", "--param", "policy=gto", "--json"],
                         capture_output=True, text=True, check=True).stdout
    data = json.loads(out)
    assert {"cells", "ge", "um2", "flops", "depth"} <= set(data) and data["ge"] > 0
    assert data["flops"] == 5 + 32 * 31
