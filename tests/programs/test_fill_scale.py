"""Choosing the scale at which a program fills a machine: the ladder, the waves of a launch on a
preset's CTA slots, and the smallest filling step of a real program."""

from __future__ import annotations

import subprocess
import sys

from experiments.fill_scale import fill_scale, ladder, waves_of
from gpusched.commands.config_cmd import resolve_config
from sim.run import load_workload
from sim.workload.kernel import Kernel, Workload


def test_ladder_doubles_from_quick_to_the_top():
    assert ladder(0.25, 1.0, top=4.0) == [0.25, 0.5, 1.0, 2.0, 4.0]
    assert ladder(0.3, 1.0, top=1.0) == [0.3, 0.6, 1.0]


def _kernel(name: str, ctas: int, threads: int) -> Kernel:
    return Kernel(name, (ctas, 1, 1), (threads, 1, 1), 0, 0, lambda *a: iter(()))


def test_waves_pick_the_launch_with_the_most_waves_on_the_presets_slots():
    cfg = resolve_config("owl", [])
    sm = cfg.sm
    per_sm_small = min(sm.threads_per_sm // 64, sm.max_ctas_per_sm)
    per_sm_big = min(sm.threads_per_sm // 512, sm.max_ctas_per_sm)
    wl = Workload("w", [_kernel("small", 3 * sm.count, 64), _kernel("big", 2 * per_sm_big * sm.count, 512)])
    kernel, ctas, slots = waves_of(wl, cfg)
    assert kernel == "big" and ctas == 2 * per_sm_big * sm.count and slots == per_sm_big * sm.count
    assert 3 / per_sm_small < 2            # the small kernel has fewer waves


def test_a_program_climbs_to_the_first_step_that_fills_the_machine():
    cfg = resolve_config("owl", [])
    chosen = fill_scale("scan", "owl")
    assert chosen.fills and chosen.ctas >= chosen.slots
    steps = ladder(0.02, 1.0)
    i = steps.index(chosen.scale)
    assert i > 0, "scan's quick scale does not fill the 28-core machine"
    _, ctas, slots = waves_of(load_workload("program:scan", scale=steps[i - 1], preset="owl"), cfg)
    assert ctas < slots


def test_fill_and_scale_together_is_one_line():
    r = subprocess.run([sys.executable, "-c", "from gpusched.cli import main; main()", "workloads",
                        "--characterize", "paper:owl", "--fill", "--scale", "2"],
                       capture_output=True, text=True)
    assert r.returncode == 2
    assert r.stderr.strip().count("\n") == 0 and "--fill" in r.stderr
