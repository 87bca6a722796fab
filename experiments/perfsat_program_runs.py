"""The ``perfsat_program`` runner kind of experiments/perfsat.py: one kernel of a suite program,
its launches run alone (experiments/phase_program_runs.py ``only_kernel``), under one CTA-limit
policy (``max_occupancy``, ``perf_sat`` or ``ctas_<n>``).

Why one kernel: Table 4.2 ([THESIS §4.3.1.2]) lists kernels (SRAD-1..6 are srad_v1's six), and
its N_opt, type and Perf-Sat's decision are per kernel. Perf-Sat detects afresh at every launch
(sim/policies/perf_sat_limit.py: one record per (launch, SM)), so a kernel launched many times
gives many decisions; ``decisions`` summarises them. The per-CTA tables are dropped (the
reduction keeps what the report reads). Kept apart from the report module so that editing the
report leaves the stored runs valid."""

from __future__ import annotations

import dataclasses

from experiments.owl_program_runs import program_scale
from experiments.phase_program_runs import check_program_kernel, only_kernel
from gpusched.experiment.point import Point
from gpusched.experiment.runners import check_model, register_kind

KIND = "perfsat_program"


def decisions(report: dict) -> dict:
    """Perf-Sat's per-(launch, SM) limits: the settled limit, or for a launch that ended
    before Perf-Sat settled, the last limit it set on that SM during the launch. ``mean`` over
    all records, ``settled`` = share of records that settled."""
    limits = report.get("limits") or []
    records = report.get("kernels") or []
    by_sm: dict[int, list[tuple[int, int]]] = {}
    for cycle, sm, limit in limits:
        by_sm.setdefault(sm, []).append((cycle, limit))
    starts: dict[int, list[int]] = {}
    for r in records:
        starts.setdefault(r["sm"], []).append(r["start"])
    values, settled = [], 0
    for r in records:
        if r["limit"] is not None:
            values.append(r["limit"])
            settled += 1
            continue
        later = [s for s in starts[r["sm"]] if s > r["start"]]
        end = min(later) if later else None
        seen = [lim for c, lim in by_sm.get(r["sm"], []) if c >= r["start"]
                and (end is None or c < end)]
        if seen:
            values.append(seen[-1])
    if not values:
        return {"mean": None, "settled": None, "records": 0}
    return {"mean": sum(values) / len(values), "settled": settled / len(records),
            "records": len(records)}


def _split(point: Point, run: bool = True) -> tuple[Point, str]:
    params = dict(point.params)
    kernel = params.pop("kernel", None)
    params["scale"] = program_scale(point.workload, params.get("scale", 1.0), point.preset, run)
    return dataclasses.replace(point, params=params, kind="model"), kernel


def check_point(point: Point) -> None:
    """A ``program:NAME`` workload, one of its declared kernels, a known CTA-limit policy."""
    check_program_kernel(point.workload, point.params.get("kernel"))
    base, _ = _split(point, run=False)
    check_model(base)


def run_point(point: Point) -> dict:
    """The ``model`` run of the point's kernel alone; per-CTA rows dropped, Perf-Sat's
    decisions summarised (``perf_sat_decisions``)."""
    from gpusched.config import resolve_config
    from gpusched.experiment.point import override_strings
    from sim.run import load_workload, simulate
    base, kernel = _split(point)
    cfg = resolve_config(base.preset, override_strings(base.overrides))
    params = dict(base.params)
    scale = float(params.pop("scale"))
    params.setdefault("memory", "hierarchy")
    workload = load_workload(base.workload, seed=base.seed, scale=scale, preset=cfg.name)
    stats = simulate(cfg, only_kernel(workload, kernel), seed=base.seed, **params)
    stats.get("ctas", {}).pop("rows", None)
    report = (stats.get("policy_reports") or {}).get("cta_limit") or {}
    if "kernels" in report:
        stats["perf_sat_decisions"] = decisions(report)
        report["limits"] = report["limits"][:2000]      # the plot's SM-0 trace; runs can hold more
    stats["program_scale"] = scale
    return stats


register_kind(KIND, run_point, check_point)
