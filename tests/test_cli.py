"""CLI: cosim throughput line, errors as one line with exit 2, config show."""

import json
import os
import subprocess
import sys

import pytest


def gpusched(*args):
    return subprocess.run([sys.executable, "-c", "from gpusched.cli import main; main()", *args],
                          capture_output=True, text=True)


@pytest.mark.cosim
def test_cosim_prints_throughput_and_ratio():
    r = gpusched("cosim", "warp_sched", "--param", "W=8", "--cycles", "3000", "--vs", "amaranth")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.strip().splitlines()
    assert "verilator:" in lines[0] and "cycles/s" in lines[0] and "0 mismatches" in lines[0]
    assert "amaranth:" in lines[1] and lines[2].startswith("ratio verilator/amaranth:")


@pytest.mark.parametrize("args, fragment", [
    (("cosim", "warp_sched", "--sim", "modelsim"), "--sim"),
    (("cosim", "nosuch"), "BLOCK"),
    (("area", "warp_sched", "--param", "W=1"), "--param W"),
    (("area", "warp_sched", "--liberty", "tsmc5"), "--liberty"),
])
def test_bad_cli_input_is_one_line(args, fragment):
    r = gpusched(*args)
    assert r.returncode == 2
    assert len(r.stderr.strip().splitlines()) == 1 and fragment in r.stderr


def test_config_show_prints_toml():
    r = gpusched("config", "show", "gtx480", "--set", "sm.count=4")
    assert r.returncode == 0 and "[sm]" in r.stdout and "count = 4" in r.stdout


def test_run_selects_policies_by_name():
    import json
    r = gpusched("run", "--preset", "tiny", "--workload", "mem_stream", "--scale", "0.05",
                 "--cta-scheduler", "ikra_reset", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["policies"]["cta_scheduler"] == "IkraResetCtaScheduler"
    report = out["policy_reports"]["cta_scheduler"]          # the policy's own record reaches the JSON
    placed = sum(v for k, v in report["stats"].items() if k.startswith("src_"))
    assert report["policy"] == "reset" and placed == sum(k["ctas"] for k in out["kernels"])
    base = gpusched("run", "--preset", "tiny", "--workload", "mem_stream", "--scale", "0.05", "--json")
    assert json.loads(base.stdout)["policy_reports"] == {}    # baselines report nothing
    bad = gpusched("run", "--preset", "tiny", "--workload", "mem_stream", "--kernel-scheduler", "sjf")
    assert bad.returncode == 2 and "kernel_scheduler = 'sjf'" in bad.stderr


REGISTERED = ("import sys; from gpusched import cli; cli._register(sys.argv[1:]); "
              "names = sorted([c.name for c in cli.app.registered_commands] + "
              "[g.name for g in cli.app.registered_groups]); "
              "print(' '.join(names)); print('sweep_cmd' in ' '.join(sys.modules), 'amaranth' in sys.modules)")


@pytest.mark.parametrize("args, only", [(("run", "--preset", "tiny"), "run"), (("bench", "model"), "bench"),
                                        (("reproduce", "x"), None), (("--help",), None)])
def test_a_command_imports_only_its_own_module(args, only):
    """Start-up time: `gpusched run` registers (and imports) run_cmd alone; a command without a
    module of its name (reproduce lives in report_cmd) and help register every command."""
    out = subprocess.run([sys.executable, "-c", REGISTERED, *args], capture_output=True, text=True,
                         check=True).stdout.split("\n")
    names = out[0].split()
    if only is not None:
        assert names == [only] and out[1] == "False False"
    else:
        assert {"run", "sweep", "reproduce", "report", "bench"} <= set(names)


RUN_MODULES = ("import sys; from gpusched import cli\n"
               "try: cli.main(sys.argv[1:])\n"
               "except SystemExit as e: print('exit', e.code, file=sys.stderr)\n"
               "print('pydantic' in sys.modules, file=sys.stderr)")


def test_run_skips_pydantic_for_values_of_their_own_type():
    """Start-up time (gpusched/cli_coercion.py): str options, a list[str] option and defaults pass
    typer's coercion unchanged without importing pydantic; a string for an int option still goes
    through typer's own coercion, which parses it or words the error."""
    import json
    base = ["run", "--preset", "tiny", "--workload", "mem_stream", "--json"]
    light = subprocess.run([sys.executable, "-c", RUN_MODULES, *base, "--set", "sm.ib_entries=2",
                            "--set", "dram.channels=2"], capture_output=True, text=True)
    assert light.stderr.split()[-1] == "False", light.stderr
    full = subprocess.run([sys.executable, "-c", RUN_MODULES, *base, "--set", "sm.ib_entries=2",
                           "--set", "dram.channels=2", "--scale", "1"], capture_output=True, text=True)
    assert full.stderr.split()[-1] == "True" and json.loads(full.stdout) == json.loads(light.stdout)
    bad = gpusched(*base, "--seed", "x7")
    assert bad.returncode == 2 and "--seed = 'x7'" in bad.stderr and "integer" in bad.stderr


def test_light_coercion_passes_only_unchanged_values():
    from typing import List, Optional
    from gpusched.cli_coercion import _unchanged
    assert _unchanged(str, "a") == (True, "a") and _unchanged(int, 3) == (True, 3)
    assert _unchanged(List[str], ("a", "b")) == (True, ["a", "b"])
    assert not _unchanged(int, "3")[0] and not _unchanged(float, 1)[0] and not _unchanged(int, True)[0]
    assert not _unchanged(List[int], ("1",))[0] and not _unchanged(Optional[int], 3)[0]


def test_help_shows_flags_without_a_value_type():
    """``--json`` takes no value: the help must not read ``--json <bool>``."""
    import os
    r = subprocess.run([sys.executable, "-c", "from gpusched.cli import main; main()", "run",
                        "--help"], capture_output=True, text=True,
                       env={**os.environ, "COLUMNS": "150"})
    lines = {line.split()[1]: line for line in r.stdout.splitlines()
             if len(line.split()) > 1 and line.split()[1].startswith("--")}
    assert "<bool>" not in lines["--json"] and "print one JSON object" in lines["--json"]
    assert "<int>" in lines["--seed"]


def test_run_without_a_workload_says_what_to_give():
    r = gpusched("run", "--preset", "tiny")
    assert r.returncode == 2 and "None" not in r.stderr
    assert r.stderr.startswith("gpusched run: error: no workload: give --workload NAME")
    assert "--trace DIR" in r.stderr and "--program" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    both = gpusched("run", "--preset", "tiny", "--workload", "alpha", "--trace", "d")
    assert both.returncode == 2 and "not --workload and --trace" in both.stderr


NUMPY_AFTER_RUN = ("import sys; from gpusched import cli\n"
                   "try: cli.main(sys.argv[1:])\n"
                   "except SystemExit as e: print('exit', e.code, file=sys.stderr)\n"
                   "print('numpy' in sys.modules, file=sys.stderr)")


def test_a_trace_run_does_not_load_the_ptx_front_end(tmp_path):
    """Start-up time: only ``--program`` runs need the PTX front end (and numpy, ≈ 0.2 CPU s);
    a trace run does not import it."""
    from sim.run import load_workload
    from sim.workload.tracegen import write_trace_dir
    trace = write_trace_dir(tmp_path / "t", load_workload("mem_stream", scale=0.02))
    env = {**os.environ, "GPUSCHED_TRACE_CACHE": str(tmp_path / "cache")}
    r = subprocess.run([sys.executable, "-c", NUMPY_AFTER_RUN, "run", "--preset", "tiny", "--trace",
                        str(trace), "--json"], capture_output=True, text=True, env=env)
    assert r.stderr.split()[-1] == "False", r.stderr
    assert json.loads(r.stdout)["warp_insts"] > 0
