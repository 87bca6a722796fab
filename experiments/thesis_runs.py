"""Runner kind ``thesis_model`` for the ONAC and Perf-Sat experiments: the ``model`` kind plus a
``waves`` parameter that sets a single-kernel catalogue workload's CTA count without changing the
work per CTA.

Why: both detectors spend several sampling windows (ONAC: 4 CTA waves per sample, [THESIS §4.4.2.3];
Perf-Sat: One_TB_cycles × N_max per window, [THESIS §4.3.2.2]) before they settle, and the thesis's
grids hold 16 K–98 K CTAs (Table 4.4), so detection is a small part of a run. The catalogue's
``scale`` multiplies grid size and loop trips together, so a long grid would also mean long CTAs
(run time ∝ scale²). Our reproduction plan for [THESIS] asks instead to "scale the grid down with the
model's speed, keeping the detection-time fraction comparable".

``waves`` = w launches w × (occupancy limit × SMs that may run CTAs) CTAs: all SMs, or n for the
``active_<n>`` controllers (so an oracle sweep gives every active-SM count the same number of
waves); the occupancy limit is the resource limit ([GPGPU-Sim issue_block2core()]) without any
CTA-count policy. The entry is otherwise built unchanged (``scale`` as usual); address patterns are
laid out for the larger grid, so the added CTAs touch new data, as a larger input would.

Stats are the model's, with the per-CTA ``ctas.rows`` table (tens of thousands of rows per run)
cut down to ``ctas.ends``, the sorted completion cycles, from which ``steady_of`` derives the
kernel's throughput over whole waves between 20 % and 80 % of its CTAs completed.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Callable

from gpusched.config import ConfigError, GPUConfig
from gpusched.experiment.grid import Grid
from gpusched.experiment.point import Point, override_strings
from gpusched.experiment.runners import check_model, register_kind
from sim.cta import occupancy_limit
from sim.workload.kernel import Kernel, Workload
from sim.workload.recipes import Ctx
from sim.workload.synthetic import KernelSpec, build_kernel

KIND = "thesis_model"
STEADY_LO, STEADY_HI = 0.2, 0.8     # completed-CTA fractions bounding the steady window


class SizedGridCtx(Ctx):
    """Build context whose kernels get ``ctas(spec)`` CTAs (a 1-D grid) instead of their own."""

    def __init__(self, seed: int, scale: float, ctas: Callable[[KernelSpec], int]):
        super().__init__(seed, scale)
        self.ctas = ctas

    def kernel(self, spec: KernelSpec) -> Kernel:
        return super().kernel(dataclasses.replace(spec, grid=max(1, int(self.ctas(spec)))))


def n_dispatch_sms(cfg: GPUConfig, sm_controller: str | None) -> int:
    """SMs that may receive CTAs: n for ``active_<n>``, else all."""
    m = re.fullmatch(r"active_(\d+)", sm_controller or "")
    return min(int(m.group(1)), cfg.sm.count) if m else cfg.sm.count


def wave_workload(name: str, cfg: GPUConfig, waves: float, n_sms: int, seed: int = 0,
                  scale: float = 1.0) -> Workload:
    """Catalogue entry ``name`` (one kernel) at ``scale``, launched with ``waves`` × occupancy
    limit × ``n_sms`` CTAs."""
    from sim.workload.catalogue import ENTRIES
    if name not in ENTRIES:
        raise ConfigError("workload", name, "a catalogue entry (waves: named entries only)")
    entry = ENTRIES[name]

    def ctas(spec: KernelSpec) -> int:
        probe = build_kernel(dataclasses.replace(spec, grid=1 << 20))   # no small-grid clamp
        occ = occupancy_limit(cfg.sm, probe, cfg.sm.count, clamp_small_grid=False).limit
        return round(waves * occ * n_sms)

    c = SizedGridCtx(int(seed), float(scale), ctas)
    kernels = entry.build(c)
    if len(kernels) != 1:
        raise ConfigError("workload", name, "waves: single-kernel workloads only")
    kernels[0].meta.setdefault("mimics", entry.mimics)
    return c.workload(name, kernels, f"mimics {entry.mimics}: {entry.traits} ({waves:g} waves "
                      f"on {n_sms} SMs)")


def steady_ipc(ends: list[int], warp_insts: int, wave: int = 1, lo: float = STEADY_LO,
               hi: float = STEADY_HI) -> dict:
    """Throughput over whole CTA waves after the ramp-up: from the completion of CTA number
    ``lo``·n (in completion order) to that of the CTA k·``wave`` completions later, k as large
    as fits below ``hi``·n: (k·wave CTAs / window cycles) × mean warp instructions per CTA.

    Why: a short run's whole-run IPC includes the ramp-up and the last partial wave (up to
    1/waves of the run), which blurs a 2 % rule; the thesis's grids are long enough that its
    IPC is this steady rate. CTAs that start together finish in bursts of one wave, so the
    window spans whole waves (same phase at both ends). ``ends``: the completion cycles of one
    kernel's CTAs; ``wave`` = resident CTAs on the chip. Empty dict when the run is too short
    for one wave in the window."""
    ends = sorted(ends)
    n, wave = len(ends), max(1, wave)
    a = int(n * lo)
    k = (int(hi * n) - 1 - a) // wave
    if k < 1 or a + k * wave >= n or ends[a + k * wave] <= ends[a]:
        return {}
    b = a + k * wave
    return {"ipc": (b - a) * warp_insts / n / (ends[b] - ends[a]), "from": ends[a],
            "to": ends[b], "waves": k}


def _split(point: Point) -> tuple[Point, float | None]:
    params = dict(point.params)
    waves = params.pop("waves", None)
    return dataclasses.replace(point, params=params, kind="model"), waves


def check_thesis_model(point: Point) -> None:
    """As the ``model`` kind, plus ``waves`` > 0 (named single-kernel entries only)."""
    base, waves = _split(point)
    check_model(base)
    if waves is not None:
        if not isinstance(waves, (int, float)) or isinstance(waves, bool) or not 0 < waves <= 10000:
            raise ConfigError("waves", waves, "a number in (0, 10000]")
        from sim.workload.catalogue import ENTRIES
        if base.workload not in ENTRIES:
            raise ConfigError("workload", base.workload, "waves: named catalogue entries only")


def run_thesis_model(point: Point) -> dict:
    """Simulate ``point`` like the ``model`` kind, on a ``waves``-long grid when given."""
    from gpusched.config import resolve_config
    from sim.run import simulate
    from sim.workload.catalogue import get_workload
    base, waves = _split(point)
    cfg = resolve_config(base.preset, override_strings(base.overrides))
    params = dict(base.params)
    scale = float(params.pop("scale", 1.0))
    params.setdefault("memory", "hierarchy")
    if waves is None:
        workload = get_workload(base.workload, base.seed, scale)
    else:
        n_sms = n_dispatch_sms(cfg, params.get("sm_controller"))
        workload = wave_workload(base.workload, cfg, float(waves), n_sms, base.seed, scale)
    stats = simulate(cfg, workload, seed=base.seed, **params)
    rows = stats.get("ctas", {}).pop("rows", None) or []
    if len(stats["kernels"]) == 1:
        stats["ctas"]["ends"] = sorted(r[4] for r in rows)
    return stats


def steady_of(stats: dict) -> float | None:
    """``steady_ipc`` of a ``thesis_model`` run (None when too short or multi-kernel); computed
    when reports are drawn, so a better estimator needs no new runs."""
    ends = (stats.get("ctas") or {}).get("ends")
    if not ends:
        return None
    wave = stats["kernels"][0]["occupancy_limit"] * sum(
        1 for c in stats["sm"]["ctas_launched"] if c)
    return steady_ipc(ends, stats["warp_insts"], wave).get("ipc")


register_kind(KIND, run_thesis_model, check_thesis_model)


@dataclass(frozen=True)
class GridUnion(Grid):
    """Several grids swept as one (an experiment whose points are not one cartesian product,
    e.g. long controller runs plus a short oracle sweep). ``parts`` share ``kind``; the other
    fields describe the union for reports."""
    parts: tuple[Grid, ...] = ()

    def points(self) -> list[Point]:
        return [p for part in self.parts for p in part.points()]


def grid_union(name: str, parts: list[Grid], source: str | None = None) -> GridUnion:
    """A ``GridUnion`` whose descriptive fields are the union of its parts'."""
    def union(attr: str) -> list:
        return list(dict.fromkeys(v for g in parts for v in getattr(g, attr)))
    return GridUnion(name=name, workloads=union("workloads"), preset=union("preset"),
                     seeds=union("seeds"), kind=KIND, source=source, parts=tuple(parts))
