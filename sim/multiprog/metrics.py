"""Multiprogram metrics ([SRTF STP, ANTT]) and the analytic two-kernel references ([SRTF SJF]).

For program i of an n-program workload: NTT_i = T_i^MP / T_i^SP (slowdown, lower is better);
STP = Σ 1/NTT_i (higher, at most n); ANTT = mean NTT_i (lower, at least 1); StrictF = min NTT /
max NTT (1 = fair). Aggregates over workloads are geometric means.

Predictor accuracy: predicted / actual total runtime of a kernel on an SM, per prediction; the
actual runtime is the kernel's Active cycles on that SM (cycles with at least one of its blocks
resident, [SRTF Simple Slicing]), from the block rows of the trace.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence


def ntt(t_mp: float, t_sp: float) -> float:
    if t_sp <= 0:
        raise ValueError(f"standalone runtime must be > 0, got {t_sp}")
    return t_mp / t_sp


def stp(ntts: Sequence[float]) -> float:
    return sum(1.0 / x for x in ntts)


def antt(ntts: Sequence[float]) -> float:
    return sum(ntts) / len(ntts)


def strict_fairness(ntts: Sequence[float]) -> float:
    return min(ntts) / max(ntts)


def gmean(values: Iterable[float]) -> float:
    vals = list(values)
    if not vals:
        return float("nan")
    return math.exp(sum(math.log(v) for v in vals) / len(vals))


def summary(ntts: Sequence[float]) -> dict:
    """STP, ANTT, StrictF of one workload from its programs' slowdowns."""
    return {"stp": stp(ntts), "antt": antt(ntts), "fairness": strict_fairness(ntts),
            "ntt": list(ntts)}


def serial_ntts(t_first: float, t_second: float, offset: float, first_runs_first: bool) -> list[float]:
    """NTTs [first program, second program] when one runs alone to completion, then the other
    (the second program arrives ``offset`` after the first; if it runs first, the first program
    is set aside from that arrival until the second ends)."""
    if first_runs_first:
        return [1.0, (max(t_first - offset, 0) + t_second) / t_second]
    # the second program runs from its arrival; the first resumes after it (pre-empted)
    return [(t_first + t_second) / t_first, 1.0]


def oracle_ntts(t_first: float, t_second: float, offset: float, shortest: bool) -> list[float]:
    """SJF (``shortest``) or LJF analytic NTTs ([SRTF SJF]), extended to a late second
    arrival: at that arrival the program with the shorter (longer) remaining time runs alone to
    completion, then the other. With offset 0 this is the document's serial model."""
    remaining_first = max(t_first - offset, 0)
    second_first = (t_second < remaining_first) if shortest else (t_second > remaining_first)
    return serial_ntts(t_first, t_second, offset, not second_first)


def active_cycles(intervals: Iterable[tuple[int, int]]) -> int:
    """Length of the union of [start, end) intervals."""
    total, cur_s, cur_e = 0, None, None
    for s, e in sorted(intervals):
        if cur_e is None or s > cur_e:
            if cur_e is not None:
                total += cur_e - cur_s
            cur_s, cur_e = s, e
        else:
            cur_e = max(cur_e, e)
    if cur_e is not None:
        total += cur_e - cur_s
    return total


def predictor_accuracy(trace: dict) -> list[dict]:
    """One row per predictor record of the trace: kernel, SM, cycle, predicted total runtime,
    actual Active cycles on that SM, and their ratio."""
    actual: dict[tuple[int, int], int] = {}
    for ki, k in enumerate(trace["kernels"]):
        per_sm: dict[int, list] = {}
        for sm, s, e in k["blocks"]:
            per_sm.setdefault(sm, []).append((s, e))
        for sm, iv in per_sm.items():
            actual[(ki, sm)] = active_cycles(iv)
    rows = []
    for cycle, sm, ki, pred in trace.get("records", []):
        a = actual.get((ki, sm))
        if ki < 0 or not a:
            continue
        rows.append({"kernel": trace["kernels"][ki]["name"], "sm": sm, "cycle": cycle,
                     "pred": pred, "actual": a, "ratio": pred / a})
    return rows


def delays(trace: dict) -> dict:
    """Sampling delays (a sample's start to its kernel's first block on the sampling SM: SM 0,
    the report's ``sample_sm``, or any SM if that is "free") and hand-off delays (a switch to the
    retirement of the last block the old kernel had resident at that moment), in cycles
    ([SRTF])."""
    kernels = trace["kernels"]
    samp_sm = (trace.get("kernel_scheduler") or {}).get("sample_sm", 0)
    sampling = []
    for cycle, ki in trace.get("samples", []):
        if ki < 0:
            continue
        firsts = [s for sm, s, _ in kernels[ki]["blocks"]
                  if (sm == samp_sm or samp_sm == "free") and s >= cycle]
        if firsts:
            sampling.append(min(firsts) - cycle)
    handoff = []
    for cycle, old, _new in trace.get("switches", []):
        if old < 0:
            continue
        ends = [e for _, s, e in kernels[old]["blocks"] if s <= cycle < e]
        handoff.append(max(ends) - cycle if ends else 0)
    return {"sampling": sampling, "handoff": handoff}
