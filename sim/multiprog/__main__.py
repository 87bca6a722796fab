"""``python -m sim.multiprog WORKLOAD… [--pairs FILE] [options]``: run multiprogram workloads
(``A+B``: A first, B ``--offset`` later) and print one JSON line of metrics per workload.

Exit codes: 0 done, 2 bad input (one line naming the field, before anything runs).
"""

from __future__ import annotations

import argparse
import json
import sys

from gpusched.config import ConfigError


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m sim.multiprog", description=__doc__.split("\n")[0])
    p.add_argument("workloads", nargs="*", help="A+B (catalogue names joined by +)")
    p.add_argument("--pairs", help="file with one A+B per line")
    p.add_argument("--offset", default="100", help="N cycles or P%% of the first's T^SP")
    p.add_argument("--kernel-scheduler", default="srtf")
    p.add_argument("--mode", default="block", help="block | cycle")
    p.add_argument("--preset", default="gtx480")
    p.add_argument("--set", action="append", default=[], help="section.field=value")
    p.add_argument("--scale", type=float, default=1.0)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--share-cap", type=int, default=3)
    p.add_argument("--cache", default="results/standalone", help="T^SP cache directory")
    return p


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        from gpusched.config import resolve_config
        from sim.multiprog.compose import read_pair_file
        from sim.multiprog.study import check_inputs, run_workload
        cfg = resolve_config(args.preset, ["kernels.concurrent_sm=true", *args.set])
        workloads = list(args.workloads) + (read_pair_file(args.pairs) if args.pairs else [])
        if not workloads:
            raise ConfigError("workloads", "", "name at least one A+B or give --pairs FILE")
        for w in workloads:
            check_inputs(cfg, w, args.offset, args.kernel_scheduler, args.mode, args.share_cap,
                         args.scale)
        for w in workloads:
            r = run_workload(cfg, w, args.offset, args.kernel_scheduler, args.mode, args.seed,
                             args.scale, args.share_cap, cache_dir=args.cache, keep_ratios=False)
            print(json.dumps(r, sort_keys=True), flush=True)
    except ConfigError as e:
        print(f"sim.multiprog: error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
