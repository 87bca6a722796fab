"""Policy names with parameters at the CTA-limit and active-SM points: the family syntax, the
earlier fixed names as aliases (same runs), one-line errors naming the bad part."""

from __future__ import annotations

import json

import pytest

from gpusched.config import ConfigError
from sim.policies import policy_names, resolve_policy
from sim.run import load_workload, simulate
from sim_helpers import config


def _run(**policy) -> str:
    r = simulate(config("tiny"), load_workload("mixed_like", scale=0.1), memory="hierarchy", **policy)
    return json.dumps(r, sort_keys=True)


@pytest.mark.parametrize("kind, new, old", [
    ("cta_limit", "fixed:2", "ctas_2"),
    ("sm_controller", "fixed:1", "active_1"),
    ("sm_controller", "onac:3", "onac_skip3"),
    ("sm_controller", "seq_det:0", "seq_det_skip0"),
])
def test_family_names_and_their_earlier_names_run_the_same(kind, new, old):
    assert _run(**{kind: new}) == _run(**{kind: old})


def test_parameters_change_the_run():
    assert _run(cta_limit="fixed:1") != _run(cta_limit="fixed:2")
    assert _run(sm_controller="onac") == _run(sm_controller="onac:1")    # the default skip


@pytest.mark.parametrize("kind, name, bad", [
    ("cta_limit", "fixed:x", "<N> = x"),
    ("cta_limit", "fixed", "<N> missing"),
    ("cta_limit", "fixed:0", "<N> = 0"),
    ("sm_controller", "onac:2:3", "at most 1"),
    ("sm_controller", "onac:-1", "<skip> = -1"),
    ("sm_controller", "fixd:3", "known: all_active, onac[:<skip>], seq_det[:<skip>], fixed:<N>"),
])
def test_bad_names_name_the_part(kind, name, bad):
    with pytest.raises(ConfigError) as e:
        resolve_policy(kind, name)
    assert bad in str(e.value) and str(e.value).startswith(f"{kind} = ")


def test_help_lists_families_not_instances():
    names = policy_names("cta_limit")
    assert names == ["max_occupancy", "perf_sat", "fixed:<N>"]
    assert not any(n.startswith("ctas_") for n in names)
