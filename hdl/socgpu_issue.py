"""SOCGPU per-warp issue block: N-entry IB + dependence matrix ([SOCGPU instruction buffer,
dependence matrix]; the cycle contract is ours).

One instance per warp slot. Ports (widths from ``IssueParams.ports()``; arrays are packed, element
k at bits [k*w, (k+1)*w), see ``hdl/socgpu/__init__.py``):

- insert: ``ins_valid`` (2; port 1 only together with port 0), ``ins_pc``/``ins_npc`` (2×PW),
  ``ins_src`` (2×S×12), ``ins_dst`` (2×D×12), ``ins_serial`` (2), ``ins_unit`` (2×2).
- ``rpc_valid``/``rpc``: top-of-stack reconvergence PC (a3 guard); ``unit_free`` (4): units able
  to accept, used by smart dual issue only.
- candidates: ``cand_valid/idx/unit/pc`` and ``cand2_valid/idx/unit``; all zero when not valid.
  Combinational from the registered state and the same-cycle rpc / unit_free inputs (our cycle
  contract).
- ``grant`` issues ``cand``; ``grant2`` issues ``cand2`` and is honoured only with ``grant``.
- ``flush``: drop every valid, not issued, not granted entry and discard this cycle's inserts.
- ``wb_valid`` (W), ``wb_idx`` (W × log2 N): write-back of issued entries.
- ``ins_ready`` = free_count ≥ 2, ``free_count`` = N − popcount(valid), ``empty``.

Edge order (our cycle contract): write-back, grant, flush, insert (port 0 → lowest entry free at the
start of the cycle, port 1 → next lowest; an insert without a free entry is dropped), counters and
LFSR. Dual issue default 'on' (non-smart), policy default 'first' (our parameter list).
"""

from __future__ import annotations

from amaranth.hdl import Cat, Const, Module, Mux, Signal, Value
from amaranth.lib import wiring

from .common import first_one_hot, one_hot_index, signature_of
from .socgpu import LFSR_BITS, IssueParams, insert_port_fields
from .socgpu.dep_check import EntryPlanes, conflict, dep_vector, records
from .socgpu.ib_state import IbState
from .socgpu.ready_logic import ready_vector
from .socgpu.select import pick


def onehot_mux(m: Module, oh: Value, values: list[Value], width: int, name: str) -> Signal:
    """AND-OR multiplexer: the value at the set bit of ``oh`` (0 if none)."""
    out = Signal(width, name=name)
    m.d.comb += out.eq(_or_all([Mux(oh[i], v, 0) for i, v in enumerate(values)], width))
    return out


class SocgpuIssue(wiring.Component):
    """Out-of-order issue inside one warp (IB + DM), ``IssueParams`` as keyword arguments."""

    def __init__(self, **params):
        self.p = IssueParams(**params)
        super().__init__(signature_of(self.p.ports()))

    def _port(self, k: int) -> dict:
        """Decoded fields of insert port k."""
        return insert_port_fields(self, self.p, k)

    def elaborate(self, platform):
        # Each concern is its own submodule: Amaranth's simulator runs one process per module and
        # re-runs a module only when its inputs change, so small shallow stages keep it fast.
        m = Module()

        def stage(name: str) -> Module:
            sub = Module()
            m.submodules[name] = sub
            return sub

        p, n = self.p, self.p.N
        counters = p.policy in ("most_ready", "least_ready")
        st = IbState(stage("ib_view"), p, counters)
        self.ib_state = st      # the registered IB and DM state, for formal/props_socgpu.py

        # Random policy ([SOCGPU local policy]): 16-bit Fibonacci LFSR seeded with slot + 1,
        # advanced every cycle.
        lfsr = Signal(LFSR_BITS, init=p.slot + 1)
        m.d.sync += lfsr.eq(Cat(lfsr[1:], lfsr[0] ^ lfsr[2] ^ lfsr[3] ^ lfsr[5]))
        start = Signal(range(n))
        if p.policy == "random":
            m.d.comb += start.eq(lfsr % n)
        ms = stage("select_view")
        sel = {"older_rows": st.older, "start": start,
               "younger_rows": st.younger_rows(ms) if p.policy == "youngest" else None,
               "cnt_bits": st.cnt_bits(ms) if counters else None}

        # --- readiness and selection (outputs) ---
        pending, ready = ready_vector(stage("ready_logic"), st, self.rpc_valid, self.rpc)
        m1 = stage("select")
        cand_oh = pick(m1, p.policy, ready, n, "cand_oh", **sel)
        cand_unit = onehot_mux(m1, cand_oh, st.unit, 2, "cand_unit_mux")
        cand2_oh = Signal(n)
        if p.dual != "off":
            m2 = stage("select2")
            ready2 = Signal(n)
            m2.d.comb += ready2.eq(ready & ~cand_oh & self._smart_filter(m2, st, cand_unit))
            m2.d.comb += cand2_oh.eq(pick(m2, p.policy, ready2, n, "cand2_oh", **sel))

        mo = stage("outputs")
        mo.d.comb += [
            self.cand_valid.eq(cand_oh.any()),
            self.cand_idx.eq(one_hot_index(mo, cand_oh, n, "cand_idx_enc")),
            self.cand_unit.eq(cand_unit),
            self.cand_pc.eq(onehot_mux(mo, cand_oh, st.pc, p.PW, "cand_pc_mux")),
            self.cand2_valid.eq(cand2_oh.any()),
            self.cand2_idx.eq(one_hot_index(mo, cand2_oh, n, "cand2_idx_enc")),
            self.cand2_unit.eq(onehot_mux(mo, cand2_oh, st.unit, 2, "cand2_unit_mux")),
        ]
        free_count = Signal(p.FB)
        mo.d.comb += [
            free_count.eq(n - sum(st.valid[i] for i in range(n))),
            self.free_count.eq(free_count),
            self.ins_ready.eq(free_count >= 2),
            self.empty.eq(~st.valid.any()),
        ]

        # --- edge: write-back, grant, flush, insert (our cycle contract) ---
        me = stage("edge_ctrl")
        wb_mask = Signal(n)
        wb_terms = [Mux(self.wb_valid[w],
                        (Const(1, n) << self.wb_idx[w * p.IB:(w + 1) * p.IB])[:n], 0)
                    for w in range(p.W)]
        me.d.comb += wb_mask.eq(_or_all(wb_terms, n))
        live = Signal(n)                 # entries live after write-back ([SOCGPU dependence matrix])
        me.d.comb += live.eq(st.valid & ~wb_mask)

        grant_oh = Signal(n)
        me.d.comb += grant_oh.eq(Mux(self.grant, cand_oh, 0)
                                 | Mux(self.grant & self.grant2, cand2_oh, 0))
        drop = Signal(n)
        me.d.comb += drop.eq(Mux(self.flush, pending & ~grant_oh, 0))

        ma = stage("alloc")
        free = Signal(n)
        ma.d.comb += free.eq(~st.valid)
        alloc0 = first_one_hot(ma, free, n, "alloc0")
        free1 = Signal(n)
        ma.d.comb += free1.eq(free & ~alloc0)
        alloc1 = first_one_hot(ma, free1, n, "alloc1")
        ok0, ok1 = Signal(), Signal()
        ma.d.comb += [ok0.eq(self.ins_valid[0] & free.any() & ~self.flush),
                      ok1.eq(self.ins_valid[1] & ok0 & free1.any())]
        ins_oh = [Signal(n, name="ins0_oh"), Signal(n, name="ins1_oh")]
        ma.d.comb += [ins_oh[0].eq(Mux(ok0, alloc0, 0)), ins_oh[1].eq(Mux(ok1, alloc1, 0))]

        # New DM rows against live entries; port 1 also against port 0, which is older
        # ([SOCGPU dependence matrix]).
        ins = [self._port(0), self._port(1)]
        planes = EntryPlanes(stage("dep_planes"), p, st.src, st.dst)
        rows = []
        for k in range(2):
            md = stage(f"dep_row{k}")
            dep = dep_vector(stage(f"dep_cmp{k}"), md, p, f"dep{k}", ins[k]["src"],
                             ins[k]["dst"], ins[k]["serial"], planes, st.serial, live)
            if k == 0:
                rows.append(dep)
                continue
            on_port0 = Signal(name="dep1_on_port0")
            md.d.comb += on_port0.eq(conflict(
                p, records(ins[1]["src"], p.S, p.RB), records(ins[1]["dst"], p.D, p.RB),
                ins[1]["serial"], records(ins[0]["src"], p.S, p.RB),
                records(ins[0]["dst"], p.D, p.RB), ins[0]["serial"]))
            rows.append(dep | Mux(on_port0, alloc0, 0))

        st.update(stage("ib_update"), wb_mask=wb_mask, grant_oh=grant_oh, drop=drop,
                  ins_oh=ins_oh, ins=ins, rows=rows, ready=ready)
        return m

    def _smart_filter(self, m: Module, st: IbState, cand_unit: Signal) -> Signal:
        """Entries allowed as the second candidate: all (non-smart), or (smart, [SOCGPU dual issue])
        those whose unit differs from ``cand``'s and is free this cycle."""
        n = self.p.N
        out = Signal(n, name="cand2_allowed")
        if self.p.dual != "smart":
            m.d.comb += out.eq(Const((1 << n) - 1, n))
            return out
        terms = []
        for u in range(4):
            is_u = Signal(n, name=f"unit_is_{u}")
            m.d.comb += is_u.eq(Cat(*[un == u for un in st.unit]))
            terms.append(Mux(self.unit_free[u] & (cand_unit != u), is_u, 0))
        m.d.comb += out.eq(_or_all(terms, n))
        return out


def _or_all(terms: list[Value], width: int) -> Value:
    """Balanced OR of equal-width terms (shallow expression trees elaborate and simulate fast)."""
    terms = list(terms) or [Const(0, width)]
    while len(terms) > 1:
        terms = [terms[i] | terms[i + 1] if i + 1 < len(terms) else terms[i]
                 for i in range(0, len(terms), 2)]
    return terms[0]
