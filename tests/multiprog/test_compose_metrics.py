"""Pair composer (same blocks alone and together), ordered pairs, metrics on hand-computed cases
and the analytic SJF/LJF references ([SRTF STP, ANTT, SJF])."""

import math

import pytest

from gpusched.config import ConfigError
from sim.multiprog import metrics
from sim.multiprog.compose import (Member, build_member, compose, ordered_pairs, parse_members,
                                   read_pair_file, resolve_offset)
from sim.workload.ercbench import ERCB_NAMES
from sim.workload.kernel import GLOBAL_OPS


def _stream(kernel, cta, warp):
    return [(i.op, i.addrs) for i in kernel.stream(cta, warp)]


def test_member_keeps_its_standalone_seed_and_streams():
    alone = build_member("ercb_jpeg_e", seed=3, scale=0.01)[0]
    pair = compose([Member("ercb_aes_d"), Member("ercb_jpeg_e", 100)], seed=3, scale=0.01)
    second = pair.kernels[1]
    assert second.name == "ercb_jpeg_e" and second.arrival == 100
    assert second.meta["seed"] == alone.meta["seed"]
    for cta, warp in ((0, 0), (7, 1), (511, 0)):
        assert _stream(second, cta, warp) == _stream(alone, cta, warp)
    # the same member first in another pair: same seed again
    other = compose([Member("ercb_jpeg_e"), Member("ercb_sad", 5)], seed=3, scale=0.01)
    assert other.kernels[0].meta["seed"] == alone.meta["seed"]


def test_members_use_disjoint_address_lanes():
    pair = compose([Member("ercb_jpeg_d"), Member("ercb_jpeg_e")], seed=0, scale=0.01)
    def glob(k):
        return {x for i in k.stream(0, 0) if i.addrs and i.op in GLOBAL_OPS for x in i.addrs}
    a, b = glob(pair.kernels[0]), glob(pair.kernels[1])
    assert a and b and not a & b


def test_56_ordered_pairs():
    pairs = ordered_pairs(list(ERCB_NAMES))
    assert len(pairs) == 56 == len(set(pairs))
    assert all(a != b for a, b in (p.split("+") for p in pairs))


@pytest.mark.parametrize("bad, field", [("ercb_aes_d+nope", "workload"), ("ercb_aes_d", "workload"),
                                        ("ercb_sad+ercb_sad", "workload")])
def test_bad_member_names_name_the_field(bad, field):
    with pytest.raises(ConfigError) as e:
        parse_members(bad)
    assert e.value.where == field


def test_pair_file_errors_name_file_and_line(tmp_path):
    f = tmp_path / "pairs.txt"
    f.write_text("# two pairs\nercb_aes_d+ercb_sad\nercb_sad+ercb_bogus\n")
    with pytest.raises(ConfigError) as e:
        read_pair_file(str(f))
    assert e.value.where == f"{f}:3" and e.value.value == "ercb_bogus"


def test_too_many_kernels_for_the_slots():
    with pytest.raises(ConfigError) as e:
        compose([Member("ercb_aes_d"), Member("ercb_sad"), Member("ercb_sha1")], 0, 0.01,
                max_concurrent=2)
    assert e.value.where == "kernels.max_concurrent"


def test_offsets():
    assert resolve_offset("100", 5000) == 100
    assert resolve_offset("25%", 5000) == 1250
    for bad in ("5000", "6000", "100%", "-3", "x"):
        with pytest.raises(ConfigError) as e:
            resolve_offset(bad, 5000)
        assert e.value.where == "offset"


def test_metrics_hand_computed():
    s = metrics.summary([1.0, 4.0])
    assert s["stp"] == 1.25 and s["antt"] == 2.5 and s["fairness"] == 0.25
    assert math.isclose(metrics.gmean([1.0, 4.0]), 2.0)


def test_oracles_serial_model():
    # together: the short one (100) first, then the long one (300)
    assert metrics.oracle_ntts(300, 100, 0, True) == [400 / 300, 1.0]
    assert metrics.oracle_ntts(300, 100, 0, False) == [1.0, 400 / 100]
    # late second arrival: the first has 200 left at cycle 100, the second (150) is shorter
    assert metrics.oracle_ntts(300, 150, 100, True) == [450 / 300, 1.0]
    # … and with 250 the first finishes first: the second waits 200
    assert metrics.oracle_ntts(300, 250, 100, True) == [1.0, 450 / 250]


def test_active_cycles_is_the_union():
    assert metrics.active_cycles([(0, 10), (5, 20), (30, 40)]) == 30
    assert metrics.active_cycles([]) == 0


def test_predictor_accuracy_and_delays_from_a_trace():
    trace = {"kernels": [{"name": "a", "blocks": [[0, 0, 100], [0, 100, 200], [1, 0, 150]]},
                         {"name": "b", "blocks": [[0, 220, 300]]}],
             "records": [[100, 0, 0, 250], [150, 1, 0, 150]],
             "samples": [[120, 1]], "switches": [[160, 0, 1]]}
    acc = metrics.predictor_accuracy(trace)
    assert [r["ratio"] for r in acc] == [1.25, 1.0]
    d = metrics.delays(trace)
    assert d == {"sampling": [100], "handoff": [40]}
