"""owl_prefetch area ([OWL §4.5]): Yosys flop counts against the state the design declares, and the
[OWL §4.5] storage (1 bit per line of each bank's open row) inside it."""

from __future__ import annotations

import pytest

from gpusched.blocks import get_block
from hdl.params.owl_prefetch import PrefetchShape

pytestmark = pytest.mark.synth


def _flops(**p) -> int:
    from synth.area import area
    spec = get_block("owl_prefetch")
    full = {"BANKS": 4, "LINES": 32, "LOWER": 8, "HIGHER": 16, "SCHEME": "b", **p}
    return area(spec, full, "ge")["flops"]


@pytest.mark.parametrize("p", [{}, {"BANKS": 3, "LINES": 8, "LOWER": 2, "HIGHER": 5}])
def test_flops_equal_the_declared_state(p):
    sh = PrefetchShape(**p)
    assert _flops(**p) == sum(sh.storage_bits().values())


def test_paper_storage_is_the_fetched_vectors():
    """[OWL §4.5]: 4 banks × 32 lines = 128 bits per MC, 1 024 for 8 MCs; scheme A needs no
    counts."""
    sh = PrefetchShape()
    assert sh.storage_bits()["fetched"] == sh.paper_bits() == 128 and 8 * sh.paper_bits() == 1024
    assert _flops(SCHEME="a") == sum(sh.storage_bits().values()) - sh.storage_bits()["pf_count"]
