"""Kernel-scheduler controller, policies ``fifo``, ``srtf``, ``mpmax``, ``srtf_zero`` and
``adaptive`` ([SRTF FIFO, MPMax, SRTF/Adaptive, SJF]).

Port contract and RTL scope: hdl/params/kernel_sched.py; the twin is ``KernelSchedPorts`` in
sim/blocks/kernel_sched.py (the method-level ``KernelSchedTwin`` behind ports), whose choices this
RTL implements: the waiting list in arrival order (an age matrix), next() = argmin of the snapshot
remaining times with ties to the older kernel, else the oldest waiting kernel; one sample at a time
on SM 0, decided at its first record from SM 0 once ``run`` has a snapshot, ended without a
decision if it becomes ``run`` at an end; strict ``<`` (h = 0);
tail back-fill of next() once ``run`` has no undispatched block. MPMax: every running kernel on
every SM in arrival order, capped by a search over the stored footprints. The arithmetic
(MPMax's search, zero-sampling's divide, Adaptive's spread test) is hdl/kernel_sched_units.py.
Zero-sampling SRTF: the SRTF rows without a sample, G[k].rem = T^SP at arrival and
T^SP · unfinished // B at each block end (``_zero_rem``), a switch when next() is strictly shorter.
"""

from __future__ import annotations

from amaranth.hdl import Array, Cat, Const, Module, Mux, Signal
from amaranth.lib import wiring

from hdl import kernel_sched_units as units
from hdl.common import signature_of
from hdl.params.kernel_sched import GTX480_LIMITS, NR, POLICIES, kw_of, limits_of, ports
from hdl.params.srtf_pred import CTL_CAP, CTL_END, CTL_LAUNCH, CTL_SEED

SHARE_CAP = 3       # blocks per SM of the shorter kernel while sharing ([SRTF SRTF/Adaptive])


class KernelSched(wiring.Component):
    def __init__(self, K: int = 8, NSM: int = 15, CW: int = 32, BW: int = 16, RW: int = 5,
                 policy: str = "srtf", ties_switch: bool = False, FW: int = 16,
                 LIMITS: str = GTX480_LIMITS):
        """``ties_switch``: mutant for the tests, ``<=`` instead of ``<`` in the switch decisions."""
        if policy not in POLICIES:
            raise ValueError(f"policy = {policy!r}: allowed: {', '.join(POLICIES)}")
        self.K, self.NSM, self.CW, self.BW, self.RW, self.policy = K, NSM, CW, BW, RW, policy
        self.kw, self.ties_switch, self.FW = kw_of(K), ties_switch, FW
        self.limits = limits_of(LIMITS)
        if any(v >> FW for v in self.limits):
            raise ValueError(f"LIMITS = {LIMITS!r}: every limit must be below 2**FW = {1 << FW}")
        super().__init__(signature_of(ports(K, NSM, CW, BW, RW, FW)))

    def elaborate(self, platform):
        m = Module()
        K, kw, CW, RW = self.K, self.kw, self.CW, self.RW
        zero, adaptive = self.policy == "srtf_zero", self.policy == "adaptive"
        srtf = self.policy in ("srtf", "srtf_zero", "adaptive")   # SRTF rows (zero: no sample)

        def sig(w, name, init=0):
            return Signal(w, name=name, init=init)
        running, left, gvalid, end_pend = sig(K, "running"), sig(K, "left"), sig(K, "gvalid"), sig(K, "end_pend")
        rmax = Array(sig(RW, f"rmax{i}", 1) for i in range(K))
        grem = Array(sig(CW, f"grem{i}") for i in range(K))
        gt = Array(sig(CW, f"gt{i}") for i in range(K))
        older = [[sig(1, f"older{i}_{j}") for j in range(K)] for i in range(K)]
        run, run_v, samp, samp_v, samp_ready = self.run, self.run_valid, self.samp, self.samp_valid, sig(1, "samp_ready")
        pair_v, p_s, p_l = sig(1, "pair_v"), sig(kw, "pair_s"), sig(kw, "pair_l")   # Adaptive

        def onehot_index(onehot, name):
            idx = Signal(kw, name=name)
            for i in range(K):
                with m.If(onehot[i]):
                    m.d.comb += idx.eq(i)
            return idx

        def oldest(mask, name):
            win = Cat(mask[i] & Cat(~mask[j] | older[i][j] for j in range(K) if j != i).all()
                      for i in range(K))
            return mask != 0, onehot_index(win, name)

        def next_of(mask, gv, rems, name):
            """argmin of rems over mask & gv (ties: older), else the oldest of mask."""
            known = Signal(K, name=f"{name}_known")
            m.d.comb += known.eq(mask & gv)
            win = Cat(known[i] & Cat(~known[j] | (rems[i] < rems[j]) | ((rems[i] == rems[j]) & older[i][j])
                                     for j in range(K) if j != i).all() for i in range(K))
            arg = onehot_index(win, f"{name}_arg")
            any_v, old = oldest(mask, f"{name}_old")
            idx = Signal(kw, name=name)
            m.d.comb += idx.eq(Mux(known != 0, arg, old))
            return any_v, idx

        def better(a, b):
            return a <= b if self.ties_switch else a < b

        # -- outputs decoded from the registers ------------------------------------------------------
        busy = Signal()
        m.d.comb += [busy.eq(self.ctl_valid | (end_pend != 0)), self.arr_ready.eq(~busy),
                     self.done_ready.eq(~busy & ~self.arr_valid),
                     self.upd_ready.eq(~busy & ~self.arr_valid & ~self.done_valid)]
        run_bit = Signal(K)
        m.d.comb += run_bit.eq(Mux(run_v, Const(1, K) << run, 0))
        mpmax = self.policy == "mpmax"
        fp = [[sig(self.FW, f"fp{i}_{r}") for r in range(NR)] for i in range(K)]
        for k in range(K):          # prio: rank among the running kernels in arrival order
            rank = sum((running[j] & older[j][k] for j in range(K) if j != k), Const(0, kw + 1))
            m.d.comb += self.prio.word_select(k, kw).eq(Mux(running[k], rank, 0))
        if srtf:
            fill_v, fill_k = next_of(running & ~run_bit, gvalid, grem, "fill")
            backfill = run_v & ~left.bit_select(run, 1) & fill_v
        elif mpmax:
            head_v, head = oldest(running, "head")
            mcap = units.mpmax_caps(self, m, running, rmax, fp)
        else:
            head_v, head = oldest(running & left, "head")
        for s in range(self.NSM):
            if mpmax:
                m.d.comb += self.first.word_select(s, kw).eq(Mux(head_v, head, 0))
                for k in range(K):
                    m.d.comb += [self.allow[s * K + k].eq(running[k]),
                                 self.cap.word_select(s * K + k, RW).eq(
                                     Mux(running[k], mcap[k], 0))]
                continue
            if srtf:
                sampling = samp_v if s == 0 else Const(0)
                first_k = Mux(sampling, samp, Mux(pair_v, p_s, run))
                en_first = sampling | run_v
                en_fill = ~sampling & (pair_v | backfill)
                fill = Mux(pair_v, p_l, fill_k)
            else:
                first_k, en_first, en_fill, fill = head, head_v, Const(0), head
            m.d.comb += self.first.word_select(s, kw).eq(Mux(en_first, first_k, 0))
            for k in range(K):
                on = (en_first & (first_k == k)) | (en_fill & (fill == k))
                cap_k = Mux(pair_v & (p_s == k), Mux(rmax[k] > SHARE_CAP, SHARE_CAP, rmax[k]),
                            rmax[k])
                m.d.comb += [self.allow[s * K + k].eq(on),
                             self.cap.word_select(s * K + k, RW).eq(Mux(on, cap_k, 0))]

        # -- command register ----------------------------------------------------------------------
        q_v = [sig(1, "q1_v"), sig(1, "q2_v")]          # CAP commands waiting behind ctl_*
        q_k = [sig(kw, "q1_k"), sig(kw, "q2_k")]
        q_res = [sig(RW, "q1_res"), sig(RW, "q2_res")]
        with m.If(self.ctl_valid & self.ctl_ready):
            m.d.sync += [self.ctl_valid.eq(q_v[0]), q_v[0].eq(q_v[1]), q_k[0].eq(q_k[1]),
                         q_res[0].eq(q_res[1]), q_v[1].eq(0)]
            with m.If(q_v[0]):
                m.d.sync += [self.ctl_kind.eq(CTL_CAP), self.ctl_k.eq(q_k[0]),
                             self.ctl_total.eq(0), self.ctl_res.eq(q_res[0]), self.ctl_t.eq(0)]

        issued = Signal()               # an event's first command went to ctl_* this cycle

        def command(kind, k, total=0, res=0, t=0, first=True):
            if first:
                m.d.comb += issued.eq(1)
            m.d.sync += [self.ctl_valid.eq(1), self.ctl_kind.eq(kind), self.ctl_k.eq(k),
                         self.ctl_total.eq(total), self.ctl_res.eq(res), self.ctl_t.eq(t)]

        # -- one event per cycle ----------------------------------------------------------------------
        m.d.sync += end_pend.eq(end_pend | self.kernel_end)
        left1 = Signal(K)
        m.d.comb += left1.eq(left & ~self.all_dispatched)
        ev_end, ev_arr, ev_upd, ev_done = Signal(), Signal(), Signal(), Signal()
        m.d.comb += [ev_end.eq(~self.ctl_valid & (end_pend != 0)),
                     ev_arr.eq(~busy & self.arr_valid),
                     ev_done.eq(~busy & ~self.arr_valid & self.done_valid),
                     ev_upd.eq(~busy & ~self.arr_valid & ~self.done_valid & self.upd_valid)]
        e_bit = Signal(K)
        m.d.comb += e_bit.eq(end_pend & (~end_pend + 1))
        e_k = onehot_index(e_bit, "e_k")
        a_bit, u_bit = Signal(K), Signal(K)
        m.d.comb += [a_bit.eq(Const(1, K) << self.arr_k), u_bit.eq(Const(1, K) << self.upd_k)]
        u_run, d_run = Signal(), Signal()     # a record / block end of a running kernel
        if not zero:                          # zero-sampling ignores the records
            m.d.comb += u_run.eq(ev_upd & running.bit_select(self.upd_k, 1))
        if zero:
            m.d.comb += d_run.eq(ev_done & running.bit_select(self.done_k, 1))
            z_rem = units.zero_rem(self, m, d_run)

        # post-event state, used by the decisions of this cycle
        running2, left2, gvalid2 = Signal(K), Signal(K), Signal(K)
        grem2 = [Signal(CW, name=f"grem2_{i}") for i in range(K)]
        m.d.comb += [running2.eq(running), left2.eq(left1), gvalid2.eq(gvalid)]
        for i in range(K):
            m.d.comb += grem2[i].eq(Mux(u_run & (self.upd_k == i), self.upd_rem, grem[i]))
            if zero:
                with m.If(ev_arr & (self.arr_k == i)):
                    m.d.comb += grem2[i].eq(self.arr_tsp)
                with m.If(d_run & (self.done_k == i)):
                    m.d.comb += grem2[i].eq(z_rem)
        ended = Signal()
        m.d.comb += ended.eq(ev_end & (running & e_bit).any())
        with m.If(ended):
            m.d.comb += [running2.eq(running & ~e_bit), left2.eq(left1 & ~e_bit),
                         gvalid2.eq(gvalid & ~e_bit)]
        with m.Elif(ev_arr):
            m.d.comb += [running2.eq(running | a_bit),
                         gvalid2.eq(gvalid | a_bit if zero else gvalid & ~a_bit),
                         left2.eq(Mux(self.arr_blocks != 0, left1 | a_bit, left1 & ~a_bit))]
        with m.Elif(u_run):
            m.d.comb += gvalid2.eq(gvalid | u_bit)
        m.d.sync += [running.eq(running2), left.eq(left2), gvalid.eq(gvalid2)]
        with m.If(u_run):
            m.d.sync += [grem[self.upd_k].eq(self.upd_rem), gt[self.upd_k].eq(self.upd_t)]
        if zero:
            m.d.sync += [grem[i].eq(grem2[i]) for i in range(K)]
        if adaptive:
            ad = units.adaptive_state(self, m, u_run, ev_arr, u_bit, a_bit, run, run_v, samp_v, pair_v,
                                      left1, gt)

        with m.If(ev_end):
            m.d.sync += end_pend.eq((end_pend & ~e_bit) | self.kernel_end)
            with m.If(ended):
                command(CTL_END, e_k)
        with m.If(ev_arr):
            total = (self.arr_blocks + (self.NSM - 1)) // self.NSM
            command(CTL_LAUNCH, self.arr_k, total, self.arr_R)
            m.d.sync += rmax[self.arr_k].eq(Mux(self.arr_R == 0, 1, self.arr_R))
            for i in range(K):
                with m.If(self.arr_k == i):
                    if mpmax:           # footprints are kept for the MPMax caps only
                        m.d.sync += [fp[i][r].eq(self.arr_fp.word_select(r, self.FW))
                                     for r in range(NR)]
                    m.d.sync += [older[j][i].eq(1) for j in range(K) if j != i]
                    m.d.sync += [older[i][j].eq(0) for j in range(K) if j != i]
        if not srtf:
            return m

        # -- SRTF decisions on the post-event state ---------------------------------------------------
        run2, run2_v, samp2_v, ready2 = Signal(kw), Signal(), Signal(), Signal()
        m.d.comb += [run2.eq(run), run2_v.eq(run_v), samp2_v.eq(samp_v), ready2.eq(samp_ready)]
        pair2_v, c2_v = Signal(), Signal()  # Adaptive: sharing after leaving; S's CAP at L's end
        m.d.comb += pair2_v.eq(pair_v)
        nx_mask = Signal(K)
        m.d.comb += nx_mask.eq(Mux(ended, running2, running2 & ~run_bit))
        nx_v, nx = next_of(nx_mask, gvalid2, grem2, "nx")
        g2 = Array(grem2)
        g_run = gvalid2.bit_select(run, 1)
        with m.If(ended):
            with m.If(samp_v & (samp == e_k)):
                m.d.comb += [samp2_v.eq(0), ready2.eq(0)]
            with m.If(run_v & (run == e_k)):
                m.d.comb += [run2.eq(nx), run2_v.eq(nx_v)]
                with m.If(samp_v & nx_v & (samp == nx)):      # the sample became run: it ends
                    m.d.comb += [samp2_v.eq(0), ready2.eq(0)]
            if adaptive:        # sharing ends with S or L; L's end gives S its R back
                with m.If(pair_v & ((e_k == p_s) | (e_k == p_l))):
                    m.d.comb += pair2_v.eq(0)
                    m.d.comb += c2_v.eq(e_k == p_l)
        with m.Elif(ev_arr & ~run_v):
            m.d.comb += [run2.eq(self.arr_k), run2_v.eq(1)]
        with m.Elif((ev_arr | d_run) if zero else 0):        # the oracle's switch ([SRTF zero-sampling])
            with m.If(nx_v & better(g2[nx], g2[run])):
                m.d.comb += run2.eq(nx)
        with m.Elif(u_run):
            with m.If(pair_v if adaptive else Const(0)):
                if adaptive:
                    with m.If(units.spread(self, m, ad, gvalid2, rmax, p_s, p_l)):
                        m.d.comb += pair2_v.eq(0)
                        command(CTL_CAP, p_s, res=rmax[p_s])
            with m.Elif(samp_v):
                r = samp_ready | ((self.upd_k == samp) & (self.upd_sm == 0))
                m.d.comb += ready2.eq(r)
                with m.If(r & g_run):
                    m.d.comb += [samp2_v.eq(0), ready2.eq(0)]
                    with m.If(better(g2[samp], g2[run])):
                        m.d.comb += run2.eq(samp)
                        command(CTL_SEED, samp, t=Mux(self.upd_k == samp, self.upd_t, gt[samp]))
            with m.Elif(run_v & g_run):
                with m.If(nx_v & gvalid2.bit_select(nx, 1) & better(g2[nx], g2[run])):
                    m.d.comb += run2.eq(nx)
        # sampling start: the oldest waiting kernel without a snapshot and with blocks left
        run2_bit = Signal(K)
        m.d.comb += run2_bit.eq(Mux(run2_v, Const(1, K) << run2, 0))
        cand_v, cand = oldest(running2 & ~run2_bit & ~gvalid2 & left2, "cand")
        samp3_v, samp3 = Signal(), Signal(kw)
        m.d.comb += [samp3_v.eq(samp2_v), samp3.eq(samp)]
        event = ended | ev_arr | u_run
        with m.If(event & ~samp2_v & run2_v & left2.bit_select(run2, 1) & cand_v & (not zero)):
            m.d.comb += [samp3_v.eq(1), samp3.eq(cand), ready2.eq(0)]
        m.d.sync += [run.eq(Mux(run2_v, run2, 0)), run_v.eq(run2_v),
                     samp.eq(Mux(samp3_v, samp3, 0)), samp_v.eq(samp3_v),
                     samp_ready.eq(ready2)]
        if not adaptive:
            return m

        # -- Adaptive: enter sharing after the decisions (S = run, L = next()) ----------------------
        lnx_v, lnx = next_of(running2 & ~run2_bit, gvalid2, grem2, "lnx")
        t_run, t_lnx = Signal(CW, name="t_run"), Signal(CW, name="t_lnx")
        m.d.comb += [t_run.eq(ad["T"](run2)), t_lnx.eq(ad["T"](lnx))]
        sh = ad["shared"]
        shared_pair = Signal()
        for i in range(K):
            for j in range(K):
                if i != j:
                    with m.If((run2 == i) & (lnx == j)):
                        m.d.comb += shared_pair.eq(sh[min(i, j)][max(i, j)])
        enter = Signal()
        m.d.comb += enter.eq((u_run | ended) & ~pair2_v & ~samp3_v & run2_v & lnx_v &
                             gvalid2.bit_select(run2, 1) & gvalid2.bit_select(lnx, 1) &
                             ~shared_pair & ((t_run << 1) > t_lnx))
        m.d.sync += pair_v.eq(pair2_v | enter)
        m.d.comb += self.mode.eq(pair_v)
        c3_res = Signal(RW)
        m.d.comb += c3_res.eq(Mux(rmax[run2] > SHARE_CAP, SHARE_CAP, rmax[run2]))
        with m.If(enter):
            m.d.sync += [p_s.eq(run2), p_l.eq(lnx), ad["ts"].eq(t_run), ad["tl"].eq(t_lnx)]
            for i in range(K):
                for j in range(i + 1, K):
                    with m.If(((run2 == i) & (lnx == j)) | ((run2 == j) & (lnx == i))):
                        m.d.sync += sh[i][j].eq(1)
        with m.If(issued):                  # the CAP commands queue behind the first one
            with m.If(c2_v):
                m.d.sync += [q_v[0].eq(1), q_k[0].eq(p_s), q_res[0].eq(rmax[p_s]),
                             q_v[1].eq(enter), q_k[1].eq(run2), q_res[1].eq(c3_res)]
            with m.Elif(enter):
                m.d.sync += [q_v[0].eq(1), q_k[0].eq(run2), q_res[0].eq(c3_res)]
        with m.Elif(enter):
            command(CTL_CAP, run2, res=c3_res, first=False)
        with m.If(ev_arr):                  # a new kernel in the slot: no pair has shared
            for i in range(K):
                for j in range(i + 1, K):
                    with m.If((self.arr_k == i) | (self.arr_k == j)):
                        m.d.sync += sh[i][j].eq(0)
        return m
