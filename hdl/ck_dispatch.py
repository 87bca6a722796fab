"""Kernel Status Block + Core Status Block + concurrent-kernel dispatcher ([THESIS §5.4]),
policies baseline, sequential and interleaved. Port contract: hdl/params/ck_dispatch.py; twin:
sim/blocks/ck_dispatch.py (its docstring lists the encoding choices this RTL shares).

Registers: per KSB row Valid, Kernel index, Grid, Next block, the two maxima (full, share),
Num. active cores, and a K × K age matrix (sequential only); per (core, row) the CSB's count of
active blocks. Everything else is decoded combinationally each cycle.
"""

from __future__ import annotations

from amaranth.hdl import Array, Cat, Const, Module, Mux, Signal
from amaranth.lib import wiring

from hdl.common import first_one_hot, one_hot_index, signature_of
from hdl.params.ck_dispatch import KIDW, POLICIES, ports


class CkDispatch(wiring.Component):
    def __init__(self, K: int = 16, NC: int = 16, BW: int = 16, MW: int = 4,
                 policy: str = "interleaved", cap_off_by_one: bool = False):
        """``cap_off_by_one``: mutant for the tests, ``count <= cap`` instead of ``count < cap``."""
        if policy not in POLICIES:
            raise ValueError(f"policy = {policy!r}: allowed: {', '.join(POLICIES)}")
        self.K, self.NC, self.BW, self.MW, self.policy = K, NC, BW, MW, policy
        self.cap_off_by_one = cap_off_by_one
        super().__init__(signature_of(ports(K, NC, BW, MW)))

    def elaborate(self, platform):
        m = Module()
        K, NC, BW, MW = self.K, self.NC, self.BW, self.MW
        AW = NC.bit_length()
        valid = Signal(K, name="valid")
        kid = [Signal(KIDW, name=f"kid{k}") for k in range(K)]
        grid = [Signal(BW, name=f"grid{k}") for k in range(K)]
        nxt = [Signal(BW, name=f"next{k}") for k in range(K)]
        full = [Signal(MW, name=f"full{k}") for k in range(K)]
        share = [Signal(MW, name=f"share{k}") for k in range(K)]
        act = [Signal(AW, name=f"act{k}") for k in range(K)]
        count = [[Signal(MW, name=f"cnt{c}_{k}") for k in range(K)] for c in range(NC)]

        # -- decoded state ---------------------------------------------------------------------
        left = Signal(K, name="left")
        m.d.comb += left.eq(Cat(valid[k] & (nxt[k] != grid[k]) for k in range(K)))
        cap = [Signal(MW, name=f"cap{k}") for k in range(K)]
        for k in range(K):
            if self.policy == "interleaved":
                alone = left[k] & ((left & ~Const(1 << k, K)) == 0)
                m.d.comb += cap[k].eq(Mux(valid[k], Mux(alone, full[k], share[k]), 0))
            else:
                m.d.comb += cap[k].eq(Mux(valid[k], full[k], 0))
        m.d.comb += [self.valid.eq(valid), self.issued_all.eq(valid & ~left),
                     self.max_blocks.eq(Cat(*cap)), self.kid.eq(Cat(*kid))]

        below = [[Signal(name=f"below{c}_{k}") for k in range(K)] for c in range(NC)]
        for c in range(NC):
            for k in range(K):
                cmp = count[c][k] <= cap[k] if self.cap_off_by_one else count[c][k] < cap[k]
                m.d.comb += below[c][k].eq(left[k] & cmp)

        allow_bits = []
        if self.policy == "baseline":
            # rank[k] = rows with blocks left before k; core c takes the (c mod n)-th of the n rows
            rank = [Signal(range(K + 1), name=f"rank{k}") for k in range(K)]
            n_left = Signal(range(K + 1), name="n_left")
            for k in range(K):
                m.d.comb += rank[k].eq(sum(left[j] for j in range(k)) if k else 0)
            m.d.comb += n_left.eq(sum(left[j] for j in range(K)))
            for c in range(NC):
                mod = Array(Const(c % n if n else 0, range(K + 1)) for n in range(K + 1))
                want = Signal(range(K + 1), name=f"want{c}")
                held = Signal(K, name=f"held{c}")
                m.d.comb += [want.eq(mod[n_left]), held.eq(Cat(count[c][k] != 0 for k in range(K)))]
                for k in range(K):
                    alone = (held & ~Const(1 << k, K)) == 0
                    allow_bits.append(below[c][k] & (rank[k] == want) & alone)
        elif self.policy == "sequential":
            older = [[Signal(name=f"older{i}_{j}") for j in range(K)] for i in range(K)]
            oldest = Signal(K, name="oldest")
            m.d.comb += oldest.eq(Cat(left[i] & Cat(~left[j] | older[i][j] for j in range(K) if j != i).all()
                                      for i in range(K)))
            for c in range(NC):
                for k in range(K):
                    allow_bits.append(below[c][k] & oldest[k])
        else:
            for c in range(NC):
                for k in range(K):
                    allow_bits.append(below[c][k])
        allow = Signal(NC * K, name="allow_v")
        m.d.comb += [allow.eq(Cat(*allow_bits)), self.allow.eq(allow)]

        # -- events ----------------------------------------------------------------------------
        issue_ok = Signal(name="issue_ok_v")
        m.d.comb += issue_ok.eq(self.issue_valid & (self.issue_core < NC)
                                & allow.bit_select(self.issue_core * K + self.issue_k, 1))
        m.d.comb += self.issue_ok.eq(issue_ok)
        up = [[] for _ in range(K)]
        down = [[] for _ in range(K)]
        for c in range(NC):
            for k in range(K):
                inc = Signal(name=f"inc{c}_{k}")
                dec = Signal(name=f"dec{c}_{k}")
                new = Signal(MW, name=f"new{c}_{k}")
                m.d.comb += [inc.eq(issue_ok & (self.issue_core == c) & (self.issue_k == k)),
                             dec.eq(self.done_valid & (self.done_core == c) & (self.done_k == k)),
                             new.eq(count[c][k] + inc - dec)]
                m.d.sync += count[c][k].eq(new)
                up[k].append((count[c][k] == 0) & (new != 0))
                down[k].append((count[c][k] != 0) & (new == 0))
        complete = Signal(K, name="complete_v")
        for k in range(K):
            act_new = Signal(AW, name=f"act_new{k}")
            m.d.comb += act_new.eq(act[k] + Cat(*up[k]).any() - Cat(*down[k]).any())
            m.d.sync += act[k].eq(act_new)
            m.d.comb += complete[k].eq(valid[k] & ~left[k] & (act_new == 0))
            with m.If(issue_ok & (self.issue_k == k)):
                m.d.sync += nxt[k].eq(nxt[k] + 1)
        m.d.comb += self.complete.eq(complete)

        free = first_one_hot(m, ~valid, K, "free")
        row = one_hot_index(m, free, K, "free_row")
        m.d.comb += [self.launch_ok.eq(free != 0), self.launch_row.eq(row)]
        take = Signal(K, name="take")
        m.d.comb += take.eq(Mux(self.launch_valid, free, 0))
        m.d.sync += valid.eq((valid & ~complete) | take)
        for k in range(K):
            with m.If(take[k]):
                m.d.sync += [kid[k].eq(self.launch_kid), grid[k].eq(self.launch_blocks), nxt[k].eq(0),
                             full[k].eq(self.launch_full), share[k].eq(self.launch_share), act[k].eq(0)]
        if self.policy == "sequential":
            for i in range(K):
                for j in range(K):
                    if i != j:
                        with m.If(take[i]):
                            m.d.sync += older[i][j].eq(0)
                        with m.Elif(take[j]):
                            m.d.sync += older[i][j].eq(1)
        return m
