"""Twin of ``hdl.perf_sat.PerfSatCtrl``: per-SM Perf-Sat CTA-limit detection ([THESIS §4.3.2.2]).

Same ports, widths and cycle timing as the RTL (protocol in hdl/perf_sat.py). All outputs are
registers, so ``step`` returns the current registers and then applies the clock edge.

Method-level API for the GPU model's CTA-count controller: ``limit`` (the current CTA limit),
``is_done``, and ``periods`` (sample windows completed in this kernel, for the [THESIS §4.3.2.2]
example).
"""

from __future__ import annotations

from hdl.params.perf_sat import PerfSatState as S
from hdl.params.perf_sat import check_params


class PerfSatTwin:
    """Behavioral Perf-Sat controller of one SM."""

    def __init__(self, n_bits: int = 5, tb_bits: int = 24, period_bits: int = 28,
                 stall_bits: int = 32):
        check_params(n_bits, tb_bits, period_bits, stall_bits)
        self.n_mask = (1 << n_bits) - 1
        self.tb_max = (1 << tb_bits) - 1
        self.p_max = (1 << period_bits) - 1
        self.state = S.IDLE
        self.n, self.n_max = 1, 1
        self.timer = self.period = self.acc = self.prev = 0
        self.dir = self.hist = self.tog_weak = self.tog_strong = 0
        self.periods = 0

    @property
    def limit(self) -> int:
        return self.n

    @property
    def is_done(self) -> bool:
        return self.state == S.DONE

    def peek(self) -> dict[str, int]:
        """The registered outputs after the last edge."""
        return {"cta_limit": self.n, "done": int(self.state == S.DONE), "state": int(self.state)}

    def step(self, kernel_start: int = 0, n_max: int = 0, cta_done: int = 0,
             stalls: int = 0) -> dict[str, int]:
        """Outputs of this cycle, then the clock edge."""
        st = self.state
        out = {"cta_limit": self.n, "done": int(st == S.DONE), "state": int(st)}
        if kernel_start:
            n_max = n_max or 1
            self.n_max, self.n = n_max, (n_max + 1) >> 1
            self.timer = self.acc = 0
            self.dir = self.hist = self.tog_weak = self.tog_strong = 0
            self.periods = 0
            self.state = S.MEASURE
        elif st == S.MEASURE:
            if cta_done:
                one_tb = min(self.timer + 1, self.tb_max)
                self.period = min(one_tb * self.n_max, self.p_max)
                self.timer = self.acc = 0
                self.state = S.INIT
            else:
                self.timer = min(self.timer + 1, self.tb_max)
        elif S.INIT <= st <= S.SD:
            cur = self.acc + stalls
            if self.timer + 1 < self.period:
                self.timer += 1
                self.acc = cur
            else:
                self.timer = self.acc = 0
                self.periods += 1
                self._window_end(cur)
        return out

    def _finish(self, value: int) -> None:
        self.n = value & self.n_mask
        self.state = S.DONE

    def _go(self, state: S, value: int, cur: int) -> None:
        self.state, self.n, self.prev = state, value & self.n_mask, cur

    def _window_end(self, cur: int) -> None:
        st, n, n0 = self.state, self.n, (self.n_max + 1) >> 1
        if st == S.INIT:
            if n0 >= self.n_max:
                self._finish(self.n_max)
            else:
                self._go(S.WI, n0 + 1, cur)
            return
        up = st in (S.WI, S.SI)
        weak, strong = (S.WI, S.SI) if up else (S.WD, S.SD)
        edge = self.n_max if up else 1
        ahead, behind = (n + 1, n - 1) if up else (n - 1, n + 1)
        lower, higher = cur < self.prev, cur > self.prev
        if st == weak and not self.dir:
            if lower:
                if not self.hist:
                    self.hist = 1
                else:
                    self.dir = 1
                    if n == edge:
                        self._finish(edge)
                    else:
                        self._go(strong, ahead, cur)
            elif self.tog_weak == 3:
                self._finish(n0 + 1)
            else:
                self.tog_weak += 1
                self.hist = 0
                self._go(S.WD if up else S.WI, n0 if up else n0 + 1, cur)
        elif st == strong:
            if lower:
                if n == edge:
                    self._finish(edge)
                else:
                    self._go(strong, ahead, cur)
            else:                       # overshoot: discard cur, keep N
                self.hist = 0
                self.state = weak
        else:                           # weak after an overshoot (dir = 1)
            if higher or self.tog_strong == 3:
                self._finish(behind)
            else:
                self.tog_strong += 1
                if n == edge:
                    self._finish(edge)
                else:
                    self._go(strong, ahead, cur)
