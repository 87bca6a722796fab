"""Calibration of the block-level mode on the cycle-level model (our choice where [SRTF] is silent):
knees from t(1)/t(R), t_R fitted to the standalone runtime, and the cross-check on a pair."""

import dataclasses

import pytest

from gpusched.config import get_preset
from sim.multiprog.calibrate import check_pair, measure


@pytest.fixture(scope="module")
def cfg():
    c = get_preset("gtx480")
    return dataclasses.replace(c, kernels=dataclasses.replace(c.kernels, concurrent_sm=True))


def test_measure_jpeg(cfg, tmp_path):
    m = measure("ercb_jpeg_d", cfg, scale=0.2, cache_dir=tmp_path)
    assert 1.0 <= m["knee"] <= m["R"] == 8
    assert m["knee"] == pytest.approx(min(8.0, max(1.0, 8 * m["t1"] / m["t_wave"])), abs=1e-3)
    assert m["t1"] < m["t_wave"]                 # fewer resident blocks: faster blocks
    # the fitted t_R stays near the one-wave mean for a mildly spread kernel
    assert 0.8 < m["t_R"] / m["t_wave"] < 1.25
    again = measure("ercb_jpeg_d", cfg, scale=0.2, cache_dir=tmp_path)   # from the cache
    assert again == m and len(list(tmp_path.glob("cal-*.json"))) == 1


def test_block_mode_tracks_the_cycle_model_on_a_fifo_pair(cfg, tmp_path):
    r = check_pair("ercb_jpeg_d+ercb_jpeg_e", "srtf_fifo", cfg, scale=0.2, cache_dir=tmp_path)
    cyc, blk = r["cycle"], r["block"]
    # T^SP equal by the fit (up to rounding); turnarounds within 10 %
    for a, b in zip(cyc["t_sp"], blk["t_sp"]):
        assert b == pytest.approx(a, rel=0.02)
    for a, b in zip(cyc["t_mp"], blk["t_mp"]):
        assert b == pytest.approx(a, rel=0.10)
