"""`gpusched run` text output: policies in force, memory summary, energy, what `issued` counts."""

import re
import subprocess
import sys


def run_text(*args):
    r = subprocess.run([sys.executable, "-c", "from gpusched.cli import main; main()", "run",
                        "--preset", "tiny", "--workload", "mem_stream", "--scale", "0.05", *args],
                       capture_output=True, text=True, env={"COLUMNS": "200", "PATH": ""})
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_text_names_policies_and_summarises_memory_and_energy():
    import json
    out = run_text("--cta-limit", "perf_sat")
    stats = json.loads(run_text("--cta-limit", "perf_sat", "--json"))
    assert f"warp scheduler {stats['warp_sched']}" in out and "issue stage inorder" in out
    assert "CTA limit PerfSatLimit" in out and "SM controller AllActive" in out
    m = stats["memory"]
    line = next(x for x in out.splitlines() if x.startswith("memory:"))
    assert f"L1 hit rate {m['l1']['hit_rate']:.1%}" in line and f"L2 hit rate {m['l2']['hit_rate']:.1%}" in line
    bw = (m["dram"]["bytes_read"] + m["dram"]["bytes_written"]) / stats["cycles"]
    assert f"DRAM {bw:.1f} B/cycle" in line and f"row-hit rate {m['dram']['row_hit_rate']:.1%}" in line
    energy = re.search(r"energy: ([\d,.]+) µJ total", out)
    assert energy and float(energy[1].replace(",", "")) == round(stats["energy"]["total_pj"] / 1e6, 1)
    assert "'issued' counts slots, not instructions" in out


def test_fixed_memory_says_it_has_no_memory_energy():
    out = run_text("--memory", "fixed")
    assert "memory: fixed latency" in out and "no memory energy" in out


def test_the_run_bar_knows_the_cta_total_before_the_first_cta():
    from gpusched.commands.run_cmd import _cta_total
    from sim.run import load_workload
    wl = load_workload("rnn_like", scale=0.2)
    assert _cta_total(wl) == sum(k.grid[0] * k.grid[1] * k.grid[2] for k in wl.kernels) > 0


def test_warp_ipc_is_called_so_and_empty_caches_have_no_hit_rate():
    """IPC counts warp instructions (Accel-Sim's gpu_ipc counts threads); a cache nothing looked
    up, or one the loads bypass, has no hit rate (0 % would say every access missed)."""
    out = run_text()
    assert re.search(r"warp instructions, warp IPC [\d.]+$", out.splitlines()[0])
    assert re.search(r"L1 hit rate \d+\.\d%", out)
    bypassed = run_text("--set", "l1.bypass_global_loads=true")
    assert "L1 hit rate bypassed, L2 hit rate " in bypassed
    none = subprocess.run([sys.executable, "-c", "from gpusched.cli import main; main()", "run",
                           "--preset", "tiny", "--workload", "compute_only", "--scale", "0.05"],
                          capture_output=True, text=True, env={"COLUMNS": "200", "PATH": ""})
    assert "L1 hit rate n/a (no loads), L2 hit rate n/a (no loads)" in none.stdout
    assert "row-hit rate n/a" in none.stdout
