"""Issue-stage choice of the GPU model (``sm.issue``, ARCHITECTURE.md "scheduling points").

- ``inorder`` (default): ``sim.subcore.SubCore`` and ``SM.fetch``, unchanged ([GPGPU-Sim
scoreboard.cc]).
- ``socgpu``: ``sim.issue.socgpu.SocgpuSubCore`` with one ``FastSocgpuIssue`` per warp and its own
  fetch ([SOCGPU instruction buffer, dependence matrix]); ``sm.ib_entries`` is N,
  ``sm.local_policy`` the local policy, and ``sm.dual_issue`` / ``sm.smart_dual`` give the dual mode
off / on / smart.
- ``inorder_issue``: the SOCGPU paper's baseline block (``FastInorderIssue``: 2-entry IB, RAW/WAW
  and WAR scoreboard released at write-back, [SOCGPU baseline]) through the same glue, so that only
  the per-warp block differs from ``socgpu``; ``ib_entries`` and ``local_policy`` are ignored.

``stage_stats(sms)`` gathers the issue-stage counters for the stats dict (both kinds).
"""

from __future__ import annotations

from sim.compiled import use_compiled

use_compiled(__name__, __path__)    # sim.issue.phase_port (sim.accel.CORE) may run compiled

from sim.subcore import SubCore, make_units


def build_subcores(sm, cfg, blocks, shared_ldst) -> list:
    """The sub-cores of ``sm``, their warp schedulers (and SOCGPU's per-warp issue blocks) from
    the run's block provider ``blocks`` (sim/blocks/provider.py); for SOCGPU also installs its
    fetch as ``sm.fetcher``."""
    from sim.policies.warp_sched import every_cycle, phase_inputs
    subcores = _build(sm, cfg, blocks, shared_ldst)
    tick = every_cycle(cfg.sm.warp_sched)
    hints = phase_inputs(cfg.sm.warp_sched)
    if hints is not None:
        from sim.issue.phase_port import port_inputs
        from sim.workload.phases import port_inputs as reference
        if hints is reference:
            hints = port_inputs     # the same values, compiled with the SM core
    for sc in subcores:
        sc.tick_always = tick
        sc.phase_inputs = hints
        sc.port.phase = hints is not None
        sc.block_loads = cfg.sm.blocking_loads
    return subcores


def _build(sm, cfg, blocks, shared_ldst) -> list:
    from sim.policies.warp_sched import make_warp_scheduler, rtl_params
    s = cfg.sm
    per_sub = s.warps_per_sm // s.subcores
    policy = s.warp_sched
    sched = [blocks.block("warp_sched", f"sm{sm.sm_id}.sub{j}",
                          lambda: rtl_params(per_sub, policy),
                          lambda: make_warp_scheduler(per_sub, policy))
             for j in range(s.subcores)]
    if s.issue == "inorder":
        return [SubCore(sm, j, sched[j], per_sub, make_units(cfg.units, shared_ldst),
                        s.issue_interval, s.dual_issue) for j in range(s.subcores)]
    from sim.issue.inorder_block import FastInorderIssue
    from sim.issue.socgpu import SocgpuFetch, SocgpuSubCore
    fetcher = SocgpuFetch(sm)
    sm.fetcher = fetcher
    baseline = s.issue == "inorder_issue"
    dual = ("smart" if s.smart_dual and not baseline else "on") if s.dual_issue else "off"
    make_block = FastInorderIssue if baseline else None
    return [SocgpuSubCore(sm, j, sched[j], per_sub, make_units(cfg.units, shared_ldst),
                          s.issue_interval, fetcher, 2 if baseline else s.ib_entries,
                          s.local_policy, dual, make_block, blocks) for j in range(s.subcores)]


def stage_stats(sms: list, cycles: int) -> dict:
    """Issue-stage statistics of a run: fetches for both stages; for SOCGPU also flushes,
    wrong-path slots, dual issues, serial instructions and time averages of IB occupancy,
    ready entries per warp and warps offering a candidate per scheduler ([SOCGPU])."""
    subcores = [sc for sm in sms for sc in sm.subcores]
    soc = bool(subcores) and hasattr(subcores[0], "stage_counts")
    out = {"kind": sms[0].gpu.cfg.sm.issue if sms else "inorder",
           "fetches": sum(sc.n_fetches for sc in subcores)}
    if not soc:
        out["dual_issues"] = sum(sc.n_dual for sc in subcores)
        return out
    from sim.issue.socgpu import COUNTERS
    totals = [0] * len(COUNTERS)
    acc = [0, 0, 0, 0]
    for sc in subcores:
        sc.close_levels(cycles)
        totals = [a + b for a, b in zip(totals, sc.stage_counts)]
        acc = [a + b for a, b in zip(acc, sc.acc)]
    out.update(zip(COUNTERS, totals))
    insts = sum(sc.n_insts for sc in subcores)
    warp_cycles = acc[3]
    out["flushes_per_100"] = round(100 * out["flushes"] / insts, 4) if insts else 0.0
    out["serial_share"] = round(out["serial_issued"] / insts, 6) if insts else 0.0
    out["ib_occupancy"] = round(acc[0] / warp_cycles, 4) if warp_cycles else 0.0
    out["ready_entries"] = round(acc[1] / warp_cycles, 4) if warp_cycles else 0.0
    out["candidates"] = round(acc[2] / (cycles * len(subcores)), 4) if cycles else 0.0
    return out
