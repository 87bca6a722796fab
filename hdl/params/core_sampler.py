"""CoreSampler: per-SM IPC sampling window and pause quiesce ([THESIS §4.4.2.3], with our
choices where it is silent):
states, parameters, ports."""

from __future__ import annotations

from enum import IntEnum

from . import Param, Ports, port


class SamplerState(IntEnum):
    IDLE = 0
    QUIESCE = 1
    COUNT = 2
    DONE = 3


PARAMS = {
    "K": Param(int, 4, "an integer in 1..16 (CTA waves per sample)", lambda v: 1 <= v <= 16),
    "count_bits": Param(int, 24, "an integer in 4..32 (cycle counter)", lambda v: 4 <= v <= 32),
    "limit_bits": Param(int, 5, "an integer in 2..8 (CTA-limit width)", lambda v: 2 <= v <= 8),
}


def check_params(waves: int, count_bits: int, limit_bits: int) -> None:
    if not 1 <= waves <= 16:
        raise ValueError(f"K = {waves}: allowed: 1..16")
    if not 4 <= count_bits <= 32:
        raise ValueError(f"count_bits = {count_bits}: allowed: 4..32")
    if not 2 <= limit_bits <= 8:
        raise ValueError(f"limit_bits = {limit_bits}: allowed: 2..8")


def ports(count_bits: int, limit_bits: int) -> Ports:
    return {
        "pause_req": port("in", 1),
        "sample_req": port("in", 1),
        "instr": port("in", 2),
        "in_flight": port("in", 1),
        "cta_done": port("in", 1),
        "cta_limit": port("in", limit_bits),
        "issue_hold": port("out", 1),
        "pause_ack": port("out", 1),
        "sample_done": port("out", 1),
        "sample_instr": port("out", count_bits + 2),
        "sample_cycles": port("out", count_bits),
        "state": port("out", 2),
    }
