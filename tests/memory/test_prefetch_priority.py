"""The prefetch-priority ablation (``dram.prefetch_priority``): lowest (default) against
our reproduction plan's order, demand row hit > prefetch > row-miss demand."""

from __future__ import annotations

import pytest

from gpusched.config import ConfigError, get_preset, with_overrides
from sim.run import load_workload, simulate
from tests.memory.test_prefetch import Checked


def _run(priority: str, monkeypatch=None):
    cfg = with_overrides(get_preset("gtx480"), ["dram.prefetch=owl_b",
                                                f"dram.prefetch_priority={priority}"])
    if monkeypatch is not None:
        monkeypatch.setattr("sim.memory.prefetch.OwlPrefetchTwin", Checked)
    return simulate(cfg, load_workload("owl_t_stream_shared", seed=1, scale=0.15), seed=1,
                    memory="hierarchy")


def test_lowest_is_the_default_and_the_spec_order_changes_the_run(monkeypatch):
    assert get_preset("owl").dram.prefetch_priority == "lowest"
    low = _run("lowest")
    Checked.made.clear()
    spec = _run("above_misses", monkeypatch)
    assert Checked.made, "the checked engine ran (the prefetch-engine properties held on every decision)"
    pl, ps = low["memory"]["prefetch"], spec["memory"]["prefetch"]
    assert pl["issued"] > 100 and ps["issued"] > 100
    assert (pl["issued"], low["cycles"]) != (ps["issued"], spec["cycles"])
    # prefetches sooner, before row misses: no fewer of them are in time (not late)
    assert ps["issued"] - ps["late"] >= 0.9 * (pl["issued"] - pl["late"])


def test_bad_priority_is_a_one_line_error():
    with pytest.raises(ConfigError, match="dram.prefetch_priority"):
        with_overrides(get_preset("owl"), ["dram.prefetch_priority=highest"])
