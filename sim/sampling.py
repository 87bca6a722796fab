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

from dataclasses import dataclass, field

from gpusched.config import ConfigError

from .workload.kernel import Kernel, Workload

DEFAULT_TOLERANCE = 0.05
SECOND_REP_MIN = 4            # groups this large simulate a second representative


@dataclass
class Group:
    signature: tuple
    members: list[int] = field(default_factory=list)        # launch indices
    reps: list[int] = field(default_factory=list)


def parse(spec: str) -> float:
    """``kernels`` or ``kernels:TOL`` → the tolerance."""
    kind, _, tol = spec.partition(":")
    if kind != "kernels":
        raise ConfigError("--sample", spec, "expected kernels or kernels:TOL (e.g. kernels:0.05)")
    if not tol:
        return DEFAULT_TOLERANCE
    try:
        t = float(tol)
    except ValueError:
        t = -1.0
    if not 0 < t < 1:
        raise ConfigError("--sample", spec, "TOL must be a fraction in (0, 1), e.g. kernels:0.05")
    return t


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
    out["sampling"] = {
        "mode": "kernels", "tolerance": tol, "launches": len(workload.kernels),
        "simulated": simulated, "simulated_warp_insts": sum(insts[i] for i in simulated),
        "groups": [{"kernel": g.signature[0], "members": len(g.members), "representatives": g.reps}
                   for g in groups],
        "estimated_error": (sum(e * w for e, w in errors) / weight) if weight else None,
        "detailed_cycles": result["cycles"],
        "note": "cycles, warp_insts, ipc and kernels cover every launch (skipped launches "
                "estimated); every other statistic is of the simulated launches only"}
    return out
