"""Sampling against full runs on the program suite's iterative programs (issue 39,
docs/sampling.md): for each sampling mode (``MODES``: kernels, waves, both), total cycles, the
error, the speed-up of the sampled run, and whether the GTO/LRR speed-up — the ranking a
scheduler study reads — stays within 2 percentage points.

    python -m experiments.sampling_accuracy [--jobs N] [--db FILE] [--preset P] [--sms N] [--only A,B]

Points run through the sweep machinery (stored, resumable, in parallel); the table is printed as
markdown.
"""

from __future__ import annotations

import argparse
import sys

from gpusched.experiment.point import Point

# program → scale: iterative programs (many launches), at sizes whose full run is affordable
PROGRAMS = {"kmeans": 0.2, "hotspot": 0.5, "srad_v1": 0.5, "srad_v2": 0.25, "bfs": 1.0,
            "gaussian": 0.25, "lud": 0.25, "pathfinder": 0.5, "cfd": 0.25, "nw": 1.0,
            "particlefilter": 0.5, "sssp": 0.25, "pagerank": 0.25, "mis": 0.25, "color": 0.25}
POLICIES = ("lrr", "gto")
MODES = ("kernels", "waves", "kernels,waves")
RANK_PP = 2.0           # the speed-up of GTO over LRR must agree within this many points
MAX_ERROR = 0.03        # sampled total cycles within 3 % of the full run's


def points(preset: str, names: list[str] | None = None, sms: int | None = None) -> list[Point]:
    machine = {} if sms is None else {"sm.count": sms}
    return [Point(preset=preset, workload=f"program:{name}", overrides={**machine, "sm.warp_sched": ws},
                  params={"scale": scale, "sample": mode, "memory": "hierarchy"})
            for name, scale in PROGRAMS.items() if names is None or name in names
            for ws in POLICIES for mode in ("none", *MODES)]


def table(runs: dict) -> tuple[list[str], bool]:
    """Markdown rows (one per program and mode) and whether every error and ranking check
    passed. ``runs``: (program, policy, mode) → (stats, wall seconds)."""
    rows = ["| program | mode | launches | simulated | cut (waves) | in full (not steady) "
            "| full cycles (LRR) | sampled | error | speed-up | GTO/LRR full | GTO/LRR sampled "
            "| Δ (pp) |", "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    ok = True
    for name in PROGRAMS:
        for mode in MODES:
            try:
                full, samp = runs[(name, "lrr", "none")][0], runs[(name, "lrr", mode)][0]
                # speed-up from the GTO pair: both run after the program's functional execution
                # (the first LRR point pays it), so the ratio is the timing model's alone
                (gfull, fw), (gsamp, sw) = runs[(name, "gto", "none")], runs[(name, "gto", mode)]
            except KeyError:
                continue
            err = samp["cycles"] / full["cycles"] - 1
            r_full = full["cycles"] / gfull["cycles"]
            r_samp = samp["cycles"] / gsamp["cycles"]
            delta = 100 * (r_samp - r_full)
            ok &= abs(delta) <= RANK_PP and abs(err) <= MAX_ERROR
            s = samp["sampling"]
            waves = s.get("waves", {})
            rows.append(f"| {name} | {mode} | {s['launches']} | "
                        f"{len(s.get('simulated', range(s['launches'])))} | "
                        f"{len(waves.get('cut', [])) if waves else '–'} | "
                        f"{', '.join(map(str, waves.get('full', []))) or 'none' if waves else '–'} | "
                        f"{full['cycles']:,} | {samp['cycles']:,} | {100 * err:+.2f} % | "
                        f"{fw / max(sw, 1e-9):.1f}× | {r_full:.3f} | {r_samp:.3f} | {delta:+.2f} |")
    return rows, ok


def only_programs(only: str | None, programs) -> list[str] | None:
    """``--only``'s comma-separated names (None: every program); SystemExit(2) with one line
    naming those not in ``programs``."""
    names = only.split(",") if only else None
    unknown = sorted(set(names or []) - set(programs))
    if unknown:
        print(f"--only = {','.join(unknown)}: not among {', '.join(programs)}", file=sys.stderr)
        raise SystemExit(2)
    return names


def swept_runs(sweep: str, pts: list[Point], db: str | None, jobs: int | None,
               variant) -> dict:
    """Run ``pts`` through the sweep machinery (stored, resumable) and return the done ones as
    (program, ``variant(point)``, sample mode) → (stats, wall seconds)."""
    from gpusched.commands.sweep_cmd import execute_points
    from gpusched.experiment.store import ResultStore, default_db
    db = db or default_db()
    execute_points(sweep, pts, db, jobs, None, ())
    runs = {}
    with ResultStore(db) as store:
        for r in store.runs([p.key for p in pts]):
            if r.status == "done":
                p = r.point
                runs[(p.workload[len("program:"):], variant(p), p.params["sample"])] = \
                    (r.stats, r.wall_s)
    return runs


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=None)
    ap.add_argument("--db", default=None)
    ap.add_argument("--preset", default="gtx480")
    ap.add_argument("--sms", type=int, default=None, help="SMs (default: the preset's); fewer SMs "
                    "give the same launches more waves, which --sample waves needs to cut them")
    ap.add_argument("--only", default=None, help="comma-separated programs (default: all of PROGRAMS)")
    a = ap.parse_args(argv)
    names = only_programs(a.only, PROGRAMS)
    if a.sms is not None and a.sms < 1:
        print(f"--sms = {a.sms}: expected a count >= 1", file=sys.stderr)
        return 2
    runs = swept_runs("sampling-accuracy", points(a.preset, names, a.sms), a.db, a.jobs,
                      lambda p: p.overrides["sm.warp_sched"])
    rows, ok = table(runs)
    print("\n".join(rows))
    print(f"every program within {100 * MAX_ERROR:g} % and ranking preserved within {RANK_PP} pp: "
          f"{'yes' if ok else 'NO'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
