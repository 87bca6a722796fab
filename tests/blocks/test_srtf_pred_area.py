"""srtf_pred area (our estimate; [SRTF] gives no area): Yosys flop counts against the register
fields of the design, and their scaling with the number of kernel slots K."""

from __future__ import annotations

import pytest

from gpusched.blocks import get_block
from hdl.params.srtf_pred import PredShape

pytestmark = pytest.mark.synth


def _flops(**p) -> int:
    from synth.area import area
    spec = get_block("srtf_pred")
    full = {"K": 8, "SLOTS": 8, "CW": 32, "BW": 16, "RW": 5, **p}
    return area(spec, full, "ge")["flops"]


def _model_bits(**p) -> int:
    sh = PredShape(**p)
    return sum(sh.storage_bits().values()) + sum(sh.datapath_bits().values())


@pytest.mark.parametrize("p", [{"K": 2, "SLOTS": 2, "CW": 10, "BW": 4, "RW": 3},
                               {"K": 4, "SLOTS": 4, "CW": 12, "BW": 6, "RW": 3}])
def test_flops_equal_the_register_fields(p):
    assert _flops(**p) == _model_bits(**p)


def test_flops_grow_by_one_entry_per_kernel_slot():
    """K 2 → 4 adds two entries and one bit to every kernel id (slot_k, end_k, job, record)."""
    small = {"SLOTS": 2, "CW": 10, "BW": 4, "RW": 3}
    entry = sum(PredShape(K=2, **small).entry_bits().values())
    assert _flops(K=4, **small) - _flops(K=2, **small) == 2 * entry + 2 * 2 + 1 + 1
