"""cta_sched area ([IKRA]): Yosys flop counts against the register fields of the design."""

from __future__ import annotations

import pytest

from experiments.ikra_area import design_bits
from gpusched.blocks import get_block
from hdl.ikra.params import IkraShape

pytestmark = pytest.mark.synth


def _area(policy: str, c: int, id_w: int, qdepth: int) -> dict:
    from synth.area import area
    spec = get_block("cta_sched")
    return area(spec, {"C": c, "ID_W": id_w, "QDEPTH": qdepth, "policy": policy, "check": 0})


@pytest.mark.parametrize("policy", ["rr", "chunk", "reset", "flip"])
def test_flops_equal_the_register_fields(policy):
    """G: counter + last_cu; C/R/F: two ids per CU (our storage count) plus launch/divider state."""
    res = _area(policy, 3, 8, 4)
    assert res["flops"] == design_bits(policy, 3, 8, 4)["total"]
    assert res["ge"] > 0 and res["um2"] > 0


def test_steal_queue_flops_scale_with_qdepth():
    """Doubling QDEPTH adds QDEPTH × ID_W queue bits and one pointer bit × 3 per CU ([IKRA
    Steal])."""
    c, id_w = 2, 8
    small, big = _area("steal", c, id_w, 4), _area("steal", c, id_w, 8)
    assert big["flops"] - small["flops"] == c * (4 * id_w + 3)
    queue_bits = c * 8 * id_w
    assert big["flops"] >= queue_bits + c * IkraShape(c, id_w, 8, "steal").q_w * 3
