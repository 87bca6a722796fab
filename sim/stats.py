"""Statistics: issue-slot reasons and the JSON-ready result dict of one run.

Counters are owned by the components (sub-cores count their issue slots, SMs their cycles in
each power state, kernel runs their instructions and CTAs) and gathered once here at the end.

Issue-slot breakdown (one count per scheduler per cycle, so the counts sum to
cycles × SMs × sub-cores): the slot either issued, or is charged to the first reason that holds,
in this order (a choice: the reason closest to issue wins):

- ``issue_interval``: the scheduler issued less than ``sm.issue_interval`` cycles ago;
- ``unit_busy``: some warp was ready but its functional unit was busy (initiation interval,
  or the LD/ST unit stalled on the memory system);
- ``memory``: some warp waits on a global-load destination (long-op register) or a fence;
- ``scoreboard``: some warp waits on another pending register write;
- ``barrier``: some warp waits at ``bar.sync``;
- ``fetch``: some warp has an empty instruction buffer;
- ``idle``: no live warp;
- ``paused``: the SM is paused or power-gated by the active-SM controller.
"""

from __future__ import annotations

from typing import Final

# issue-slot reasons as Final literals: the compiled SM core (sim.accel) folds them to constants
SLOT_ISSUED: Final = 0
SLOT_INTERVAL: Final = 1
SLOT_UNIT_BUSY: Final = 2
SLOT_MEMORY: Final = 3
SLOT_SCOREBOARD: Final = 4
SLOT_BARRIER: Final = 5
SLOT_FETCH: Final = 6
SLOT_IDLE: Final = 7
SLOT_PAUSED: Final = 8
ISSUE_SLOT_REASONS = ("issued", "issue_interval", "unit_busy", "memory", "scoreboard", "barrier",
                      "fetch", "idle", "paused")


def breakdown(counts: list[int]) -> dict[str, int]:
    """Name the counters of one issue-slot counter list."""
    return dict(zip(ISSUE_SLOT_REASONS, counts))


def add_counts(total: list[int], more: list[int]) -> None:
    for i, v in enumerate(more):
        total[i] += v


def collect(gpu, meta: dict, kind: str) -> dict:
    """The result of a finished run as a JSON-ready dict; ``kind``: the memory system's name.
    ``issue_stage``: fetches and the SOCGPU counters (``sim.issue.stage_stats``)."""
    from sim.issue import stage_stats
    cycles = gpu.cycles
    insts = gpu.warp_insts()
    issue = gpu.issue_totals()
    kernels = []
    for run in gpu.runs:
        k_cycles = run.end - run.start + 1 if run.end >= 0 else 0
        kernels.append({
            "name": run.name, "index": run.index,
            "launched": run.launched_at, "start": run.start, "end": run.end,
            "cycles": k_cycles, "warp_insts": run.warp_insts,
            "ipc": round(run.warp_insts / k_cycles, 6) if k_cycles else 0.0,
            "ctas": run.n_ctas,
            "occupancy_limit": run.occupancy.limit, "occupancy_limiter": run.occupancy.limiter,
            "issue": breakdown(gpu.kernel_issue.get(run.index, [0] * len(ISSUE_SLOT_REASONS))),
        })
    sms = gpu.sms
    return {
        **meta,
        "cycles": cycles,
        "warp_insts": insts,
        "ipc": round(insts / cycles, 6) if cycles else 0.0,
        "kernels": kernels,
        "issue": breakdown(issue),
        "sm": {
            "warp_insts": [sm.warp_insts() for sm in sms],
            "ctas_launched": [sm.ctas_launched for sm in sms],
            "paused_cycles": [sm.paused_cycles for sm in sms],
            "gated_cycles": [sm.gated_cycles for sm in sms],
            "issue": [breakdown(sm.issue_counts()) for sm in sms],
        },
        "ctas": {
            "fields": ["kernel", "cta", "sm", "start", "end"],
            "rows": [[run.index, *row] for run in gpu.runs for row in run.ctas],
        },
        "occupancy": {
            "interval": gpu.sample_interval,
            "fields": ["cycle", "active_warps", "active_ctas"],
            "samples": gpu.samples,
            "warp_slots": gpu.cfg.sm.warps_per_sm * gpu.cfg.sm.count,
        },
        "memory": {"kind": kind, **gpu.memory.stats()},
        "issue_stage": stage_stats(sms, cycles),
    }
