"""`gpusched area` without a liberty file: NAND2 equivalents and a clear statement; with a
liberty file the user points to: µm², GE from that library's NAND2."""

import shutil
from pathlib import Path

import pytest

from gpusched.blocks import get_block, parse_params
from gpusched.config import ConfigError
import synth.area as area_mod

pytestmark = pytest.mark.synth
SPEC = get_block("warp_sched")


def _no_liberty(path=None):
    if path is not None:
        return Path(path)
    raise ConfigError("--liberty", "sky130hd", "no liberty file")


def test_auto_falls_back_to_nand2_equivalents_with_a_statement(monkeypatch, capsys):
    from gpusched.cli import main
    monkeypatch.setattr(area_mod, "liberty_source", _no_liberty)
    assert area_mod.resolve_liberty("auto") == "ge"
    with pytest.raises(SystemExit) as done:
        main(["area", "warp_sched", "--param", "W=8"])
    assert done.value.code == 0
    first, note = capsys.readouterr().out.strip().splitlines()
    assert "[ge]" in first and "GE" in first and "µm² n/a" in first
    assert note == area_mod.NO_LIBERTY_NOTE


def test_a_liberty_file_the_user_points_to(tmp_path):
    try:
        src = area_mod.liberty_source()
    except ConfigError:
        pytest.skip("no sky130hd liberty on this machine")
    mine = tmp_path / "my_cells.lib.gz"
    shutil.copy(src, mine)
    r = area_mod.area(SPEC, parse_params(SPEC, {"W": 8, "policy": "lrr"}), str(mine))
    assert r["um2"] > 0 and r["ge"] == pytest.approx(r["um2"] / 3.7536, abs=0.1)


def test_a_missing_liberty_file_is_one_error():
    with pytest.raises(ConfigError, match="no such liberty file"):
        area_mod.area(SPEC, parse_params(SPEC, {"W": 8}), "/nonexistent/cells.lib")


def test_a_synthesis_that_is_not_cached_says_so_first(tmp_path, monkeypatch):
    monkeypatch.setenv("GPUSCHED_CACHE", str(tmp_path))
    said = []
    params = parse_params(SPEC, {"W": 4, "policy": "lrr"})
    first = area_mod.area(SPEC, params, "ge", progress=said.append)
    assert len(said) == 1 and "synthesising" in said[0]
    assert area_mod.area(SPEC, params, "ge", progress=said.append) == first and len(said) == 1
