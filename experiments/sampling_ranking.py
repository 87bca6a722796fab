"""The ranking check of sampling on a reproduction's grid (issue 39, docs/sampling.md): the
speed-up of every OWL scheme (experiments/owl_runs.py ``SCHEMES``) over RR, full run against
sampled run, must agree within 2 percentage points.

    python -m experiments.sampling_ranking [--jobs N] [--db FILE] [--sample kernels,waves]

The grid: the owl preset on the OWL quick grid's smaller machine (``MACHINE``: 8 SMs, so the
programs' launches run for many waves at scales whose full runs are affordable), six of the
quick grid's schemes, programs whose main launches have at least 6 waves there. Points run
through the sweep machinery (stored, resumable); the table is printed as markdown.
"""

from __future__ import annotations

import argparse
import sys

from experiments.owl_runs import SCHEMES as OVERRIDES
from gpusched.experiment.point import Point

PROGRAMS = {"srad_v2": 0.25, "hotspot": 0.75}
SCHEMES = ["rr", "tl", "cta", "blp", "owl", "perfect_l2"]       # rr: the baseline
MACHINE = {"sm.count": 8}
RANK_PP = 2.0


def points(sample: str, names: list[str] | None = None) -> list[Point]:
    return [Point(preset="owl", workload=f"program:{name}",
                  overrides={**MACHINE, **OVERRIDES[scheme]},
                  params={"scale": scale, "sample": mode, "memory": "hierarchy"})
            for name, scale in PROGRAMS.items() if names is None or name in names
            for mode in ("none", sample) for scheme in SCHEMES]


def table(runs: dict, sample: str) -> tuple[list[str], bool]:
    """Markdown rows (one per program and scheme) and whether every speed-up agrees within
    ``RANK_PP``. ``runs``: (program, scheme, mode) → (stats, wall seconds)."""
    rows = ["| program | scheme | full cycles | sampled cycles | error | speed-up over RR full "
            "| sampled | Δ (pp) | run-time speed-up |", "|---|---|---|---|---|---|---|---|---|"]
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
                        f"{s_samp:.3f} | {delta:+.2f} | {fw / max(sw, 1e-9):.1f}× |")
    return rows, ok


def main(argv: list[str]) -> int:
    from experiments.sampling_accuracy import only_programs, swept_runs
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=None)
    ap.add_argument("--db", default=None)
    ap.add_argument("--sample", default="kernels,waves")
    ap.add_argument("--only", default=None, help="comma-separated programs (default: all of PROGRAMS)")
    a = ap.parse_args(argv)
    names = only_programs(a.only, PROGRAMS)
    scheme_of = {tuple(sorted({**MACHINE, **o}.items())): s for s, o in OVERRIDES.items()}
    runs = swept_runs("sampling-ranking", points(a.sample, names), a.db, a.jobs,
                      lambda p: scheme_of[tuple(sorted(p.overrides.items()))])
    rows, ok = table(runs, a.sample)
    print("\n".join(rows))
    print(f"every speed-up within {RANK_PP} pp: {'yes' if ok else 'NO'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
