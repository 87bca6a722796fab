"""Fast per-warp SOCGPU issue block for the GPU model: the semantics of the twin
``sim.blocks.socgpu_issue.SocgpuIssueTwin`` ([SOCGPU dependence matrix, local policy, dual issue]),
built for speed.

Operands are register bitmasks (``dmask`` destinations, ``umask`` destinations | sources; an
aligned pair/quad record covers 2/4 bits, so masks intersect exactly when the [SOCGPU instruction
buffer] records overlap), readiness is kept as a ``blocked`` mask (rows of the DM that are non-zero)
and seniority is a sequence number per entry, as in the twin (our choice).

Two ways to drive it:

- **twin API**, one ``outputs`` + ``clock`` pair per cycle (or ``step(**ports)``), exactly like
  the twin; the lockstep tests compare both on the block benches' random streams;
- **model API**, event calls carrying the cycle number, so cycles without events cost nothing:
  ``writeback(now, mask)`` (write-backs visible from cycle ``now``, i.e. the twin's edge
  ``now − 1``), ``candidates(now, unit_free)``, ``grant(now, g, g2, flush)``,
  ``insert(now, entries)``. In one model cycle the calls come in the order write-back, grant
  (+ flush), insert; the state after each cycle equals the twin's (a new row may briefly hold a
  bit for an entry whose write-back is processed at the start of the next cycle, which clears
  it before anything reads it). ``rdy_cnt`` counters advance lazily over skipped cycles, and the
  random policy's LFSR is a pure function of (slot, cycle): the block of a warp slot is never
  reset, so its LFSR has been stepping since cycle 0 from ``slot + 1``.

The model API derives ``rpc`` itself with the trace-driven proxy of our choice (``proxy_rpc``).
"""

from __future__ import annotations

from hdl.socgpu import CNT_MAX, IssueParams, field, lfsr_next
from sim.blocks.socgpu_issue import decode_port

FIRST, OLDEST, YOUNGEST, MOST, LEAST, RANDOM = range(6)
_POLICY = {"first": FIRST, "oldest": OLDEST, "youngest": YOUNGEST, "most_ready": MOST,
           "least_ready": LEAST, "random": RANDOM}
VOLATILE = frozenset({"most_ready", "least_ready", "random"})   # choice may change every cycle
_LFSR: list[list[int]] = []      # [sequence from 1, position of each value]; built on first use


def record_mask(reg: int, size: int) -> int:
    """Register bitmask of one [SOCGPU instruction buffer] record: 1, 2 or 4 aligned registers (size
    3 = quad)."""
    width = 1 << min(size, 2)
    return ((1 << width) - 1) << (reg & ~(width - 1))


class IBEntry:
    """One decoded instruction as the block stores it. ``src``/``dst`` are the twin's (reg, size)
    records (so the same objects can feed the twin); ``dmask``/``smask``/``umask`` (destinations,
    sources, both) the fast form; ``pe``
    marks a non-serial path end (our choice). The model adds ``op``, ``kind`` (its unit), ``instr``,
    ``long`` (global load/atomic), ``redirect`` (dynamic successor ≠ ``npc``), ``ph``
    (wrong-path placeholder)."""

    __slots__ = ("pc", "npc", "src", "dst", "serial", "unit", "tag", "dmask", "umask", "smask",
                 "pe", "op", "instr", "long", "redirect", "ph")

    def __init__(self, pc: int, npc: int, src=(), dst=(), serial: bool = False, unit: int = 0,
                 pe: bool = False):
        self.pc, self.npc, self.src, self.dst = pc, npc, tuple(src), tuple(dst)
        self.serial, self.unit, self.pe, self.tag = bool(serial), unit, pe, None
        d = 0
        for r in self.dst:
            d |= record_mask(*r)
        sm = 0
        for r in self.src:
            sm |= record_mask(*r)
        self.dmask, self.umask, self.smask = d, d | sm, sm
        self.op = self.instr = None
        self.long = self.redirect = self.ph = False

    def __repr__(self) -> str:
        s = " serial" if self.serial else ""
        return f"IBEntry(pc={self.pc:#x} dst={self.dst} src={self.src} unit={self.unit}{s})"


def from_issue_instr(x) -> IBEntry:
    """An ``IssueInstr`` (twin benches) as an ``IBEntry``."""
    return IBEntry(x.pc, x.npc, x.src, x.dst, x.serial, x.unit)


def lfsr_at(slot: int, cycle: int) -> int:
    """The random policy's LFSR of warp slot ``slot`` after ``cycle`` steps from ``slot + 1``."""
    if not _LFSR:
        seq, x = [], 1
        while True:
            seq.append(x)
            x = lfsr_next(x)
            if x == 1:
                break
        pos = [0] * (1 << 16)
        for i, v in enumerate(seq):
            pos[v] = i
        _LFSR.extend((seq, pos))
    seq, pos = _LFSR
    return seq[(pos[slot + 1] + cycle) % len(seq)]


def _bits(mask: int):
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def proxy_rpc(valid: int, issued: int, seq: list, instr: list) -> tuple[int, int]:
    """Our choice trace-driven proxy: the ``npc`` of the first path end at or after the oldest
    non-issued entry, unless a serial entry comes first; (0, 0) when there is none."""
    for i in sorted(_bits(valid & ~issued), key=seq.__getitem__):
        e = instr[i]
        if e.serial:
            return 0, 0
        if e.pe:
            return 1, e.npc
    return 0, 0


class FastSocgpuIssue:
    """One warp's SOCGPU issue block; parameters as ``IssueParams`` (N, policy, dual, slot)."""

    __slots__ = ("p", "n", "full", "pol", "dual", "slot", "counting", "valid", "issued", "blocked",
                 "serial", "pe", "dm", "instr", "seq", "next_seq", "cnt", "rdy", "t", "_cand",
                 "_cand2")

    def __init__(self, N: int = 8, policy: str = "first", dual: str = "on", slot: int = 0,
                 **widths):
        self.p = IssueParams(N=N, policy=policy, dual=dual, slot=slot, **widths)  # same checks
        self.n, self.full = N, (1 << N) - 1
        self.pol, self.dual, self.slot = _POLICY[policy], dual, slot
        self.counting = policy in ("most_ready", "least_ready")
        self.valid = self.issued = self.blocked = self.serial = self.pe = 0
        self.dm = [0] * N
        self.instr: list[IBEntry | None] = [None] * N
        self.seq = [0] * N
        self.next_seq = 0
        self.cnt = [0] * N
        self.rdy = 0            # ready set of the current cycle (counters use it lazily)
        self.t = 0              # first cycle whose counter increments are not yet applied
        self._cand = self._cand2 = -1

    # ---- state queries ----
    def free_count(self) -> int:
        return self.n - self.valid.bit_count()

    def pending(self) -> int:
        return self.valid & ~self.issued

    def rpc(self) -> tuple[int, int]:
        if not self.pe & ~self.issued:
            return 0, 0
        return proxy_rpc(self.valid, self.issued, self.seq, self.instr)

    def ready_mask(self, rpc_valid: int = 0, rpc: int = 0) -> int:
        """a1 ∧ a2 ∧ a3 of [SOCGPU local policy]."""
        pend = self.valid & ~self.issued
        ready = pend & ~self.blocked
        if rpc_valid and ready:
            seq, instr = self.seq, self.instr
            oldest = min(_bits(pend), key=seq.__getitem__)
            keep = 0
            for i in _bits(ready):
                if instr[i].npc < rpc or i == oldest:
                    keep |= 1 << i
            ready = keep
        return ready

    def pick(self, ready: int, lfsr: int = 0) -> int:
        """The local policy's choice among ``ready`` (−1 if none); ties as in the twin."""
        if not ready:
            return -1
        low = ready & -ready
        pol = self.pol
        if pol == FIRST or low == ready:
            return low.bit_length() - 1
        if pol == OLDEST:
            return min(_bits(ready), key=self.seq.__getitem__)
        if pol == YOUNGEST:
            return max(_bits(ready), key=self.seq.__getitem__)
        if pol == RANDOM:
            start = lfsr % self.n
            upper = (ready >> start) << start
            m = upper if upper else ready
            return (m & -m).bit_length() - 1
        cnt = self.cnt
        sign = -1 if pol == MOST else 1
        return min(_bits(ready), key=lambda i: (sign * cnt[i], i))

    def second(self, cand: int, ready: int, unit_free: int, lfsr: int = 0) -> int:
        """``cand2`` of [SOCGPU dual issue]: the policy over the other ready entries (smart: other
        free units)."""
        if cand < 0 or self.dual == "off":
            return -1
        ready2 = ready & ~(1 << cand)
        if ready2 and self.dual == "smart":
            instr, cu, keep = self.instr, self.instr[cand].unit, 0
            for j in _bits(ready2):
                u = instr[j].unit
                if u != cu and (unit_free >> u) & 1:
                    keep |= 1 << j
            ready2 = keep
        return self.pick(ready2, lfsr)

    # ---- state updates shared by both APIs ([SOCGPU dependence matrix], our cycle contract) ----
    def conflict(self, a: IBEntry, b: IBEntry) -> bool:
        return bool(a.serial or b.serial or a.dmask & b.umask or a.umask & b.dmask)

    def _row(self, a: IBEntry, live: int) -> int:
        if a.serial:
            return live
        row = live & self.serial
        ad, au = a.dmask, a.umask
        if au:
            instr = self.instr
            rest = live & ~row
            while rest:
                low = rest & -rest
                rest ^= low
                e = instr[low.bit_length() - 1]
                if ad & e.umask or au & e.dmask:
                    row |= low
        return row

    def _clear_columns(self, mask: int) -> None:
        dm, blocked = self.dm, self.blocked
        for r in _bits(blocked & self.valid):
            if dm[r] & mask:
                dm[r] &= ~mask
                if not dm[r]:
                    blocked &= ~(1 << r)
        self.blocked = blocked

    def _wb(self, mask: int) -> None:
        keep = ~mask
        self.valid &= keep
        self.issued &= keep
        self.serial &= keep
        self.pe &= keep
        if self.blocked:
            self._clear_columns(mask)

    def _flush(self, drop: int) -> None:
        if not drop:
            return
        self._wb(drop)
        dm = self.dm
        for r in _bits(drop):
            dm[r] = 0
        self.blocked &= ~drop

    def _insert(self, entries, free: int) -> None:
        live, k0, instr = self.valid, -1, self.instr
        for port, a in enumerate(entries[:2]):
            if not free:
                break
            low = free & -free
            free ^= low
            k = low.bit_length() - 1
            row = self._row(a, live)
            if port == 1 and self.conflict(a, instr[k0]):
                row |= 1 << k0
            instr[k], self.dm[k], self.cnt[k] = a, row, 0
            self.seq[k] = self.next_seq
            self.next_seq += 1
            self.valid |= low
            self.issued &= ~low
            if row:
                self.blocked |= low
            if a.serial:
                self.serial |= low
            if a.pe:
                self.pe |= low
            k0 = k

    def _count(self, mask: int, k: int = 1) -> None:
        cnt = self.cnt
        for i in _bits(mask):
            c = cnt[i] + k
            cnt[i] = c if c < CNT_MAX else CNT_MAX

    # ---- twin API: one outputs/clock pair per cycle ----
    def outputs(self, rpc_valid: int = 0, rpc: int = 0, unit_free: int = 0xF) -> dict[str, int]:
        ready = self.rdy = self.ready_mask(rpc_valid, rpc)
        lfsr = lfsr_at(self.slot, self.t) if self.pol == RANDOM else 0
        cand = self._cand = self.pick(ready, lfsr)
        cand2 = self._cand2 = self.second(cand, ready, unit_free, lfsr)
        free = self.free_count()
        c = self.instr[cand] if cand >= 0 else None
        c2 = self.instr[cand2] if cand2 >= 0 else None
        return {"ins_ready": int(free >= 2),
                "cand_valid": int(c is not None), "cand_idx": max(cand, 0),
                "cand_unit": c.unit if c else 0, "cand_pc": c.pc if c else 0,
                "cand2_valid": int(c2 is not None), "cand2_idx": max(cand2, 0),
                "cand2_unit": c2.unit if c2 else 0,
                "free_count": free, "empty": int(self.valid == 0)}

    def clock(self, grant: int = 0, grant2: int = 0, flush: int = 0, wb=(), inserts=()) -> None:
        """The edge in the twin's order: write-back, grant, flush or insert, counters."""
        start_valid = self.valid
        pending = start_valid & ~self.issued
        g = self._cand if grant else -1
        g2 = self._cand2 if grant and grant2 else -1
        assert not (flush and g2 >= 0), "flush and grant2 in the same cycle (our cycle contract)"
        granted = (1 << g if g >= 0 else 0) | (1 << g2 if g2 >= 0 else 0)
        wb_mask = 0
        for idx in wb:
            wb_mask |= 1 << idx
        if wb_mask:
            self._wb(wb_mask)
        self.issued |= granted
        if flush:
            self._flush(pending & ~granted)
        elif inserts:
            self._insert(list(inserts), ~start_valid & self.full)
        if self.counting:
            self._count(self.rdy & ~granted)
        self.t += 1

    def step(self, rpc_valid: int = 0, rpc: int = 0, unit_free: int = 0, grant: int = 0,
             grant2: int = 0, flush: int = 0, wb_valid: int = 0, wb_idx: int = 0,
             ins_valid: int = 0, **ins) -> dict[str, int]:
        """Flat-port cycle (the block benches' form)."""
        out = self.outputs(rpc_valid, rpc, unit_free)
        p = self.p
        inserts = [from_issue_instr(decode_port(p, k, ins)) for k in range(2)
                   if (ins_valid >> k) & 1 and (k == 0 or ins_valid & 1)]
        wb = [field(wb_idx, w, p.IB) for w in range(p.W) if (wb_valid >> w) & 1]
        self.clock(grant, grant2, flush, wb, inserts)
        return out

    # ---- model API: event calls with the cycle number ----
    def _advance(self, upto: int) -> None:
        """Apply the counter increments of the cycles [t, upto) (nothing changed in them)."""
        k = upto - self.t
        if k > 0:
            if self.counting and self.rdy:
                self._count(self.rdy, k)
            self.t = upto

    def _refresh(self) -> None:
        rv, rpc = self.rpc() if self.pe else (0, 0)
        self.rdy = self.ready_mask(rv, rpc)

    def writeback(self, now: int, mask: int) -> None:
        """Entries in ``mask`` wrote back; dependents may issue from cycle ``now``."""
        self._advance(now)
        self._wb(mask)
        self._refresh()

    def candidates(self, now: int, unit_free: int = 0) -> tuple[int, int]:
        """(cand, cand2) of cycle ``now`` (``unit_free`` is read by smart dual issue only)."""
        self._advance(now)
        ready = self.rdy
        lfsr = lfsr_at(self.slot, now) if self.pol == RANDOM else 0
        cand = self._cand = self.pick(ready, lfsr)
        cand2 = self._cand2 = self.second(cand, ready, unit_free, lfsr)
        return cand, cand2

    def cand(self, now: int) -> int:
        """The first candidate of cycle ``now`` (no side effects on the grant state)."""
        self._advance(now)
        return self.pick(self.rdy, lfsr_at(self.slot, now) if self.pol == RANDOM else 0)

    def grant(self, now: int, g: int, g2: int = -1, flush: bool = False) -> tuple[int, int]:
        """The picker issued entry ``g`` (and ``g2``) in cycle ``now``; ``flush`` drops the other
        non-issued entries (our cycle contract, c). Returns the entries' bits (their write-back
        tokens)."""
        assert not (flush and g2 >= 0), "flush and grant2 in the same cycle (our cycle contract)"
        self._advance(now)
        granted = (1 << g) | (1 << g2 if g2 >= 0 else 0)
        if self.counting:
            self._count(self.rdy & ~granted)
        self.t = now + 1
        pending = self.valid & ~self.issued
        self.issued |= granted
        if flush:
            self._flush(pending & ~granted)
        self._refresh()
        return 1 << g, (1 << g2 if g2 >= 0 else 0)

    def insert(self, now: int, entries) -> None:
        """Decoded instructions written in cycle ``now`` (issuable from ``now + 1``)."""
        self._advance(now + 1)
        self._insert(entries, ~self.valid & self.full)
        self._refresh()
