"""GPU-model scenario with one SM's ``srtf_pred`` in the loop: the SRTF-family kernel scheduler
(sim/policies/srtf.py) with an RTL, lockstep or step-only predictor on SM ``sm`` and the stock
twins elsewhere. The reference is the same run with twins only (``blocks=None``); the RTL block is
stepped every cycle, the twins skip quiet cycles, and the GPU results must be equal.

    python -m cosim.gpu_srtf --preset gtx480 --workload mixed_like --scale 0.5 --mode lockstep
"""

from __future__ import annotations

import argparse

from cosim.gpu_scenarios import (_config, _simulate, _with_twin, print_against_twins,
                                  run_scenario)
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
    sched = SRTF_KERNEL_SCHEDULERS[policy](cfg, blocks={sm: blocks[0]} if blocks else None)
    stats = _simulate(cfg, workload, scale, seed, memory, kernel_scheduler=sched)
    return {"runs": [{"policy": policy, "cycles": stats["cycles"],
                      "block_steps": sched.ports[sm].steps, "stats": stats}]}


def run(kwargs: dict, mode: str = "rtl") -> dict:
    """mode twin | rtl | lockstep: ``cosim.gpu_scenarios.run_scenario`` of this scenario."""
    return run_scenario("srtf_pred", gpu_srtf_pred, kwargs, mode)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description="GPU run with one RTL srtf_pred in the loop")
    ap.add_argument("--preset", default="gtx480")
    ap.add_argument("--workload", default="mixed_like")
    ap.add_argument("--scale", type=float, default=0.5)
    ap.add_argument("--policy", default="srtf")
    ap.add_argument("--sm", type=int, default=0)
    ap.add_argument("--mode", choices=("twin", "rtl", "lockstep"), default="lockstep")
    ap.add_argument("--twin", default=None, help="module:factory scoreboard twin (lockstep)")
    a = ap.parse_args(argv)
    kwargs = {"params_list": [srtf_pred_params(a.preset)], "preset": a.preset,
              "workload": a.workload, "scale": a.scale, "policy": a.policy, "sm": a.sm,
              "twin": a.twin}
    print_against_twins(run, kwargs, a.mode)


if __name__ == "__main__":
    main()
