"""kernel_sched invariants ([SRTF §2.5, §2.7, §8]) on the dispatcher rows, from the ports only:
an allowed kernel has a cap of at least 1 and a kernel not allowed a cap of 0; each SM's
``first`` is one of its allowed kernels; FIFO allows one kernel, the same on every SM; SRTF
allows at most two kernels per SM (``run`` and the tail back-fill), ``run`` first outside the
sample; while sampling, SM 0 allows only the sample; no sample without a running kernel.
"""

from __future__ import annotations

from amaranth.hdl import Cat, Const, Module, Mux

from formal.props import PropsTop


class KernelSchedProps(PropsTop):
    name = "kernel_sched"

    def properties(self, m: Module, dut) -> None:
        shape = getattr(dut, "inner", dut)          # a mutant shell keeps the block inside
        K, NSM, RW, srtf = shape.K, shape.NSM, shape.RW, shape.policy == "srtf"
        kw = max(1, shape.kw)

        def allow(s):
            return dut.allow[s * K:(s + 1) * K]

        def count(bits):
            return sum((bits[i] for i in range(len(bits))), Const(0, 4))

        for s in range(NSM):
            row, first = allow(s), dut.first[s * kw:(s + 1) * kw]
            for k in range(K):
                cap = dut.cap[(s * K + k) * RW:(s * K + k + 1) * RW]
                self.invariant(m, "allowed iff the cap is at least 1", row[k] == (cap != 0))
            self.invariant(m, "first is an allowed kernel", (row == 0) | row.bit_select(first, 1))
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


def mutant_run_on_sample_sm(m: Module, inner) -> dict:
    """SM 0 keeps dispatching ``run`` while it samples ([SRTF §8] mutation list)."""
    K, RW = inner.K, inner.RW
    run_bit = Mux(inner.run_valid, Const(1, K) << inner.run, 0)
    extra = Mux(inner.samp_valid, run_bit, 0)           # SM 0's row: the first K allow bits
    cap_one = Cat(*(Cat(extra[k], Const(0, RW - 1)) for k in range(K)))
    return {"allow": inner.allow | extra, "cap": inner.cap | cap_one}


def mutant_fifo_bypass(m: Module, inner) -> dict:
    """FIFO lets the next kernel slot bypass on the last SM ([SRTF §8] mutation list)."""
    K, RW, NSM = inner.K, inner.RW, inner.NSM
    row = inner.allow[(NSM - 1) * K:NSM * K]
    nxt = Cat(row[K - 1], row[:K - 1])                   # the slot after each allowed one
    extra = Cat(Const(0, (NSM - 1) * K), nxt)
    cap_one = Cat(*(Cat(extra[i], Const(0, RW - 1)) for i in range(NSM * K)))
    return {"allow": inner.allow | extra, "cap": inner.cap | cap_one}
