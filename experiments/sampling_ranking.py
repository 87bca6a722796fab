"""The ranking check of sampling on a reproduction's grid (issue 39, docs/sampling.md): the
speed-up of every OWL scheme (experiments/owl_runs.py ``SCHEMES``) over RR, full run against
sampled run, must agree within 2 percentage points.

    python -m experiments.sampling_ranking [--jobs N] [--db FILE] [--sample kernels,waves]

The grid: the owl preset on the OWL quick grid's smaller machine (4 or 8 SMs, ``PROGRAMS``, so the
programs' launches run for many waves at scales whose full runs are affordable), every scheme of
experiments/owl.py's grid, programs whose main launches have at least 6 waves there. Points run
through the sweep machinery (stored, resumable); the table is printed as markdown.
"""

from __future__ import annotations

import argparse
import sys

from experiments.owl_runs import SCHEMES as OVERRIDES
from gpusched.experiment.point import Point

# program → (scale, SMs): at least 8 waves per main launch (4 CTAs of 256 threads per SM),
# at the sizes whose full runs over every scheme are affordable
PROGRAMS = {"srad_v2": (0.25, 8), "hotspot": (0.375, 4)}
SCHEMES = list(OVERRIDES)       # every scheme of experiments/owl.py's grid; rr: the baseline
RANK_PP = 2.0


def points(sample: str, names: list[str] | None = None,
           schemes: list[str] | None = None) -> list[Point]:
    return [Point(preset="owl", workload=f"program:{name}",
                  overrides={"sm.count": sms, **OVERRIDES[scheme]},
                  params={"scale": scale, "sample": mode, "memory": "hierarchy"})
            for name, (scale, sms) in PROGRAMS.items() if names is None or name in names
            for scheme in schemes or SCHEMES for mode in ("none", sample)]   # a row per pair


def table(runs: dict, sample: str) -> tuple[list[str], bool]:
    """Markdown rows (one per program and scheme) and whether every speed-up agrees within
    ``RANK_PP``. ``runs``: (program, scheme, mode) → (stats, wall seconds)."""
    rows = ["| program | scheme | full cycles | sampled cycles | error | speed-up over RR full "
            "| sampled | Δ (pp) | run-time speed-up | launches simulated in full |",
            "|---|---|---|---|---|---|---|---|---|---|"]
    ok = True
    for name in PROGRAMS:
        try:
            base_full, base_samp = runs[(name, "rr", "none")][0], runs[(name, "rr", sample)][0]
        except KeyError:
            continue
        for scheme in SCHEMES:
            if (name, scheme, "none") not in runs or (name, scheme, sample) not in runs:
                continue
            (full, fw), (samp, sw) = runs[(name, scheme, "none")], runs[(name, scheme, sample)]
            s_full = base_full["cycles"] / full["cycles"]
            s_samp = base_samp["cycles"] / samp["cycles"]
            delta = 100 * (s_samp - s_full)
            ok &= abs(delta) <= RANK_PP
            rows.append(f"| {name} | {scheme} | {full['cycles']:,} | {samp['cycles']:,} | "
                        f"{100 * (samp['cycles'] / full['cycles'] - 1):+.2f} % | {s_full:.3f} | "
                        f"{s_samp:.3f} | {delta:+.2f} | {fw / max(sw, 1e-9):.1f}× | "
                        f"{in_full(samp)} |")
    return rows, ok


def in_full(stats: dict) -> str:
    """The launches a sampled run found not steady and simulated in full, as a table cell."""
    full = stats["sampling"].get("waves", {}).get("full", [])
    return ", ".join(str(i) for i in full) or "none"


def main(argv: list[str]) -> int:
    from experiments.sampling_accuracy import only_programs, swept_runs
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=None)
    ap.add_argument("--db", default=None)
    ap.add_argument("--sample", default="kernels,waves")
    ap.add_argument("--only", default=None, help="comma-separated programs (default: all of PROGRAMS)")
    ap.add_argument("--schemes", default=None, help="comma-separated schemes, rr among them "
                    "(default: all of SCHEMES)")
    a = ap.parse_args(argv)
    names = only_programs(a.only, PROGRAMS)
    schemes = a.schemes.split(",") if a.schemes else None
    if schemes is not None and (set(schemes) - set(SCHEMES) or "rr" not in schemes):
        print(f"--schemes = {a.schemes}: expected rr and others of {', '.join(SCHEMES)}",
              file=sys.stderr)
        return 2
    scheme_of = {tuple(sorted(o.items())): s for s, o in OVERRIDES.items()}
    runs = swept_runs("sampling-ranking", points(a.sample, names, schemes), a.db, a.jobs,
                      lambda p: scheme_of[tuple(sorted((k, v) for k, v in p.overrides.items()
                                                       if k != "sm.count"))])
    rows, ok = table(runs, a.sample)
    print("\n".join(rows))
    print(f"every speed-up within {RANK_PP} pp: {'yes' if ok else 'NO'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
