"""ck_dispatch invariants ([THESIS §5.4]), over shadow counts the wrapper keeps from the
ports: an accepted CTA never takes a core above its per-kernel maximum; a row pulses ``complete``
exactly in the cycle the last CTA of a fully issued kernel leaves its last core; Valid is set by
an accepted launch and cleared by that completion only. Environment: a core only completes CTAs
it holds."""

from __future__ import annotations

from amaranth.hdl import Cat, Module, Mux, Signal

from formal.props import PropsTop


class CkDispatchProps(PropsTop):
    name = "ck_dispatch"

    def __init__(self, dut, K: int, NC: int, BW: int, MW: int):
        self.K, self.NC, self.BW, self.MW = K, NC, BW, MW
        super().__init__(dut)

    def properties(self, m: Module, dut) -> None:
        K, NC, BW, MW = self.K, self.NC, self.BW, self.MW
        cnt = [[Signal(MW + 1, name=f"sh_cnt{c}_{k}") for k in range(K)] for c in range(NC)]
        live = [Signal(name=f"sh_live{k}") for k in range(K)]
        grid = [Signal(BW, name=f"sh_grid{k}") for k in range(K)]
        issued = [Signal(BW + 1, name=f"sh_issued{k}") for k in range(K)]
        # environment: a completion only on a core holding a CTA of that row
        held = Signal(name="sh_held")
        m.d.comb += held.eq(0)
        for c in range(NC):
            for k in range(K):
                with m.If((dut.done_core == c) & (dut.done_k == k)):
                    m.d.comb += held.eq(cnt[c][k] != 0)
        self.assume(m, ~dut.done_valid | held)
        cap = Signal(MW, name="sh_cap_of_issue")
        now = Signal(MW + 1, name="sh_cnt_of_issue")
        m.d.comb += [cap.eq(0), now.eq(0)]
        for k in range(K):
            with m.If(dut.issue_k == k):
                m.d.comb += cap.eq(dut.max_blocks[k * MW:(k + 1) * MW])
        for c in range(NC):
            for k in range(K):
                with m.If((dut.issue_core == c) & (dut.issue_k == k)):
                    m.d.comb += now.eq(cnt[c][k])
        self.invariant(m, "an accepted CTA stays within the core's max blocks", ~dut.issue_ok | (now < cap))
        for k in range(K):
            after = []
            for c in range(NC):
                inc = dut.issue_ok & (dut.issue_core == c) & (dut.issue_k == k)
                dec = dut.done_valid & (dut.done_core == c) & (dut.done_k == k)
                new = Signal(MW + 1, name=f"sh_new{c}_{k}")
                m.d.comb += new.eq(cnt[c][k] + inc - dec)
                m.d.sync += cnt[c][k].eq(new)
                after.append(new == 0)
            last_left = live[k] & (issued[k] == grid[k]) & Cat(*after).all()
            self.invariant(m, "complete exactly when the last CTA leaves its last core",
                           dut.complete[k] == last_left)
            self.invariant(m, "valid iff launched and not yet complete", dut.valid[k] == live[k])
            take = dut.launch_valid & dut.launch_ok & (dut.launch_row == k)
            with m.If(take):
                m.d.sync += [live[k].eq(1), grid[k].eq(dut.launch_blocks), issued[k].eq(0)]
            with m.Else():
                with m.If(dut.complete[k]):
                    m.d.sync += live[k].eq(0)
                with m.If(dut.issue_ok & (dut.issue_k == k)):
                    m.d.sync += issued[k].eq(issued[k] + 1)


def mutant_accepts_over_cap(m: Module, inner) -> dict:
    """Accepts any CTA of a kernel with blocks left, without the per-(core, kernel) maximum."""
    K = len(inner.valid)
    left = inner.valid & ~inner.issued_all
    return {"issue_ok": inner.issue_ok | (inner.issue_valid & Mux(inner.issue_k < K,
                                                                  left.bit_select(inner.issue_k, 1), 0))}
