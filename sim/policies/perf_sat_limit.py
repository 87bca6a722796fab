"""Perf-Sat CTA-count limit: one ``PerfSatTwin`` per SM, stepped every cycle while detecting
([THESIS §4.3.2], with our choices where it is silent; port protocol in hdl/perf_sat.py).

Wiring of SM i's twin, per cycle ``now`` (after the SMs ran):

- ``kernel_start`` / ``n_max``: the cycle after SM i received its first CTA of a kernel, with
  N_max = the baseline limit of ``MaxOccupancy`` (capped to the 5-bit port); until then the SM's
  limit is N0 = ⌈N_max/2⌉, the value the twin starts from.
- ``cta_done``: a CTA of that kernel finished on SM i this cycle.
- ``stalls``: SM i's schedulers whose issue slot of cycle ``now`` was charged to ``unit_busy``
  (pipeline stall: a ready warp's unit was busy), ``memory`` or ``scoreboard`` (a warp waited on
  a pending register) — [THESIS §4.3.1.3] / our stalled cycle; ``issue_interval``, ``barrier``,
  ``fetch``, ``idle`` and ``paused`` slots are not stalls. The sub-cores count slots lazily over
  skipped cycles, so the policy brings SM i's counters up to date (``sm.catch_up(now + 1)``, pure
  accounting) and takes the per-cycle difference of ``sm.issue_counts()``. With more than 3
  schedulers per SM the count exceeds the RTL's 2-bit port; the twin accumulates it unclipped.
- ``limit(sm, run)`` = the twin's ``cta_limit``, clamped to [1, N_max]. A raised limit asks the
  CTA scheduler to look again. Resident CTAs above a lowered limit are not pre-empted (our choice;
  [THESIS §4.3.2.2] does not say).

``trace``: ``limits`` = (cycle, sm, limit) at every change; ``kernels`` = one dict per (kernel,
SM) detection with N_max, the chosen limit, the windows used and the cycle detection ended.
"""

from __future__ import annotations

from hdl.params.perf_sat import PARAMS, PerfSatState
from sim.blocks.perf_sat import PerfSatTwin
from sim.policies.base import Policy
from sim.stats import SLOT_MEMORY, SLOT_SCOREBOARD, SLOT_UNIT_BUSY

N_BITS = 5                                # [THESIS §4.3]: N is 5 bits


class PerfSatLimit(Policy):
    """Per-SM CTA-count controller driven by Perf-Sat twins."""

    per_cycle = True

    def __init__(self, cfg):
        self.concurrent = cfg.kernels.concurrent_sm
        self.cta_slots = cfg.sm.max_ctas_per_sm
        m = cfg.sm.count
        self.m = m
        self.twins: list[PerfSatPort] = []       # one per SM, from the provider in ``attach``
        self.run_of: list = [None] * m    # the kernel each twin detects for
        self.start_n = [0] * m            # N_max to pass with a pending kernel_start, 0 = none
        self.cta_done = [0] * m
        self.stalls_seen = [0] * m
        self.shown = [0] * m              # last limit given out (for the trace)
        self.detecting: set[int] = set()  # SMs whose twin needs stepping
        self.record: list[dict | None] = [None] * m   # current trace["kernels"] entry per SM
        self.trace: dict[str, list] = {"limits": [], "kernels": []}

    def attach(self, gpu) -> None:
        super().attach(gpu)
        params = {"n_bits": N_BITS, **{k: p.default for k, p in PARAMS.items() if k != "n_bits"}}
        self.twins = [PerfSatPort(gpu.blocks.block("perf_sat", f"sm{i}", lambda: params,
                                                   lambda: PerfSatTwin(n_bits=N_BITS)), params)
                      for i in range(self.m)]

    def report(self) -> dict:
        """Per (kernel, SM) detection records and every limit change (cycle, sm, limit)."""
        return self.trace

    def n_max(self, run) -> int:
        """The baseline CTA limit (MaxOccupancy), capped to what the N port can hold."""
        base = self.cta_slots if self.concurrent else run.occupancy.limit
        return max(1, min(base, (1 << N_BITS) - 1))

    def limit(self, sm, run) -> int:
        i, n_max = sm.sm_id, self.n_max(run)
        if self.run_of[i] is not run or self.start_n[i]:
            return (n_max + 1) >> 1
        return max(1, min(self.twins[i].limit, n_max))

    # -- GPU hooks ----------------------------------------------------------------------------
    def on_cta_start(self, now: int, sm, cta) -> None:
        i = sm.sm_id
        if self.run_of[i] is not cta.run:
            self.run_of[i] = cta.run
            self.start_n[i] = self.n_max(cta.run)
            self.cta_done[i] = 0
            self.stalls_seen[i] = self._stall_total(sm, now)
            self.detecting.add(i)
            self.record[i] = {"kernel": cta.run.index, "sm": i, "n_max": self.start_n[i],
                              "start": now, "limit": None, "windows": 0, "done": None}
            self.trace["kernels"].append(self.record[i])
            self.shown[i] = (self.start_n[i] + 1) >> 1
            self.trace["limits"].append((now, i, self.shown[i]))

    def on_cta_finish(self, now: int, sm, cta) -> None:
        if cta.run is self.run_of[sm.sm_id]:
            self.cta_done[sm.sm_id] += 1

    def next_wakeup(self, now: int) -> int | None:
        return now + 1 if self.detecting else None

    def on_cycle(self, now: int) -> None:
        if not self.detecting:
            return
        for i in sorted(self.detecting):
            sm, twin = self.gpu.sms[i], self.twins[i]
            stalls = self._stalls(sm, now)
            twin.step(kernel_start=int(self.start_n[i] != 0), n_max=self.start_n[i],
                      cta_done=int(self.cta_done[i] != 0), stalls=stalls)
            self.start_n[i] = self.cta_done[i] = 0
            self._show(now, i, max(1, min(twin.limit, twin.n_max)))
            if twin.is_done:
                self.detecting.discard(i)
                self.record[i].update(limit=twin.limit, windows=twin.periods, done=now)

    # -- helpers ------------------------------------------------------------------------------
    @staticmethod
    def _stall_total(sm, now: int) -> int:
        """Stalled issue slots of ``sm`` in cycles up to ``now`` (counters brought up to date)."""
        sm.catch_up(now + 1)
        c = sm.issue_counts()
        return c[SLOT_UNIT_BUSY] + c[SLOT_MEMORY] + c[SLOT_SCOREBOARD]

    def _stalls(self, sm, now: int) -> int:
        """Schedulers of ``sm`` that stalled (scoreboard or pipeline) in cycle ``now``."""
        total = self._stall_total(sm, now)
        d = total - self.stalls_seen[sm.sm_id]
        self.stalls_seen[sm.sm_id] = total
        return d

    def _show(self, now: int, i: int, limit: int) -> None:
        if limit != self.shown[i]:
            if limit > self.shown[i]:
                self.gpu.request_cta_issue()
            self.shown[i] = limit
            self.trace["limits"].append((now, i, limit))



_WINDOWED = range(PerfSatState.INIT, PerfSatState.SD + 1)


class PerfSatPort:
    """One SM's ``perf_sat`` block through its ports (hdl/params/perf_sat.py): ``limit`` and
    ``is_done`` are the registered ``cta_limit`` / ``done`` after the last edge; ``n_max`` is
    what the last ``kernel_start`` gave; ``periods``, the sample windows used, is the number of
    cycles spent in the windowed states over the window length One_TB × N_max ([THESIS §4.3.2.2]),
    One_TB being the cycles from the kernel's start to its first CTA completion (both capped at
    the counters' widths)."""

    def __init__(self, block, params: dict):
        self.block = block
        self.tb_max = (1 << params["tb_bits"]) - 1
        self.p_max = (1 << params["period_bits"]) - 1
        self.n_max = 1
        self.measured = self.windowed = 0
        self.period = 1
        self.regs = block.peek()

    def step(self, kernel_start: int, n_max: int, cta_done: int, stalls: int) -> None:
        out = self.block.step(kernel_start=kernel_start, n_max=n_max, cta_done=cta_done,
                              stalls=stalls)
        state = out["state"]
        if kernel_start:
            self.n_max = n_max or 1
            self.measured = self.windowed = 0
        elif state == PerfSatState.MEASURE:
            self.measured += 1
            if cta_done:
                self.period = min(min(self.measured, self.tb_max) * self.n_max, self.p_max)
        elif state in _WINDOWED:
            self.windowed += 1
        self.regs = self.block.peek()

    @property
    def limit(self) -> int:
        return self.regs["cta_limit"]

    @property
    def is_done(self) -> bool:
        return bool(self.regs["done"])

    @property
    def periods(self) -> int:
        return self.windowed // self.period
