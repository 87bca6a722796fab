"""Intra-kernel sampling (``--sample waves[:TOL]``): a long launch (many waves of CTAs) is
simulated at its start and its end, and the CTAs between are estimated from the steady rate.

A launch of C CTAs, W of which fit on the GPU at once (occupancy × SMs), is cut into its first
``HEAD_WAVES`` waves, its last (possibly partial) wave, and the CTAs between. The detailed run
simulates the first and last parts as one launch: the last wave follows running CTAs as it does
in the full launch, so its tail (the drain while the GPU empties) and the caches it leaves for
the next launch are simulated, not modelled. From the CTA completion times of the first waves,
successive waves give cycles per warp instruction; the launch is steady when the last
``MIN_STEADY`` windows (after the first wave, the ramp) agree within TOL. The skipped CTAs then
cost that rate times their warp instructions (each CTA's count is known from its compiled
trace). A launch that is not steady is simulated in full in a second, short detailed run, after
its predecessor as it ran in the first (the warm-up kernel sampling uses too); every other
launch keeps what the first run measured, and the result says which launches ran in full and
why. docs/sampling.md has the measured accuracy.
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


@dataclass(frozen=True)
class Windows:
    """The rate windows of a cut launch's first waves (cycles per warp instruction, oldest
    first), compared for steady state."""
    rates: tuple[float, ...]

    @property
    def rate(self) -> float:
        """The last window's: the closest to steady state."""
        return self.rates[-1]

    @property
    def drift(self) -> float | None:
        """(max − min) ÷ rate over the windows, the error bound of the estimated cycles; None
        when the rate is not positive."""
        return (max(self.rates) - min(self.rates)) / self.rate if self.rate > 0 else None

    def steady(self, tol: float) -> bool:
        return self.drift is not None and self.drift <= tol

    def why_not(self, tol: float) -> str:
        """One phrase saying why the launch is not steady."""
        shown = ", ".join(f"{r:.4f}" for r in self.rates)
        if self.drift is None:
            return f"rate windows {shown} cycles per warp instruction: the last is not positive"
        return (f"rate windows {shown} cycles per warp instruction differ by "
                f"{self.drift:.1%} > {tol:.1%}")


def windows(ends: list[tuple[int, int]], cut: Cut) -> Windows:
    """The last ``MIN_STEADY`` rate windows from the first waves' completions. ``ends``: (end
    cycle, CTA id of the shortened launch) of every CTA, sorted. A window runs from one wave's
    mean completion time to the next's (robust to a wave's stragglers) and is charged the warp
    instructions of the CTAs completing in it."""
    w = cut.wave
    waves = [ends[j * w:(j + 1) * w] for j in range(cut.head // w)]
    mid = [sum(t for t, _ in wave) / len(wave) for wave in waves]
    return Windows(tuple(
        (mid[j] - mid[j - 1]) / max(sum(cut.cta_insts[cut.original_id(c)] for _, c in waves[j]), 1)
        for j in range(1, len(waves)))[-MIN_STEADY:])


def run(cfg: GPUConfig, workload: Workload, tol: float, detailed: Callable[[Workload], dict],
        launch_ids: list[int] | None = None) -> dict:
    """Simulate ``workload`` with its long launches cut (``detailed`` runs a workload in
    detail), extrapolate them, and describe it under the result's ``sampling`` key.
    ``launch_ids``: the program's launch index of each of ``workload``'s launches (for the
    report, when kernel sampling chose them)."""
    ids = launch_ids or list(range(len(workload.kernels)))
    cuts = plan(cfg, workload)
    result = detailed(shortened(workload, cuts)) if cuts else detailed(workload)
    rows = result["ctas"]["rows"]
    found = {i: windows(sorted((row[4], row[1]) for row in rows if row[0] == i), cut)
             for i, cut in cuts.items()}
    steady = {i: f for i, f in found.items() if f.steady(tol)}
    cuts = {i: c for i, c in cuts.items() if i in steady}
    unsteady = {i: f for i, f in found.items() if i not in steady}
    full: list[dict] = []
    if unsteady:
        result, full = rerun_in_full(result, workload, cuts, sorted(unsteady), detailed)
        for entry in full:
            entry.update(launch=ids[entry["launch"]], why=unsteady[entry["launch"]].why_not(tol),
                         rate_windows=[round(r, 6) for r in unsteady[entry["launch"]].rates],
                         warm_up=None if entry["warm_up"] is None else ids[entry["warm_up"]])
    return extrapolate(result, workload, cuts, steady, full, tol, ids)


def rerun_in_full(result: dict, workload: Workload, cuts: dict[int, Cut], launches: list[int],
                  detailed: Callable[[Workload], dict]) -> tuple[dict, list[dict]]:
    """``result`` (the first detailed run) with each of ``launches`` replaced by its full run:
    one detailed run of those launches in full, each after the launch before it as it ran in
    the first run (cut where ``cuts`` says), as the warm-up that leaves the caches as the first
    run found them. Launches run one after another, so every later launch moves by the cycles
    the full runs added. Also the ``full`` entries of the report: launch, warm-up launch, cycles
    (indices into ``workload``)."""
    idx = sorted({j for i in launches for j in (i - 1, i) if j >= 0})
    part = Workload(f"{workload.name} (not steady, in full)",
                    [_shortened(workload.kernels[j], cuts[j]) if j in cuts else workload.kernels[j]
                     for j in idx], workload.description, dict(workload.meta))
    again = {idx[n]: k for n, k in enumerate(detailed(part)["kernels"]) if idx[n] in launches}
    out = dict(result)
    kernels, shift, full = [], 0, []
    for k in result["kernels"]:
        i = k["index"]
        k = dict(k, start=k["start"] + shift, end=k["end"] + shift)
        if i in again:
            ran = again[i]
            shift += ran["cycles"] - k["cycles"]
            out["warp_insts"] += ran["warp_insts"] - k["warp_insts"]
            k = dict(ran, index=i, launched=k["launched"], start=k["start"],
                     end=k["start"] + ran["cycles"] - 1)
            full.append({"launch": i, "warm_up": i - 1 if i > 0 else None, "cycles": ran["cycles"]})
        kernels.append(k)
    out["kernels"] = kernels
    out["cycles"] = result["cycles"] + shift
    out["ipc"] = round(out["warp_insts"] / out["cycles"], 6) if out["cycles"] else 0.0
    return out, full


def extrapolate(result: dict, workload: Workload, cuts: dict[int, Cut], rates: dict[int, Windows],
                full: list[dict], tol: float, ids: list[int]) -> dict:
    """The detailed result with every cut launch's skipped CTAs added at its steady rate;
    launches run one after another, so each later launch moves by the cycles added before it.
    ``full``: the launches found not steady and simulated in full (``rerun_in_full``)."""
    out = dict(result)
    kernels, shift, err_cycles, launches = [], 0, 0.0, []
    for k in result["kernels"]:
        i = k["index"]
        k = dict(k, start=k["start"] + shift, end=k["end"] + shift)
        if i in cuts:
            cut, found = cuts[i], rates[i]
            rate, drift = found.rate, found.drift or 0.0
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
                             "steady_windows": len(found.rates), "cycles_per_warp_inst": round(rate, 6),
                             "drift": round(drift, 6), "estimated_cycles": added})
        kernels.append(k)
    out["kernels"] = kernels
    out["cycles"] = result["cycles"] + shift
    out["warp_insts"] = result["warp_insts"] + sum(c.skipped_insts for c in cuts.values())
    out["ipc"] = round(out["warp_insts"] / out["cycles"], 6) if out["cycles"] else 0.0
    out["sampling"] = {
        "mode": "waves", "tolerance": tol, "launches": len(workload.kernels),
        "waves": {"tolerance": tol, "cut": launches, "full": [f["launch"] for f in full],
                  "not_steady": full, "estimated_cycles": shift,
                  "detailed_cycles": result["cycles"]},
        "estimated_error": err_cycles / out["cycles"] if out["cycles"] else 0.0,
        "note": "cycles, warp_insts, ipc and kernels cover every CTA (the cut launches' skipped "
                "CTAs estimated, the launches not steady from their run in full); every other "
                "statistic is of the first detailed run's simulated CTAs, and the ctas rows "
                "number a cut launch's CTAs as simulated"}
    return out
