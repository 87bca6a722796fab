"""The warp-scheduler port's phase inputs for a sub-core's slots, compiled with the SM core: the
same values as ``sim.workload.phases.port_inputs`` (the phase-aware and two-level queue policies
read them every cycle), with each warp's kernel phase table kept on the warp instead of looked up
through its CTA, run and kernel for every slot in every cycle."""

from __future__ import annotations

from typing import Any

from sim.warp import Warp
from sim.workload.phases import DIST_BITS, DIST_MAX, distance_of


def port_inputs(slots: list[Warp | None]) -> dict[str, int]:
    """``distance`` (DIST_BITS per slot, slot s at bit s * DIST_BITS) and ``long_out``."""
    distance = 0
    long_out = 0
    for s in range(len(slots)):
        w = slots[s]
        if w is None or w.exited:
            continue
        table: Any = w.phase_table
        if table is None:
            distance_of(w)                  # builds the kernel's table on its first use
            table = w.phase_table = w.cta.run.kernel.meta["phase_table"]
        if w.ib:
            d: int = table[0].get(w.ib[0].instr.pc, DIST_MAX)
        elif w.n_insts == 0:
            d = table[1]
        else:
            d = DIST_MAX
        if d > DIST_MAX:
            d = DIST_MAX
        distance |= d << (s * DIST_BITS)
        if w.longop:
            long_out |= 1 << s
    return {"distance": distance, "long_out": long_out}
