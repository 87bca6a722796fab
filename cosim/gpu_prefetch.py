"""GPU-model scenario with one memory controller's ``owl_prefetch`` in the loop: the memory
hierarchy with ``dram.prefetch`` on, the engine of channel ``channel`` replaced by the given block
(RTL proxy, lockstep proxy or any object with the twin's ``step``; through the block provider),
the twins elsewhere. The
reference is the same run with twins only (``blocks=None``); the GPU results must be equal.

    python -m cosim.gpu_prefetch --preset gtx480 --workload owl_t_stream_shared --scale 0.1
"""

from __future__ import annotations

import argparse

from cosim.gpu_scenarios import (_config, _given, _with_twin, print_against_twins,
                                  run_scenario)
from gpusched.blocks import get_block, parse_params


def owl_prefetch_params(preset: str, scheme: str = "owl_b", overrides=()) -> dict:
    """The engine parameters the model uses on that config (sim/memory/prefetch.py)."""
    from sim.memory.hierarchy import MemoryHierarchy
    cfg = _config(preset, [f"dram.prefetch={scheme}", *overrides])
    return parse_params(get_block("owl_prefetch"), dict(MemoryHierarchy(cfg).pf.params))


def gpu_owl_prefetch(blocks, params_list: list[dict], preset: str, workload: str,
                     scale: float = 1.0, scheme: str = "owl_b", overrides=(), seed: int = 0,
                     twin: str | None = None, channel: int = 0) -> dict:
    """One GPU run with ``blocks[0]`` as channel ``channel``'s engine (None: twins only)."""
    from sim.blocks.provider import BlockProvider
    from sim.run import load_workload, simulate
    cfg = _config(preset, [f"dram.prefetch={scheme}", *overrides])
    blocks = _with_twin(blocks, params_list, twin)
    given = _given(**{f"mc{channel}": ("owl_prefetch", blocks[0] if blocks else None)})
    counters = []

    class Counting(BlockProvider):      # the engine at ``mc<channel>``, its steps counted
        def block(self, name, instance, params, make_twin):
            blk = given.block(name, instance, params, make_twin)
            if (name, instance) == ("owl_prefetch", f"mc{channel}"):
                counters.append(_Counting(blk))
                return counters[-1]
            return blk

    stats = simulate(cfg, load_workload(workload, seed=seed, scale=scale), seed=seed,
                     memory="hierarchy", blocks=Counting())
    counter = counters[0]
    return {"runs": [{"scheme": scheme, "cycles": stats["cycles"], "block_steps": counter.steps,
                      "stats": stats}]}


class _Counting:
    """Counts the engine's steps (block cycles) on the way through."""

    def __init__(self, inner):
        self.inner, self.steps = inner, 0

    def step(self, **inputs) -> dict:
        self.steps += 1
        return self.inner.step(**inputs)


def run(kwargs: dict, mode: str = "rtl") -> dict:
    """mode twin | rtl | lockstep: ``cosim.gpu_scenarios.run_scenario`` of this scenario."""
    return run_scenario("owl_prefetch", gpu_owl_prefetch, kwargs, mode)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description="GPU run with one MC's RTL owl_prefetch in the loop")
    ap.add_argument("--preset", default="gtx480")
    ap.add_argument("--workload", default="owl_t_stream_shared")
    ap.add_argument("--scale", type=float, default=0.1)
    ap.add_argument("--scheme", choices=("owl_a", "owl_b"), default="owl_b")
    ap.add_argument("--channel", type=int, default=0)
    ap.add_argument("--mode", choices=("twin", "rtl", "lockstep"), default="lockstep")
    ap.add_argument("--twin", default=None, help="module:factory scoreboard twin (lockstep)")
    a = ap.parse_args(argv)
    kwargs = {"params_list": [owl_prefetch_params(a.preset, a.scheme)], "preset": a.preset,
              "workload": a.workload, "scale": a.scale, "scheme": a.scheme, "channel": a.channel,
              "twin": a.twin}
    print_against_twins(run, kwargs, a.mode)


if __name__ == "__main__":
    main()
