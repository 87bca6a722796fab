"""Arithmetic units of the ``kernel_sched`` RTL (hdl/kernel_sched.py), one per policy that needs
one: MPMax's cap search ([SRTF MPMax]), zero-sampling's remaining time ([SRTF zero-sampling]) and
Adaptive's state and spread test ([SRTF SRTF/Adaptive]). Each takes the ``KernelSched`` component
``ks`` (ports and parameters) and adds its logic to the module ``m``; all are combinational
today."""

from __future__ import annotations

from amaranth.hdl import Array, Cat, Const, Module, Mux, Signal

from hdl.params.kernel_sched import NR

def adaptive_state(ks, m, u_run, ev_arr, u_bit, a_bit, run, run_v, samp_v, pair_v,
                   left1, gt) -> dict:
    """Adaptive's per-kernel snapshot fields beyond SRTF's (pred, res; the latest record
    while the kernel ran alone: pred, t), blocks per SM, the pair's T values and the
    shared-pair bits; post-record values for this cycle's decisions."""
    K, CW, RW, BW = ks.K, ks.CW, ks.RW, ks.BW
    arr = Array
    gpred, gres = arr(Signal(CW, name=f"gpred{i}") for i in range(K)), \
        arr(Signal(RW, name=f"gres{i}") for i in range(K))
    gt2 = arr(Signal(CW, name=f"gt2_{i}") for i in range(K))
    apred, at = arr(Signal(CW, name=f"apred{i}") for i in range(K)), \
        arr(Signal(CW, name=f"at{i}") for i in range(K))
    aval, tot = Signal(K, name="aval"), arr(Signal(BW, name=f"tot{i}") for i in range(K))
    k = ks.upd_k
    alone_now = Signal(name="alone_now")
    m.d.comb += alone_now.eq(u_run & run_v & (k == run) & ~samp_v & ~pair_v &
                             left1.bit_select(k, 1))
    gpred2 = [Signal(CW, name=f"gpred2_{i}") for i in range(K)]
    apred2 = [Signal(CW, name=f"apred2_{i}") for i in range(K)]
    gres2 = [Signal(RW, name=f"gres2_{i}") for i in range(K)]
    aval2 = Signal(K, name="aval2")
    for i in range(K):
        hit = u_run & (k == i)
        m.d.comb += [gpred2[i].eq(Mux(hit, ks.upd_pred, gpred[i])),
                     gt2[i].eq(Mux(hit, ks.upd_t, gt[i])),
                     gres2[i].eq(Mux(hit, ks.upd_res, gres[i])),
                     apred2[i].eq(Mux(alone_now & (k == i), ks.upd_pred, apred[i]))]
    m.d.comb += aval2.eq(Mux(alone_now, aval | u_bit, aval))
    with m.If(u_run):
        m.d.sync += [gpred[k].eq(ks.upd_pred), gres[k].eq(ks.upd_res)]
    with m.If(alone_now):
        m.d.sync += [apred[k].eq(ks.upd_pred), at[k].eq(ks.upd_t)]
    m.d.sync += aval.eq(Mux(ev_arr, aval & ~a_bit, aval2))
    with m.If(ev_arr):
        m.d.sync += tot[ks.arr_k].eq((ks.arr_blocks + (ks.NSM - 1)) // ks.NSM)
    ap2, gp2, gr2 = Array(apred2), Array(gpred2), Array(gres2)

    def T(x):
        return Mux(aval2.bit_select(x, 1), ap2[x], gp2[x])
    shared = [[Signal(name=f"shared{i}_{j}") if j > i else None for j in range(K)]
              for i in range(K)]
    return {"gpred2": gp2, "gres2": gr2, "apred": apred, "at": at, "aval": aval,
            "tot": tot, "T": T, "shared": shared, "ts": Signal(CW, name="pair_ts"),
            "tl": Signal(CW, name="pair_tl"), "gt2": gt2}

def spread(ks, m, ad, gvalid2, rmax, p_s, p_l):
    """[SRTF SRTF/Adaptive] leave test in exact integers (the twin's ``_monitor_sharing``):
    |T_S·(P·t·R + X·t_excl) − T_L·P·t·R| ≥ T_S²·t·R with P = G[S].pred, t = G[L].t,
    R = R_L, X = max(Total_L·t − P·res_L, 0); combinational multipliers."""
    CW, RW = ks.CW, ks.RW
    p, t, te, tot = (Signal(CW, name=f"sp_{n}") for n in ("p", "t", "te", "tot"))
    res, r = Signal(RW, name="sp_res"), Signal(RW, name="sp_r")
    m.d.comb += [p.eq(ad["gpred2"][p_s]), t.eq(ad["gt2"][p_l]), res.eq(ad["gres2"][p_l]),
                 te.eq(Mux(ad["aval"].bit_select(p_l, 1), ad["at"][p_l], t)),
                 r.eq(rmax[p_l]), tot.eq(ad["tot"][p_l])]
    ts, tl = ad["ts"], ad["tl"]
    ptr, need, done = Signal(3 * ks.CW), Signal(2 * ks.CW), Signal(2 * ks.CW)
    m.d.comb += [ptr.eq(p * t * r), need.eq(tot * t), done.eq(p * res)]
    x, c = Signal(2 * CW, name="sp_x"), Signal(5 * CW, name="sp_c")
    m.d.comb += [x.eq(Mux(need > done, need - done, 0)), c.eq(ts * ts * t * r)]
    a, b = Signal(5 * ks.CW), Signal(5 * ks.CW)
    m.d.comb += [a.eq(ts * (ptr + x * te)), b.eq(tl * ptr)]
    leave = Signal(name="spread_leave")
    m.d.comb += leave.eq(gvalid2.bit_select(p_s, 1) & gvalid2.bit_select(p_l, 1) &
                         (ts != 0) & (tl != 0) & (t != 0) &
                         (Mux(a > b, a - b, b - a) >= c))
    return leave

def zero_rem(ks, m, d_run):
    """Zero-sampling: per kernel T^SP, B and blocks done (saturating) kept from arrival; at a
    block end of ``done_k`` the new remaining time T^SP · max(B − done, 0) // max(B, 1) by a
    multiply and a CW-step restoring divide (the quotient is at most T^SP < 2**CW)."""
    K, CW, BW = ks.K, ks.CW, ks.BW
    tsp = Array(Signal(CW, name=f"tsp{i}") for i in range(K))
    nblk = Array(Signal(BW, name=f"nblk{i}") for i in range(K))
    done = Array(Signal(BW, name=f"done{i}") for i in range(K))
    k = ks.done_k
    with m.If(ks.arr_valid & ks.arr_ready):
        m.d.sync += [tsp[ks.arr_k].eq(ks.arr_tsp), nblk[ks.arr_k].eq(ks.arr_blocks),
                     done[ks.arr_k].eq(0)]
    d1 = Signal(BW, name="z_done")
    m.d.comb += d1.eq(Mux(done[k] == (1 << BW) - 1, done[k], done[k] + 1))
    with m.If(d_run):
        m.d.sync += done[k].eq(d1)
    b = nblk[k]
    left = Signal(BW, name="z_left")
    m.d.comb += left.eq(Mux(b > d1, b - d1, 0))
    num = Signal(CW + BW, name="z_num")
    div = Signal(BW, name="z_div")
    m.d.comb += [num.eq(tsp[k] * left), div.eq(Mux(b == 0, 1, b))]
    r, q = num[CW:], []
    for i in reversed(range(CW)):           # one signal per stage keeps the netlist linear
        r2, fits, r_next = Signal(BW + 1, name=f"z_r2_{i}"), Signal(name=f"z_q{i}"), \
            Signal(BW, name=f"z_r{i}")
        m.d.comb += [r2.eq(Cat(num[i], r)), fits.eq(r2 >= div),
                     r_next.eq(Mux(fits, r2 - div, r2))]
        q.append(fits)
        r = r_next
    rem = Signal(CW, name="z_rem")
    m.d.comb += rem.eq(Cat(*reversed(q)))
    return rem

def mpmax_caps(ks, m, running, rmax, fp) -> list:
    """MPMax caps ([SRTF MPMax]) from the registers: per kernel k and resource r, comp = the
    largest footprint of a running co-runner, then the largest c <= R_k with c · fp_k <=
    L − comp by a binary search over the RW bits (no divider); cap = max(1, min over r),
    R_k when k runs alone. The co-runner maxima stay here (their compare chains are shared
    between kernels); the search, per kernel, is a submodule ``mpmax_cap{k}`` with the same
    RTLIL body for every k, which the area flow prices once (synth/area.py ``merge_replicas``)."""
    K, RW, FW = ks.K, ks.RW, ks.FW
    caps = []
    for k in range(K):
        others = [j for j in range(K) if j != k]
        comps = []
        for r in range(NR):
            comp = Const(0, FW)
            for j in others:
                f = Mux(running[j], fp[j][r], 0)
                comp = Mux(f > comp, f, comp)
            comps.append(comp)
        alone = ~Cat(running[j] for j in others).any()
        caps.append(_mpmax_search(ks, m, k, Cat(rmax[k], alone, *(fp[k][r] for r in range(NR)),
                                                   *comps)))
    return caps


def _mpmax_search(ks, m, k, args):
    """Kernel k's cap from ``args`` = (R_k, alone, its footprint, the co-runner maxima), in
    the submodule ``mpmax_cap{k}``. One input port (the `^ 0` makes ``args`` one net of the
    parent; a bare Cat would become one port per source, ordered differently for every k)."""
    RW, FW = ks.RW, ks.FW
    u = Module()
    m.submodules[f"mpmax_cap{k}"] = u
    inp = Signal(RW + 1 + 2 * NR * FW, name="inp")
    m.d.comb += inp.eq(args ^ 0)
    own_max, alone = inp[:RW], inp[RW]
    field = lambda i: inp[RW + 1 + i * FW: RW + 1 + (i + 1) * FW]
    best = own_max
    for r, limit in enumerate(ks.limits):
        need, comp = field(r), field(NR + r)
        avail = Signal(FW + 1, name=f"avail_{r}")
        u.d.comb += avail.eq(Mux(comp >= limit, 0, limit - comp))
        c = Const(0, RW)
        for b in reversed(range(RW)):
            trial = c | (1 << b)
            c = Mux(trial * need <= avail, trial, c)
        c_r = Signal(RW, name=f"mcap_{r}")
        u.d.comb += c_r.eq(Mux(need == 0, (1 << RW) - 1, c))
        best = Mux(c_r < best, c_r, best)
    cap = Signal(RW, name="mcap")
    u.d.comb += cap.eq(Mux(alone, own_max, Mux(best == 0, 1, best)))
    return cap
