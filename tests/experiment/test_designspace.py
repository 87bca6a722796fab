"""``gpusched report designspace``: each mechanism's stored headline as a gain in % beside the
paper's, against its blocks' gates per SM (minus the baseline blocks it replaces)."""

import json
from pathlib import Path

import pytest

from gpusched.config import get_preset
from gpusched.experiment.designspace import (MECHANISMS, Mechanism, Priced, collect,
                                             gain_percent, sm_estimate_ge, write)
from gpusched.experiment.registry import experiment_names, get_experiment
from gpusched.experiment.store import ResultStore

TOY = Mechanism("toy GTO", "toy_paper", "GTO/LRR IPC", "higher",
                (Priced("warp_sched", {"policy": "gto"}, "subcore"),
                 Priced("onac", {}, "gpu")), "baselines",
                replaces=(Priced("warp_sched", {"policy": "lrr"}, "subcore"),))
GE = {"gto": 1000.0, "lrr": 400.0, "onac": 2000.0}


def fake_price(block, params):
    """Deterministic fake areas; records what was asked so the test sees the parameters."""
    fake_price.asked.append((block, params))
    key = params.get("policy", block)
    return {"ge": GE[key], "um2": 3.75 * GE[key]}


def test_gain_and_cost_come_from_the_stored_runs_and_the_blocks(cli, tmp_path):
    db = tmp_path / "r.sqlite"
    assert cli("reproduce", "toy_paper", "--quick", "--db", db, "--out", tmp_path / "toy",
               "--jobs", "1", "-q").returncode == 0
    headline = json.loads((tmp_path / "toy" / "headline.json").read_text())[0]
    fake_price.asked = []
    with ResultStore(db) as store:
        (row,) = collect(store, fake_price, (TOY,))
    cfg = get_preset("tiny")  # the toy grid's preset
    assert row.grid == "quick" and row.ours == pytest.approx(headline["ours"])
    assert row.gain == pytest.approx((headline["ours"] - 1) * 100)
    assert row.paper == 1.5 and row.paper_gain == pytest.approx(50.0)
    assert row.ge_per_sm == pytest.approx(GE["gto"] * cfg.sm.subcores + GE["onac"] / cfg.sm.count)
    assert row.net_ge_per_sm == pytest.approx(row.ge_per_sm - GE["lrr"] * cfg.sm.subcores)
    assert row.um2_per_sm == pytest.approx(3.75 * row.ge_per_sm)
    assert row.sm_share == pytest.approx(100 * row.ge_per_sm / sm_estimate_ge(cfg))
    w = cfg.sm.warps_per_sm // cfg.sm.subcores
    assert ("warp_sched", {"W": w, "policy": "gto"}) in fake_price.asked

    files = write([row], tmp_path / "ds")
    md = files[0].read_text()
    assert "| [toy GTO](../../docs/mechanisms/baselines.md) | tiny | quick |" in md
    data = json.loads(files[1].read_text())
    assert data[0]["gain_pct"] == pytest.approx(row.gain)
    assert files[2].read_bytes().startswith(b"\x89PNG")


def test_a_mechanism_not_reproduced_still_shows_the_paper_and_says_how(tmp_path):
    with ResultStore(tmp_path / "empty.sqlite") as store:
        (row,) = collect(store, fake_price, (TOY,))
    assert row.grid == "" and row.ours is None and row.gain is None
    assert row.paper == 1.5 and "gpusched reproduce toy_paper --quick" in row.note


def test_every_mechanism_names_a_real_headline_and_docs_page():
    pages = {p.stem for p in (Path(__file__).parents[2] / "docs" / "mechanisms").glob("*.md")}
    for m in MECHANISMS:
        assert m.experiment in experiment_names(), m.name
        assert m.metric in [h.metric for h in get_experiment(m.experiment).headline], m.name
        assert m.page in pages, m.name


def test_gain_reads_each_kind_of_headline():
    assert gain_percent(1.25, "higher") == pytest.approx(25.0)
    assert gain_percent(0.81, "lower") == pytest.approx(19.0)
    assert gain_percent(20.0, "percent") == 20.0 and gain_percent(None, "higher") is None


def test_designspace_without_a_store_is_one_line(cli, tmp_path):
    r = cli("report", "designspace", "--db", tmp_path / "none.sqlite")
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1
    assert "reproduce" in r.stderr


def test_concurrent_kernels_are_priced_with_one_core_row_per_sm():
    """The interleaved ck_dispatch against the left-over one, at the preset's SM count."""
    from gpusched.experiment.designspace import block_params
    mech = next(m for m in MECHANISMS if m.experiment == "concurrent")
    cfg = get_preset("thesis_ch5")
    assert block_params(mech.cost[0], cfg) == {"NC": cfg.sm.count, "policy": "interleaved"}
    assert block_params(mech.replaces[0], cfg)["policy"] == "sequential"


def test_collect_says_n_of_m_before_each_mechanism(tmp_path):
    heard, fake_price.asked = [], []
    toys = (TOY, Mechanism("toy again", *[getattr(TOY, f) for f in
                                             ("experiment", "metric", "better", "cost", "page")]))
    with ResultStore(tmp_path / "empty.sqlite") as store:
        collect(store, fake_price, toys, progress=heard.append)
    assert heard == ["designspace 1/2: toy GTO", "designspace 2/2: toy again"]


def test_a_negative_net_cost_says_the_replaced_baseline_costs_more(tmp_path):
    """SOCGPU's case: the in-order stage it replaces is priced above it; the row says so with
    both numbers instead of leaving a bare negative."""
    fake_price.asked = []
    costly = Mechanism("toy cheap", "toy_paper", "GTO/LRR IPC", "higher",
                       (Priced("warp_sched", {"policy": "lrr"}, "subcore"),), "baselines",
                       replaces=(Priced("onac", {}, "sm"),))
    with ResultStore(tmp_path / "empty.sqlite") as store:
        (row,) = collect(store, fake_price, (costly,))
    cfg = get_preset("tiny")
    assert row.net_ge_per_sm == pytest.approx(GE["lrr"] * cfg.sm.subcores - GE["onac"])
    assert row.net_ge_per_sm < 0
    assert "negative net: the replaced onac per sm costs 0.00 M GE per SM" in row.note
    assert row.replaced_ge_per_sm == GE["onac"]
