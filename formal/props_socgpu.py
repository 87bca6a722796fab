"""socgpu_issue dependence-matrix invariants ([SOCGPU dependence matrix]; the cycle contract is ours): no entry issues while a bit of
its DM row is set; a write-back clears exactly its column; a row names only live, older entries;
and the DM agrees with the stored operands (a live younger entry has a bit for a live older one
exactly when their registers overlap — RAW, WAR, WAW — or either is serial).

The DM lives inside the block, so this wrapper elaborates the block itself and reads its
instruction-buffer state (``SocgpuIssue.ib_state``). The overlap test here is written apart from
the block's comparators (register ranges instead of masked id compares), so the last invariant
checks the block's comparators too, not only its bookkeeping.
"""

from __future__ import annotations

from contextlib import contextmanager

from amaranth.hdl import Cat, Const, Module, Signal, Value

import hdl.socgpu_issue as socgpu_issue
from formal.props import PropsTop
from hdl.socgpu import IssueParams


def _range(rec: Value, rw: int) -> tuple[Value, Value, Value]:
    """(first register, last register, valid) of an operand record: size code 0 one register,
    1 an aligned pair, 2 or 3 an aligned quad."""
    reg, size, valid = rec[:rw], rec[rw:rw + 2], rec[rw + 2]
    span = Cat(size != 0, size[1], Const(0, rw - 2))     # 0, 1 or 3 extra registers
    first = reg & ~span
    return first, first | span, valid


def _overlaps(a: Value, b: Value, rw: int) -> Value:
    a0, a1, av = _range(a, rw)
    b0, b1, bv = _range(b, rw)
    return av & bv & (a0 <= b1) & (b0 <= a1)


def _records(vec: Value, count: int, rb: int) -> list[Value]:
    return [vec[k * rb:(k + 1) * rb] for k in range(count)]


def must_wait(p: IssueParams, st, young: int, old: int) -> Value:
    """Entry ``young`` must wait for entry ``old`` (RAW, WAR, WAW, or a serial fence)."""
    ys, yd = _records(st.src[young], p.S, p.RB), _records(st.dst[young], p.D, p.RB)
    os_, od = _records(st.src[old], p.S, p.RB), _records(st.dst[old], p.D, p.RB)
    terms = [st.serial[young], st.serial[old]]
    terms += [_overlaps(s, d, p.RW) for s in ys for d in od]             # RAW
    terms += [_overlaps(d, o, p.RW) for d in yd for o in od + os_]       # WAW, WAR
    return Cat(*terms).any()


class SocgpuProps(PropsTop):
    name = "socgpu_issue"

    def instance(self, platform):
        self.dut._MustUse__silence = True      # elaborated here, not by Amaranth: not unused
        inner = self.dut.elaborate(platform)
        self.state = self.dut.ib_state
        return inner

    def properties(self, m: Module, dut) -> None:
        p, st, n = dut.p, self.state, dut.p.N
        def hot(idx: Value) -> Value:          # an entry index as a one-hot vector
            return (Const(1, n) << idx)[:n]

        first = dut.grant & dut.cand_valid
        second = dut.grant & dut.grant2 & dut.cand2_valid
        granted = Signal(n)
        m.d.comb += granted.eq((hot(dut.cand_idx) & first.replicate(n))
                               | (hot(dut.cand2_idx) & second.replicate(n)))
        wb = Signal(n)
        m.d.comb += wb.eq(Cat(*[Cat(*[dut.wb_valid[w] & (dut.wb_idx[w * p.IB:(w + 1) * p.IB] == i)
                                      for w in range(p.W)]).any() for i in range(n)]))
        for i in range(n):
            self.invariant(m, "no entry issues while a bit of its DM row is set",
                           ~granted[i] | (st.dm[i] == 0))
        # exact clearing: a cycle without inserts or flush changes the DM only by clearing the
        # written-back columns
        prev_dm = [Signal(n, name=f"prev_dm_{i}") for i in range(n)]
        prev_wb, quiet, started = Signal(n), Signal(), Signal()
        m.d.sync += [started.eq(1), prev_wb.eq(wb),
                     quiet.eq((dut.ins_valid == 0) & ~dut.flush)]
        m.d.sync += [prev_dm[i].eq(st.dm[i]) for i in range(n)]
        for i in range(n):
            self.invariant(m, "a write-back clears exactly its column",
                           ~(started & quiet) | (st.dm[i] == (prev_dm[i] & ~prev_wb)))
        for i in range(n):
            live_older = st.valid & st.older[i]
            self.invariant(m, "a DM row names only live, older entries",
                           ~st.valid[i] | ((st.dm[i] & ~live_older) == 0))
            for j in range(n):
                if i == j:
                    continue
                both = st.valid[i] & st.valid[j] & st.older[i][j]
                self.invariant(m, "the DM agrees with the stored operands",
                               ~both | (st.dm[i][j] == must_wait(p, st, i, j)))


class SocgpuIssueIgnoringDM(socgpu_issue.SocgpuIssue):
    """Mutant: readiness without the DM term, so an entry can issue before the older
    instructions it depends on (the bug the first invariant must catch)."""

    def elaborate(self, platform):
        with _ready_without_busy():
            return super().elaborate(platform)


@contextmanager
def _ready_without_busy():
    real = socgpu_issue.ready_vector

    def ready_vector(m, st, rpc_valid, rpc):
        pending, _ = real(m, st, rpc_valid, rpc)
        return pending, pending                 # every pending entry counts as ready
    socgpu_issue.ready_vector = ready_vector
    try:
        yield
    finally:
        socgpu_issue.ready_vector = real
