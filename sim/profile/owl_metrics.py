"""OWL's core and DRAM metrics ([OWL]): CINV, MemoryBlockCycles, NoWarpCycles and the
row-buffer locality per bank, attached with ``--profile owl`` (off by default: the statistics of
a run without it are unchanged, and the model pays nothing for it).

Definitions, per SM and cycle, over the whole run [0, ``cycles``) (choices recorded here and in
docs/stats.md):

- **inactive** (CINV's numerator): no warp instruction executes, i.e. none of the SM's sub-cores
  issued in this cycle or is inside the issue interval of its last issue (``sm.issue_interval``:
  the cycles a warp instruction occupies the SIMT lanes, 4 on the ``owl`` preset: 32 threads on 8
  lanes). CINV = inactive SM-cycles / (SMs × cycles).
- **memory-blocked** (MemoryBlockCycles): the SM has a resident CTA, at least one of its live
  warps waits on a global load or a fence (wait state ``WS_MEMORY``), and every other live warp
  waits too: on memory, or at ``bar.sync`` (it waits for warps that wait on memory). A ready warp,
  a scoreboard (ALU) wait or an empty instruction buffer means the SM is not memory-blocked.
  The paper's MemoryBlockCycles ([OWL Fig. 3]) counts L2/DRAM waits only; ``WS_MEMORY`` also covers
  the few cycles of an L1 hit (4 on ``owl``), so short L1-hit waits count too.
- **memory-stalled** (a broader MemoryBlockCycles): as memory-blocked, but a ready warp whose
  head needs the LD/ST unit while that unit is busy (holding an earlier access for
  ``units.ldst_ii``, or an access the memory system refused: MSHRs full, queue back-pressure)
  also counts as waiting, and no WS_MEMORY warp is needed. [OWL Fig. 3]'s definition leaves such
  structural stalls out of MemoryBlockCycles; this counter keeps them apart so both readings are
there.
- **no-warp** (NoWarpCycles): the SM holds no CTA. Over the run, i.e. until the last kernel
  finishes; for a one-kernel run that is the paper's "before the kernel has finished".

Exactness under idle-cycle skipping: the warp states are sampled at the issue stage (after
write-back, before issue) of each cycle the SM runs (``sample``), and a skipped span is charged
with the states it had (``skipped``; nothing changes a warp in it, sim/sm.py ``catch_up``).
Whether a sampled cycle was active is known only after its issue stage, so it is classified at
the SM's next hook call: the cycle was active iff some sub-core's ``next_issue`` then lies after
it (an issue in that cycle, or an older issue's interval, both leave ``next_issue`` beyond it).
In a skipped span the active cycles are those before the latest ``next_issue``.

Row-buffer locality per bank (``dram_access``, called by ``sim.memory.dram`` for every column
access it issues): demand hits / demand accesses per (channel, bank), and the same counting
prefetches ([OWL §4.3] RBL "averaged over all banks"; ``dram.row_hit_rate`` is the aggregate).
"""

from __future__ import annotations

from sim.warp import LDST, WS_FETCH, WS_MEMORY, WS_READY, WS_SCOREBOARD

# per-SM columns
INACTIVE, MEM_BLOCK, NO_WARP, MEM_STALL = range(4)
COLUMNS = ("inactive", "memory_block", "no_warp", "memory_stall")
# per-bank columns
HITS, ACCESSES, PF_HITS, PF_ACCESSES = range(4)
BANK_COLUMNS = ("hits", "accesses", "prefetch_hits", "prefetch_accesses")


class OwlMetricsProfiler:
    """Accumulates the three SM-cycle counts per SM and the row counters per DRAM bank."""

    def __init__(self, sms: list, channels: int = 0, banks: int = 0):
        self.sms = sms
        self.per_sm = [[0] * len(COLUMNS) for _ in sms]
        self.pending = [-1] * len(sms)      # a sampled cycle whose activity is not known yet
        self.banks = [[[0, 0, 0, 0] for _ in range(banks)] for _ in range(channels)]

    # -- SM hooks (the same two the warp-state profiler has) -----------------------------------
    def sample(self, sm, now: int) -> None:
        """Cycle ``now``, which ``sm`` runs, at its issue stage."""
        self.resolve(sm)
        self.count_states(sm, now, now + 1)
        self.pending[sm.sm_id] = now

    def skipped(self, sm, start: int, upto: int) -> None:
        """Cycles [start, upto) that ``sm`` skipped: nothing changed in them but the clock."""
        self.resolve(sm)
        self.count_states(sm, start, upto)
        busy_until = 0
        for sc in sm.subcores:
            if sc.next_issue > busy_until:
                busy_until = sc.next_issue
        active = (busy_until if busy_until < upto else upto) - start
        row = self.per_sm[sm.sm_id]
        row[INACTIVE] += upto - start - (active if active > 0 else 0)

    def resolve(self, sm) -> None:
        """Classify the SM's last sampled cycle, whose issue stage has run since."""
        sid = sm.sm_id
        p = self.pending[sid]
        if p < 0:
            return
        self.pending[sid] = -1
        for sc in sm.subcores:
            if sc.next_issue > p:
                return
        self.per_sm[sid][INACTIVE] += 1

    def count_states(self, sm, a: int, b: int) -> None:
        """Memory-blocked, memory-stalled or no-warp for the cycles [a, b), from the sub-cores'
        wait-state masks (and the LD/ST units' ``free_at`` for ready memory warps)."""
        row = self.per_sm[sm.sm_id]
        if not sm.n_ctas:
            row[NO_WARP] += b - a
            return
        waiting = 0
        held = False                # some warp is ready for the LD/ST unit
        free = 0                    # the earliest a LD/ST unit such a warp needs frees
        for sc in sm.subcores:
            m = sc.masks
            if m[WS_SCOREBOARD] or m[WS_FETCH]:
                return
            ready = m[WS_READY]
            if ready:
                if ready & ~sc.unit_masks[LDST]:
                    return              # a warp ready for another unit: not waiting on memory
                unit = sc.units[LDST]
                f = unit.free_at if unit is not None else 0
                if not held or f < free:
                    free = f
                held = True
            waiting |= m[WS_MEMORY]
        if not held:                # no ready warp: every live warp waits on memory or a barrier
            if waiting:
                row[MEM_BLOCK] += b - a
                row[MEM_STALL] += b - a
            return
        busy = (free if free < b else b) - a        # ready warps held at a busy LD/ST unit
        if busy > 0:
            row[MEM_STALL] += busy

    # -- DRAM hook -----------------------------------------------------------------------------
    def dram_access(self, channel: int, bank: int, prefetch: bool, hit: bool) -> None:
        """One column access issued to ``bank`` of ``channel``; ``hit``: its row was open."""
        c = self.banks[channel][bank]
        if prefetch:
            c[PF_ACCESSES] += 1
            if hit:
                c[PF_HITS] += 1
        else:
            c[ACCESSES] += 1
            if hit:
                c[HITS] += 1

    # -- the statistic -------------------------------------------------------------------------
    def report(self, runs, cycles: int) -> dict:
        """The ``owl`` statistic (sim/stats_reference.py)."""
        for sm in self.sms:             # a last sampled cycle with no hook call after it
            self.resolve(sm)
        sm_cycles = len(self.per_sm) * cycles
        total = [sum(r[i] for r in self.per_sm) for i in range(len(COLUMNS))]

        def share(n: int) -> float:
            return n / sm_cycles if sm_cycles else 0.0
        out: dict = {
            "cycles": cycles, "sms": len(self.per_sm), "columns": list(COLUMNS),
            "inactive_cycles": total[INACTIVE], "cinv": share(total[INACTIVE]),
            "memory_block_cycles": total[MEM_BLOCK], "memory_block_fraction": share(total[MEM_BLOCK]),
            "no_warp_cycles": total[NO_WARP], "no_warp_fraction": share(total[NO_WARP]),
            "memory_stall_cycles": total[MEM_STALL], "memory_stall_fraction": share(total[MEM_STALL]),
            "per_sm": [[sid] + r for sid, r in enumerate(self.per_sm)],
        }
        if self.banks:
            out["rbl"] = self.rbl_report()
        return out

    def rbl_report(self) -> dict:
        rows = [[ch, b] + c for ch, banks in enumerate(self.banks) for b, c in enumerate(banks)]

        def ratio(num: int, den: int) -> float:
            return num / den if den else 0.0
        demand = [ratio(r[2 + HITS], r[2 + ACCESSES]) for r in rows if r[2 + ACCESSES]]
        both = [ratio(r[2 + HITS] + r[2 + PF_HITS], r[2 + ACCESSES] + r[2 + PF_ACCESSES])
                for r in rows if r[2 + ACCESSES] + r[2 + PF_ACCESSES]]
        hits = sum(r[2 + HITS] for r in rows)
        acc = sum(r[2 + ACCESSES] for r in rows)
        pf_hits = sum(r[2 + PF_HITS] for r in rows)
        pf_acc = sum(r[2 + PF_ACCESSES] for r in rows)
        return {
            "columns": list(BANK_COLUMNS),
            "per_bank": rows,
            "bank_mean": sum(demand) / len(demand) if demand else 0.0,
            "aggregate": ratio(hits, acc),
            "bank_mean_with_prefetch": sum(both) / len(both) if both else 0.0,
            "aggregate_with_prefetch": ratio(hits + pf_hits, acc + pf_acc),
        }


def summary_table(o: dict):
    """A rich table of the ``owl`` statistic: the SM-cycle shares and the RBL figures."""
    from rich.table import Table
    t = Table(title="OWL metrics (share of SM-cycles; --profile owl, docs/stats.md)")
    for col in ("CINV", "MemoryBlock", "MemoryStall", "NoWarp", "RBL bank mean", "RBL aggregate"):
        t.add_column(col, justify="right")
    rbl = o.get("rbl")
    t.add_row(*(f"{100 * o[k]:.1f}%" for k in ("cinv", "memory_block_fraction",
                                                "memory_stall_fraction", "no_warp_fraction")),
              *((f"{100 * rbl['bank_mean']:.1f}%", f"{100 * rbl['aggregate']:.1f}%") if rbl
                else ("—", "—")))
    return t


class Profilers:
    """Several profilers on one SM hook (``--profile warp-states --profile owl``)."""

    def __init__(self, profilers: list):
        self.profilers = profilers

    def sample(self, sm, now: int) -> None:
        for p in self.profilers:
            p.sample(sm, now)

    def skipped(self, sm, start: int, upto: int) -> None:
        for p in self.profilers:
            p.skipped(sm, start, upto)
