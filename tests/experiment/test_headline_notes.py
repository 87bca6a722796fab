"""Headline rows that cannot be computed say why in words (no exception names)."""

from gpusched.experiment.grid import Grid
from gpusched.experiment.query import ResultSet
from gpusched.experiment.registry import Experiment, Headline, Metric
from gpusched.experiment.report import headline_rows


def _needs(workload):
    def ours(results):
        vals = results.select(workload=workload).values("cycles")
        if not vals:
            raise ValueError(f"no runs of {workload}")
        return sum(vals) / len(vals)
    return ours


def _experiment():
    full = Grid(name="full", workloads=["alpha", "beta"], seeds=[0])
    quick = Grid(name="quick", workloads=["alpha"], seeds=[0])
    return Experiment(name="t", title="t", grid=full, quick=quick, metrics=[Metric("cycles", "cycles")],
                      headline=[Headline("alpha cycles", "", _needs("alpha")),
                                Headline("beta cycles", "", _needs("beta"), note="paper: 7"),
                                Headline("missing stat", "", lambda r: r.rows[0]["stats"]["nope"]),
                                Headline("nan row", "", lambda r: r.mean("cycles", {"workload": "beta"})),
                                Headline("ratio", "", lambda r: 1 / 0)])


def test_rows_without_a_number_say_why():
    rows = headline_rows(_experiment(), ResultSet([{"workload": "alpha", "cycles": 10}]), quick=True)
    by = {r["metric"]: r for r in rows}
    assert by["alpha cycles"]["ours"] == 10 and by["alpha cycles"]["note"] == ""
    assert by["beta cycles"]["ours"] is None
    assert by["beta cycles"]["note"] == "paper: 7 (not computable: beta is not in the quick grid (run without --quick))"
    assert by["nan row"]["note"] == "(not computable: no runs to compute it from)"
    assert by["missing stat"]["note"] == "(not computable: the runs lack the statistic 'stats')"
    assert by["ratio"]["note"] == "(not computable: its denominator is zero on these runs)"
    assert not any("Error" in r["note"] for r in rows)


def test_no_runs_at_all():
    rows = headline_rows(_experiment(), ResultSet([]))
    assert all(r["note"].endswith("(not computable: no finished runs)") for r in rows)
