"""SM Work Manager detectors ONAC and Seq-Det ([THESIS §4.4], with our choices where it is silent):
states, parameters, derived widths and ports, shared by both detectors' RTL and twins."""

from __future__ import annotations

from enum import IntEnum

from . import Param, Ports, port

THR_NUM, THR_SHIFT = 251, 8          # IPC_threshold = IPC_all * 251/256 ≈ 0.98


class SwmState(IntEnum):
    IDLE = 0
    SETTLE = 1      # wait: every pause_ack == pause_req and no sample_done high
    SAMPLE = 2      # wait: every requested SM raised sample_done
    COLLECT = 3     # walk SMs: start a division for each sampled SM
    DIV = 4         # wait for the divider: per-SM IPC
    DECIDE = 5      # threshold (first sample) or accept / next count (subclass)
    EST = 6         # ONAC: secant set-up (or slope guard)
    EST_DIV = 7     # ONAC: secant division
    APPLY = 8       # ONAC: apply the estimate (N_max is accepted without sampling)
    DRAIN = 9       # excess SMs drain; each is gated once idle
    DONE = 10


PARAMS = {
    "M": Param(int, 32, "an integer in 2..64 (number of SMs)", lambda v: 2 <= v <= 64),
    "count_bits": Param(int, 24, "an integer in 4..32 (sample cycle counter)",
                        lambda v: 4 <= v <= 32),
    "ipc_bits": Param(int, 16, "an integer in 4..24 (IPC field, U6.10 by default)",
                      lambda v: 4 <= v <= 24),
    "ipc_frac": Param(int, 10, "an integer in 0..ipc_bits-1 (IPC fraction bits)",
                      lambda v: 0 <= v <= 23),
}
MIN_SMS, MAX_SMS = 2, 64


def check_params(n_sms: int, count_bits: int, ipc_bits: int, ipc_frac: int) -> None:
    """Shared parameter check for the RTL and the twins."""
    if not MIN_SMS <= n_sms <= MAX_SMS:
        raise ValueError(f"M = {n_sms}: allowed: {MIN_SMS}..{MAX_SMS}")
    if not 4 <= count_bits <= 32:
        raise ValueError(f"count_bits = {count_bits}: allowed: 4..32")
    if not 4 <= ipc_bits <= 24 or not 0 <= ipc_frac < ipc_bits:
        raise ValueError(f"ipc_bits = {ipc_bits}, ipc_frac = {ipc_frac}: need 4..24, 0 <= frac < bits")


class SwmWidths:
    """Derived widths, shared by the RTL and the twins so both truncate identically."""

    def __init__(self, n_sms: int, count_bits: int = 24, ipc_bits: int = 16, ipc_frac: int = 10):
        check_params(n_sms, count_bits, ipc_bits, ipc_frac)
        self.m, self.count_bits, self.ipc_bits, self.ipc_frac = n_sms, count_bits, ipc_bits, ipc_frac
        self.n_bits = n_sms.bit_length()                  # 0..M (6 bits for 32, [THESIS §4.4.2.3])
        self.instr_bits = count_bits + 2                  # ≤ 3 warp instructions per cycle
        self.ipc_max = (1 << ipc_bits) - 1
        # one divider for per-SM IPC (instr << F / cycles) and the secant (product / ΔIPC)
        self.dividend_bits = max(self.instr_bits + ipc_frac, ipc_bits + 8)
        self.divisor_bits = max(count_bits, ipc_bits)
        self.all_sms = (1 << n_sms) - 1

    def threshold(self, ipc_all: int) -> int:
        return (ipc_all * THR_NUM) >> THR_SHIFT

    def pause_mask(self, n: int) -> int:
        """SMs n..M-1 paused, 0..n-1 running."""
        return self.all_sms & ~((1 << n) - 1)


def ports(w: SwmWidths) -> Ports:
    m = w.m
    return {
        "start": port("in", 1),
        "pause_ack": port("in", m),
        "sample_done": port("in", m),
        "sample_instr": port("in", m * w.instr_bits),
        "sample_cycles": port("in", m * w.count_bits),
        "sm_idle": port("in", m),
        "pause_req": port("out", m),
        "sample_req": port("out", m),
        "active": port("out", m, init=w.all_sms),
        "power_gate": port("out", m),
        "sm_ipc": port("out", m * w.ipc_bits),
        "n_est": port("out", w.n_bits, init=m),
        "n_opt": port("out", w.n_bits),
        "done": port("out", 1),
        "state": port("out", 4),
    }
