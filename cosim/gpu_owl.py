"""GPU-model scenario with one SM's warp schedulers in the loop: every sub-core of SM ``sm`` gets
a ``warp_sched`` block (RTL, lockstep proxy or twin) in place of its twin, the other SMs keep the
stock twins. Made for OWL's schedulers (owl_cta, owl_locality, owl_blp, tl_narasiman), whose
twins read every port input (CTA slot, warps per CTA, resident CTAs, SM id), and works for any
policy with RTL. The reference is the same run with twins only (``blocks=None``): the model
steps a scheduler only in cycles with a ready warp or a launch, as it does a twin, so the GPU
results must be equal.

    python -m cosim.gpu_owl --preset gtx480 --workload owl_t_stream_shared --scale 0.2 \\
        --policy owl_blp --sm 1 --mode lockstep
"""

from __future__ import annotations

import argparse

from cosim.gpu_scenarios import (_config, _simulate, _with_twin, print_against_twins,
                                  run_scenario)
from gpusched.blocks import get_block, parse_params
from sim.blocks.port_block import PortBlock


def _cfg(preset: str, policy: str, overrides=()):
    return _config(preset, [f"sm.warp_sched={policy}", *overrides])


def warp_sched_params(preset: str, policy: str, overrides=()) -> list[dict]:
    """One ``warp_sched`` params dict per sub-core of an SM, matching the model's twin for
    ``policy`` (a registry name such as ``owl_blp`` or ``owl_cta:5``) on that config."""
    from sim.policies.warp_sched import parse_warp_scheduler
    cfg = _cfg(preset, policy, overrides)
    fam, args = parse_warp_scheduler(cfg.sm.warp_sched)
    if "rtl" not in fam.extra:
        raise ValueError(f"{policy}: model-only policy, no RTL")
    p = {"W": max(2, cfg.sm.warps_per_sm // cfg.sm.subcores), "policy": fam.extra["rtl"]}
    p.update({k: v for k, v in args.items() if k in ("N", "g_size", "G")})
    return [parse_params(get_block("warp_sched"), p) for _ in range(cfg.sm.subcores)]


class _Counted(PortBlock):
    """A block behind ``step`` only (the port path of sim.subcore), counting its steps."""

    def __init__(self, block):
        self.block, self.steps = block, 0

    def step(self, **inputs):
        self.steps += 1
        return self.block.step(**inputs)


def gpu_warp_sched(blocks, params_list: list[dict], preset: str, workload: str, policy: str,
                   scale: float = 1.0, overrides=(), memory: str = "hierarchy", seed: int = 0,
                   twin: str | None = None, sm: int = 0) -> dict:
    """One GPU run with ``blocks`` (one per sub-core) as SM ``sm``'s warp schedulers (None: the
    stock twins everywhere). {"runs": [{"policy", "cycles", "block_steps", "stats"}]}."""
    from sim.blocks.provider import GivenBlocks
    cfg = _cfg(preset, policy, overrides)
    if not 0 <= sm < cfg.sm.count:
        raise ValueError(f"sm = {sm}: {preset} has {cfg.sm.count} SMs")
    blocks = _with_twin(blocks, params_list, twin)
    counted = [_Counted(b) for b in blocks] if blocks else []
    given = GivenBlocks({("warp_sched", f"sm{sm}.sub{j}"): c for j, c in enumerate(counted)})
    stats = _simulate(cfg, workload, scale, seed, memory, blocks=given)
    return {"runs": [{"policy": policy, "cycles": stats["cycles"],
                      "block_steps": [c.steps for c in counted], "stats": stats}]}


def run(kwargs: dict, mode: str = "rtl") -> dict:
    """mode twin | rtl | lockstep: ``cosim.gpu_scenarios.run_scenario`` of this scenario."""
    return run_scenario("warp_sched", gpu_warp_sched, kwargs, mode)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description="GPU run with one SM's RTL warp schedulers in the loop")
    ap.add_argument("--preset", default="gtx480")
    ap.add_argument("--workload", default="owl_t_stream_shared")
    ap.add_argument("--scale", type=float, default=0.2)
    ap.add_argument("--policy", default="owl_blp")
    ap.add_argument("--sm", type=int, default=1)
    ap.add_argument("--mode", choices=("twin", "rtl", "lockstep"), default="lockstep")
    ap.add_argument("--twin", default=None, help="module:factory scoreboard twin (lockstep)")
    a = ap.parse_args(argv)
    kwargs = {"params_list": warp_sched_params(a.preset, a.policy), "preset": a.preset,
              "workload": a.workload, "policy": a.policy, "scale": a.scale, "sm": a.sm,
              "twin": a.twin}
    print_against_twins(run, kwargs, a.mode)


if __name__ == "__main__":
    main()
