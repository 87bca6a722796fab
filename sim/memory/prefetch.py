"""OWL's opportunistic memory-side prefetcher in each DRAM channel ([OWL §4.4];
our choices where it is silent in docs/mechanisms/owl_prefetch.md).

The engine of each channel is the ``owl_prefetch`` block (its twin, sim/blocks/owl_prefetch.py;
ports and choices in hdl/params/owl_prefetch.py); this module is the controller around it: it
tells the engine which banks have demands to their open row (``hit_pending``) or to another row
(``other_pending``), which banks can take a column command, the demand queue length, and the
command issued in the previous slot; it turns the engine's proposal into a prefetch read.

Scheduling with the prefetcher on (``dram.prefetch`` = ``owl_a`` / ``owl_b``), per command slot:
the oldest demand row hit; else the oldest demand whose bank is free and not held by the engine
(scheme B's row-hold: a demand to another row waits while fewer than C lines are prefetched);
else the engine's proposal — prefetches have the lowest priority (``dram.prefetch_priority =
lowest``, the default; ``above_misses`` is our reproduction plan's order, an ablation: a proposal goes
before a demand that would open another row, after demand row hits). A proposed line already in the
line's L2 slice (or on its way there) is skipped: the engine is told (a mark without a prefetch)
and asked again in the same slot. A prefetch is a row hit on the open row, uses the channel's
data bus like a demand, sits in no queue (one in flight per bank: the bank is busy until its data
has left) and is installed in its L2 slice with the ``prefetched`` flag and no interconnect reply
(hierarchy.py). Prefetches are tagged PREFETCH and counted apart from demands: ``dram.reads``,
the row-hit counters, BLP and latencies stay demand-only.

Columns: a bank's row is the set of lines whose address maps to (channel, bank, row); its column
index is the line's rank in address order (``RowMap``). With channel or bank counts that are not
powers of two (modulo mapping) rows differ in length; LINES is the longest rounded up to a power
of two and indices beyond a row's end are skipped like lines already in the L2.
"""

from __future__ import annotations

from typing import Any, Callable

from gpusched.config import ConfigError
from sim.blocks.owl_prefetch import OwlPrefetchTwin

from .dram import AddressMap
from .request import PREFETCH, READ, MemRequest

LOWER, HIGHER = 8, 16           # [OWL §4.4] baseline degree: C = 8, or 16 below the average
SCHEMES = {"owl_a": "a", "owl_b": "b"}
PRIORITIES = ("lowest", "above_misses")    # ablation: row hit > prefetch > miss (ours)


class RowMap:
    """Column index ↔ line address of the lines of one bank's row, for any address mapping.

    The channel and bank fields lie below ``row_bit`` (validated), so for a row base ``B`` and an
    offset ``o`` inside the row, ``(B + o) >> f == (B >> f) + (o >> f)``: a row's (channel, bank)
    labels are row 0's shifted by ``(B >> f) mod count``. One table (row 0) serves every row, and
    a line's column does not depend on its row."""

    def __init__(self, m: AddressMap, line_bytes: int):
        self.m = m
        self.span = 1 << m.row_bit
        self.shift = line_bytes.bit_length() - 1
        self.groups: list[list[int]] = [[] for _ in range(m.channels * m.banks)]
        self.cols: list[int] = []                               # offset >> shift → column
        for o in range(0, self.span, line_bytes):
            group = self.groups[((o >> m.channel_bit) % m.channels) * m.banks
                                + (o >> m.bank_bit) % m.banks]
            self.cols.append(len(group))
            group.append(o)
        self.lines = max(len(g) for g in self.groups)

    def column(self, line: int) -> int:
        return self.cols[(line & (self.span - 1)) >> self.shift]

    def line_at(self, channel: int, bank: int, row: int, col: int) -> int:
        """Address of column ``col`` of ``row`` in (channel, bank); -1 past the row's end."""
        m = self.m
        base = row << m.row_bit
        rc, rb = (base >> m.channel_bit) % m.channels, (base >> m.bank_bit) % m.banks
        group = self.groups[((channel - rc) % m.channels) * m.banks + (bank - rb) % m.banks]
        return base + group[col] if col < len(group) else -1


class OwlPrefetcher:
    """One engine per channel plus the controller logic; wired into ``DRAM`` as ``dram.pf``."""

    def __init__(self, scheme: str, m: AddressMap, line_bytes: int, sector_bytes: int,
                 in_l2: Callable[[int], bool], slice_of: Callable[[int], int],
                 scheduler: str = "frfcfs", priority: str = "lowest", blocks: Any = None):
        """``blocks``: the run's block provider; engine ``c`` is instance ``mc<c>``."""
        if scheme not in SCHEMES:
            raise ConfigError("dram.prefetch", scheme, "expected off, owl_a or owl_b")
        if scheduler != "frfcfs":
            raise ConfigError("dram.prefetch", scheme, "needs dram.scheduler = frfcfs (the "
                              "prefetcher is part of the FR-FCFS controller)")
        if priority not in PRIORITIES:
            raise ConfigError("dram.prefetch_priority", priority,
                              "expected " + " or ".join(PRIORITIES))
        self.above_misses = priority == "above_misses"
        self.rows = RowMap(m, line_bytes)
        lines = 8
        while lines < self.rows.lines:
            lines *= 2
        if lines > 64:
            raise ConfigError("dram.prefetch", scheme, f"a DRAM row holds {self.rows.lines} lines "
                              f"of {line_bytes} B; the prefetch engine supports up to 64")
        self.n_lines = lines
        self.params: dict[str, object] = {"BANKS": m.banks, "LINES": lines,
                                          "LOWER": min(LOWER, lines), "HIGHER": min(HIGHER, lines),
                                          "SCHEME": SCHEMES[scheme]}
        params = dict(self.params)
        twin = lambda: OwlPrefetchTwin(m.banks, lines, min(LOWER, lines), min(HIGHER, lines),
                                       SCHEMES[scheme])
        self.engines: list = [twin() if blocks is None else
                              blocks.block("owl_prefetch", f"mc{c}", lambda: params, twin)
                              for c in range(m.channels)]
        self.pending: list[dict[str, int]] = [{} for _ in range(m.channels)]
        self.in_l2, self.slice_of = in_l2, slice_of
        self.full_mask = (1 << max(1, line_bytes // sector_bytes)) - 1
        self.issued = self.skipped = self.fills = self.late = self.redundant = 0
        self.held_slots = 0             # slots in which a held bank kept a demand waiting

    # --- engine protocol -----------------------------------------------------------------------
    def note(self, channel: int, req: MemRequest, activated: bool) -> None:
        """The controller issued ``req`` (ACT first if ``activated``): report it next slot."""
        read = req.kind == READ or req.kind == PREFETCH
        self.pending[channel] = {"cmd_bank": req.bank, "cmd_act": int(activated),
                                 "cmd_mark": int(read),
                                 "cmd_line": self.rows.column(req.line) if read else 0,
                                 "cmd_pf": int(req.kind == PREFETCH)}

    def step(self, channel: int, tick: int, inputs: dict[str, int]) -> dict[str, int]:
        ev = self.pending[channel]
        self.pending[channel] = {}
        return self.engines[channel].step(tick=tick, **ev, **inputs)

    # --- one command slot ----------------------------------------------------------------------
    def assign(self, dram, now: int, ch, e: int) -> bool:
        """Bank assignment at edge ``e`` with the engine (see the module docstring): at most one
        demand or prefetch becomes a bank's request in service. True: look again next edge (the
        engine's state changed); ``ch.pf_want`` keeps the banks it has work in."""
        open_row, mrq = ch.open_row, ch.mrq
        hit = other = ready = 0
        for req in ch.queue:
            if open_row[req.bank] == req.row:
                hit |= 1 << req.bank
            else:
                other |= 1 << req.bank
        for b in range(len(mrq)):
            if mrq[b] is None:
                ready |= 1 << b
        inputs = {"hit_pending": hit, "other_pending": other, "bank_ready": ready,
                  "q_len": min(len(ch.queue), 127)}
        out = self.step(ch.index, 1, inputs)
        hold = out["hold"]
        best = None
        blocked = False
        for req in ch.queue:
            if mrq[req.bank] is not None:
                continue
            if open_row[req.bank] == req.row:
                best = req
                break
            if hold >> req.bank & 1:
                blocked = True
                continue
            if best is None:
                best = req
        if blocked and (best is None or open_row[best.bank] != best.row):
            self.held_slots += 1
        miss = None
        if best is not None and self.above_misses and out["pf_valid"] \
                and open_row[best.bank] != best.row:
            miss, best = best, None     # above-misses order: the engine's prefetch before a row miss
        moved = issued = False
        if best is not None:
            dram.take(now, ch, best, e)
            moved = issued = True
        else:
            while out["pf_valid"]:
                b, col = out["pf_bank"], out["pf_line"]
                line = self.rows.line_at(ch.index, b, open_row[b], col)
                if line >= 0 and not self.in_l2(line):
                    req = MemRequest(PREFETCH, -1, line, self.full_mask, now)
                    req.slice = self.slice_of(line)
                    req.channel, req.bank, req.row, req.t_dram = ch.index, b, open_row[b], now
                    self.issued += 1
                    dram.start(ch, req, e)
                    moved = issued = True
                    break
                if line >= 0:
                    self.skipped += 1
                self.pending[ch.index] = {"cmd_bank": b, "cmd_mark": 1, "cmd_line": col}
                out = self.step(ch.index, 0, inputs)
                moved = True            # the engine's state changed: look again next edge
            if miss is not None and not issued:
                dram.take(now, ch, miss, e)
        ch.pf_want = out["want"]
        return moved

    def stats(self, prefetch_hits: int, demand_reads: int) -> dict:
        """``prefetch_hits``: first demand L2 hits on prefetched lines; ``demand_reads``: demand
        DRAM reads (what prefetching did not cover)."""
        used = prefetch_hits + self.late
        return {"prefetch.issued": self.issued, "prefetch.skipped_in_l2": self.skipped,
                "prefetch.fills": self.fills, "prefetch.late": self.late,
                "prefetch.redundant": self.redundant, "prefetch.used": used,
                "prefetch.held_slots": self.held_slots,
                "prefetch.accuracy": used / self.issued if self.issued else 0.0,
                "prefetch.coverage": (prefetch_hits / (prefetch_hits + demand_reads)
                                      if prefetch_hits + demand_reads else 0.0),
                "prefetch.lateness": self.late / used if used else 0.0}


def prefetch_stats_off() -> dict:
    """The same keys with the prefetcher off (zeros), so every run has one shape."""
    return {k: 0.0 if k in ("prefetch.accuracy", "prefetch.coverage", "prefetch.lateness") else 0
            for k in ("prefetch.issued", "prefetch.skipped_in_l2", "prefetch.fills", "prefetch.late",
                      "prefetch.redundant", "prefetch.used", "prefetch.held_slots",
                      "prefetch.accuracy", "prefetch.coverage", "prefetch.lateness")}
