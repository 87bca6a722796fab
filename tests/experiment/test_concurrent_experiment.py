"""experiments/concurrent.py: valid grids, the runner kind's one-line errors, headline rows
computed as documented from a tiny real grid, and the figures drawn from it."""

import pytest

from gpusched.config import ConfigError
from gpusched.experiment.point import Point, flatten
from gpusched.experiment.query import ResultSet
from gpusched.experiment.registry import get_experiment


def test_grids_check_and_cover_the_schedulers():
    from experiments.concurrent import PLOT_PAIR, POLICIES
    exp = get_experiment("concurrent", catalogue=True)
    for grid in (exp.grid, exp.quick):
        points = grid.check()                       # bad names would raise here
        pairs = {p.workload for p in points if "+" in p.workload}
        assert PLOT_PAIR in pairs and len(pairs) >= 2
        for pair in pairs:
            assert {p.params["policy"] for p in points if p.workload == pair} >= set(POLICIES[:2])
        for name in {n for pair in pairs for n in pair.split("+")}:     # every kernel alone
            assert any(p.workload == name for p in points)
        assert {p.overrides["sm.warp_sched"] for p in points} == {"gto", "tlrr", "tlgto"}
        assert all(p.overrides["sm.warps_per_sm"] == 64 for p in points)     # Fig 5.3
        profiled = {p.params["policy"] for p in points if p.params["profile"]}
        assert profiled == {"ck_sequential", "ck_interleaved"}
    full = {p.workload for p in exp.grid.points()}
    assert {"add_10_loops", "add_20_loops", "stream_3_words"} <= full


@pytest.mark.parametrize("workload, params, overrides, field", [
    ("add_2_loops+stream_1_words", {"policy": "fifo"}, {}, "policy"),
    ("add_2_loops+stream_1_words", {"profile": "ipc"}, {}, "profile"),
    ("add_2_loops+stream_1_words", {"scale": 0}, {}, "scale"),
    ("add_2_loops+stream_1_words", {"share": 3}, {}, "share"),
    ("add_2_loops+stream_1_words", {"shares": 3}, {}, "shares"),
    ("add_2_loops+nope", {}, {}, "workload"),
    ("add_2_loops+stream_1_words", {}, {"kernels.concurrent_sm": False}, "kernels.concurrent_sm"),
])
def test_runner_checks_name_the_field(workload, params, overrides, field):
    from experiments.concurrent_runs import check_pair
    point = Point(preset="thesis_ch5", workload=workload, seed=0, overrides=overrides,
                  params=params, kind="ck_pair")
    with pytest.raises(ConfigError) as e:
        check_pair(point)
    assert e.value.where == field


@pytest.fixture(scope="module")
def tiny():
    """The quick grid's points at 2 % of the CTAs (13 per kernel), run for real."""
    import experiments.concurrent as c
    from experiments.concurrent_runs import run_pair
    grid = c._grid("t", [c.PLOT_PAIR], ["add_2_loops", *c.PLOT_PAIR.split("+")], 0.02, 0.02)
    rows = []
    for p in grid.points():
        rows.append({"workload": p.workload, **p.overrides, **p.params,
                     **flatten(run_pair(p))})
    return ResultSet(rows)


def test_headline_from_real_runs(tiny):
    import experiments.concurrent as c
    from gpusched.experiment.report import headline_rows
    exp = get_experiment("concurrent", catalogue=True)
    head = {r["metric"]: r for r in headline_rows(exp, tiny, quick=True)}
    a, s = c.PLOT_PAIR.split("+")
    alone = {n: c.row(tiny, n, c.SEQ)["cycles"] for n in (a, s)}
    inter = c.row(tiny, c.PLOT_PAIR, c.INTER)["cycles"]
    achieved = sum(alone.values()) / inter
    ideal = sum(alone.values()) / max(alone.values())
    best = head["best achieved speedup over sequential (interleaved)"]
    assert best["ours"] == pytest.approx(achieved) and best["paper"] == 1.57
    assert head["interleaved efficiency, lowest pair"]["ours"] == pytest.approx(achieved / ideal)
    left = c.row(tiny, c.PLOT_PAIR, c.SEQ)["cycles"]
    assert head["best achieved speedup over the measured left-over run"]["ours"] == \
        pytest.approx(left / inter)
    # add_x_loops: slope between x = 2 and x = 10, runtime rising with x
    slope = head["add_x_loops: cycles per unit of x, per 640 CTAs"]["ours"]
    assert slope == pytest.approx((alone[a] - c.row(tiny, "add_2_loops", c.SEQ)["cycles"]) / 8
                                  / 0.02)
    assert slope > 0
    for ws in ("tlrr", "tlgto"):
        sd = head[f"{ws.upper()}: {a} slowdown when sharing"]["ours"]
        k = next(k for k in c.row(tiny, c.PLOT_PAIR, c.INTER, ws)["kernels"] if k["name"] == a)
        assert sd == pytest.approx(k["cycles"] / c.row(tiny, a, c.SEQ, ws)["cycles"])
    assert head["stream_3_words DRAM utilisation"]["ours"] is None     # not in this grid
    util = head[f"{c.PLOT_PAIR} interleaved: DRAM utilisation"]["ours"]
    assert util == pytest.approx(100 * c.row(tiny, c.PLOT_PAIR, c.INTER)["mem_util"])
    assert 0 < util <= 100


def test_figures_draw(tiny, tmp_path):
    from gpusched.experiment import plotstyle
    exp = get_experiment("concurrent", catalogue=True)
    plt = plotstyle.pyplot()
    for spec in exp.plots:
        fig = spec.draw(exp, tiny, plt)
        paths = plotstyle.save(fig, tmp_path / spec.filename)
        assert paths[0].stat().st_size > 5_000


def test_tables_keep_the_gto_runs_only():
    exp = get_experiment("concurrent", catalogue=True)
    m = exp.metric("mem_gto")
    assert m.value({"mem_util": 0.5, "warp_sched": "gto"}) == pytest.approx(50.0)
    assert m.value({"mem_util": 0.5, "warp_sched": "tlrr"}) is None
    assert exp.metric("cycles_gto").value({"cycles": 7}) is None      # no scheduler recorded


def test_program_grids_check_and_pair_the_suites_ch5_programs():
    from workloads import programs
    exp = get_experiment("concurrent")
    for grid in (exp.grid, exp.quick):
        points = grid.check()
        progs = {p.workload for p in points if p.workload.startswith("program:")}
        pairs = {w for w in progs if "+" in w}
        assert len(pairs) == 2 and all(any(q.workload == w and q.params["share"] == "oracle"
                                           and q.params["policy"] == "ck_interleaved"
                                           for q in points) for w in pairs)
        for member in {m for w in pairs for m in w.split("+")}:
            assert member in progs                  # each program alone too
            name = member.removeprefix("program:").split("@")[0]
            assert "thesis_ch5" in programs.load(name).INFO["papers"]


def test_a_program_pair_runs_at_its_optimal_counts(tmp_path, monkeypatch):
    # tiny Gaussian (multipliers: 4 CTAs per SM, eliminate: 8) beside its multipliers kernel:
    # each member at its oracle count from its own sweep, which runs up to the widest launch's
    # limit; a member's launches stay in order
    from experiments.concurrent_runs import run_pair
    monkeypatch.chdir(tmp_path)                     # the sweep cache
    pair = "program:gaussian@0.004+program:gaussian~gauss_multipliers@0.002"
    point = Point(preset="thesis_ch5", workload=pair, seed=0,
                  overrides={"sm.warps_per_sm": 64, "sm.threads_per_sm": 2048},
                  params={"policy": "ck_interleaved", "share": "oracle"}, kind="ck_pair")
    out = run_pair(point)
    whole, mult = pair.split("+")
    assert max(dict(out["sweeps"][whole])) == 8 and max(dict(out["sweeps"][mult])) == 4
    for member, sweep in out["sweeps"].items():
        assert out["shares"][member] in dict(sweep)
    names = [k["name"] for k in out["kernels"]]
    assert names.count("gauss_eliminate") > 1
    first = [k for k in out["kernels"] if k["name"] == "gauss_eliminate"]
    assert all(b["start"] > a["end"] for a, b in zip(first, first[1:]))
