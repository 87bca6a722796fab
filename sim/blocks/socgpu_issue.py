"""Twin of ``hdl.socgpu_issue.SocgpuIssue``: same ports, same cycle behaviour ([SOCGPU instruction
buffer, dependence matrix]).

Two ways to drive it:

- flat ports, as the lockstep benches do: ``step(**inputs) -> outputs`` (packed ints, see
  ``hdl/socgpu/__init__.py``), returning this cycle's outputs and then applying the clock edge;
- methods, for the GPU model's issue stage: ``outputs(rpc_valid, rpc, unit_free)`` gives this
  cycle's candidates, then ``clock(grant, grant2, flush, wb, inserts)`` applies the edge with
  write-back indices and ``IssueInstr`` objects.

Seniority is a sequence number per entry instead of the RTL's age matrix (our choice); the DM is
one int bitmask per row, as in the RTL. ``dm_invariant_violation()`` checks the [SOCGPU dependence
matrix] invariant.
"""

from __future__ import annotations

from hdl.socgpu import CNT_MAX, IssueParams, field, lfsr_next, overlap, unpack_record


class IssueInstr:
    """One decoded instruction: operand records are (reg, size) tuples of valid operands only."""

    __slots__ = ("pc", "npc", "src", "dst", "serial", "unit", "tag")

    def __init__(self, pc: int, npc: int, src=(), dst=(), serial: bool = False, unit: int = 0,
                 tag=None):
        self.pc, self.npc, self.src, self.dst = pc, npc, tuple(src), tuple(dst)
        self.serial, self.unit, self.tag = bool(serial), unit, tag

    def __repr__(self) -> str:
        s = " serial" if self.serial else ""
        return f"IssueInstr(pc={self.pc:#x} dst={self.dst} src={self.src} unit={self.unit}{s})"


def conflict_kinds(a: IssueInstr, b: IssueInstr) -> list[str]:
    """Why younger ``a`` must wait for older ``b`` ([SOCGPU dependence matrix]): any of RAW, WAR,
    WAW, serial."""
    kinds = []
    if any(overlap(s, d) for s in a.src for d in b.dst):
        kinds.append("RAW")
    if any(overlap(d, s) for d in a.dst for s in b.src):
        kinds.append("WAR")
    if any(overlap(d, e) for d in a.dst for e in b.dst):
        kinds.append("WAW")
    if a.serial or b.serial:
        kinds.append("serial")
    return kinds


def conflicts(a: IssueInstr, b: IssueInstr) -> bool:
    """Fast form of ``bool(conflict_kinds(a, b))``."""
    if a.serial or b.serial:
        return True
    bd = b.dst
    for d in a.dst:
        for e in bd:
            if overlap(d, e):
                return True
        for s in b.src:
            if overlap(d, s):
                return True
    for s in a.src:
        for e in bd:
            if overlap(s, e):
                return True
    return False


def decode_port(p: IssueParams, k: int, ins: dict) -> IssueInstr:
    """Insert port k of a flat input dict as an ``IssueInstr``."""
    def recs(vec: int, base: int, count: int):
        out = []
        for j in range(count):
            r = unpack_record(field(vec, base + j, p.RB), p.RW)
            if r is not None:
                out.append(r)
        return out
    return IssueInstr(pc=field(ins.get("ins_pc", 0), k, p.PW),
                      npc=field(ins.get("ins_npc", 0), k, p.PW),
                      src=recs(ins.get("ins_src", 0), k * p.S, p.S),
                      dst=recs(ins.get("ins_dst", 0), k * p.D, p.D),
                      serial=(ins.get("ins_serial", 0) >> k) & 1,
                      unit=field(ins.get("ins_unit", 0), k, 2))


def lowest(mask: int) -> int:
    return (mask & -mask).bit_length() - 1


def bits(mask: int):
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


class SocgpuIssueTwin:
    """Behavioral SOCGPU issue block; keyword parameters as ``IssueParams``."""

    def __init__(self, **params):
        p = self.p = IssueParams(**params)
        self.n, self.full = p.N, (1 << p.N) - 1
        self.valid = 0
        self.issued = 0
        self.instr: list[IssueInstr | None] = [None] * p.N
        self.seq = [0] * p.N
        self.next_seq = 0
        self.dm = [0] * p.N                 # dm[r] bit c: entry r waits for entry c
        self.cnt = [0] * p.N
        self.lfsr = p.slot + 1
        self._ready = 0
        self._cand = self._cand2 = -1

    # ---- combinational part ([SOCGPU local policy], [SOCGPU dual issue]) ----
    def ready_mask(self, rpc_valid: int = 0, rpc: int = 0) -> int:
        pending = self.valid & ~self.issued
        if not pending:
            return 0
        seq, instr, dm = self.seq, self.instr, self.dm
        oldest = min(bits(pending), key=seq.__getitem__) if rpc_valid else -1
        ready = 0
        for i in bits(pending):
            if dm[i] == 0 and (not rpc_valid or instr[i].npc < rpc or i == oldest):
                ready |= 1 << i
        return ready

    def pick(self, ready: int) -> int:
        """Entry chosen by the local policy among ``ready`` (−1 if none)."""
        if not ready:
            return -1
        pol = self.p.policy
        if pol == "first":
            return lowest(ready)
        if pol == "oldest":
            return min(bits(ready), key=self.seq.__getitem__)
        if pol == "youngest":
            return max(bits(ready), key=self.seq.__getitem__)
        if pol in ("most_ready", "least_ready"):
            sign = -1 if pol == "most_ready" else 1
            return min(bits(ready), key=lambda i: (sign * self.cnt[i], i))
        start = self.lfsr % self.n
        upper = (ready >> start) << start
        return lowest(upper if upper else ready)

    def outputs(self, rpc_valid: int = 0, rpc: int = 0, unit_free: int = 0xF) -> dict[str, int]:
        """This cycle's outputs; remembers ready/cand/cand2 for the coming ``clock``."""
        ready = self._ready = self.ready_mask(rpc_valid, rpc)
        cand = self._cand = self.pick(ready)
        cand2 = -1
        if cand >= 0 and self.p.dual != "off":
            ready2 = ready & ~(1 << cand)
            if self.p.dual == "smart":
                cu = self.instr[cand].unit
                ready2 = sum(1 << j for j in bits(ready2)
                             if self.instr[j].unit != cu and (unit_free >> self.instr[j].unit) & 1)
            cand2 = self.pick(ready2)
        self._cand2 = cand2
        free = self.n - bin(self.valid).count("1")
        c, c2 = (self.instr[cand] if cand >= 0 else None), (self.instr[cand2] if cand2 >= 0 else None)
        return {"ins_ready": int(free >= 2),
                "cand_valid": int(c is not None), "cand_idx": max(cand, 0),
                "cand_unit": c.unit if c else 0, "cand_pc": c.pc if c else 0,
                "cand2_valid": int(c2 is not None), "cand2_idx": max(cand2, 0),
                "cand2_unit": c2.unit if c2 else 0,
                "free_count": free, "empty": int(self.valid == 0)}

    # ---- the clock edge (our cycle contract) ----
    def conflict(self, a: IssueInstr, b: IssueInstr) -> bool:
        """Dependence rule used at insert (mutation tests override it)."""
        return conflicts(a, b)

    def dep_row(self, a: IssueInstr, live: int) -> int:
        row = 0
        for j in bits(live):
            if self.conflict(a, self.instr[j]):
                row |= 1 << j
        return row

    def on_issue(self, idx: int) -> None:
        """Hook for mutation tests: the correct block does nothing to the DM at issue."""

    def flush_mask(self, pending: int, granted: int) -> int:
        """Entries dropped by a flush (our cycle contract): pending and not granted this cycle."""
        return pending & ~granted

    def clock(self, grant: int = 0, grant2: int = 0, flush: int = 0, wb=(), inserts=()) -> None:
        """Apply the edge. ``wb``: entry indices written back; ``inserts``: up to two
        ``IssueInstr`` (port 0, port 1)."""
        dm = self.dm
        start_valid = self.valid
        pending = start_valid & ~self.issued
        g = self._cand if grant else -1
        g2 = self._cand2 if grant and grant2 else -1
        assert not (flush and g2 >= 0), "flush and grant2 in the same cycle (our cycle contract)"
        granted = (1 << g if g >= 0 else 0) | (1 << g2 if g2 >= 0 else 0)

        wb_mask = 0
        for idx in wb:                                          # a. write-back
            wb_mask |= 1 << idx
        if wb_mask:
            self.valid &= ~wb_mask
            self.issued &= ~wb_mask
            for r in bits(start_valid):
                dm[r] &= ~wb_mask
        self.issued |= granted                                  # b. grant
        for i in bits(granted):
            self.on_issue(i)
        if flush:                                               # c. flush
            drop = self.flush_mask(pending, granted)
            self.valid &= ~drop
            self.issued &= ~drop
            for r in bits(start_valid):
                dm[r] = 0 if (drop >> r) & 1 else dm[r] & ~drop
        elif inserts:                                           # d. insert
            live = self.valid
            free = ~start_valid & self.full
            k0 = -1
            for port, a in enumerate(inserts[:2]):
                if not free:
                    break
                k = lowest(free)
                free &= ~(1 << k)
                row = self.dep_row(a, live)
                if port == 1 and self.conflict(a, self.instr[k0]):
                    row |= 1 << k0
                self.instr[k], self.dm[k], self.cnt[k] = a, row, 0
                self.seq[k] = self.next_seq
                self.next_seq += 1
                self.valid |= 1 << k
                self.issued &= ~(1 << k)
                k0 = k
        if self.p.policy in ("most_ready", "least_ready"):     # e. counters and LFSR
            for i in bits(self._ready & ~granted):
                if self.cnt[i] < CNT_MAX:
                    self.cnt[i] += 1
        self.lfsr = lfsr_next(self.lfsr)

    def step(self, rpc_valid: int = 0, rpc: int = 0, unit_free: int = 0, grant: int = 0,
             grant2: int = 0, flush: int = 0, wb_valid: int = 0, wb_idx: int = 0,
             ins_valid: int = 0, **ins) -> dict[str, int]:
        """Flat-port cycle: outputs for these inputs, then the clock edge."""
        out = self.outputs(rpc_valid, rpc, unit_free)
        p = self.p
        inserts = []
        if ins_valid & 1:
            inserts.append(decode_port(p, 0, ins))
            if ins_valid & 2:
                inserts.append(decode_port(p, 1, ins))
        wb = [field(wb_idx, w, p.IB) for w in range(p.W) if (wb_valid >> w) & 1]
        self.clock(grant, grant2, flush, wb, inserts)
        return out

    # ---- checks used by the tests ----
    def pending_mask(self) -> int:
        return self.valid & ~self.issued

    def dm_invariant_violation(self) -> str | None:
        """[SOCGPU dependence matrix]: DM[r][c] == valid[r] ∧ valid[c] ∧ AGE[c][r] ∧ conflict(r, c);
        None if it holds."""
        for r in range(self.n):
            want = 0
            if (self.valid >> r) & 1:
                for c in bits(self.valid):
                    if self.seq[c] < self.seq[r] and conflicts(self.instr[r], self.instr[c]):
                        want |= 1 << c
            if self.dm[r] != want:
                diff = self.dm[r] ^ want
                c = lowest(diff)
                kinds = ""
                if (self.valid >> r) & 1 and (self.valid >> c) & 1:
                    kinds = " (" + ", ".join(conflict_kinds(self.instr[r], self.instr[c])
                                             or ["no conflict"]) + ")"
                return (f"DM[{r}][{c}] = {(self.dm[r] >> c) & 1}, invariant wants "
                        f"{(want >> c) & 1}{kinds}")
        return None
