"""Intra-kernel sampling (``--sample waves[:TOL]``): a long launch (many waves of CTAs) is
simulated at its start and its end, and the CTAs between are estimated from the steady rate.

A launch of C CTAs, W of which fit on the GPU at once (occupancy × SMs), is cut into its first
``HEAD_WAVES`` waves, its last (possibly partial) wave, and the CTAs between. The detailed run
simulates the first and last parts as one launch: the last wave follows running CTAs as it does
in the full launch, so its tail (the drain while the GPU empties) and the caches it leaves for
the next launch are simulated, not modelled. From the CTA completion times of the first waves,
successive waves give cycles per warp instruction; the launch is steady when the last
``MIN_STEADY`` windows (after the first wave, the ramp) agree within TOL. The skipped CTAs then cost that rate times their warp instructions (each CTA's count is
known from its compiled trace). A launch that is not steady is simulated in full in a second
detailed run, and the result says so. docs/sampling.md has the measured accuracy.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

from gpusched.config import ConfigError, GPUConfig
from sim.cta import occupancy_limit
from sim.workload.kernel import Kernel, Workload
from sim.workload.trace_store import CompiledKernel

DEFAULT_TOLERANCE = 0.05  # the rate windows' largest deviation from their mean
HEAD_WAVES = 4          # waves simulated at a launch's start: the ramp, then the rate windows
                        # (on gtx480 a stencil's per-wave time still falls 12 % from wave 1 to 2)
MIN_STEADY = 2          # rate windows that must agree
MIN_SKIPPED_WAVES = 2   # a launch is cut only if this many whole waves are skipped: a launch
                        # found not steady costs a second run, so a small saving is not worth it


@dataclass(frozen=True)
class Cut:
    """One launch cut for sampling: CTAs [0, head) and [n_ctas - tail, n_ctas) are simulated."""
    wave: int                       # CTAs resident at once (occupancy × SMs)
    head: int
    tail: int
    cta_insts: tuple[int, ...]      # warp instructions per CTA, by linear id

    @property
    def n_ctas(self) -> int:
        return len(self.cta_insts)

    @property
    def skipped_insts(self) -> int:
        return sum(self.cta_insts[self.head:self.n_ctas - self.tail])

    def original_id(self, cta: int) -> int:
        """The full launch's CTA id of the shortened launch's CTA ``cta``."""
        return cta if cta < self.head else cta + self.n_ctas - self.tail - self.head


def cta_insts(kernel: Kernel) -> tuple[int, ...]:
    """Warp instructions of each CTA from the launch's compiled trace index (PTX front end or
    Accel-Sim trace); ConfigError when the launch has none."""
    owner = getattr(kernel.stream, "__self__", None)
    compiled = getattr(owner, "compiled", owner)
    if not isinstance(compiled, CompiledKernel):
        raise ConfigError("--sample", "waves", f"needs each CTA's warp instructions: launch "
                          f"{kernel.name!r} is not a CUDA program's or an Accel-Sim trace's")
    counts = [0] * kernel.n_ctas
    for key, (_, n) in compiled.index().items():
        cta = key >> 32
        if cta < len(counts):
            counts[cta] += n
    return tuple(counts)


def plan(cfg: GPUConfig, workload: Workload) -> dict[int, Cut]:
    """The launches long enough to cut, by index, with their cuts."""
    cuts = {}
    for i, k in enumerate(workload.kernels):
        wave = occupancy_limit(cfg.sm, k, cfg.sm.count).limit * cfg.sm.count
        head = HEAD_WAVES * wave
        tail = k.n_ctas - (k.n_ctas - 1) // wave * wave           # the last wave, 1..wave CTAs
        if k.n_ctas - head - tail >= MIN_SKIPPED_WAVES * wave:
            cuts[i] = Cut(wave, head, tail, cta_insts(k))
    return cuts


def _shortened(k: Kernel, cut: Cut) -> Kernel:
    stream = k.stream

    def remapped(cta: int, warp: int):
        return stream(cut.original_id(cta), warp)

    n = cut.head + cut.tail
    return dataclasses.replace(k, grid=(n, 1, 1), stream=remapped, meta=dict(
        k.meta, warp_insts=sum(cut.cta_insts) - cut.skipped_insts))


def shortened(workload: Workload, cuts: dict[int, Cut]) -> Workload:
    """``workload`` with every cut launch reduced to its simulated CTAs."""
    kernels = [_shortened(k, cuts[i]) if i in cuts else k for i, k in enumerate(workload.kernels)]
    return Workload(workload.name, kernels, workload.description, dict(workload.meta))


def steady_rate(ends: list[tuple[int, int]], cut: Cut, tol: float) -> tuple[float, float, int] | None:
    """(cycles per warp instruction, drift, windows) from the first waves' completions, or None
    when the last ``MIN_STEADY`` windows do not agree within ``tol``. ``ends``: (end cycle, CTA
    id of the shortened launch) of every CTA, sorted. A window runs from one wave's mean
    completion time to the next's (robust to a wave's stragglers) and is charged the warp
    instructions of the CTAs completing in it. The rate is the last window's, the closest to
    steady state; the drift, (max − min) ÷ rate over the compared windows, is the error bound
    the result reports for the estimated cycles."""
    w = cut.wave
    waves = [ends[j * w:(j + 1) * w] for j in range(cut.head // w)]
    mid = [sum(t for t, _ in wave) / len(wave) for wave in waves]
    rates = [(mid[j] - mid[j - 1]) / max(sum(cut.cta_insts[cut.original_id(c)] for _, c in waves[j]), 1)
             for j in range(1, len(waves))][-MIN_STEADY:]
    rate = rates[-1]
    if rate <= 0:
        return None
    drift = (max(rates) - min(rates)) / rate
    return (rate, drift, len(rates)) if drift <= tol else None


def run(cfg: GPUConfig, workload: Workload, tol: float, detailed: Callable[[Workload], dict],
        launch_ids: list[int] | None = None) -> dict:
    """Simulate ``workload`` with its long launches cut (``detailed`` runs a workload in
    detail), extrapolate them, and describe it under the result's ``sampling`` key.
    ``launch_ids``: the program's launch index of each of ``workload``'s launches (for the
    report, when kernel sampling chose them)."""
    ids = launch_ids or list(range(len(workload.kernels)))
    cuts = plan(cfg, workload)
    result = detailed(shortened(workload, cuts)) if cuts else detailed(workload)
    found = _steady_rates(result, cuts, tol)
    unsteady = [i for i, f in found.items() if f is None]
    rates = {i: f for i, f in found.items() if f is not None}
    if unsteady:                    # not steady: those launches again, in full
        cuts = {i: c for i, c in cuts.items() if i not in unsteady}
        result = detailed(shortened(workload, cuts))
        # a launch steady in the first run but not in this one keeps its first rate
        rates.update((i, f) for i, f in _steady_rates(result, cuts, tol).items() if f is not None)
    return extrapolate(result, workload, cuts, rates, unsteady, tol, ids)


def _steady_rates(result: dict, cuts: dict[int, Cut], tol: float) -> dict:
    """Each cut launch's ``steady_rate`` in ``result`` (None: not steady)."""
    rows = result["ctas"]["rows"]
    return {i: steady_rate(sorted((row[4], row[1]) for row in rows if row[0] == i), cut, tol)
            for i, cut in cuts.items()}


def extrapolate(result: dict, workload: Workload, cuts: dict[int, Cut], rates: dict,
                unsteady: list[int], tol: float, ids: list[int]) -> dict:
    """The detailed result with every cut launch's skipped CTAs added at its steady rate;
    launches run one after another, so each later launch moves by the cycles added before it."""
    out = dict(result)
    kernels, shift, err_cycles, launches = [], 0, 0.0, []
    for k in result["kernels"]:
        i = k["index"]
        k = dict(k, start=k["start"] + shift, end=k["end"] + shift)
        if i in cuts:
            cut = cuts[i]
            rate, drift, windows = rates[i]
            added = round(rate * cut.skipped_insts)
            err_cycles += drift * added
            shift += added
            k["end"] += added
            k["cycles"] += added
            k["warp_insts"] = sum(cut.cta_insts)
            k["ipc"] = round(k["warp_insts"] / k["cycles"], 6) if k["cycles"] else 0.0
            k["ctas"] = cut.n_ctas
            k["simulated_ctas"] = cut.head + cut.tail
            launches.append({"launch": ids[i], "ctas": cut.n_ctas, "wave_ctas": cut.wave,
                             "simulated_ctas": [[0, cut.head], [cut.n_ctas - cut.tail, cut.n_ctas]],
                             "steady_windows": windows, "cycles_per_warp_inst": round(rate, 6),
                             "drift": round(drift, 6), "estimated_cycles": added})
        kernels.append(k)
    out["kernels"] = kernels
    out["cycles"] = result["cycles"] + shift
    out["warp_insts"] = result["warp_insts"] + sum(c.skipped_insts for c in cuts.values())
    out["ipc"] = round(out["warp_insts"] / out["cycles"], 6) if out["cycles"] else 0.0
    out["sampling"] = {
        "mode": "waves", "tolerance": tol, "launches": len(workload.kernels),
        "waves": {"tolerance": tol, "cut": launches, "full": [ids[i] for i in unsteady],
                  "estimated_cycles": shift, "detailed_cycles": result["cycles"]},
        "estimated_error": err_cycles / out["cycles"] if out["cycles"] else 0.0,
        "note": "cycles, warp_insts, ipc and kernels cover every CTA (the cut launches' skipped "
                "CTAs estimated); every other statistic is of the simulated CTAs only, and the "
                "ctas rows number a cut launch's CTAs as simulated"}
    return out
