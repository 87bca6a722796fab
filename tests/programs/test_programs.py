"""Every suite program at its quick scale matches its numpy reference; inputs are deterministic
per seed. (Full sizes: ``gpusched workloads --check all``, run by ``gpusched verify``.)"""

from __future__ import annotations

import numpy as np
import pytest

from workloads import programs

NAMES = programs.names()


@pytest.mark.parametrize("name", NAMES)
def test_quick_scale_matches_numpy(name):
    mod = programs.load(name)
    scale = mod.INFO["quick_scale"]
    assert programs.check(name, seed=3, scale=scale) == []


@pytest.mark.parametrize("name", NAMES)
def test_inputs_are_deterministic_per_seed(name):
    mod = programs.load(name)
    scale = mod.INFO["quick_scale"]
    a, b, c = mod.inputs(5, scale), mod.inputs(5, scale), mod.inputs(6, scale)
    assert a.keys() == b.keys()
    for k in a:
        assert np.array_equal(np.asarray(a[k]), np.asarray(b[k])), k
    assert any(not np.array_equal(np.asarray(a[k]), np.asarray(c[k])) for k in a
               if np.asarray(a[k]).size > 1), "another seed gives the same inputs"


@pytest.mark.parametrize("name", NAMES)
def test_info_is_complete(name):
    info = programs.load(name).INFO
    for key in ("title", "suite", "papers", "kernels", "default_scale", "quick_scale", "inputs"):
        assert key in info, key
    assert 0 < info["quick_scale"] <= info["default_scale"]
    assert set(info["papers"]) <= {"owl", "socgpu", "thesis_ch3", "thesis_ch4", "thesis_ch5",
                                   "srtf", "ikra"}


PERCENT_FIELDS = ("cinv", "row_sharing")      # OWL Tables 2 and 4 print whole percents


@pytest.mark.parametrize("name", NAMES)
def test_owl_paper_values_are_whole_percents(name):
    """The OWL columns in percent like the paper's tables (a fraction would be read as <1 %)."""
    owl = programs.load(name).INFO.get("paper_values", {}).get("owl", {})
    for key in PERCENT_FIELDS:
        if key in owl:
            assert isinstance(owl[key], int) and 0 <= owl[key] <= 100, (key, owl[key])
