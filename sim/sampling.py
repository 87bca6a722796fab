"""Kernel sampling (``--sample kernels[:TOL]``): simulate representative launches of a program
in detail and extrapolate the others, as researchers do with Accel-Sim for iterative programs
(BFS levels, SRAD/Hotspot iterations, k-means rounds launch one kernel many times).

Launches are grouped by signature — kernel name, grid, block, shared memory, registers — and,
within a signature, by their functional profile from the PTX front end (warp instructions, SIMD
efficiency, the share of memory instructions, distinct 128-byte lines touched): a launch joins
the first group whose representative differs by at most TOL (default 5 %) in each. A group's
representative is its median launch by warp instructions; a group of four or more also
simulates its last-but-one member, and the two representatives' cycles per warp instruction give
the group's estimated error. The representatives run in launch order in one detailed simulation,
each after the launch that precedes it in the program (so its caches are as warm as in the full
run); every other launch is estimated as the group's cycles per warp instruction times its own
warp instructions. The result says it was sampled,
which launches ran, the groups and the estimated error (docs/sampling.md).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from gpusched.config import ConfigError, GPUConfig

from . import sampling_waves
from .workload.kernel import Kernel, Workload

DEFAULT_TOLERANCE = 0.05
SECOND_REP_MIN = 4            # groups this large simulate a second representative


@dataclass
class Group:
    signature: tuple
    members: list[int] = field(default_factory=list)        # launch indices
    reps: list[int] = field(default_factory=list)


@dataclass(frozen=True)
class SampleSpec:
    """What ``--sample`` asks for: kernel sampling's and intra-kernel (wave) sampling's
    tolerances, None where that kind is off."""
    kernels: float | None = None
    waves: float | None = None

    def __post_init__(self) -> None:
        for name in ("kernels", "waves"):
            tol = getattr(self, name)
            if tol is not None and not 0 < tol < 1:
                raise ConfigError(f"--sample.{name}", tol, "TOL must be a fraction in (0, 1), "
                                  f"e.g. {name}:0.05")
        if self.kernels is None and self.waves is None:
            raise ConfigError("--sample", "", "expected kernels, waves or kernels,waves")

    @property
    def mode(self) -> str:
        return ",".join(n for n in ("kernels", "waves") if getattr(self, n) is not None)


def parse(spec: str) -> SampleSpec:
    """``kernels[:TOL]``, ``waves[:TOL]`` or both, comma-separated → a ``SampleSpec``."""
    tols: dict[str, float] = {}
    for part in spec.split(","):
        kind, colon, tol = part.partition(":")
        if kind not in ("kernels", "waves") or kind in tols:
            raise ConfigError("--sample", spec, "expected kernels[:TOL], waves[:TOL] or both, "
                              "comma-separated (e.g. kernels:0.05,waves)")
        default = DEFAULT_TOLERANCE if kind == "kernels" else sampling_waves.DEFAULT_TOLERANCE
        try:
            tols[kind] = float(tol) if colon else default
        except ValueError:
            raise ConfigError(f"--sample.{kind}", tol, "TOL must be a fraction in (0, 1), "
                              f"e.g. {kind}:0.05") from None
    return SampleSpec(**tols)


def run(spec: SampleSpec, cfg: GPUConfig, workload: Workload,
        detailed: Callable[[Workload], dict]) -> dict:
    """``workload`` sampled as ``spec`` says; ``detailed`` simulates a workload in full."""
    groups = None
    part, simulated = workload, list(range(len(workload.kernels)))
    if spec.kernels is not None:
        groups = plan(workload, spec.kernels)
        part, simulated = reduced(workload, groups)
    if spec.waves is not None:
        result = sampling_waves.run(cfg, part, spec.waves, detailed, simulated)
    else:
        result = detailed(part)
    if groups is None:
        return result
    assert spec.kernels is not None
    return extrapolate(result, workload, groups, simulated, spec.kernels)


def _profile(k: Kernel) -> tuple[float, float, float, float]:
    p = k.meta.get("profile") or {}
    insts = float(k.meta.get("warp_insts") or 0)
    ops = p.get("op_counts", {})
    mem = sum(ops.get(o, 0) for o in ("LDG", "STG", "LDS", "STS", "ATOM"))
    simd = float(k.meta.get("thread_insts") or 0) / (32 * insts) if insts else 0.0
    return insts, simd, mem / insts if insts else 0.0, float(p.get("lines", 0))


def _close(a: tuple, b: tuple, tol: float) -> bool:
    insts, simd, mem, lines = a
    return (abs(insts - b[0]) <= tol * max(insts, b[0]) and abs(simd - b[1]) <= tol
            and abs(mem - b[2]) <= tol and abs(lines - b[3]) <= tol * max(lines, b[3], 1.0))


def plan(workload: Workload, tol: float) -> list[Group]:
    """The launches grouped (see the module docstring), representatives chosen."""
    groups: list[Group] = []
    profiles = [_profile(k) for k in workload.kernels]
    if any(p[0] == 0 for p in profiles):
        raise ConfigError("--sample", "kernels", "needs each launch's warp instructions: a CUDA "
                          "program (--program) or an Accel-Sim trace")
    for i, k in enumerate(workload.kernels):
        sig = (k.name, k.grid, k.block, k.smem_per_cta, k.regs_per_thread)
        g = next((g for g in groups if g.signature == sig
                  and _close(profiles[g.members[0]], profiles[i], tol)), None)
        if g is None:
            g = Group(sig)
            groups.append(g)
        g.members.append(i)
    for g in groups:
        by_size = sorted(g.members, key=lambda i: (profiles[i][0], i))
        g.reps = [by_size[len(by_size) // 2]]
        if len(g.members) >= SECOND_REP_MIN:
            second = g.members[-2]
            if second not in g.reps:
                g.reps.append(second)
        g.reps.sort()
    return groups


def reduced(workload: Workload, groups: list[Group]) -> tuple[Workload, list[int]]:
    """The launches to simulate, in launch order, and their indices: every representative and
    the launch before it, which warms the caches as the full run's predecessor would (its own
    cycles are measured too)."""
    idx = sorted({j for g in groups for i in g.reps for j in (i - 1, i) if j >= 0})
    wl = Workload(f"{workload.name} (sampled)", [workload.kernels[i] for i in idx],
                  workload.description, dict(workload.meta))
    return wl, idx


def extrapolate(result: dict, workload: Workload, groups: list[Group], simulated: list[int],
                tol: float) -> dict:
    """The sampled run's statistics with the skipped launches estimated."""
    measured = {i: k for i, k in zip(simulated, result["kernels"])}
    insts = [int(k.meta["warp_insts"]) for k in workload.kernels]
    kernels, errors = [], []
    est_total = 0.0
    for g in groups:
        cpis = [measured[i]["cycles"] / max(measured[i]["warp_insts"], 1) for i in g.reps]
        cpi = sum(cpis) / len(cpis)
        if len(cpis) > 1:
            errors.append((abs(cpis[0] - cpis[1]) / max(cpi, 1e-12), sum(insts[i] for i in g.members)))
        for i in g.members:
            if i in measured:
                continue
            est = cpi * insts[i]
            est_total += est
            kernels.append({"index": i, "name": workload.kernels[i].name, "cycles": round(est),
                            "warp_insts": insts[i], "estimated_from": g.reps, "estimated": True})
    for i, k in measured.items():
        kernels.append(dict(k, index=i, estimated=False))
    kernels.sort(key=lambda k: k["index"])
    t = 0                                   # one stream: launches one after another
    for k in kernels:
        k["start"], k["end"] = t, t + max(k["cycles"], 1) - 1
        t = k["end"] + 1
    out = dict(result)
    total_insts = sum(insts)
    out["cycles"] = int(round(result["cycles"] + est_total))
    out["warp_insts"] = total_insts
    out["ipc"] = total_insts / out["cycles"] if out["cycles"] else 0.0
    out["kernels"] = kernels
    weight = sum(w for _, w in errors)
    waves = result.get("sampling", {}).get("waves")
    kernel_err = (sum(e * w for e, w in errors) / weight) if weight else None
    out["sampling"] = {
        "mode": "kernels,waves" if waves else "kernels", "tolerance": tol,
        "launches": len(workload.kernels),
        "simulated": simulated, "simulated_warp_insts": sum(insts[i] for i in simulated),
        "groups": [{"kernel": g.signature[0], "members": len(g.members), "representatives": g.reps}
                   for g in groups],
        "estimated_error": kernel_err if not waves else
        (kernel_err or 0.0) + result["sampling"]["estimated_error"],
        "detailed_cycles": result["cycles"] - (waves["estimated_cycles"] if waves else 0),
        "note": "cycles, warp_insts, ipc and kernels cover every launch (skipped launches "
                "estimated); every other statistic is of the simulated launches only"}
    if waves:
        out["sampling"]["waves"] = waves
    return out
