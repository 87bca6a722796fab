"""The area flow's machinery: the two caches, the progress line, both Yosys backends, the fast
ABC script against Yosys' default one."""

import importlib.util
import json
import re
import subprocess
import sys

import pytest

import synth.area as area_mod
from gpusched.blocks import get_block, parse_params
from gpusched.config import ConfigError
from synth.area import area
from synth.yosys import backend

SPEC = get_block("warp_sched")
pytestmark = pytest.mark.synth
HAS_PYOSYS = importlib.util.find_spec("pyosys") is not None


@pytest.fixture
def fresh_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("GPUSCHED_CACHE", str(tmp_path))
    return tmp_path


def _p(w=4, policy="lrr"):
    return parse_params(SPEC, {"W": w, "policy": policy})


def test_warm_answer_needs_no_elaboration_and_an_hdl_edit_needs_no_yosys(fresh_cache, monkeypatch):
    steps = []
    first = area(SPEC, _p(), status=lambda tool, s, step: steps.append((tool, step)))
    # the progress line names the tool and the Yosys pass it read from the log (sampled twice a
    # second and once after the end, so a fast run still reports where it finished)
    yosys = [step for tool, step in steps if tool.startswith("yosys")]
    assert yosys and "start" not in yosys[-1] and re.search(r"\b[A-Z]", yosys[-1])

    def boom(*a, **k):
        raise AssertionError("should have been answered from a cache")
    monkeypatch.setattr(area_mod, "rtlil_for", boom)
    assert area(SPEC, _p()) == first                      # index: no Amaranth at all
    # an edit anywhere in hdl/ misses the index; the RTLIL-keyed cache still answers
    monkeypatch.undo()
    monkeypatch.setenv("GPUSCHED_CACHE", str(fresh_cache))
    monkeypatch.setattr("cosim.build.hdl_fingerprint", lambda: "edited")
    monkeypatch.setattr(area_mod, "run_yosys", boom)
    assert area(SPEC, _p()) == first


def test_bad_backend_and_abc_mode_are_one_line_errors(monkeypatch):
    monkeypatch.setenv("GPUSCHED_YOSYS", "verific")
    with pytest.raises(ConfigError, match="GPUSCHED_YOSYS"):
        backend()
    with pytest.raises(ConfigError, match="--abc"):
        area(SPEC, _p(), abc="turbo")


@pytest.mark.skipif(not HAS_PYOSYS, reason="pyosys wheel not installed")
def test_native_and_yowasp_agree(fresh_cache, monkeypatch):
    """Same Yosys release in both: identical netlists, identical numbers."""
    p = _p(8, "gto")
    monkeypatch.setenv("GPUSCHED_YOSYS", "native")
    native = area(SPEC, p)
    monkeypatch.setenv("GPUSCHED_CACHE", str(fresh_cache / "wasm"))
    monkeypatch.setenv("GPUSCHED_YOSYS", "yowasp")
    assert area(SPEC, p) == native


def test_fast_abc_script_is_close_to_the_yosys_default(fresh_cache):
    """The fast script trades a little area for minutes of ABC time on large blocks."""
    p = _p(32, "gto")
    fast, ref = area(SPEC, p, abc="fast"), area(SPEC, p, abc="yosys")
    assert area(SPEC, p) == ref                # auto: small blocks keep Yosys' script
    assert fast["flops"] == ref["flops"] == 5 + 32 * 31
    assert fast["um2"] == pytest.approx(ref["um2"], rel=0.03)
    assert fast["depth"] == ref["depth"]                   # depth has its own mapping


def test_cli_prints_progress_on_stderr(fresh_cache):
    proc = subprocess.run([sys.executable, "-c", "from gpusched.cli import main; main()", "area",
                           "warp_sched", "--param", "W=4", "--json"],
                          capture_output=True, text=True, check=True)
    assert "warp_sched W=4" in proc.stderr and ": yosys " in proc.stderr
    assert json.loads(proc.stdout)["abc"] == "yosys"           # auto, a small block


def test_auto_takes_the_fast_script_above_the_threshold(fresh_cache, monkeypatch):
    monkeypatch.setattr(area_mod, "AUTO_FAST_CELLS", 10)
    assert area(SPEC, _p(8, "gto"))["abc"] == "fast"
