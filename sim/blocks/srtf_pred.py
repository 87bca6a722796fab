"""Twin of ``hdl.srtf_pred.SrtfPred``: one SM's Simple Slicing runtime predictor ([SRTF Simple
Slicing], our cycle contract; choices in hdl/params/srtf_pred.py).

Same ports, widths and cycle timing as the RTL. ``step(**inputs)`` returns this cycle's outputs
(all registers, ``ctl_ready`` decoded from registers) and then applies the clock edge;
``skip(n)`` applies n input-free cycles at once where ``quiet_cycles()`` says nothing else happens
(the GPU model's fast path; equal to n steps, tested). The
sequential multiply/divide is not stepped bit by bit: its result is computed when a FINISH or
SEED starts and written PRED_LAT − 1 cycles later, reading ``Active`` then, as the RTL does.
"""

from __future__ import annotations

from hdl.params.srtf_pred import CTL_CAP, CTL_END, CTL_LAUNCH, CTL_SEED, PredShape


class SrtfPredTwin:
    """Behavioral ``srtf_pred`` of one SM; per-kernel state readable as lists (tests, model)."""

    def __init__(self, K: int = 8, SLOTS: int = 8, CW: int = 32, BW: int = 16, RW: int = 5):
        self.shape = sh = PredShape(K, SLOTS, CW, BW, RW)
        self.cmax, self.bmax = (1 << CW) - 1, (1 << BW) - 1
        self.valid = [0] * K
        self.active = [0] * K
        self.done = [0] * K
        self.total = [0] * K
        self.resident = [1] * K
        self.rmax = [1] * K
        self.t = [0] * K
        self.pred = [0] * K
        self.reslice = [0] * K
        self.pvalid = [0] * K
        self.block_start = [0] * SLOTS
        self.end_dur = [0] * SLOTS
        self.slot_k = [0] * SLOTS
        self.end_k = [0] * SLOTS
        self.occupied = self.end_pending = 0
        self.now = 0
        self.busy = 0                   # cycles left in the running FINISH / SEED job
        self.job: tuple = ()            # (k, quotient, t used, residency, is_seed)
        self.upd: dict = {"upd_valid": 0, "upd_k": 0, "upd_rem": 0, "upd_pred": 0, "upd_t": 0,
                          "upd_res": 0}
        self.pred_lat = sh.pred_lat

    # -- the [SRTF Simple Slicing] arithmetic (mutants override these) -----------------------
    def divisor(self, k: int) -> int:
        """Resident blocks in Eq. 2: min(R_k, cap), as set by LAUNCH and CAP."""
        return self.resident[k]

    def sample_t(self, k: int, dur: int) -> int:
        """t after a block end: re-sampled only on the first end after a slice boundary."""
        return dur if self.reslice[k] else self.t[k]

    def outputs(self) -> dict[str, int]:
        ready = int(self.busy == 0 and not self.upd["upd_valid"] and not self.end_pending)
        pv = sum(b << i for i, b in enumerate(self.pvalid))
        return {"ctl_ready": ready, **self.upd, "pvalid": pv}

    def peek(self) -> dict[str, int]:
        """The port interface's name for ``outputs``: the registered outputs after the last edge."""
        return self.outputs()

    # -- exact skipping of input-free cycles (the GPU model's fast path) ------------------------------
    def quiet_cycles(self) -> int | None:
        """How many coming cycles without inputs change only ``now``, ``Active`` and the job's
        countdown (None: unbounded); 0 when the next cycle picks an end, finishes a job or shows
        a record."""
        if self.upd["upd_valid"] or self.end_pending:
            return 0
        return self.busy - 1 if self.busy else None

    def skip(self, n: int, inputs: dict | None = None) -> None:
        """Apply ``n`` input-free cycles at once (``inputs``: the idle inputs, implied here); n
        must not exceed ``quiet_cycles()``."""
        q = self.quiet_cycles()
        if n < 0 or (q is not None and n > q):
            raise ValueError(f"skip({n}): only {q} quiet cycles")
        for k in {self.slot_k[s] for s in range(self.shape.SLOTS) if self.occupied >> s & 1}:
            self.active[k] = min(self.active[k] + n, self.cmax)
        if self.busy:
            self.busy -= n
        self.now = (self.now + n) & self.cmax

    def step(self, blk_start_valid: int = 0, blk_start_slot: int = 0, blk_start_k: int = 0,
             blk_end: int = 0, ctl_valid: int = 0, ctl_kind: int = 0, ctl_k: int = 0,
             ctl_total: int = 0, ctl_res: int = 0, ctl_t: int = 0, upd_ready: int = 0) -> dict:
        out = self.outputs()
        sh = self.shape
        # sequencer decisions, from the registers before the edge
        start_job = None
        if self.busy == 0 and not self.upd["upd_valid"] and self.end_pending:
            s = (self.end_pending & -self.end_pending).bit_length() - 1
            self.end_pending &= ~(1 << s)
            start_job = ("finish", (self.end_k[s], self.end_dur[s]))   # before this cycle's ends
        elif out["ctl_ready"] and ctl_valid:
            start_job = ("ctl", ctl_kind)
        fin = self.busy == 1
        # block events: durations latched from the old slot contents, then the new start
        ends = blk_end & ((1 << sh.SLOTS) - 1)
        for s in range(sh.SLOTS):
            if ends >> s & 1:
                self.end_dur[s] = (self.now - self.block_start[s]) & self.cmax
                self.end_k[s] = self.slot_k[s]
        self.end_pending |= ends
        self.occupied &= ~ends
        if blk_start_valid:
            self.block_start[blk_start_slot] = self.now
            self.slot_k[blk_start_slot] = blk_start_k
            self.occupied |= 1 << blk_start_slot
        # Active: cycles with a resident block (after this cycle's starts and ends)
        active_before = list(self.active)
        owners = {self.slot_k[s] for s in range(sh.SLOTS) if self.occupied >> s & 1}
        for k in owners:
            self.active[k] = min(self.active[k] + 1, self.cmax)
        if upd_ready and self.upd["upd_valid"]:
            self.upd = {**self.upd, "upd_valid": 0}
        if fin:
            self._finish_job(active_before)
        elif self.busy:
            self.busy -= 1
        if start_job is not None:
            if start_job[0] == "finish":
                self._start_finish(*start_job[1])
            else:
                self._command(ctl_kind, ctl_k, ctl_total, ctl_res, ctl_t)
        self.now = (self.now + 1) & self.cmax
        return out

    def _start_job(self, k: int, t: int, is_seed: bool) -> None:
        left = max(self.total[k] - self.done[k], 0)
        res = self.divisor(k)
        self.job = (k, left * t // max(res, 1), t, self.resident[k], is_seed)
        self.busy = self.pred_lat - 1

    def _start_finish(self, k: int, dur: int) -> None:
        t = self.sample_t(k, dur)
        self.done[k] = min(self.done[k] + 1, self.bmax)
        self.t[k], self.reslice[k] = t, 0
        self._start_job(k, t, False)

    def _finish_job(self, active: list[int]) -> None:
        k, q, t, res, is_seed = self.job
        rem = min(q, self.cmax)
        pred = min(active[k] + rem, self.cmax)
        self.pred[k], self.pvalid[k] = pred, 1
        if not is_seed:
            self.upd = {"upd_valid": 1, "upd_k": k, "upd_rem": rem, "upd_pred": pred, "upd_t": t,
                        "upd_res": res}
        self.busy = 0

    def _command(self, kind: int, k: int, total: int, res: int, t0: int) -> None:
        if kind == CTL_LAUNCH:
            for j in range(self.shape.K):
                if self.valid[j]:
                    self.reslice[j] = 1
            r = max(res, 1)
            self.valid[k], self.active[k], self.done[k], self.total[k] = 1, 0, 0, total
            self.resident[k] = self.rmax[k] = r
            self.t[k] = self.pred[k] = self.pvalid[k] = 0
            self.reslice[k] = 1
        elif kind == CTL_END:
            self.valid[k] = self.pvalid[k] = 0
            for j in range(self.shape.K):
                if self.valid[j]:
                    self.reslice[j] = 1
        elif kind == CTL_CAP:
            self.resident[k] = max(1, min(self.rmax[k], res))
            self.reslice[k] = 1
        elif kind == CTL_SEED and not self.pvalid[k]:
            self.t[k] = t0
            self._start_job(k, t0, True)


class SrtfPredFixedR(SrtfPredTwin):
    """The document's Resident ([SRTF] variant): Eq. 2 divides by R_k whatever the cap."""

    def divisor(self, k: int) -> int:
        return self.rmax[k]
