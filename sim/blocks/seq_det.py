"""Twin of ``hdl.seq_det.SeqDetCtrl``: one SM fewer per sample ([THESIS §4.4], with our choices
where it is silent).

Ports, timing and the method-level API are those of the shared SWM twin (sim/blocks/onac.py).
"""

from __future__ import annotations

from sim.blocks.onac import SwmTwin


class SeqDetTwin(SwmTwin):
    """Seq-Det: sample at M, M-1, ...; stop at the first sample below threshold (N_opt = N + 1)."""

    def _count_after_init(self) -> int:
        return self.w.m - 1

    def _decide(self) -> None:
        if self.ipc_sum < self.thr:
            self._finish(self.n_est + 1)
        elif self.n_est == 1:
            self._finish(1)
        else:
            self._set_count(self.n_est - 1)
