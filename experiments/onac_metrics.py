"""ONAC's measurements (thesis ch.3, experiments/onac.py): what one run's statistics say (the
controller's chosen SM count, its detection time, energies) and what a set of runs says (the
oracle count, the [THESIS §4.4] static-power calibration, energy savings, detection-time reduction).
Shared by the catalogue and the program experiments."""

from __future__ import annotations

import math
import re

from gpusched.experiment.query import ResultSet

RAMP_SKIP = 3       # ramp-up waves skipped before detection (headline; spec default 1, our choice)
ONAC, SEQ_DET = f"onac_skip{RAMP_SKIP}", f"seq_det_skip{RAMP_SKIP}"    # headline detectors
REFERENCE = "onac_bp_k2_like"     # memory-bound kernel the static share is calibrated on
STATIC_SHARE = 0.40               # headline static fraction (middle of [THESIS §4.4]'s 30–50 %)
THRESHOLD = 0.98                  # [THESIS §4.4.1] / [THESIS §4.4]: within 2 % of all-SM performance


# ---- per-run metrics ----------------------------------------------------------------------------

def _trace(stats: dict) -> dict | None:
    trace = ((stats.get("policy_reports") or {}).get("sm_controller") or {}).get("trace")
    return trace[0] if trace else None


def n_chosen(stats: dict) -> float | None:
    """Active SMs the controller settled on: n_opt (ONAC / Seq-Det; None if it never decided),
    n for ``active_n``, every SM otherwise."""
    report = (stats.get("policy_reports") or {}).get("sm_controller") or {}
    if "n_active" in report:
        return report["n_active"]
    if "trace" in report:
        t = _trace(stats)
        return t["n_opt"] if t else None
    return len(stats["sm"]["warp_insts"])


def detect_cycles(stats: dict) -> float | None:
    """Cycles from the detector's start pulse to its decision (None: no decision)."""
    t = _trace(stats)
    return t["decided"] - t["start"] if t and t["decided"] is not None else None


def dynamic_uj(stats: dict) -> float:
    e = stats["energy"]
    return (e["memory_pj"] + e["core_pj"]) / 1e6


def static_uj(stats: dict) -> float:
    """Static energy at the run's static powers (the preset's; before calibration)."""
    e = stats["energy"]
    return (e["static_sm_pj"] + e["static_uncore_pj"]) / 1e6


def mean_active_sms(stats: dict) -> float:
    return sum(stats["cycles"] - g for g in stats["sm"]["gated_cycles"]) / stats["cycles"]


# ---- cross-run analysis -------------------------------------------------------------------------

def oracle_n(perf: dict[int, float], threshold: float = THRESHOLD) -> int:
    """Smallest n whose performance is ≥ ``threshold`` × that of the largest n (all SMs)."""
    full = perf[max(perf)]
    return min(n for n, p in perf.items() if p >= threshold * full)


def oracle_curve(results: ResultSet, workload: str) -> dict[int, float]:
    """n → steady-state IPC of the ``active_n`` runs of ``workload`` (mean over seeds)."""
    curve = {}
    rows = results.select(workload=workload)
    for level in rows.levels("sm_controller"):
        m = re.fullmatch(r"active_(\d+)", str(level))
        if m:
            v = rows.mean("steady_ipc", {"sm_controller": level})
            if not math.isnan(v):
                curve[int(m.group(1))] = v
    return curve


def oracle_of(results: ResultSet, workload: str) -> int:
    curve = oracle_curve(results, workload)
    if not curve:
        raise ValueError(f"no oracle sweep for {workload}")
    return oracle_n(curve)


def _long(results: ResultSet, workload: str, controller: str, column: str) -> float:
    return results.mean(column, {"workload": workload, "sm_controller": controller})


def static_factor(results: ResultSet, share: float, reference: str = REFERENCE) -> float:
    """Factor on the preset's static powers that gives the all-SM run of ``reference`` a static
    share ``share`` of its energy ([THESIS §4.4] calibration)."""
    dyn = _long(results, reference, "all_active", "e_dyn")
    stat = _long(results, reference, "all_active", "e_static")
    if not dyn > 0 or not stat > 0:
        raise ValueError(f"no all-SM run of {reference} to calibrate static power on")
    return share / (1 - share) * dyn / stat


def energy_saving(results: ResultSet, workload: str, controller: str,
                  share: float = STATIC_SHARE, reference: str = REFERENCE) -> float:
    """1 − E(controller) / E(all SMs), in %, with calibrated static power."""
    k = static_factor(results, share, reference)
    def energy(c: str) -> float:
        return _long(results, workload, c, "e_dyn") + k * _long(results, workload, c, "e_static")
    return 100 * (1 - energy(controller) / energy("all_active"))


def oracle_saving(results: ResultSet, workload: str, share: float = STATIC_SHARE,
                  reference: str = REFERENCE) -> float:
    """1 − E/instruction at the oracle N / E/instruction at all SMs, in %, from the oracle
    sweep (fixed counts, no detection): the saving an exact, free detector would reach."""
    k = static_factor(results, share, reference)
    curve = oracle_curve(results, workload)
    def per_inst(n: int) -> float:
        where = {"workload": workload, "sm_controller": f"active_{n}"}
        return (results.mean("e_dyn", where) + k * results.mean("e_static", where)) / \
            results.mean("warp_insts", where)
    return 100 * (1 - per_inst(oracle_n(curve)) / per_inst(max(curve)))


def perf_retained(results: ResultSet, workload: str, controller: str) -> float:
    """All-SM cycles / controller cycles, in % (same grid, so this is the IPC ratio)."""
    return 100 * _long(results, workload, "all_active", "cycles") / _long(
        results, workload, controller, "cycles")


def detection_reduction(results: ResultSet, workload: str, onac: str = ONAC,
                        seq_det: str = SEQ_DET) -> float:
    """1 − ONAC detection time / Seq-Det detection time, in % (the headline detectors unless
    ``onac`` / ``seq_det`` name other controllers)."""
    return 100 * (1 - _long(results, workload, onac, "detect_cycles")
                  / _long(results, workload, seq_det, "detect_cycles"))


def mean_over(fn, workloads: list[str], *args):
    """Arithmetic mean of ``fn(results, w, *args)`` over the workloads present in the results."""
    def ours(results: ResultSet) -> float:
        vals = [fn(results, w, *args) for w in workloads if results.select(workload=w).rows]
        vals = [v for v in vals if not math.isnan(v)]
        if not vals:
            raise ValueError("none of " + ", ".join(workloads) + " in the results")
        return sum(vals) / len(vals)
    return ours


def static_share_at_defaults(results: ResultSet, reference: str = REFERENCE) -> float:
    dyn = _long(results, reference, "all_active", "e_dyn")
    stat = _long(results, reference, "all_active", "e_static")
    return 100 * stat / (dyn + stat)
