"""Reports: markdown + PNG plots + headline.json from a declared experiment (toy runner), the
sweep reused on a second call, and the baseline_warp declaration."""

import json
import math

import pytest

from gpusched.experiment.registry import Experiment, experiment_names, get_experiment
from gpusched.experiment.store import ResultStore

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def test_report_writes_markdown_plots_and_headline(cli, tmp_path):
    db, out = tmp_path / "r.sqlite", tmp_path / "reports" / "toy"
    r = cli("report", "toy_paper", "--quick", "--db", db, "--out", out, "--jobs", "1", "-q")
    assert r.returncode == 0, r.stderr
    assert "12 points, 0 already stored, 12 run (0 failed)" in r.stdout

    md = (out / "report.md").read_text()
    assert md.startswith("# Toy paper")
    assert "| workload | lrr | gto |" in md and "IPC (warp instructions/cycle)" in md
    for name in ("ipc.png", "hit.png"):
        data = (out / name).read_bytes()
        assert data.startswith(PNG_MAGIC) and len(data) > 5000
        assert f"]({name})" in md

    headline = json.loads((out / "headline.json").read_text())
    assert [set(h) for h in headline] == [{"metric", "paper", "ours", "unit", "note", "caveat"}] * 2
    assert headline[0]["paper"] == 1.5 and headline[1]["paper"] is None
    assert all(h["caveat"] is None for h in headline)      # toy_paper declares no caveat

    # recompute the GTO/LRR geometric-mean IPC ratio straight from the stored stats
    with ResultStore(db) as store:
        runs = [r for r in store.runs() if r.status == "done"]
    assert len(runs) == 12
    ratios = []
    for w in ("alpha", "beta", "gamma"):
        mean = {}
        for policy in ("lrr", "gto"):
            ipcs = [r.stats["ipc"] for r in runs
                    if r.point.workload == w and r.point.overrides["sm.warp_sched"] == policy]
            assert len(ipcs) == 2
            mean[policy] = sum(ipcs) / 2
        ratios.append(mean["gto"] / mean["lrr"])
    assert headline[0]["ours"] == pytest.approx(math.prod(ratios) ** (1 / 3), rel=1e-12)
    alpha = [r.stats["ipc"] for r in runs if r.point.workload == "alpha"]
    assert headline[1]["ours"] == pytest.approx(sum(alpha) / len(alpha), rel=1e-12)

    again = cli("reproduce", "toy_paper", "--quick", "--db", db, "--out", out, "--jobs", "1", "-q")
    assert again.returncode == 0, again.stderr
    assert "12 already stored, 0 run" in again.stdout


def test_report_lists_failed_points(cli, tmp_path):
    db, out = tmp_path / "r.sqlite", tmp_path / "rep"
    r = cli("report", "toy_paper", "--quick", "--db", db, "--out", out, "--no-run")
    assert r.returncode == 0, r.stderr
    md = (out / "report.md").read_text()
    assert "0 done, 0 failed, 12 missing" in md and "- missing: `toy tiny alpha seed=0" in md
    assert all(h["ours"] is None for h in json.loads((out / "headline.json").read_text()))


def test_no_run_keeps_an_existing_report_when_nothing_is_stored(cli, tmp_path):
    db, out = tmp_path / "r.sqlite", tmp_path / "rep"
    out.mkdir()
    (out / "report.md").write_text("an earlier report")
    r = cli("report", "toy_paper", "--quick", "--db", db, "--out", out, "--no-run")
    assert r.returncode == 2 and "none of the 12 points is stored" in r.stderr
    assert (out / "report.md").read_text() == "an earlier report"


def test_baseline_warp_is_declared_against_the_model_api():
    assert "baseline_warp" in experiment_names()
    exp = get_experiment("baseline_warp")
    assert isinstance(exp, Experiment) and exp.module == "experiments.baseline_warp"
    assert exp.grid.kind == exp.quick.kind == "model"
    full, quick = exp.grid.points(), exp.quick.points()
    assert len(full) == 3 * 2 * 3 and len(quick) == 3 * 2
    assert {p.overrides["sm.warp_sched"] for p in full} == {"lrr", "gto"}
    assert len({p.workload for p in full}) == 3
    assert all(h["paper"] is None for h in [{"paper": h.paper} for h in exp.headline])
    assert [exp.metric(p.metric).unit for p in exp.plots] == ["warp instructions/cycle",
                                                              "core cycles"]
    stats = {"cycles": 2000, "warp_insts": 3000, "ipc": 1.5, "memory": {"l1.hit_rate": 0.25}}
    assert exp.metric("ipc").value(stats) == 1.5
    assert exp.metric("l1_hit").value(stats) == 25.0        # memory → "l1.hit_rate", in %
    assert exp.metric("l1_hit").value({"cycles": 1}) is None  # fixed memory: no L1 stats


def test_names_and_caveats_reach_tables_legends_and_headlines(tmp_path, monkeypatch):
    """``Experiment.names`` replaces raw values in table headers, legends and the normalised
    axis; a headline's ``caveat`` ends its note and is kept in headline.json."""
    import dataclasses
    import json

    from gpusched.experiment import plotstyle
    from gpusched.experiment.executors import SerialExecutor
    from gpusched.experiment.registry import Headline, Plot, get_experiment
    from gpusched.experiment.report import write_report
    from gpusched.experiment.store import ResultStore
    from gpusched.experiment.sweep import run_sweep
    base = get_experiment("toy_paper")
    exp = dataclasses.replace(
        base, names={"sm.warp_sched": {"lrr": "LRR (baseline)", "gto": "GTO"}},
        plots=[Plot("ipc", "ipc.png", normalize="lrr")],
        headline=[dataclasses.replace(base.headline[0], caveat=lambda r: "said by the runs"),
                  Headline("plain", "×", lambda r: 1.0)])
    points = exp.quick.check()
    with ResultStore(tmp_path / "r.sqlite") as store:
        run_sweep("q", points, store, SerialExecutor(("toy_kinds",)), show_progress=False)
        runs = store.runs()
    legends = []
    monkeypatch.setattr(plotstyle, "legend_below",
                        lambda fig, handles, labels=None, title="": legends.append(list(labels)))
    files = write_report(exp, points, runs, tmp_path / "out", quick=True)
    md = files.markdown.read_text()
    assert "| workload | LRR (baseline) | GTO |" in md and "| lrr |" not in md
    assert legends == [["LRR (baseline)", "GTO"]]
    assert "relative to warp scheduler = LRR (baseline)" in md
    head = json.loads(files.headline.read_text())
    assert head[0]["note"] == "toy; said by the runs" and head[0]["caveat"] == "said by the runs"
    assert head[1]["caveat"] is None and head[1]["note"] == ""
