"""Warp-state profiler ([THESIS §5.3]): every resident warp is in exactly one
of 8 states each cycle, plus the ALU and MEM load; per kernel and per SM, and as a time series.

States, derived from the warp's wait state (sim/warp.py) at the issue stage of the cycle (after
write-back, before issue):

=================  ======================================================================
``ib_empty``       instruction buffer empty (``WS_FETCH``: waiting on fetch/decode)
``alu_scoreboard`` an operand waits on an earlier ALU-class write (``WS_SCOREBOARD``)
``mem_scoreboard`` an operand waits on a global load / fence (``WS_MEMORY``)
``alu_stall``      ready, but its non-memory unit (ALU, SFU, FP64, DIV) is busy this cycle
``mem_stall``      ready, but the LD/ST unit is busy or stalled by the memory system
``can_issue_alu``  ready and its non-memory unit (or none: ``bar``/``exit``) is free
``can_issue_mem``  ready and the LD/ST unit is free
``completed``      exited, or waiting at ``bar.sync``: waiting for the rest of its CTA
=================  ======================================================================

Choices (the thesis names the 8 states only): a warp at a barrier is in ``completed`` (it waits
for the rest of its CTA, which is what that state stands for; there is no ninth state); a warp
that is ready counts as "can issue" even in a cycle its scheduler is inside its issue interval
or issues another warp. **ALU load**: results of the SM's pipelines waiting to be written back
(ALU-class and shared-memory instructions with a destination register, ``sm.wb``); **MEM load**:
global/atomic memory instructions issued and not yet completed (``Warp.mem_out``). Both are
summed per cycle (load-cycles) and reported as averages.

Exactness under idle-cycle skipping: a cycle the SM runs is sampled directly (``sample``); the
cycles it skips are charged by ``skipped`` from ``SM.catch_up``, which the model calls before
anything changes a warp (the same rule that keeps the issue-slot reasons exact); a ready warp's
unit frees at its known ``free_at`` inside a skipped span, so its span splits there. With a
profiler attached, ``on_memory_complete`` charges before a quiet completion too (MEM load).
The time series has at most ``MAX_BINS`` bins; the bin width doubles (pairs merge) as the run
grows, so any run length fits.

Runtime decomposition ([THESIS §3.5], per SM, all kernels together): a cycle is *compute* when
the SM's ALU load is > 0, *memory* when its MEM load is > 0, *overlap* when both, *idle* when
neither; runtime = idle + compute + memory − overlap. Each charged span has constant loads, so
it is counted once per span; cycles never charged (no CTA resident) are idle.
"""

from __future__ import annotations

from sim.warp import LDST, WS_BARRIER, WS_DONE, WS_FETCH, WS_MEMORY, WS_READY, WS_SCOREBOARD

STATES = ("ib_empty", "alu_scoreboard", "mem_scoreboard", "alu_stall", "mem_stall",
          "can_issue_alu", "can_issue_mem", "completed")
IB_EMPTY, ALU_SB, MEM_SB, ALU_STALL, MEM_STALL, CAN_ALU, CAN_MEM, COMPLETED = range(8)
ALU_LOAD, MEM_LOAD = 8, 9          # the two load columns after the states
COLUMNS = STATES + ("alu_load", "mem_load")
DECOMPOSITION = ("idle", "compute", "memory", "overlap")   # [THESIS §3.5], cycles per SM
MAX_BINS = 256
FIRST_BIN = 16                      # cycles per bin at the start

_FIXED = {WS_FETCH: IB_EMPTY, WS_SCOREBOARD: ALU_SB, WS_MEMORY: MEM_SB, WS_BARRIER: COMPLETED,
          WS_DONE: COMPLETED}


class WarpStateProfiler:
    """Accumulates warp-cycles per (SM, kernel, state) and a GPU-wide series per kernel."""

    def __init__(self, n_sms: int):
        self.totals: dict[tuple[int, int], list[int]] = {}     # (sm, kernel) → COLUMNS
        self.series: dict[int, list[list[int]]] = {}           # kernel → bins of COLUMNS
        self.bin = FIRST_BIN
        self.n_sms = n_sms
        self.end = 0
        self.busy: dict[int, list[int]] = {}    # sm → cycles [ALU only, MEM only, both]

    # -- the two hooks -------------------------------------------------------------------------
    def sample(self, sm, now: int) -> None:
        """Cycle ``now``, which ``sm`` runs: its warps as they are at the issue stage."""
        self.charge(sm, now, now + 1)

    def skipped(self, sm, start: int, upto: int) -> None:
        """Cycles [start, upto) that ``sm`` skipped: nothing changed in them but the clock."""
        self.charge(sm, start, upto)

    # -- accounting ----------------------------------------------------------------------------
    def charge(self, sm, a: int, b: int) -> None:
        """Charge the cycles [a, b) with ``sm``'s present warps: fixed states for the span, and
        for a ready warp its stall state until its unit's ``free_at``, then "can issue"."""
        alu, mem = bool(sm.wb), bool(sm.mem_out)
        if alu or mem:
            row = self.busy.get(sm.sm_id)
            if row is None:
                row = self.busy[sm.sm_id] = [0, 0, 0]
            row[2 if alu and mem else (0 if alu else 1)] += b - a
        kernels = {cta.run.index for cta in sm.ctas if cta is not None}
        if not kernels:
            return
        if len(kernels) == 1:
            self.charge_one_kernel(sm, kernels.pop(), a, b)
        else:
            self.charge_warps(sm, a, b)

    def charge_warps(self, sm, a: int, b: int) -> None:
        """``charge`` by a pass over the SM's warps (kernels share the SM)."""
        const: dict[tuple[int, int], int] = {}
        timed: dict[tuple[int, int, int], int] = {}      # (kernel, is_mem, free_at) → warps
        mem_load: dict[int, int] = {}
        for w in sm.slots:
            if w is None:
                continue
            k = w.cta.run.index
            if w.mem_out:
                mem_load[k] = mem_load.get(k, 0) + w.mem_out
            st = w.state
            if w.finished:
                st = WS_DONE
            if st != WS_READY:
                key = (k, _FIXED[st])
                const[key] = const.get(key, 0) + 1
                continue
            is_mem = w.unit == LDST
            unit = w.subcore.units[w.unit]
            free = unit.free_at if unit is not None else 0
            if free <= a:
                key = (k, CAN_MEM if is_mem else CAN_ALU)
                const[key] = const.get(key, 0) + 1
            else:
                tkey = (k, 1 if is_mem else 0, free)
                timed[tkey] = timed.get(tkey, 0) + 1
        alu_load: dict[int, int] = {}
        for entry in sm.wb:
            k = entry[2].cta.run.index
            alu_load[k] = alu_load.get(k, 0) + 1
        sid = sm.sm_id
        for (k, col), n in const.items():
            self.add(sid, k, col, a, b, n)
        for (k, is_mem, free), n in timed.items():
            mid = free if free < b else b
            self.add(sid, k, MEM_STALL if is_mem else ALU_STALL, a, mid, n)
            if mid < b:
                self.add(sid, k, CAN_MEM if is_mem else CAN_ALU, mid, b, n)
        for k, n in alu_load.items():
            self.add(sid, k, ALU_LOAD, a, b, n)
        for k, n in mem_load.items():
            self.add(sid, k, MEM_LOAD, a, b, n)

    def charge_one_kernel(self, sm, k: int, a: int, b: int) -> None:
        """``charge`` for an SM whose warps all belong to kernel ``k``: the same counts, from the
        sub-cores' wait-state masks (popcounts) instead of a pass over the warps."""
        sid = sm.sm_id
        counted = 0
        for sc in sm.subcores:
            m = sc.masks
            for ws, col in ((WS_FETCH, IB_EMPTY), (WS_SCOREBOARD, ALU_SB), (WS_MEMORY, MEM_SB)):
                n = m[ws].bit_count()
                if n:
                    self.add(sid, k, col, a, b, n)
                    counted += n
            for kind, bits in enumerate(sc.unit_masks):
                if not bits:
                    continue
                n = bits.bit_count()
                counted += n
                is_mem = kind == LDST
                unit = sc.units[kind]
                free = unit.free_at if unit is not None else 0
                mid = a if free <= a else (free if free < b else b)
                if mid > a:
                    self.add(sid, k, MEM_STALL if is_mem else ALU_STALL, a, mid, n)
                if mid < b:
                    self.add(sid, k, CAN_MEM if is_mem else CAN_ALU, mid, b, n)
        done = sm.n_warps - counted
        if done:
            self.add(sid, k, COMPLETED, a, b, done)
        if sm.wb:
            self.add(sid, k, ALU_LOAD, a, b, len(sm.wb))
        if sm.mem_out:
            self.add(sid, k, MEM_LOAD, a, b, sm.mem_out)

    def add(self, sm_id: int, kernel: int, col: int, a: int, b: int, n: int) -> None:
        """``n`` warps (or loads) in column ``col`` over cycles [a, b)."""
        tot = self.totals.get((sm_id, kernel))
        if tot is None:
            tot = self.totals[(sm_id, kernel)] = [0] * len(COLUMNS)
        tot[col] += n * (b - a)
        if b > self.end:
            self.end = b
        while b > self.bin * MAX_BINS:
            self.widen()
        bins = self.series.get(kernel)
        if bins is None:
            bins = self.series[kernel] = [[0] * len(COLUMNS) for _ in range(MAX_BINS)]
        w = self.bin
        i = a // w
        while a < b:
            edge = (i + 1) * w
            upto = b if b < edge else edge
            bins[i][col] += n * (upto - a)
            a = upto
            i += 1

    def widen(self) -> None:
        """Double the bin width: merge each pair of bins."""
        for k, bins in self.series.items():
            merged = [[x + y for x, y in zip(bins[2 * i], bins[2 * i + 1])] for i in range(MAX_BINS // 2)]
            self.series[k] = merged + [[0] * len(COLUMNS) for _ in range(MAX_BINS // 2)]
        self.bin *= 2

    # -- the statistic -------------------------------------------------------------------------
    def report(self, runs, cycles: int) -> dict:
        """The ``warp_states`` statistic (sim/stats_reference.py)."""
        n_bins = min(MAX_BINS, -(-cycles // self.bin)) if cycles else 0
        empty = [[0] * len(COLUMNS) for _ in range(n_bins)]
        kernels = []
        for run in runs:
            per_sm = {sid: tot for (sid, k), tot in sorted(self.totals.items()) if k == run.index}
            total = [sum(col) for col in zip(*per_sm.values())] if per_sm else [0] * len(COLUMNS)
            kernels.append({
                "name": run.name, "index": run.index, "warps_per_cta": run.warps_per_cta,
                "warp_cycles": dict(zip(STATES, total[:len(STATES)])),
                "alu_load": total[ALU_LOAD] / cycles if cycles else 0.0,
                "mem_load": total[MEM_LOAD] / cycles if cycles else 0.0,
                "per_sm": [[sid] + tot for sid, tot in per_sm.items()],
                "series": self.series[run.index][:n_bins] if run.index in self.series else empty,
            })
        return {"states": list(STATES), "columns": list(COLUMNS), "bin_cycles": self.bin,
                "cycles": cycles, "sms": self.n_sms, "kernels": kernels,
                "decomposition": self.decomposition(cycles)}

    def decomposition(self, cycles: int) -> dict:
        """Idle / compute / memory / overlap cycles, per SM and as the mean over all SMs."""
        per_sm = []
        for sid in range(self.n_sms):
            alu_only, mem_only, both = self.busy.get(sid, (0, 0, 0))
            per_sm.append([sid, cycles - alu_only - mem_only - both, alu_only + both,
                           mem_only + both, both])
        mean = [sum(r[i] for r in per_sm) / self.n_sms if self.n_sms else 0.0 for i in range(1, 5)]
        return {**dict(zip(DECOMPOSITION, mean)), "per_sm": per_sm}
