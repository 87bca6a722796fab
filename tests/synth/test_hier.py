"""Hierarchical synthesis of replicated units (synth/area.py): the merged per-CU modules of
cta_sched steal are priced once and counted per instance, within 2 % of the flattened flow at
C=4 (C=15: +1.2 %, docs/area.md)."""

from __future__ import annotations

import pytest

from gpusched.blocks import get_block, parse_params
from synth.area import area, merge_replicas
from cosim.build import rtlil_for


def _steal(c: int) -> tuple:
    spec = get_block("cta_sched")
    return spec, parse_params(spec, {"policy": "steal", "C": c, "ID_W": 8, "QDEPTH": 4})


@pytest.fixture(autouse=True)
def _fresh_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("GPUSCHED_CACHE", str(tmp_path))


def test_merge_replicas_keeps_one_module_per_cu_body():
    spec, params = _steal(3)
    text, _ = rtlil_for(spec, params)
    merged, n = merge_replicas(text)
    assert n == 2                                   # steal_cu1, steal_cu2 → steal_cu0
    assert merged.count(".steal_cu0 ") == 3 and ".steal_cu1" not in merged
    assert merge_replicas(merged) == (merged, 0)


@pytest.mark.parametrize("liberty", ["ge", "sky130hd"])
def test_hierarchical_area_within_2_percent_of_flat(liberty):
    spec, params = _steal(4)
    hier = area(spec, params, liberty=liberty, abc="fast")
    flat = area(spec, params, liberty=liberty, abc="fast", hier=False)
    assert hier["hier"] == 3 and flat["hier"] == 0
    assert hier["flops"] == flat["flops"]
    key = "ge" if liberty == "ge" else "um2"
    assert abs(hier[key] / flat[key] - 1) < 0.02, (hier[key], flat[key])


def test_yosys_script_stays_flat():
    """Auto mode maps a small design with Yosys' default script, where hierarchy cost 3 %."""
    spec, params = _steal(2)
    assert area(spec, params, liberty="ge")["hier"] == 0
