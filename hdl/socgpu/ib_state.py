"""Registered state of one warp's instruction buffer ([SOCGPU instruction buffer, dependence
matrix], sub-block ``ib_state``) plus the dependence-matrix rows (``dep_matrix``) and the age
matrix.

Per entry: pc, npc, src/dst records, unit, rdy_cnt (most/least-ready policies only). Vectors of
one bit per entry: valid, issued, serial. DM and AGE store N-1 bits per row (the diagonal is
constant 0 and not stored), N(N-1) flops each, as our storage count assumes.

Seniority (our choice): ``older[i]`` bit j = AGE[j][i] (entry j is older than entry i). Reset
order is "lower index older"; an insert makes its entry younger than every other entry (port 1
younger than port 0), so the rows always describe a total order, valid or not.
"""

from __future__ import annotations

from amaranth.hdl import Cat, Const, Module, Mux, Signal, Value

from . import CNT_MAX, IssueParams


def with_diag(m: Module, row: Signal, i: int, n: int, name: str) -> Signal:
    """Expand a stored (N-1)-bit row to N bits with a constant 0 at column i."""
    full = Signal(n, name=name)
    m.d.comb += full.eq(Cat(row[:i], Const(0, 1), row[i:]))
    return full


class IbState:
    """Creates the state signals; ``update`` writes their next values (one edge, our cycle
    contract)."""

    def __init__(self, m: Module, p: IssueParams, counters: bool):
        n = p.N
        self.p, self.counters = p, counters
        self.valid = Signal(n)
        self.issued = Signal(n)
        self.serial = Signal(n)
        self.pc = [Signal(p.PW, name=f"pc_{i}") for i in range(n)]
        self.npc = [Signal(p.PW, name=f"npc_{i}") for i in range(n)]
        self.src = [Signal(p.S * p.RB, name=f"src_{i}") for i in range(n)]
        self.dst = [Signal(p.D * p.RB, name=f"dst_{i}") for i in range(n)]
        self.unit = [Signal(2, name=f"unit_{i}") for i in range(n)]
        self.cnt = [Signal(4, name=f"rdy_cnt_{i}") for i in range(n)] if counters else []
        self._dm = [Signal(n - 1, name=f"dm_row_{i}") for i in range(n)]
        self._older = [Signal(n - 1, name=f"age_row_{i}", init=(1 << i) - 1) for i in range(n)]
        self.dm = [with_diag(m, r, i, n, f"dm_{i}") for i, r in enumerate(self._dm)]
        self.older = [with_diag(m, r, i, n, f"older_{i}") for i, r in enumerate(self._older)]

    def younger_rows(self, m: Module) -> list[Signal]:
        """younger[i] bit j = AGE[i][j]: the transpose of ``older`` (youngest policy only)."""
        n = self.p.N
        rows = []
        for i in range(n):
            r = Signal(n, name=f"younger_{i}")
            m.d.comb += r.eq(Cat(*[self.older[j][i] for j in range(n)]))
            rows.append(r)
        return rows

    def cnt_bits(self, m: Module) -> list[Signal]:
        """Bit-planes of the counters: plane b bit i = rdy_cnt[i][b]."""
        planes = []
        for b in range(4):
            v = Signal(self.p.N, name=f"cnt_plane_{b}")
            m.d.comb += v.eq(Cat(*[c[b] for c in self.cnt]))
            planes.append(v)
        return planes

    def update(self, m: Module, *, wb_mask: Value, grant_oh: Value, drop: Value,
               ins_oh: list[Value], ins: list[dict], rows: list[Value], ready: Value) -> None:
        """Next state at the clock edge.

        ``wb_mask``: entries written back; ``grant_oh``: entries issued; ``drop``: entries
        flushed; ``ins_oh[p]``: one-hot entry taken by insert port p (0 if none); ``ins[p]``:
        the port's decoded fields; ``rows[p]``: its new DM row; ``ready``: this cycle's ready.
        """
        p, n = self.p, self.p.N
        ins_mask = Signal(n)
        m.d.comb += ins_mask.eq(ins_oh[0] | ins_oh[1])
        gone = Signal(n)               # column cleared: written back or flushed ([SOCGPU dependence matrix])
        m.d.comb += gone.eq(wb_mask | drop)

        m.d.sync += [
            self.valid.eq((self.valid & ~gone) | ins_mask),
            self.issued.eq((self.issued | grant_oh) & ~gone & ~ins_mask),
            self.serial.eq((self.serial & ~ins_mask)
                           | Mux(ins[0]["serial"], ins_oh[0], 0)
                           | Mux(ins[1]["serial"], ins_oh[1], 0)),
        ]

        for i in range(n):
            with m.If(ins_oh[0][i]):
                self._write_fields(m, i, ins[0])
            with m.Elif(ins_oh[1][i]):
                self._write_fields(m, i, ins[1])

            # Next-state values are expressions inside the sync statements (evaluated once per
            # edge by the simulator), not comb signals.
            row = Mux(ins_oh[0][i], rows[0],
                      Mux(ins_oh[1][i], rows[1], Mux(drop[i], 0, self.dm[i] & ~gone)))
            m.d.sync += self._dm[i].eq(Cat(row[:i], row[i + 1:n]))

            # Age: an inserted entry is younger than all others; port 1 younger than port 0.
            age = Mux(ins_oh[0][i], ~ins_mask,
                      Mux(ins_oh[1][i], Const((1 << n) - 1, n), self.older[i] & ~ins_mask))
            with m.If(ins_mask.any()):
                m.d.sync += self._older[i].eq(Cat(age[:i], age[i + 1:n]))

            if self.counters:       # rdy_cnt: +1 while ready and not granted, saturating
                c = self.cnt[i]
                with m.If(ins_mask[i]):
                    m.d.sync += c.eq(0)
                with m.Elif(ready[i] & ~grant_oh[i] & (c != CNT_MAX)):
                    m.d.sync += c.eq(c + 1)

    def _write_fields(self, m: Module, i: int, f: dict) -> None:
        m.d.sync += [self.pc[i].eq(f["pc"]), self.npc[i].eq(f["npc"]), self.src[i].eq(f["src"]),
                     self.dst[i].eq(f["dst"]), self.unit[i].eq(f["unit"])]
