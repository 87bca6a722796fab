"""Twin of ``hdl.inorder_issue.InorderIssue``: in-order 2-entry IB + scoreboard (our cycle contract
for [SOCGPU]).

The scoreboard tables are multisets of (reg, size) records (which CAM entry holds a record does
not change any output). ``sb_write`` / ``sb_read`` may be ``None``: unbounded tables, the
document's simulator semantics, used by reproductions (our choice); the RTL has CAM 8/16.

Method API for the GPU model: ``outputs()`` then ``clock(grant, grant2, flush, wb, inserts)``,
with ``wb`` a list of written-back ``IssueInstr`` (their records are released) and ``inserts``
up to two ``IssueInstr``. ``step(**ports)`` is the flat-port form used by the lockstep benches.
"""

from __future__ import annotations

from collections import Counter

from hdl.socgpu import field, overlap, unpack_record
from sim.blocks.socgpu_issue import IssueInstr, conflicts, decode_port


class _Flat:
    """Field widths the flat decoders need (shared with ``decode_port``)."""

    def __init__(self, S, D, RW, PW):
        self.S, self.D, self.RW, self.PW, self.RB = S, D, RW, PW, RW + 3


class InorderIssueTwin:
    """Behavioral baseline issue block."""

    def __init__(self, S: int = 4, D: int = 2, RW: int = 9, PW: int = 32, W: int = 4,
                 sb_write: int | None = 8, sb_read: int | None = 16, dual: str = "on"):
        if dual not in ("off", "on"):
            raise ValueError(f"dual = {dual!r}: allowed: off, on")
        self.flat = _Flat(S, D, RW, PW)
        self.W, self.sb_write, self.sb_read, self.dual = W, sb_write, sb_read, dual
        self.reset()

    def reset(self) -> None:
        """The synchronous reset: an empty IB and empty scoreboard tables."""
        self.ib: list[IssueInstr] = []
        self.pending_dst: Counter = Counter()
        self.pending_src: Counter = Counter()
        self._c1 = self._c2 = False

    def clear(self, x: IssueInstr) -> bool:
        """No RAW/WAW against pending destinations and no WAR against pending sources."""
        for r in x.src + x.dst:
            for d in self.pending_dst:
                if overlap(r, d):
                    return False
        for r in x.dst:
            for s in self.pending_src:
                if overlap(r, s):
                    return False
        return True

    def room(self, n_dst: int, n_src: int) -> bool:
        w = self.sb_write is None or sum(self.pending_dst.values()) + n_dst <= self.sb_write
        r = self.sb_read is None or sum(self.pending_src.values()) + n_src <= self.sb_read
        return w and r

    def outputs(self) -> dict[str, int]:
        ib = self.ib
        c1 = bool(ib) and self.clear(ib[0]) and self.room(len(ib[0].dst), len(ib[0].src))
        c2 = (self.dual == "on" and c1 and len(ib) == 2 and self.clear(ib[1])
              and not conflicts(ib[1], ib[0]) and ib[1].unit != ib[0].unit
              and self.room(len(ib[0].dst) + len(ib[1].dst), len(ib[0].src) + len(ib[1].src)))
        self._c1, self._c2 = c1, c2
        return {"ins_ready": int(not ib), "cand_valid": int(c1), "cand_idx": 0,
                "cand_unit": ib[0].unit if c1 else 0, "cand_pc": ib[0].pc if c1 else 0,
                "cand2_valid": int(c2), "cand2_idx": int(c2), "cand2_unit": ib[1].unit if c2 else 0,
                "free_count": 2 - len(ib), "empty": int(not ib)}

    def clock(self, grant: int = 0, grant2: int = 0, flush: int = 0, wb=(), inserts=()) -> None:
        """Edge: write-back releases, grant (frees IB entries, adds records), flush, insert."""
        for x in wb:
            for r in x.dst:
                if self.pending_dst[r]:
                    self.pending_dst[r] -= 1
            for r in x.src:
                if self.pending_src[r]:
                    self.pending_src[r] -= 1
        self.pending_dst += Counter()          # drop zero counts
        self.pending_src += Counter()
        n_issue = (1 if grant and self._c1 else 0) + (1 if grant and grant2 and self._c2 else 0)
        for x in self.ib[:n_issue]:
            self.pending_dst.update(x.dst)
            self.pending_src.update(x.src)
        self.ib = self.ib[n_issue:]
        if flush:
            self.ib = []
        else:
            self.ib = (self.ib + list(inserts[:2]))[:2]

    def step(self, grant: int = 0, grant2: int = 0, flush: int = 0, wb_valid: int = 0,
             wb_dst: int = 0, wb_src: int = 0, ins_valid: int = 0, **ins) -> dict[str, int]:
        out = self.outputs()
        f = self.flat
        inserts = []
        if ins_valid & 1:
            inserts.append(decode_port(f, 0, ins))
            if ins_valid & 2:
                inserts.append(decode_port(f, 1, ins))
        wb = []
        for w in range(self.W):
            if (wb_valid >> w) & 1:
                dst = [unpack_record(field(wb_dst, w * f.D + k, f.RB), f.RW) for k in range(f.D)]
                src = [unpack_record(field(wb_src, w * f.S + k, f.RB), f.RW) for k in range(f.S)]
                wb.append(IssueInstr(0, 0, [r for r in src if r], [r for r in dst if r]))
        self.clock(grant, grant2, flush, wb, inserts)
        return out
