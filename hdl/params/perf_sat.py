"""Perf-Sat per-SM CTA-limit controller ([THESIS §4.3.2.2]): states, parameters, ports.

Widths default to our choices ([THESIS §4.3] gives none): N 5 b, One_TB 24 b, period 28 b, stall counter 32 b.
"""

from __future__ import annotations

from enum import IntEnum

from . import Param, Ports, port


class PerfSatState(IntEnum):
    IDLE = 0
    MEASURE = 1   # waiting for the first CTA completion (One_TB)
    INIT = 2      # first window at N0
    WI = 3
    SI = 4
    WD = 5
    SD = 6
    DONE = 7


PARAMS = {
    "n_bits": Param(int, 5, "an integer in 2..8 (CTA-limit width)", lambda v: 2 <= v <= 8),
    "tb_bits": Param(int, 24, "an integer in 4..40 (One_TB counter)", lambda v: 4 <= v <= 40),
    "period_bits": Param(int, 28, "an integer in 4..40 (sample period)", lambda v: 4 <= v <= 40),
    "stall_bits": Param(int, 32, "an integer in 6..42 (stall accumulator / prev)",
                        lambda v: 6 <= v <= 42),
}


def check_params(n_bits: int, tb_bits: int, period_bits: int, stall_bits: int) -> None:
    if not 2 <= n_bits <= 8:
        raise ValueError(f"n_bits = {n_bits}: allowed: 2..8")
    if not 4 <= tb_bits <= period_bits <= 40 or period_bits + 2 > stall_bits:
        raise ValueError(f"tb_bits = {tb_bits}, period_bits = {period_bits}, stall_bits = "
                         f"{stall_bits}: need 4 <= tb <= period <= 40 and period + 2 <= stall")


def ports(n_bits: int) -> Ports:
    return {
        "kernel_start": port("in", 1),
        "n_max": port("in", n_bits),
        "cta_done": port("in", 1),
        "stalls": port("in", 2),
        "cta_limit": port("out", n_bits, init=1),
        "done": port("out", 1),
        "state": port("out", 3),
    }
