"""docs/stats.md lists every key a run emits, nothing else, and is the current rendering."""

import pytest

from gpusched.config import get_preset, with_overrides
from sim.run import simulate
from sim.stats_reference import DOC, STATS, keys_of, render
from sim.workload.catalogue import get_workload


def _run(overrides=(), workload="mixed_like", scale=0.05, **kw):
    cfg = with_overrides(get_preset("tiny"), list(overrides))
    return simulate(cfg, get_workload(workload, scale=scale), **kw)


@pytest.fixture(scope="module")
def runs():
    return [
        _run(memory="hierarchy"),
        _run(memory="fixed"),
        _run(["sm.issue=socgpu", "sm.ib_entries=8"], memory="hierarchy"),
        _run(memory="hierarchy", cta_limit="perf_sat", sm_controller="onac", cta_scheduler="ikra_steal"),
        _run(memory="hierarchy", profile=("warp-states",)),
        _run(memory="hierarchy", profile=("owl",)),
    ]


def test_every_emitted_key_is_documented_and_every_documented_key_is_emitted(runs):
    documented = {s.key for s in STATS}
    emitted = set().union(*(keys_of(r) for r in runs))
    assert emitted - documented == set(), "add these to sim/stats_reference.py"
    never = documented - emitted - {"policy_reports.kernel_scheduler"}
    assert never == set(), "documented but no test run emits them"


def test_the_shape_is_nested_objects_only(runs):
    """Every documented path resolves by nesting: no object holds a dotted key."""
    for r in runs:
        for path in keys_of(r):
            node = r
            for part in path.replace("[]", ".0").split("."):
                node = node[int(part)] if isinstance(node, list) else node[part]


def test_energy_total_is_the_sum_of_its_parts(runs):
    hier, fixed = runs[0]["energy"], runs[1]["energy"]
    assert hier["total_pj"] == pytest.approx(hier["memory_pj"] + hier["core_pj"]
                                             + hier["static_sm_pj"] + hier["static_uncore_pj"])
    assert hier["memory_pj"] > 0 and "memory_pj" not in fixed
    assert fixed["total_pj"] == pytest.approx(fixed["core_pj"] + fixed["static_sm_pj"]
                                              + fixed["static_uncore_pj"])


def test_docs_stats_md_is_current():
    assert DOC.read_text() == render(), "stale: run python -m sim.stats_reference"


def test_issued_counts_slots_not_instructions():
    dual = _run(["sm.issue=inorder_issue", "sm.dual_issue=true"], memory="fixed", workload="compute_only",
                scale=0.2)
    assert dual["issue_stage"]["dual_issues"] > 0
    assert dual["warp_insts"] == dual["issue"]["issued"] + dual["issue_stage"]["dual_issues"]
