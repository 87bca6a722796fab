"""The ``kernel_sched`` controller behind its ports in the GPU model (sim/policies/srtf.py
``SrtfKernelScheduler`` when the run's provider replaces ``kernel_sched``): the block is the
port-level twin ``KernelSchedPorts``, or an RTL / lockstep block — the model does not know which."""

from __future__ import annotations

from collections import deque


class ControllerPort:
    """The ``kernel_sched`` controller driven through its ports (hdl/params/kernel_sched.py),
    stepped once per GPU cycle in ``on_cycle``; ``block`` has ``step(**inputs)`` and ``peek()``.

    The inputs of a step are what happened since the previous one: the oldest arrival not yet
    accepted (held until ``arr_ready``), the oldest block end not yet accepted (zero-sampling
    SRTF; held until ``done_ready``), the oldest predictor record not yet accepted (held until
    ``upd_ready``; records queue in (cycle, SM) order, the stand-in for the lowest-SM-first
    arbiter), the ``all_dispatched`` and ``kernel_end`` pulses, and ``ctl_ready`` = every
    predictor's command queue is empty. A command on ``ctl_*`` accepted in a step goes to every
    predictor. The dispatch rows are decoded from ``peek()`` after the step (the registered
    ``allow`` / ``cap`` / ``first``), so an event accepted in cycle c steers dispatch from c on.
    """

    def __init__(self, block, K: int, n_sm: int, RW: int = 5):
        self.block, self.K, self.n_sm, self.RW = block, K, n_sm, RW
        self.kw = (K - 1).bit_length()
        self.arrivals: deque = deque()      # (k, blocks, R, packed footprint, T^SP)
        self.dones: deque = deque()         # kernel slots of retired blocks (srtf_zero)
        self.records: deque = deque()       # (sm, k, rem, t, pred, res)
        self.all_dispatched = self.kernel_end = 0
        self.rows: list[list[tuple[int, int]]] = [[] for _ in range(n_sm)]
        self.run: int | None = None
        self.ended = 0                      # kernels whose end has been pulsed
        self.switches: list[list] = []      # [from, to, "port"]: run changed, old one not ended
        self.mode = 0
        self.sharing: list[list] = []       # [run, "enter" | "leave"] at each change of ``mode``
        self.steps = 0

    def step(self, ctl_ready: bool):
        """One cycle; returns the command accepted in it, (kind, k, total, res, t), or None."""
        arr = self.arrivals[0] if self.arrivals else None
        rec = self.records[0] if self.records else None
        done = self.dones[0] if self.dones else None
        ins = {"all_dispatched": self.all_dispatched, "kernel_end": self.kernel_end,
               "ctl_ready": int(ctl_ready)}
        if arr:
            ins.update(arr_valid=1, arr_k=arr[0], arr_blocks=arr[1], arr_R=arr[2], arr_fp=arr[3],
                       arr_tsp=arr[4])
        if done is not None:
            ins.update(done_valid=1, done_k=done)
        if rec:
            ins.update(upd_valid=1, upd_sm=rec[0], upd_k=rec[1], upd_rem=rec[2], upd_t=rec[3],
                       upd_pred=rec[4], upd_res=rec[5])
        self.ended |= self.kernel_end
        self.all_dispatched = self.kernel_end = 0
        out = self.block.step(**ins)
        self.steps += 1
        if arr and out["arr_ready"]:
            self.arrivals.popleft()
            self.ended &= ~(1 << arr[0])
        if rec and out["upd_ready"]:
            self.records.popleft()
        if done is not None and out["done_ready"]:
            self.dones.popleft()
        cmd = None
        if out["ctl_valid"] and ctl_ready:
            cmd = (out["ctl_kind"], out["ctl_k"], out["ctl_total"], out["ctl_res"], out["ctl_t"])
        self._decode(self.block.peek())
        return cmd

    def _decode(self, out: dict) -> None:
        K, RW, kw = self.K, self.RW, self.kw
        allow, cap, first, prio = out["allow"], out["cap"], out["first"], out["prio"]
        mask, kmask = (1 << RW) - 1, (1 << kw) - 1
        for s in range(self.n_sm):
            f = first >> (s * kw) & kmask
            ks = [k for k in range(K) if allow >> (s * K + k) & 1]
            ks.sort(key=lambda k: (k != f, prio >> (k * kw) & kmask))
            self.rows[s] = [(k, cap >> ((s * K + k) * RW) & mask) for k in ks]
        if out["mode"] != self.mode:
            self.mode = out["mode"]
            self.sharing.append([out["run"], "enter" if self.mode else "leave"])
        run = out["run"] if out["run_valid"] else None
        if run != self.run:
            if self.run is not None and run is not None and not self.ended >> self.run & 1:
                self.switches.append([self.run, run, "port"])
            self.run = run
