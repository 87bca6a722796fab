"""GPU-model scenarios of the SRTF family (sim/policies/srtf.py) with RTL in the loop.

- ``gpu_srtf_pred``: one SM's ``srtf_pred`` as RTL, lockstep or step-only block on SM ``sm``, the
  stock twins elsewhere and the method-level controller. Reference: the same run with twins only
  (``blocks=None``); the RTL block is stepped every cycle, the twins skip quiet cycles, and the
  GPU results must be equal.
- ``gpu_srtf_sched``: the ``kernel_sched`` controller behind its ports (``ControllerPort``) and
  SM ``sm``'s ``srtf_pred``, both as RTL / lockstep blocks (``blocks = [kernel_sched,
  srtf_pred]``). Reference: the same port-level run with the twins (``KernelSchedPorts`` and the
  predictor twin); policies ``srtf``, ``mpmax``, ``srtf_fifo`` (the RTL's fifo) and
  ``srtf_zero`` (zero-sampling SRTF with stand-in standalone runtimes, ``stand_in_tsp``: the
  check is RTL = twin, not the policy's quality).

    python -m cosim.gpu_srtf --mode lockstep                  # kernel_sched + srtf_pred RTL
    python -m cosim.gpu_srtf --preset tiny --set kernels.max_concurrent=4 --scale 0.2
    python -m cosim.gpu_srtf --block srtf_pred --scale 0.5 --mode lockstep
    python -m cosim.gpu_srtf --policy srtf_zero --mode lockstep
"""

from __future__ import annotations

import argparse
import zlib

from cosim.gpu_scenarios import (_config, _given, _simulate, _with_twin,
                                  print_against_twins, run_scenario)
from gpusched.blocks import get_block, parse_params

CONCURRENT = ("kernels.concurrent_sm=true",)


def srtf_pred_params(preset: str, overrides=()) -> dict:
    from sim.policies.srtf import SrtfKernelScheduler
    cfg = _config(preset, [*CONCURRENT, *overrides])
    return parse_params(get_block("srtf_pred"), SrtfKernelScheduler.predictor_params(cfg))


def gpu_srtf_pred(blocks, params_list: list[dict], preset: str, workload: str,
                  scale: float = 1.0, overrides=(), memory: str = "fixed", seed: int = 0,
                  twin: str | None = None, policy: str = "srtf", sm: int = 0) -> dict:
    """One GPU run with ``blocks[0]`` as SM ``sm``'s predictor (None: twins only)."""
    from sim.policies.srtf import SRTF_KERNEL_SCHEDULERS
    cfg = _config(preset, [*CONCURRENT, *overrides])
    blocks = _with_twin(blocks, params_list, twin)
    sched = SRTF_KERNEL_SCHEDULERS[policy](cfg)
    at = {f"sm{sm}": ("srtf_pred", blocks[0])} if blocks else {}
    stats = _simulate(cfg, workload, scale, seed, memory, kernel_scheduler=sched,
                      blocks=_given(**at))
    return {"runs": [{"policy": policy, "cycles": stats["cycles"],
                      "block_steps": sched.ports[sm].steps, "stats": stats}]}


class StandInTsp(dict):
    """Stand-in standalone runtimes for zero-sampling SRTF in a cosim run: 5,000..65,000 cycles
    from a CRC of the kernel's name (deterministic; the run checks the RTL, not the oracle)."""

    def __contains__(self, name) -> bool:
        return True

    def __missing__(self, name: str) -> int:
        return 5_000 + zlib.crc32(name.encode()) % 60_001


def _scheduler_class(policy: str):
    from sim.policies.srtf import SRTF_KERNEL_SCHEDULERS, ZeroSamplingKernelScheduler
    if policy == "srtf_zero":
        return lambda cfg, **kw: ZeroSamplingKernelScheduler(cfg, StandInTsp(), **kw)
    return SRTF_KERNEL_SCHEDULERS[policy]


def kernel_sched_params(preset: str, policy: str = "srtf", overrides=()) -> dict:
    from sim.policies.srtf import SRTF_KERNEL_SCHEDULERS, ZeroSamplingKernelScheduler
    cfg = _config(preset, [*CONCURRENT, *overrides])
    cls = ZeroSamplingKernelScheduler if policy == "srtf_zero" else SRTF_KERNEL_SCHEDULERS[policy]
    return parse_params(get_block("kernel_sched"), cls.controller_params(cfg))


def gpu_srtf_sched(blocks, params_list: list[dict], preset: str, workload: str,
                   scale: float = 1.0, overrides=(), memory: str = "fixed", seed: int = 0,
                   twin: str | None = None, policy: str = "srtf", sm: int = 0) -> dict:
    """One GPU run with the controller ``blocks[0]`` driven through its ports and ``blocks[1]``
    as SM ``sm``'s predictor (None: ``KernelSchedPorts`` and the predictor twins)."""
    cfg = _config(preset, [*CONCURRENT, *overrides])
    blocks = _with_twin(blocks, params_list, twin)
    at = {"gpu": ("kernel_sched", blocks[0] if blocks else
                  get_block("kernel_sched").make_twin(params_list[0]))}
    if blocks:
        at[f"sm{sm}"] = ("srtf_pred", blocks[1])
    sched = _scheduler_class(policy)(cfg)
    stats = _simulate(cfg, workload, scale, seed, memory, kernel_scheduler=sched,
                      blocks=_given(**at))
    return {"runs": [{"policy": policy, "cycles": stats["cycles"],
                      "block_steps": [sched.cport.steps, sched.ports[sm].steps],
                      "switches": len(sched.cport.switches), "stats": stats}]}


def run(kwargs: dict, mode: str = "rtl") -> dict:
    """mode twin | rtl | lockstep: ``cosim.gpu_scenarios.run_scenario`` of the predictor-only
    scenario."""
    return run_scenario("srtf_pred", gpu_srtf_pred, kwargs, mode)


def run_sched(kwargs: dict, mode: str = "rtl") -> dict:
    """The same for the controller + predictor scenario (two different blocks in the loop)."""
    return run_scenario(["kernel_sched", "srtf_pred"], gpu_srtf_sched, kwargs, mode)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description="GPU run with the RTL kernel_sched and one RTL "
                                 "srtf_pred in the loop (--block srtf_pred: the predictor only)")
    ap.add_argument("--block", choices=("kernel_sched", "srtf_pred"), default="kernel_sched")
    ap.add_argument("--preset", default="gtx480")
    ap.add_argument("--workload", default="mixed_like")
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--policy", default="srtf")
    ap.add_argument("--sm", type=int, default=0)
    ap.add_argument("--mode", choices=("twin", "rtl", "lockstep"), default="lockstep")
    ap.add_argument("--twin", default=None, help="module:factory scoreboard twin (lockstep)")
    ap.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                    help="config override, e.g. kernels.max_concurrent=4 (repeatable)")
    a = ap.parse_args(argv)
    params = [srtf_pred_params(a.preset, a.overrides)]
    if a.block == "kernel_sched":
        params.insert(0, kernel_sched_params(a.preset, a.policy, a.overrides))
    kwargs = {"params_list": params, "preset": a.preset, "workload": a.workload,
              "scale": a.scale, "policy": a.policy, "sm": a.sm, "twin": a.twin,
              "overrides": a.overrides}
    print_against_twins(run_sched if a.block == "kernel_sched" else run, kwargs, a.mode)


if __name__ == "__main__":
    main()
