"""Twins of the SWM detectors: ``OnacTwin`` (hdl/onac.py) and the shared ``SwmTwin`` skeleton.

Same ports, widths and cycle timing as the RTL (protocol: hdl/onac_parts/swm.py). Every output is
a register (``done`` decodes the state), so ``step(**inputs)`` returns the current registers and
then applies the clock edge. The restoring divider is modelled as a countdown of
``dividend_bits`` cycles plus ``divmod`` (an independent check of the RTL's bit loop).

Method-level API for the GPU model's active-SM controller: ``dispatch_mask`` (SMs that may receive
CTAs), ``gated_mask``, ``is_done``, ``n_opt``, and the detection log ``samples`` (n, chip IPC)
and ``estimates`` (every count applied after the all-cores sample).
"""

from __future__ import annotations

from hdl.params.swm import SwmState as S
from hdl.params.swm import SwmWidths


class SwmTwin:
    """Common detection FSM; subclasses implement ``_decide`` / ``_extra`` / ``_count_after_init``."""

    def __init__(self, n_sms: int, count_bits: int = 24, ipc_bits: int = 16, ipc_frac: int = 10):
        self.w = w = SwmWidths(n_sms, count_bits, ipc_bits, ipc_frac)
        self.state = S.IDLE
        self.pause_req = self.sample_req = self.power_gate = 0
        self.active = w.all_sms
        self.n_est, self.n_opt = n_sms, 0
        self.cst_ipc = [0] * n_sms
        self.ipc_sum = self.ipc_all = self.thr = 0
        self.init_phase = 0
        self.idx = 0
        self.div_count = self.div_q = self.div_r = 0
        self._div_started = False
        self.samples: list[tuple[int, int]] = []
        self.estimates: list[int] = []

    # -- method-level API --------------------------------------------------------------------
    @property
    def dispatch_mask(self) -> int:
        """SMs that may receive new CTAs: active, not paused, not gated."""
        return self.active & ~self.pause_req & ~self.power_gate & self.w.all_sms

    @property
    def gated_mask(self) -> int:
        return self.power_gate

    @property
    def is_done(self) -> bool:
        return self.state == S.DONE

    def peek(self) -> dict[str, int]:
        """The port interface's name for ``outputs`` (every output is a register)."""
        return self.outputs()

    def outputs(self) -> dict[str, int]:
        w = self.w
        ipc = 0
        for i, v in enumerate(self.cst_ipc):
            ipc |= v << (i * w.ipc_bits)
        return {"pause_req": self.pause_req, "sample_req": self.sample_req,
                "active": self.active, "power_gate": self.power_gate, "sm_ipc": ipc,
                "n_est": self.n_est, "n_opt": self.n_opt,
                "done": int(self.state == S.DONE), "state": int(self.state)}

    # -- pieces shared with subclasses --------------------------------------------------------
    def _div_start(self, dividend: int, divisor: int) -> None:
        w = self.w
        self._div_started = True
        self.div_count = w.dividend_bits
        if divisor == 0:
            self.div_q, self.div_r = (1 << w.dividend_bits) - 1, 0
        else:
            self.div_q, self.div_r = divmod(dividend, divisor)

    def _set_count(self, n: int) -> None:
        self.n_est = n
        self.pause_req = self.w.pause_mask(n)
        self.state = S.SETTLE
        self.estimates.append(n)

    def _finish(self, n: int) -> None:
        self.n_opt = n
        self.active = self.w.all_sms & ~self.w.pause_mask(n)
        self.pause_req = 0
        self.state = S.DRAIN

    def _on_start(self) -> None:
        pass

    def _count_after_init(self) -> int:
        raise NotImplementedError

    def _decide(self) -> None:
        raise NotImplementedError

    def _extra(self) -> None:
        raise AssertionError(f"unexpected state {self.state}")

    # -- one clock cycle ------------------------------------------------------------------------
    def step(self, start: int = 0, pause_ack: int = 0, sample_done: int = 0, sample_instr: int = 0,
             sample_cycles: int = 0, sm_idle: int = 0) -> dict[str, int]:
        """Outputs of this cycle (all registered), then the clock edge."""
        out = self.outputs()
        w = self.w
        busy = self.div_count != 0
        self._div_started = False
        if start:
            self.pause_req = self.sample_req = self.power_gate = 0
            self.active = w.all_sms
            self.n_est, self.n_opt, self.init_phase = w.m, 0, 1
            self.state = S.SETTLE
            self.samples, self.estimates = [], []
            self._on_start()
        else:
            st = self.state
            if st == S.SETTLE:
                if pause_ack == self.pause_req and not sample_done:
                    self.sample_req = ~self.pause_req & self.active & w.all_sms
                    self.ipc_sum = self.idx = 0
                    self.state = S.SAMPLE
            elif st == S.SAMPLE:
                if sample_done & self.sample_req == self.sample_req:
                    self.state = S.COLLECT
            elif st == S.COLLECT:
                i = self.idx
                if i == w.m:
                    self.sample_req = 0
                    self.state = S.DECIDE
                elif self.sample_req >> i & 1:
                    instr = (sample_instr >> (i * w.instr_bits)) & ((1 << w.instr_bits) - 1)
                    cycles = (sample_cycles >> (i * w.count_bits)) & ((1 << w.count_bits) - 1)
                    self._div_start(instr << w.ipc_frac, cycles)
                    self.state = S.DIV
                else:
                    self.idx = i + 1
            elif st == S.DIV:
                if not busy:
                    q = min(self.div_q, w.ipc_max)
                    if self.idx < w.m:
                        self.cst_ipc[self.idx] = q
                    self.ipc_sum = min(self.ipc_sum + q, w.ipc_max)
                    self.idx += 1
                    self.state = S.COLLECT
            elif st == S.DECIDE:
                if self.init_phase:
                    self.samples.append((w.m, self.ipc_sum))
                    self.ipc_all = self.ipc_sum
                    self.thr = w.threshold(self.ipc_sum)
                    self.init_phase = 0
                    self._set_count(self._count_after_init())
                else:
                    self.samples.append((self.n_est, self.ipc_sum))
                    self._decide()
            elif st == S.DRAIN:
                old_gate = self.power_gate
                self.power_gate = (old_gate | (~self.active & sm_idle)) & w.all_sms
                if (self.active | old_gate) == w.all_sms:
                    self.state = S.DONE
            elif st not in (S.IDLE, S.DONE):
                self._extra()
        if busy and not self._div_started:
            self.div_count -= 1
        return out


class OnacTwin(SwmTwin):
    """ONAC: secant estimates over the ER table (hdl/onac.py). ``secant_ceil=False`` is the
    deliberately wrong floor-rounding mutant used by the tests."""

    def __init__(self, n_sms: int, count_bits: int = 24, ipc_bits: int = 16, ipc_frac: int = 10,
                 secant_ceil: bool = True):
        super().__init__(n_sms, count_bits, ipc_bits, ipc_frac)
        self.secant_ceil = secant_ceil
        self.prev_n = self.prev_ipc = self.cur_n = self.cur_ipc = 0
        self.n_next = 0

    def _on_start(self) -> None:
        self.prev_n = self.prev_ipc = self.cur_n = self.cur_ipc = 0

    def _count_after_init(self) -> int:
        return 1

    def _decide(self) -> None:
        if self.ipc_sum >= self.thr:
            self._finish(self.n_est)
        else:
            self.prev_n, self.prev_ipc = self.cur_n, self.cur_ipc
            self.cur_n, self.cur_ipc = self.n_est, self.ipc_sum
            self.state = S.EST

    def _extra(self) -> None:
        w = self.w
        if self.state == S.EST:
            if self.cur_ipc <= self.prev_ipc:                  # non-positive slope guard
                self.n_next = self.cur_n + 1
                self.state = S.APPLY
            else:
                a = (self.thr - self.cur_ipc) & w.ipc_max
                b = (self.cur_n - self.prev_n) & 0xFF
                self._div_start(a * b, self.cur_ipc - self.prev_ipc)
                self.state = S.EST_DIV
        elif self.state == S.EST_DIV:
            if self.div_count == 0:
                round_up = int(self.div_r != 0) if self.secant_ceil else 0
                raw = self.cur_n + (self.div_q & ((1 << (w.n_bits + 1)) - 1)) + round_up
                raw &= (1 << (w.n_bits + 2)) - 1
                if self.div_q >= w.m or raw >= w.m:
                    self.n_next = w.m
                else:
                    self.n_next = max(raw, self.cur_n + 1)
                self.state = S.APPLY
        elif self.state == S.APPLY:
            if self.n_next >= w.m:
                self.n_est = w.m                    # the estimate, accepted unsampled
                self.estimates.append(w.m)
                self._finish(w.m)
            else:
                self._set_count(self.n_next)
        else:
            super()._extra()
