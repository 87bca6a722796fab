"""The sampling checks' tables (experiments/sampling_accuracy.py, experiments/sampling_ranking.py):
the error and the ranking delta come from the full and sampled cycles, a delta beyond
``RANK_PP`` fails the check, and the launches a sampled run simulated in full are shown."""

from __future__ import annotations

import pytest

from experiments import sampling_accuracy, sampling_ranking


def _sampled(cycles: int, full: list[int]) -> dict:
    return {"cycles": cycles, "sampling": {"launches": 4, "simulated": [0, 1],
                                           "waves": {"cut": [{"launch": 1}], "full": full}}}


def test_ranking_table_reads_speedups_over_rr_and_fails_beyond_the_bound():
    mode = "kernels,waves"
    runs = {("srad_v2", "rr", "none"): ({"cycles": 1000}, 10.0), ("srad_v2", "rr", mode): (_sampled(1000, []), 2.0),
            ("srad_v2", "owl", "none"): ({"cycles": 800}, 10.0), ("srad_v2", "owl", mode): (_sampled(810, [3]), 5.0)}
    rows, ok = sampling_ranking.table(runs, mode)
    owl = rows[-1].split(" | ")
    # full: 1000/800 = 1.250; sampled: 1000/810 = 1.235 → −1.54 pp, within 2 pp
    assert owl[5:8] == ["1.250", "1.235", "-1.54"] and ok
    assert owl[8] == "2.0×" and owl[9] == "3 |"
    runs[("srad_v2", "owl", mode)] = (_sampled(820, []), 5.0)        # 1.220: −3.05 pp
    rows, ok = sampling_ranking.table(runs, mode)
    assert not ok and rows[-1].endswith("| none |")


def test_accuracy_table_has_one_row_per_mode_with_its_error():
    runs = {}
    for ws, full in (("lrr", 1000), ("gto", 900)):
        runs[("kmeans", ws, "none")] = ({"cycles": full}, 9.0)
        for mode in sampling_accuracy.MODES:
            runs[("kmeans", ws, mode)] = (_sampled(full + 20, []), 3.0)
    rows, ok = sampling_accuracy.table(runs)
    body = rows[2:]
    assert [r.split(" | ")[1] for r in body] == list(sampling_accuracy.MODES)
    assert all("+2.00 %" in r and "3.0×" in r for r in body) and ok
    runs[("kmeans", "lrr", "waves")] = (_sampled(1040, []), 3.0)    # +4 %: beyond 3 %
    assert not sampling_accuracy.table(runs)[1]


@pytest.mark.parametrize("schemes", ["owl,tl", "rr,nope"])
def test_ranking_refuses_schemes_without_rr_or_unknown(schemes, capsys):
    assert sampling_ranking.main(["--schemes", schemes, "--db", "unused.db"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"--schemes = {schemes}:") and "\n" not in err


def test_accuracy_points_take_the_sm_count_and_refuse_a_bad_one(capsys):
    pts = sampling_accuracy.points("gtx480", ["kmeans"], sms=4)
    assert len(pts) == len(sampling_accuracy.POLICIES) * (1 + len(sampling_accuracy.MODES))
    assert all(p.overrides["sm.count"] == 4 for p in pts)
    assert all("sm.count" not in p.overrides for p in sampling_accuracy.points("gtx480", ["kmeans"]))
    assert sampling_accuracy.main(["--sms", "0", "--db", "unused.db"]) == 2
    assert capsys.readouterr().err.strip() == "--sms = 0: expected a count >= 1"
