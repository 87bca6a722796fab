"""Why wave sampling misses on srad_v2 (docs/sampling.md): a cut launch leaves a different L2
for the launch after it. Runs srad_v2's first launch pair (coeff, then update) with each launch
full or cut, on gtx480 with 4 SMs under LRR, and prints the update launch's cycles and the L2's
misses and write-backs as markdown.

    python -m experiments.sampling_handoff
"""

from __future__ import annotations

from gpusched.config import resolve_config
from sim import sampling_waves
from sim.run import load_workload, simulate
from sim.workload.kernel import Workload

SMS, SCALE = 4, 0.25


def main() -> None:
    cfg = resolve_config("gtx480", [f"sm.count={SMS}", "sm.warp_sched=lrr"])
    pair = Workload("srad_v2 pair", load_workload("program:srad_v2", 0, SCALE).kernels[:2])
    cuts = sampling_waves.plan(cfg, pair)
    print("| coeff | update | update cycles | CTAs of update | L2 misses | L2 write-backs |")
    print("|---|---|---|---|---|---|")
    for coeff, update in (("full", "full"), ("cut", "full"), ("full", "cut"), ("cut", "cut")):
        which = {i: cuts[i] for i, how in enumerate((coeff, update)) if how == "cut"}
        r = simulate(cfg, sampling_waves.shortened(pair, which), memory="hierarchy")
        k, l2 = r["kernels"][1], r["memory"]["l2"]
        print(f"| {coeff} | {update} | {k['cycles']:,} | {k['ctas']} | {l2['misses']:,} | "
              f"{l2['writebacks']:,} |")


if __name__ == "__main__":
    main()
