"""OWL's opportunistic memory-side prefetcher in the GPU model (sim/memory/prefetch.py): the row
map, the prefetch-engine properties checked on every engine decision of a GPU run, statistics, the option's
default and validation, and compiled = plain Python with it on."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from gpusched.config import ConfigError, get_preset, with_overrides
from sim import accel
from sim.blocks.owl_prefetch import OwlPrefetchTwin
from sim.memory.dram import AddressMap
from sim.memory.prefetch import OwlPrefetcher, RowMap
from sim.run import load_workload, simulate


@pytest.mark.parametrize("preset", ["gtx480", "ikra_15cu", "thesis"])
def test_row_map_is_a_bijection_per_bank_row(preset):
    """Every line of a row range belongs to exactly one (channel, bank) column, in address order,
    also with channel counts that are not powers of two (modulo mapping)."""
    cfg = get_preset(preset)
    m = AddressMap(cfg.dram, cfg.l2.line_bytes, cfg.l2.slices)
    rows = RowMap(m, cfg.l2.line_bytes)
    for row in (0, 1, 7, 12345):
        seen = set()
        for ch in range(m.channels):
            for b in range(m.banks):
                col, prev = 0, -1
                while (line := rows.line_at(ch, b, row, col)) >= 0:
                    assert m.locate(line) == (ch, b, row) and line > prev
                    assert rows.column(line) == col
                    seen.add(line)
                    prev, col = line, col + 1
        assert len(seen) == (1 << cfg.dram.row_bit) // cfg.l2.line_bytes


class Checked(OwlPrefetchTwin):
    """The twin with the prefetch-engine properties asserted on every decision the controller acts on."""

    made: list["Checked"] = []

    def __init__(self, *a, **k):
        super().__init__(*a, **k)
        Checked.made.append(self)
        self.read: dict[int, set[int]] = {}     # bank → columns read since its last ACT
        self.pf: dict[int, int] = {}            # bank → prefetches since its last ACT
        self.proposals = 0

    def step(self, **inp):
        b = inp.get("cmd_bank", 0)
        if inp.get("cmd_act"):
            self.read[b], self.pf[b] = set(), 0
        if inp.get("cmd_pf"):
            assert inp["cmd_line"] not in self.read[b], "a line fetched twice in one activation"
            self.pf[b] += 1
            assert self.pf[b] <= self.shape.LINES
        if inp.get("cmd_mark"):
            self.read.setdefault(b, set()).add(inp["cmd_line"])
        out = super().step(**inp)
        if out["pf_valid"]:
            pb = out["pf_bank"]
            self.proposals += 1
            assert not inp["hit_pending"] >> pb & 1, "prefetch beside a pending row-hit demand"
            assert inp["bank_ready"] >> pb & 1
            assert out["pf_line"] not in self.read.get(pb, set())
            if inp["other_pending"] >> pb & 1:
                assert self.scheme_b, "scheme A prefetched with a conflicting demand waiting"
                c = self.shape.HIGHER if out["c_high"] else self.shape.LOWER
                assert self.pf.get(pb, 0) < c, "row held beyond C prefetches"
        return out


def _run(prefetch: str, workload="owl_t_stream_shared", scale=0.15, checked=False, monkeypatch=None):
    cfg = with_overrides(get_preset("gtx480"), [f"dram.prefetch={prefetch}"])
    if checked:
        monkeypatch.setattr("sim.memory.prefetch.OwlPrefetchTwin", Checked)
    return simulate(cfg, load_workload(workload, seed=1, scale=scale), seed=1, memory="hierarchy")


@pytest.mark.parametrize("scheme", ["owl_a", "owl_b"])
def test_properties_hold_on_every_decision_of_a_gpu_run(scheme, monkeypatch):
    Checked.made.clear()
    r = _run(scheme, checked=True, monkeypatch=monkeypatch)
    assert sum(e.proposals for e in Checked.made) >= r["memory"]["prefetch"]["issued"]
    pf = r["memory"]["prefetch"]
    assert pf["issued"] > 100
    assert pf["issued"] == pf["fills"] + pf["late"] + pf["redundant"]
    assert 0 < pf["accuracy"] <= 1 and 0 < pf["coverage"] < 1 and 0 <= pf["lateness"] < 1
    d = r["memory"]["dram"]
    assert d["prefetch_reads"] == pf["issued"]
    assert d["row_hit_rate_with_prefetch"] > d["row_hit_rate"]
    if scheme == "owl_a":
        assert pf["held_slots"] == 0


def test_off_by_default_and_prefetching_changes_the_run():
    assert get_preset("gtx480").dram.prefetch == "off"
    off, on = _run("off"), _run("owl_b")
    assert off["memory"]["prefetch"]["issued"] == 0 and off["memory"]["dram"]["prefetch_reads"] == 0
    assert off["memory"]["l2"]["prefetch_hits"] == 0
    # prefetched lines turn demand DRAM reads into L2 hits
    assert on["memory"]["dram"]["reads"] < off["memory"]["dram"]["reads"]
    assert on["memory"]["l2"]["hits"] > off["memory"]["l2"]["hits"]
    assert on["memory"]["l2"]["prefetch_hits"] == on["memory"]["prefetch"]["used"] - on["memory"]["prefetch"]["late"]


def test_bad_option_is_a_one_line_error():
    with pytest.raises(ConfigError, match="dram.prefetch"):
        with_overrides(get_preset("gtx480"), ["dram.prefetch=owl_c"])
    cfg = get_preset("gtx480")
    m = AddressMap(cfg.dram, 16, cfg.l2.slices)       # 16 B lines: 128+ lines per row
    with pytest.raises(ConfigError, match="up to 64"):
        OwlPrefetcher("owl_b", m, 16, 16, lambda line: False, m.slice_of)
    with pytest.raises(ConfigError, match="frfcfs"):
        OwlPrefetcher("owl_a", m, 128, 32, lambda line: False, m.slice_of, "fifo")


RUN = ("import json, sys; from gpusched.config import get_preset, with_overrides; "
       "from sim.run import simulate, load_workload; from sim import accel; "
       "cfg = with_overrides(get_preset('gtx480'), ['dram.prefetch=owl_b']); "
       "r = simulate(cfg, load_workload('owl_t_mixed', seed=1, scale=0.1), seed=1, memory='hierarchy'); "
       "print(json.dumps({'compiled': accel.active(), 'result': r}, sort_keys=True, default=str))")


def test_compiled_and_plain_python_agree_with_the_prefetcher_on():
    if not (accel.build_dir() / "ok").is_file():
        if os.environ.get("CI"):
            pytest.fail("CI must build the compiled model (make setup runs sim.accel build)")
        pytest.skip("compiled model not built (python -m sim.accel build)")
    outs = []
    for pure in (False, True):
        env = dict(os.environ)
        env.pop("GPUSCHED_PURE", None)
        if pure:
            env["GPUSCHED_PURE"] = "1"
        p = subprocess.run([sys.executable, "-c", RUN], capture_output=True, text=True, check=True,
                           env=env, cwd=accel.ROOT)
        outs.append(json.loads(p.stdout))
    assert outs[0]["compiled"] is True and outs[1]["compiled"] is False
    assert outs[0]["result"]["memory"]["prefetch"]["issued"] > 0
    assert json.dumps(outs[0]["result"], sort_keys=True) == json.dumps(outs[1]["result"], sort_keys=True)
