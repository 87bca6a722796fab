"""The ``owl`` runner kind of experiments/owl.py: each point runs one *scheme* (``SCHEMES``, a
set of config overrides) with the OWL metrics profiler. Kept apart from the report module so that
editing the report (tables, plots, names) leaves the stored runs valid: a point's model
fingerprint covers its kind's module (gpusched/experiment/fingerprint.py)."""

from __future__ import annotations

import dataclasses

from gpusched.config import ConfigError
from gpusched.experiment.point import Point
from gpusched.experiment.runners import check_model, register_kind, run_model

KIND = "owl"
# +Locality, +BLP and OWL run the rotating head of [OWL §4.2, Fig. 4B]: the rule that priority
# moves to the next group only once the head group has completed, refilled CTAs joining the
# lowest-priority group; A3 (a), slot-static groups (Algorithm 1 read literally), is the option
_OWL = {"sm.warp_sched": "owl_blp_rot", "dram.prefetch": "owl_b"}
SCHEMES: dict[str, dict] = {
    "rr": {"sm.warp_sched": "lrr"},
    "tl": {"sm.warp_sched": "tl_narasiman"},
    "cta": {"sm.warp_sched": "owl_cta"},
    "locality": {"sm.warp_sched": "owl_locality_rot"},
    "blp": {"sm.warp_sched": "owl_blp_rot"},
    "owl": _OWL,
    # prefetch ablations: scheme A (stop on a conflicting demand, [OWL §4.4]) and scheme B with
    # the above-misses priority order (ours: prefetch above row-miss demands) instead of the lowest
    "owl_a": {**_OWL, "dram.prefetch": "owl_a"},
    "owl_b_hi": {**_OWL, "dram.prefetch_priority": "above_misses"},
    # slot-static groups ([OWL Algorithm 1] read literally) instead of the rotating head
    "locality_static": {"sm.warp_sched": "owl_locality"},
    "blp_static": {"sm.warp_sched": "owl_blp"},
    "perfect_l2": {"sm.warp_sched": "lrr", "l2.perfect": True},
    "perfect_l1": {"sm.warp_sched": "lrr", "l1.perfect": True},
}


def _point_overrides(point: Point) -> Point:
    scheme = point.params.get("scheme")
    if scheme not in SCHEMES:
        raise ConfigError("scheme", scheme, "one of " + ", ".join(SCHEMES))
    params = {k: v for k, v in point.params.items() if k != "scheme"}
    return dataclasses.replace(point, overrides={**point.overrides, **SCHEMES[scheme]},
                               params=params, kind="model")


def run_point(point: Point) -> dict:
    """The model run of the point's scheme with the OWL metrics profiler (``--profile owl``:
    exact CINV, MemoryBlockCycles, NoWarpCycles and per-bank RBL), with ``scheme`` recorded in
    the stats."""
    model = _point_overrides(point)
    model = dataclasses.replace(model, params={**model.params, "profile": ("owl",)})
    stats = run_model(model)
    stats["scheme"] = point.params["scheme"]
    if stats["scheme"] == "rr":
        stats["row_profile"] = row_table(model)
    return stats


def row_table(model: Point) -> dict:
    """[OWL Table 4] metrics of the point's workload under its DRAM address map:
    ``cons_cta_row_sharing`` and ``ctas_per_row`` (sim/workload/row_profile.py)."""
    from gpusched.config import resolve_config
    from gpusched.experiment.point import override_strings
    from sim.run import load_workload
    from sim.workload.row_profile import row_sharing
    cfg = resolve_config(model.preset, override_strings(model.overrides))
    workload = load_workload(model.workload, seed=model.seed,
                             scale=float(model.params.get("scale", 1.0)), preset=cfg.name)
    return row_sharing(workload, cfg.dram, cfg.l2.line_bytes, cfg.sm.warp_size)


def check_point(point: Point) -> None:
    check_model(_point_overrides(point))


register_kind(KIND, run_point, check_point)
