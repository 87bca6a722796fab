"""Seq-Det: the one-SM-at-a-time baseline detector in the SWM ([THESIS §4.4], with our choices where
it is silent).

Same ports, handshakes, CST and drain / gating as ONAC (hdl/onac_parts/swm.py). After the
all-cores sample it samples at M-1, M-2, ... and stops at the first sample below the threshold
with N_opt = N + 1, or at N = 1 with N_opt = 1 (our rule for [THESIS §4.4]'s Seq-Det). Removed SMs
are paused, not drained, as ONAC does (our choice). The threshold 251·IPC_all/256
is formed by shift-subtract ((x<<8) − (x<<2) − x), since Seq-Det has no other multiply; only
the per-SM IPC division uses the divider.
"""

from __future__ import annotations

from amaranth.hdl import Module, Value

from .onac_parts.swm import THR_SHIFT, SwmDetector


class SeqDetCtrl(SwmDetector):
    """Seq-Det detector for ``n_sms`` SMs (ports: see hdl/onac_parts/swm.py)."""

    def _count_after_init(self) -> Value:
        return self.w.m - 1

    def _threshold(self, m: Module, ipc_all: Value) -> Value:
        return ((ipc_all << 8) - (ipc_all << 2) - ipc_all) >> THR_SHIFT

    def _decide(self, m: Module) -> None:
        with m.If(self.ipc_sum < self.thr):
            self._finish(m, self.n_est + 1)
        with m.Elif(self.n_est == 1):
            self._finish(m, 1)
        with m.Else():
            self._set_count(m, self.n_est - 1)
