"""The warp-state profiler (sim/profile/warp_states.py, [THESIS §5.3]): one state per warp per
cycle, exact under idle-cycle skipping, costless to results when on or off."""

import json

import pytest

from gpusched.config import ConfigError, get_preset, with_overrides
from sim.policies import AllActive
from sim.profile.warp_states import COLUMNS, STATES
from sim.run import simulate
from sim.workload.catalogue import get_workload


class EveryCycle(AllActive):
    """Makes every SM run every cycle: no cycle is skipped."""
    per_cycle = True

    def on_cycle(self, now: int) -> None:
        for sm in self.gpu.sms:
            sm.poke(now + 1)


def _run(workload="mixed_like", scale=0.05, overrides=(), **kw):
    cfg = with_overrides(get_preset("tiny"), list(overrides))
    return simulate(cfg, get_workload(workload, scale=scale), memory="hierarchy", **kw)


def _resident_warp_cycles(result, kernel: int) -> int:
    """Warp-cycles of ``kernel`` from the CTA table: a CTA placed at the end of cycle s and
    retired in cycle e holds its warps in cycles s+1 … e."""
    wpc = {k["index"]: k["warps_per_cta"] for k in result["warp_states"]["kernels"]}[kernel]
    return sum((end - start) for k, _, _, start, end in result["ctas"]["rows"] if k == kernel) * wpc


# the thesis's issue stage (one instruction per 2 cycles) and slow SFU / LD/ST pipes: a ready
# warp's unit frees inside a skipped span
THESIS_ISSUE = ("sm.issue_interval=2", "units.sfu_ii=8", "units.ldst_ii=4")


# kernels sharing SMs: the per-warp pass (one kernel per SM takes the mask popcounts)
SHARED = (("kernels.concurrent_sm=true", "kernels.max_concurrent=4"), {"kernel_scheduler": "ck_interleaved"})


SOCGPU = (("sm.issue=socgpu", "sm.ib_entries=8"), {})      # the interpreted SubCore subclass


@pytest.fixture(scope="module", params=[((), {}), (THESIS_ISSUE, {}), SHARED, SOCGPU],
                ids=["tiny", "issue_interval_2", "shared_sms", "socgpu"])
def runs(request):
    overrides, pol = request.param
    plain = _run(overrides=overrides, **pol)
    prof = _run(overrides=overrides, profile=("warp-states",), **pol)
    every = _run(overrides=overrides, profile=("warp-states",), sm_controller=EveryCycle, **pol)
    return plain, prof, every


def test_profiling_leaves_every_other_statistic_unchanged(runs):
    plain, prof, every = runs
    rest = {k: v for k, v in prof.items() if k != "warp_states"}
    assert json.dumps(rest, sort_keys=True) == json.dumps(plain, sort_keys=True)
    assert "warp_states" not in plain


def test_exact_under_idle_cycle_skipping(runs):
    _, prof, every = runs
    assert every["cycles"] == prof["cycles"]
    assert every["warp_states"] == prof["warp_states"]


def test_every_resident_warp_is_in_exactly_one_state_each_cycle(runs):
    _, prof, _ = runs
    ws = prof["warp_states"]
    for k in ws["kernels"]:
        total = sum(k["warp_cycles"].values())
        assert total == _resident_warp_cycles(prof, k["index"])
        per_sm = sum(sum(row[1:1 + len(STATES)]) for row in k["per_sm"])
        assert per_sm == total
        series = sum(sum(b[:len(STATES)]) for b in k["series"])
        assert series == total


def test_states_and_loads_are_populated(runs):
    _, prof, _ = runs
    ws = prof["warp_states"]
    assert ws["states"] == list(STATES) and ws["columns"] == list(COLUMNS)
    cycles = {s: sum(k["warp_cycles"][s] for k in ws["kernels"]) for s in STATES}
    for s in ("ib_empty", "mem_scoreboard", "can_issue_alu", "can_issue_mem", "completed"):
        assert cycles[s] > 0, s
    assert any(k["mem_load"] > 0 for k in ws["kernels"])
    assert any(k["alu_load"] > 0 for k in ws["kernels"])


def test_unknown_profile_is_a_one_line_error():
    with pytest.raises(ConfigError, match="--profile"):
        _run(profile=("warp-stats",))


def test_cli_writes_the_stacked_area_plot(cli, tmp_path):
    png = tmp_path / "ws.png"
    r = cli("run", "--preset", "tiny", "--workload", "mixed_like", "--scale", "0.05",
            "--profile", "warp-states", "--profile-plot", png, "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["warp_states"]["kernels"]
    assert png.stat().st_size > 10_000 and png.with_suffix(".pdf").exists()


def test_cli_plot_without_the_profiler_is_a_one_line_error(cli, tmp_path):
    r = cli("run", "--preset", "tiny", "--workload", "mixed_like", "--profile-plot", tmp_path / "x.png")
    assert r.returncode == 2 and "--profile-plot" in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_the_one_kernel_popcount_path_equals_the_per_warp_pass(monkeypatch):
    from sim.profile.warp_states import WarpStateProfiler
    fast = _run(overrides=THESIS_ISSUE, profile=("warp-states",))
    monkeypatch.setattr(WarpStateProfiler, "charge_one_kernel",
                        lambda self, sm, k, a, b: self.charge_warps(sm, a, b))
    slow = _run(overrides=THESIS_ISSUE, profile=("warp-states",))
    assert fast["warp_states"] == slow["warp_states"]


PROFILED = ("import json; from gpusched.config import get_preset; from sim.run import simulate; "
            "from sim.workload.catalogue import get_workload; from sim import accel; "
            "r = simulate(get_preset('gtx480'), get_workload('mixed_like', scale=0.1), memory='hierarchy', "
            "profile=('warp-states',)); print(json.dumps({'compiled': accel.active(), 'ws': r['warp_states']}))")


def test_compiled_and_plain_python_profile_identically():
    import os
    import subprocess
    import sys
    from sim import accel
    if not (accel.build_dir() / "ok").is_file():
        pytest.skip("compiled model not built (python -m sim.accel build)")
    outs = []
    for pure in (False, True):
        env = {k: v for k, v in os.environ.items() if k != "GPUSCHED_PURE"}
        if pure:
            env["GPUSCHED_PURE"] = "1"
        out = subprocess.run([sys.executable, "-c", PROFILED], capture_output=True, text=True,
                             check=True, env=env, cwd=accel.ROOT)
        outs.append(json.loads(out.stdout))
    assert outs[0]["compiled"] is True and outs[1]["compiled"] is False
    assert outs[0]["ws"] == outs[1]["ws"] and outs[0]["ws"]["kernels"]
