"""A program's scale by name: quick/default from INFO, and fill — the ladder, the waves of the main
kernel's largest launch on a preset's CTA slots, the smallest filling step of a real program."""

from __future__ import annotations

import subprocess
import sys

import pytest

from experiments.program_scale import fill, ladder, main_kernel, resolve, waves_of
from gpusched.config import resolve_config
from gpusched.config import ConfigError
from sim.run import load_workload
from sim.workload.kernel import Kernel, Workload
from workloads import programs


def test_ladder_doubles_from_quick_to_the_top():
    assert ladder(0.25, 1.0, top=4.0) == [0.25, 0.5, 1.0, 2.0, 4.0]
    assert ladder(0.3, 1.0, top=1.0) == [0.3, 0.6, 1.0]


def _kernel(name: str, ctas: int, threads: int, warp_insts: int) -> Kernel:
    return Kernel(name, (ctas, 1, 1), (threads, 1, 1), 0, 0, lambda *a: iter(()),
                  meta={"warp_insts": warp_insts})


def test_waves_are_the_main_kernels_largest_launch_on_the_presets_slots():
    cfg = resolve_config("owl", [])
    sm = cfg.sm
    per_sm = min(sm.threads_per_sm // 512, sm.max_ctas_per_sm)
    # "copy" has more CTAs and more waves, but "main" has the most warp instructions overall
    wl = Workload("w", [_kernel("copy", 50 * sm.count, 64, 1000),
                        _kernel("main", per_sm * sm.count // 2, 512, 800),
                        _kernel("main", 2 * per_sm * sm.count, 512, 800)])
    assert main_kernel(wl) == "main"
    kernel, ctas, slots = waves_of(wl, cfg)
    assert (kernel, ctas, slots) == ("main", 2 * per_sm * sm.count, per_sm * sm.count)


def test_a_program_climbs_to_the_first_step_that_fills_the_machine():
    cfg = resolve_config("owl", [])
    chosen = fill("program:scan", "owl")
    assert chosen.fills and chosen.ctas >= chosen.slots
    steps = ladder(0.02, 1.0)
    i = steps.index(chosen.scale)
    assert i > 0, "scan's quick scale does not fill the 28-core machine"
    _, ctas, slots = waves_of(load_workload("program:scan", scale=steps[i - 1], preset="owl"), cfg)
    assert ctas < slots
    assert resolve("program:scan", "fill", "owl") == chosen.scale
    assert resolve("program:scan", "fill", "owl", run=False) == steps[0]     # checked, not run


def test_named_scales_resolve_and_bad_names_are_config_errors():
    info = programs.load("scan").INFO
    assert resolve("program:scan", "quick") == info["quick_scale"]
    assert resolve("program:scan", "default") == info["default_scale"]
    assert resolve("anything", 0.5) == 0.5
    for workload, scale, preset, field in (("program:scan", "huge", None, "params.scale"),
                                           ("program:scan", "fill", None, "params.scale"),
                                           ("owl_t_reuse", "quick", None, "workload")):
        with pytest.raises(ConfigError, match=field):
            resolve(workload, scale, preset)


def test_fill_and_scale_together_is_one_line():
    r = subprocess.run([sys.executable, "-c", "from gpusched.cli import main; main()", "workloads",
                        "--characterize", "paper:owl", "--fill", "--scale", "2"],
                       capture_output=True, text=True)
    assert r.returncode == 2
    assert r.stderr.strip().count("\n") == 0 and "--fill" in r.stderr
