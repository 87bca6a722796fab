"""Config validation covers what the model and the blocks would reject later: finite floats,
memory-keeping ceilings, delays the deadlock watchdog allows, the RTL blocks' own limits, and
.toml files that are not UTF-8, empty, or have a list where a name belongs. JSON output never
holds NaN or Infinity."""

import json
import math

import pytest

from gpusched.config import ConfigError, get_preset, with_overrides
from gpusched.config.validate import check_block_limits, check_watchdog

from .conftest import one_line_error

RUN = ("run", "--preset", "tiny", "--workload", "mem_stream", "--scale", "0.05", "--memory", "fixed")


@pytest.mark.parametrize("override, fragment", [
    ("core_clock_mhz=nan", "core_clock_mhz = 'nan': expected a finite number"),
    ("energy.warp_inst_pj=inf", "energy.warp_inst_pj = 'inf': expected a finite number"),
    ("energy.warp_inst_pj=1e400", "energy.warp_inst_pj = '1e400': expected a finite number"),
    ("dram.clock_mhz=-inf", "dram.clock_mhz = '-inf'"),
    ("sm.count=10000000", "sm.count = 10000000: must be <= 1024"),
    ("l1.sets=1073741824", "l1.sets = 1073741824: must be <= 65536"),
    ("l2.sets=65536 l2.size_per_slice=67108864 l2.slices=128",
     "l2.sets = 65536: l2.slices × l2.sets = 128 × 65536 must be <= 4194304"),
    ("dram.banks=1000000", "dram.banks = 1000000: must be <= 1024"),
    ("units.alu_latency=1099511627777", "units.alu_latency = 1099511627777: must be <= 1099511627776"),
    ("energy.l2_access_pj=1e13", "energy.l2_access_pj = 10000000000000.0: must be <= 1e+12"),
])
def test_override_out_of_range_is_one_line(cli, override, fragment):
    sets = [a for o in override.split() for a in ("--set", o)]
    assert fragment in one_line_error(cli("config", "show", "tiny", *sets))


def test_finite_floats_and_ceilings_in_the_api():
    tiny = get_preset("tiny")
    with pytest.raises(ConfigError, match="finite"):
        with_overrides(tiny, ["core_clock_mhz=nan"])
    from gpusched.config import from_dict
    with pytest.raises(ConfigError, match="energy.sm_static_mw = inf"):
        from_dict({"energy": {"sm_static_mw": math.inf}}, base=tiny)
    big = with_overrides(get_preset("gtx480"), ["sm.count=1024"])  # the ceiling itself is fine
    assert big.sm.count == 1024


@pytest.mark.parametrize("args, fragment", [
    (("--sm-controller", "onac", "--set", "sm.count=1"),
     "sm.count = 1: --sm-controller onac uses the onac block, whose check says: M = 1: allowed: 2..64"),
    (("--sm-controller", "onac", "--set", "sm.count=100"), "sm.count = 100: --sm-controller onac"),
    (("--sm-controller", "seq_det_skip3", "--set", "sm.count=100"), "M = 100: allowed: 2..64"),
    (("--cta-scheduler", "ikra_steal", "--set", "sm.count=100"),
     "sm.count = 100: --cta-scheduler ikra_steal uses the cta_sched block, whose check says: "
     "P = 100: allowed: 1..64"),
    (("--set", "units.idiv_latency=200000"), "units.idiv_latency = 200000: gives a delay of 200000"),
    (("--set", "dram.controller_latency=99990"), "the unloaded L1 → L2 → DRAM miss"),
    (("--set", "units.alu_latency=600", "--watchdog", "500"), "deadlock watchdog (500)"),
])
def test_run_rejects_what_the_blocks_or_watchdog_would(cli, args, fragment):
    """Before: a ValueError traceback from the block's constructor mid-run, or a false deadlock."""
    assert fragment in one_line_error(cli(*RUN, *args))


def test_block_limits_read_from_the_blocks_own_checks():
    """The limits are the blocks' (hdl/*), not copies: the edges pass, one step past fails."""
    for n, ok in ((2, True), (64, True), (1, False), (65, False)):
        cfg = with_overrides(get_preset("tiny"), [f"sm.count={n}"])
        for policy in ({"sm_controller": "onac"}, {"sm_controller": "seq_det"}):
            if ok:
                check_block_limits(cfg, policy)
            else:
                with pytest.raises(ConfigError, match="sm.count"):
                    check_block_limits(cfg, policy)
    check_block_limits(with_overrides(get_preset("tiny"), ["sm.count=1"]),
                       {"cta_scheduler": "ikra_steal", "sm_controller": "all_active"})


def test_presets_fit_the_default_watchdog():
    from sim.run import DEFAULT_WATCHDOG
    for name in ("tiny", "gtx480", "gp102", "ikra_15cu", "thesis"):
        check_watchdog(get_preset(name), DEFAULT_WATCHDOG)


def test_sweep_point_is_checked_against_block_limits(cli, tmp_path):
    grid = tmp_path / "g.toml"
    grid.write_text('[sweep]\nworkloads = "mem_stream"\n[sweep.overrides]\n"sm.count" = [4, 100]\n'
                    '[sweep.params]\nsm_controller = "onac"\n')
    line = one_line_error(cli("sweep", grid, "--db", tmp_path / "r.sqlite", "-q"))
    assert "sm.count = 100: --sm-controller onac" in line and not (tmp_path / "r.sqlite").exists()


# ---- .toml files ----------------------------------------------------------------------------

@pytest.mark.parametrize("content, fragment", [
    (b'preset = ["tiny"]\n', ":1 preset = ['tiny']: expected a preset name (a string)"),
    (b"", "empty config file"),
    (b"# only a comment\n\n", "empty config file"),
    (b'preset = "tiny"\n[sm]\nname = "\xff\xfe"\n', ":3 = b'\\xff': not UTF-8 text"),
    (b'preset = "tiny"\n\n[sm]\ncount = 0\n', ".toml:4 sm.count = 0: must be >= 1"),
    (b'preset = "tiny"\n[energy]\nwarp_inst_pj = nan\n', ":3 energy.warp_inst_pj = nan: expected a finite"),
    (b'preset = "tiny"\nl1.sets = 1073741824\n', ":2 l1.sets = 1073741824: must be <= 65536"),
    (b'preset = "nosuch"\n', "preset = 'nosuch': known presets"),
    (b"[sm\n", "malformed TOML"),
])
def test_bad_toml_config_is_one_line_naming_the_file(cli, tmp_path, content, fragment):
    path = tmp_path / "c.toml"
    path.write_bytes(content)
    line = one_line_error(cli("config", "show", path))
    assert str(path) in line and fragment in line


def test_bad_grid_encoding_is_one_line(cli, tmp_path):
    grid = tmp_path / "g.toml"
    grid.write_bytes(b'[sweep]\nworkloads = ["mem_stream"]\nname = "\xe9t\xe9"\n')
    assert f"{grid}:3 = b'\\xe9': not UTF-8" in one_line_error(cli("sweep", grid, "-q"))


# ---- JSON is JSON ---------------------------------------------------------------------------

def strict_json(text: str):
    """json.loads that refuses NaN / Infinity (as jq and JavaScript do)."""
    def refuse(name):
        raise ValueError(f"non-standard JSON constant {name}")
    return json.loads(text, parse_constant=refuse)


def test_jsonout_replaces_non_finite_floats_at_any_depth():
    from gpusched import jsonout
    value = {"a": math.nan, "b": [1.0, math.inf, {"c": -math.inf}], "d": (2, 3.5), "e": "nan"}
    assert strict_json(jsonout.dumps(value)) == {"a": None, "b": [1.0, None, {"c": None}],
                                                  "d": [2, 3.5], "e": "nan"}


def test_results_query_json_has_no_nan(cli, tmp_path):
    """A stored stat that is NaN (a runner divided 0 by 0) was written as ``NaN``."""
    import toy_kinds  # noqa: F401  (registers the toy kind: a point's key names its kind's code)
    from gpusched.experiment.point import Point
    from gpusched.experiment.runners import Outcome
    from gpusched.experiment.store import ResultStore
    db = tmp_path / "r.sqlite"
    with ResultStore(db) as store:
        p = Point("tiny", "alpha", kind="toy")
        store.record(p, Outcome(p.key, "done", {"ipc": math.nan, "x": [math.inf, 1]}, None, 0.1, "h"))
    r = cli("results", "query", "--db", db, "--format", "json")
    assert r.returncode == 0, r.stderr
    row, = strict_json(r.stdout)
    assert row["ipc"] is None and row["x"] == [None, 1]


def test_run_json_is_strict_json(cli):
    r = cli(*RUN, "--json")
    assert r.returncode == 0, r.stderr
    assert strict_json(r.stdout)["warp_insts"] > 0
