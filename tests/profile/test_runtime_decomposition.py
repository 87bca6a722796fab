"""The runtime decomposition of [THESIS §3.5] (idle / compute / memory / overlap cycles per SM),
kept by the warp-state profiler (sim/profile/warp_states.py)."""

from types import SimpleNamespace

import pytest

from gpusched.config import get_preset, with_overrides
from sim.profile.warp_states import DECOMPOSITION, WarpStateProfiler
from sim.run import simulate
from sim.workload.catalogue import get_workload

from tests.profile.test_warp_states import THESIS_ISSUE, EveryCycle


def _sm(sm_id: int, wb: int, mem_out: int):
    """An SM with ``wb`` results waiting for write-back, ``mem_out`` loads out and no CTA."""
    return SimpleNamespace(sm_id=sm_id, wb=[None] * wb, mem_out=mem_out, ctas=[])


def test_hand_worked_spans():
    prof = WarpStateProfiler(n_sms=2)
    prof.charge(_sm(0, wb=1, mem_out=0), 0, 10)      # compute only: 10
    prof.charge(_sm(0, wb=3, mem_out=2), 10, 14)     # both: 4
    prof.charge(_sm(0, wb=0, mem_out=1), 14, 20)     # memory only: 6
    prof.charge(_sm(0, wb=0, mem_out=0), 20, 22)     # neither: idle
    prof.charge(_sm(1, wb=0, mem_out=5), 3, 4)       # SM 1: one memory cycle
    d = prof.decomposition(30)
    # SM 0: compute 10 + 4, memory 6 + 4, overlap 4, idle 30 − 20 (cycles 20–29)
    assert d["per_sm"] == [[0, 10, 14, 10, 4], [1, 29, 0, 1, 0]]
    assert (d["idle"], d["compute"], d["memory"], d["overlap"]) == (19.5, 7.0, 5.5, 2.0)
    for _, idle, comp, mem, both in d["per_sm"]:
        assert idle + comp + mem - both == 30          # runtime = idle + compute + memory − overlap


def _run(**kw):
    cfg = with_overrides(get_preset("tiny"), list(THESIS_ISSUE))
    return simulate(cfg, get_workload("mixed_like", scale=0.05), memory="hierarchy",
                    profile=("warp-states",), **kw)


def test_equals_a_cycle_by_cycle_count_and_is_exact_under_skipping(monkeypatch):
    seen: dict[tuple[int, int], tuple[bool, bool]] = {}
    sample = WarpStateProfiler.sample

    def recording(self, sm, now):
        seen[(sm.sm_id, now)] = (bool(sm.wb), bool(sm.mem_out))
        sample(self, sm, now)

    skipping = _run()["warp_states"]["decomposition"]
    monkeypatch.setattr(WarpStateProfiler, "sample", recording)
    every = _run(sm_controller=EveryCycle)
    d = every["warp_states"]["decomposition"]
    assert d == skipping
    cycles = every["cycles"]
    for sid, idle, comp, mem, both in d["per_sm"]:
        flags = [seen.get((sid, t), (False, False)) for t in range(cycles)]
        assert comp == sum(a for a, _ in flags)
        assert mem == sum(m for _, m in flags)
        assert both == sum(a and m for a, m in flags)
        assert idle == sum(not a and not m for a, m in flags)
    assert all(d[k] > 0 for k in DECOMPOSITION)
    assert d["idle"] + d["compute"] + d["memory"] - d["overlap"] == pytest.approx(cycles)
