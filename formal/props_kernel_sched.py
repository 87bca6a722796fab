"""kernel_sched invariants ([SRTF FIFO]; the checks are ours) on the dispatcher rows, from the ports
only: an allowed kernel has a cap of at least 1 and a kernel not allowed a cap of 0; each SM's
``first`` is one of its allowed kernels; FIFO allows one kernel, the same on every SM; SRTF
allows at most two kernels per SM (``run`` and the tail back-fill), ``run`` first outside the
sample; while sampling, SM 0 allows only the sample; no sample without a running kernel.
Zero-sampling SRTF: the SRTF invariants, and it never samples. MPMax: every SM has the same
row and caps; with two running kernels, a kernel whose cap is above 1 leaves room, in every
resource it uses, for one block of the other (footprints from shadow registers of ``arr_fp``).
"""

from __future__ import annotations

from amaranth.hdl import Cat, Const, Module, Mux, Signal

from formal.props import PropsTop


class KernelSchedProps(PropsTop):
    name = "kernel_sched"

    def properties(self, m: Module, dut) -> None:
        shape = getattr(dut, "inner", dut)          # a mutant shell keeps the block inside
        K, NSM, RW = shape.K, shape.NSM, shape.RW
        srtf, mpmax = shape.policy in ("srtf", "srtf_zero", "adaptive"), shape.policy == "mpmax"
        kw = max(1, shape.kw)

        def allow(s):
            return dut.allow[s * K:(s + 1) * K]

        def caps(s):
            return dut.cap[s * K * RW:(s + 1) * K * RW]

        def count(bits):
            return sum((bits[i] for i in range(len(bits))), Const(0, 4))

        for s in range(NSM):
            row, first = allow(s), dut.first[s * kw:(s + 1) * kw]
            for k in range(K):
                cap = dut.cap[(s * K + k) * RW:(s * K + k + 1) * RW]
                self.invariant(m, "allowed iff the cap is at least 1", row[k] == (cap != 0))
            self.invariant(m, "first is an allowed kernel", (row == 0) | row.bit_select(first, 1))
            if mpmax:
                self.invariant(m, "mpmax: every SM has SM 0's row and caps",
                               (row == allow(0)) & (caps(s) == caps(0)))
                continue
            if not srtf:
                self.invariant(m, "fifo: one kernel per SM, the same on every SM",
                               (count(row) <= 1) & (row == allow(0)))
                continue
            self.invariant(m, "srtf: at most two kernels per SM", count(row) <= 2)
            run_bit = Mux(dut.run_valid, Const(1, K) << dut.run, 0)
            samp_bit = Mux(dut.samp_valid, Const(1, K) << dut.samp, 0)
            if s == 0:
                self.invariant(m, "srtf: while sampling SM 0 allows only the sample",
                               ~dut.samp_valid | (row == samp_bit))
                outside = ~dut.samp_valid
            else:
                outside = Const(1)
            self.invariant(m, "srtf: outside the sample, run is allowed and first",
                           ~outside | ~dut.run_valid | ((row & run_bit) != 0) & (first == dut.run))
            self.invariant(m, "srtf: nothing allowed without a running kernel",
                           dut.run_valid | (row == 0))
        if srtf:
            self.invariant(m, "srtf: no sample without a running kernel",
                           ~dut.samp_valid | dut.run_valid)
        if shape.policy == "srtf_zero":
            self.invariant(m, "srtf_zero: never samples", ~dut.samp_valid)
        if shape.policy == "adaptive":
            for s in range(NSM):
                row, first = allow(s), dut.first[s * kw:(s + 1) * kw]
                first_cap = Const(0, RW)
                for k in range(K):
                    first_cap = Mux(first == k, dut.cap[(s * K + k) * RW:(s * K + k + 1) * RW],
                                    first_cap)
                self.invariant(m, "adaptive: while sharing, two kernels on every SM, the "
                               "shorter first with a cap of at most 3",
                               ~dut.mode | (count(row) == 2) & (first_cap <= 3) |
                               (dut.samp_valid & (s == 0)))
            self.invariant(m, "adaptive: sharing only with a running kernel",
                           ~dut.mode | dut.run_valid)
        else:
            self.invariant(m, "no sharing outside Adaptive", ~dut.mode)
        if mpmax:
            self._reservation(m, dut, shape)

    def _reservation(self, m: Module, dut, shape) -> None:
        """our test plan for [SRTF]: a kernel at a cap above 1 leaves room for one block of the
        other."""
        K, RW, FW, limits = shape.K, shape.RW, shape.FW, shape.limits
        fp = [Signal(len(dut.arr_fp), name=f"fp_shadow{k}") for k in range(K)]
        for k in range(K):
            with m.If(dut.arr_valid & dut.arr_ready & (dut.arr_k == k)):
                m.d.sync += fp[k].eq(dut.arr_fp)
        row = dut.allow[:K]
        for k in range(K):
            cap = dut.cap[k * RW:(k + 1) * RW]
            for j in range(K):
                if j == k:
                    continue
                for r, limit in enumerate(limits):
                    need, comp = fp[k][r * FW:(r + 1) * FW], fp[j][r * FW:(r + 1) * FW]
                    self.invariant(m, "mpmax: a cap above 1 leaves room for one block of the "
                                   "other", ~row[k] | ~row[j] | (cap <= 1) | (need == 0) |
                                   (cap * need + comp <= limit))


def mutant_run_on_sample_sm(m: Module, inner) -> dict:
    """SM 0 keeps dispatching ``run`` while it samples (a mutant our test plan for [SRTF] lists)."""
    K, RW = inner.K, inner.RW
    run_bit = Mux(inner.run_valid, Const(1, K) << inner.run, 0)
    extra = Mux(inner.samp_valid, run_bit, 0)           # SM 0's row: the first K allow bits
    cap_one = Cat(*(Cat(extra[k], Const(0, RW - 1)) for k in range(K)))
    return {"allow": inner.allow | extra, "cap": inner.cap | cap_one}


def mutant_fifo_bypass(m: Module, inner) -> dict:
    """FIFO lets the next kernel slot bypass on the last SM (a mutant our test plan for [SRTF]
    lists)."""
    K, RW, NSM = inner.K, inner.RW, inner.NSM
    row = inner.allow[(NSM - 1) * K:NSM * K]
    nxt = Cat(row[K - 1], row[:K - 1])                   # the slot after each allowed one
    extra = Cat(Const(0, (NSM - 1) * K), nxt)
    cap_one = Cat(*(Cat(extra[i], Const(0, RW - 1)) for i in range(NSM * K)))
    return {"allow": inner.allow | extra, "cap": inner.cap | cap_one}


def mutant_mpmax_cap_plus_one(m: Module, inner) -> dict:
    """MPMax caps one block above the search's result (our test plan for [SRTF]: a dispatch above
    the cap)."""
    K, RW, NSM = inner.K, inner.RW, inner.NSM
    fields = []
    for i in range(NSM * K):
        c = inner.cap[i * RW:(i + 1) * RW]
        fields.append(Mux((c != 0) & (c != (1 << RW) - 1), c + 1, c)[:RW])
    return {"cap": Cat(*fields)}


def mutant_fill_first(m: Module, inner) -> dict:
    """The last SM tries the back-fill kernel before ``run`` (K = 2)."""
    K, NSM, kw = inner.K, inner.NSM, max(1, inner.kw)
    row = inner.allow[(NSM - 1) * K:NSM * K]
    first = inner.first[(NSM - 1) * kw:NSM * kw]
    swapped = Mux(row.all(), ~first, first)[:kw]
    return {"first": Cat(inner.first[:(NSM - 1) * kw], swapped)}


def mutant_share_cap_4(m: Module, inner) -> dict:
    """Adaptive shares with the shorter kernel capped at 4 blocks per SM, not 3 (our test plan for
    [SRTF])."""
    K, RW, NSM = inner.K, inner.RW, inner.NSM
    fields = []
    for s in range(NSM):
        first = inner.first[s * max(1, inner.kw):(s + 1) * max(1, inner.kw)]
        for k in range(K):
            c = inner.cap[(s * K + k) * RW:(s * K + k + 1) * RW]
            fields.append(Mux(inner.mode & (first == k) & (c == 3), 4, c)[:RW])
    return {"cap": Cat(*fields)}
