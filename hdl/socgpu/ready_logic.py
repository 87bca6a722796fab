"""Readiness of IB entries ([SOCGPU local policy], sub-block ``ready_logic``).

    oldest[i] = pending[i] ∧ ¬∃j: pending[j] ∧ AGE[j][i]          pending = valid ∧ ¬issued
    ready[i]  = pending[i] ∧ ¬busy[i] ∧ (¬(rpc_valid ∧ npc[i] ≥ rpc) ∨ oldest[i])

``busy[i]`` is the OR of DM row i (a2); the third term is the a3 reconvergence guard: only the
oldest not-yet-issued entry may cross the RPC (our choice). N PW-bit ≥ comparators.
"""

from __future__ import annotations

from amaranth.hdl import Cat, Module, Signal, Value

from .ib_state import IbState


def ready_vector(m: Module, st: IbState, rpc_valid: Value, rpc: Value) -> tuple[Signal, Signal]:
    """(pending, ready) N-bit vectors from the registered state and same-cycle rpc."""
    n = st.p.N
    pending = Signal(n)
    m.d.comb += pending.eq(st.valid & ~st.issued)

    busy = Signal(n)
    m.d.comb += busy.eq(Cat(*[row.any() for row in st.dm]))

    oldest_bits = []
    for i in range(n):
        b = Signal(name=f"oldest_{i}")
        m.d.comb += b.eq(pending[i] & ~(pending & st.older[i]).any())
        oldest_bits.append(b)
    oldest = Signal(n)
    m.d.comb += oldest.eq(Cat(*oldest_bits))

    crosses = Signal(n)         # npc[i] >= rpc: entry i would reach the reconvergence PC
    m.d.comb += crosses.eq(Cat(*[npc >= rpc for npc in st.npc]))
    guard_ok = Signal(n)
    m.d.comb += guard_ok.eq(~(crosses & rpc_valid.replicate(n)) | oldest)

    ready = Signal(n)
    m.d.comb += ready.eq(pending & ~busy & guard_ok)
    return pending, ready
