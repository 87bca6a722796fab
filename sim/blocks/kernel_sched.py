"""Twin of the ``kernel_sched`` controller ([SRTF FIFO, MPMax, SRTF/Adaptive]): which kernel each SM
may take blocks of, for the policies ``fifo``, ``mpmax``, ``srtf``, ``adaptive`` and ``srtf_zero``.

Method-level API (the GPU model's kernel scheduler, sim/policies/srtf.py, calls it on events):

- ``arrive(k, blocks, R, fp)``: kernel slot ``k`` arrives with ``blocks`` blocks, maximum
  residency ``R`` and per-block footprint ``fp`` (one number per resource of ``limits``);
- ``update(sm, k, rem, pred, t, res)``: a predictor record (srtf_pred's ``upd_*``);
- ``dispatched_all(k)``: the dispatcher has placed every block of ``k`` (``all_dispatched[k]``);
- ``end(k)``: the last block of ``k`` retired (``kernel_end[k]``);
- ``block_done(k)``: a block of ``k`` retired (``srtf_zero`` only);
- ``row(sm)``: the dispatcher's allow/cap row of ``sm`` in priority order, [(k, cap), ...];
- ``commands``: predictor commands to broadcast, (kind, k, total, res, t), drained by the caller.

Each event is applied in full before the next (the spec's in-cycle order: kernel end, arrival,
one predictor update, sampling start). Our choices where [SRTF] is silent: snapshot = the latest
record of a kernel from any SM; strict ``<`` with hysteresis h (ties keep the incumbent); the
waiting list stays in arrival order (a switched-out kernel goes back to its arrival position); a
sample is decided at its first record from the sampling SM once ``run`` has a prediction too; a
sample that becomes ``run`` (``run`` ended and next() is the sampled kernel) ends without a
decision, since [SRTF] compares a waiting sample against ``run`` (another may start); tail back-fill
of ``next()`` once ``run`` has nothing left to dispatch.

Zero-sampling SRTF ([SRTF zero-sampling], ``srtf_zero``): SRTF without a sampling phase; ``arrive``
takes the kernel's standalone runtime ``t_sp`` and G[k].rem = t_sp · (blocks not yet finished) //
B_k (at least 0) is known from arrival and refreshed at every block end; records from the predictors
are ignored.

Adaptive ([SRTF SRTF/Adaptive]) samples and switches as SRTF and, after each decision, looks at the
pair S = run, L = next(): if 2 · T_S > T_L it shares (S capped at ``share_cap`` blocks per SM, L
beside it, both on every SM, S first; CAP commands to the predictors) until the [SRTF SRTF/Adaptive]
slowdown estimate says
|sd_L − sd_S| ≥ T_S / T_L or one of them ends; a pair never shares twice. T_x is x's prediction
from its latest record while it ran alone (run, no sample, no back-fill, not sharing), else its
latest prediction, taken when sharing starts and kept while it lasts (S's own prediction grows
under its cap); t_L from L's record while alone if any.
"""

from __future__ import annotations

from dataclasses import dataclass

from hdl.params.kernel_sched import GTX480_LIMITS, NR, limits_of
from hdl.params.srtf_pred import CTL_CAP, CTL_END, CTL_LAUNCH, CTL_SEED

POLICIES = ("fifo", "mpmax", "srtf", "adaptive", "srtf_zero")
SRTF_LIKE = ("srtf", "adaptive", "srtf_zero")


@dataclass
class Snapshot:
    """G[k]: the latest predictor record of kernel k ([SRTF])."""
    rem: int
    pred: int
    t: int
    res: int


class KernelSchedTwin:
    """Kernel-scheduler controller of the whole GPU (module doc)."""

    def __init__(self, K: int, n_sm: int, policy: str, limits: tuple[int, ...] = (),
                 hysteresis: float = 0.0, backfill: bool = True, sample_sm: int | None = 0,
                 share_cap: int = 3, sample_size: int = 1):
        """Knobs ([SRTF]): ``sample_sm`` None = the first SM with a free slot once a sample
        starts (the caller binds it with ``bind_sample_sm``); ``sample_size``: records of the
        sample from its SM before the decision."""
        if policy not in POLICIES:
            raise ValueError(f"policy = {policy!r}: allowed: {', '.join(POLICIES)}")
        self.K, self.n_sm, self.policy = K, n_sm, policy
        self.limits, self.h, self.backfill, self.sample_sm = limits, hysteresis, backfill, sample_sm
        self.sample_free, self.sample_size, self.samp_seen = sample_sm is None, sample_size, 0
        self.order: list[int] = []          # running kernels (arrived, not ended), arrival order
        self.R = [0] * K
        self.blocks = [0] * K
        self.fp: list[tuple[int, ...]] = [()] * K
        self.left = [False] * K             # has undispatched blocks
        self.G: list[Snapshot | None] = [None] * K
        self.caps = [0] * K
        self.run: int | None = None
        self.samp: int | None = None
        self.samp_ready = False             # the sample's first record from the sampling SM came
        self.switches: list[tuple[int, int, str]] = []   # (from, to, why)
        self.share_cap = share_cap
        self.alone: list[Snapshot | None] = [None] * K   # latest record while running alone
        self.pair: tuple[int, int] | None = None         # (S, L) while sharing
        self.pair_T = (0, 0)                             # (T_S, T_L) when sharing started
        self.shared: set[frozenset] = set()              # pairs that have shared already
        self.sharing_log: list[tuple[int, int, str]] = []  # (S, L, "enter" | why it left)
        self.t_sp = [0] * K                                # srtf_zero: standalone runtimes
        self.finished = [0] * K
        self.commands: list[tuple[int, int, int, int, int]] = []

    # -- events ----------------------------------------------------------------------------------
    def arrive(self, k: int, blocks: int, R: int, fp: tuple[int, ...] = (), t_sp: int = 0) -> None:
        self.order.append(k)
        self.R[k], self.blocks[k], self.fp[k] = max(1, R), blocks, fp
        self.left[k], self.G[k], self.alone[k] = blocks > 0, None, None
        self.shared = {p for p in self.shared if k not in p}     # the slot holds a new kernel
        self.commands.append((CTL_LAUNCH, k, -(-blocks // self.n_sm), R, 0))
        if self.policy == "srtf_zero":
            self.t_sp[k], self.finished[k] = t_sp, 0
            self.G[k] = Snapshot(t_sp, t_sp, 0, self.R[k])
            if self.run is None:
                self.run = k
            self._oracle_switch()
        elif self.policy in ("srtf", "adaptive"):
            if self.run is None:
                self.run = k
            self._maybe_sample()
        self._recompute_caps()

    def dispatched_all(self, k: int) -> None:
        self.left[k] = False

    def end(self, k: int) -> None:
        self.commands.append((CTL_END, k, 0, 0, 0))
        self.order.remove(k)
        self.left[k], self.G[k] = False, None
        if self.samp == k:
            self.samp, self.samp_ready = None, False
        if self.pair is not None and k in self.pair:
            self._leave_sharing("end")
        if self.run == k:
            self.run = self.next_kernel()
            if self.samp is not None and self.samp == self.run:
                self.samp, self.samp_ready = None, False    # nothing left to compare it with
        self._maybe_sample()
        self._recompute_caps()
        self._consider_sharing()

    def block_done(self, k: int) -> None:
        if self.policy != "srtf_zero" or k not in self.order:
            return
        self.finished[k] += 1
        unfinished = max(0, self.blocks[k] - self.finished[k])
        rem = self.t_sp[k] * unfinished // max(1, self.blocks[k])
        self.G[k] = Snapshot(rem, self.t_sp[k], 0, self.R[k])
        self._oracle_switch()

    def _oracle_switch(self) -> None:
        b = self.next_kernel()
        if self.run is not None and b is not None and \
                self.better(self.G[b].rem, (1 - self.h) * self.G[self.run].rem):
            self._switch(b, "oracle")

    def update(self, sm: int, k: int, rem: int, pred: int, t: int, res: int) -> None:
        if self.policy == "srtf_zero":
            return
        if k not in self.order:
            return                          # a record of a kernel that has ended meanwhile
        self.G[k] = Snapshot(rem, pred, t, res)
        if self.policy == "fifo" or self.policy == "mpmax":
            return
        if k == self.run and self.samp is None and self.pair is None and self.left[k]:
            self.alone[k] = self.G[k]
        if self.pair is not None:
            self._monitor_sharing()
        elif self.samp is not None:
            if k == self.samp and sm == self.sample_sm:
                self.samp_seen += 1
                self.samp_ready = self.samp_seen >= self.sample_size
            if self.samp_ready and self.G[self.run] is not None:
                self._decide_sample()
        elif self.run is not None and self.G[self.run] is not None:
            b = self.next_kernel()
            if b is not None and self.G[b] is not None and \
                    self.better(self.G[b].rem, (1 - self.h) * self.G[self.run].rem):
                self._switch(b, "update")
        self._maybe_sample()
        self._consider_sharing()

    # -- the decisions (mutants override ``better``) ---------------------------------------------
    @staticmethod
    def better(rem: float, incumbent: float) -> bool:
        """Strict: a tie keeps the incumbent (our choice where [SRTF] is silent)."""
        return rem < incumbent

    def waiting(self) -> list[int]:
        return [k for k in self.order if k != self.run]

    def next_kernel(self) -> int | None:
        """argmin of G.rem over the waiting kernels with a snapshot (ties: earlier arrival), else
        the oldest waiting kernel."""
        w = self.waiting()
        known = [k for k in w if self.G[k] is not None]
        if known:
            return min(known, key=lambda k: (self.G[k].rem, self.order.index(k)))
        return w[0] if w else None

    def _maybe_sample(self) -> None:
        if self.samp is not None or self.run is None or not self.left[self.run] or \
                self.policy == "srtf_zero":
            return
        for k in self.waiting():
            if self.G[k] is None and self.left[k]:
                self.samp, self.samp_ready, self.samp_seen = k, False, 0
                if self.sample_free:
                    self.sample_sm = None
                return

    def bind_sample_sm(self, sm: int) -> None:
        """``sample_sm`` None: ``sm`` (the first with a free slot) samples the current sample."""
        if self.samp is not None and self.sample_sm is None:
            self.sample_sm = sm

    def _decide_sample(self) -> None:
        s = self.samp
        self.samp, self.samp_ready = None, False
        if self.better(self.G[s].rem, self.G[self.run].rem):
            self._switch(s, "sample")
            self.commands.append((CTL_SEED, s, 0, 0, self.G[s].t))

    def _switch(self, k: int, why: str) -> None:
        self.switches.append((self.run, k, why))
        self.run = k

    # -- Adaptive sharing ([SRTF SRTF/Adaptive]) ---------------------------------------------
    def _T(self, k: int) -> int:
        snap = self.alone[k] or self.G[k]
        return snap.pred

    def _consider_sharing(self) -> None:
        if self.policy != "adaptive" or self.pair is not None or self.samp is not None:
            return
        s, l = self.run, self.next_kernel()
        if s is None or l is None or self.G[s] is None or self.G[l] is None:
            return
        if frozenset((s, l)) in self.shared or 2 * self._T(s) <= self._T(l):
            return
        self.pair, self.pair_T = (s, l), (self._T(s), self._T(l))
        self.shared.add(frozenset((s, l)))
        self.sharing_log.append((s, l, "enter"))
        self.caps[s] = min(self.R[s], self.share_cap)
        self.commands.append((CTL_CAP, s, 0, self.caps[s], 0))

    def _monitor_sharing(self) -> None:
        """The [SRTF SRTF/Adaptive] test |sd_L − sd_S| ≥ T_S / T_L in exact integers (as the RTL):
        with TS1 = G[S].pred, NB1 = TS1·res_L/t_L, NB2 = max(Total_L − NB1, 0), TS2 =
        NB2·t_excl/R_L, multiplied through by T_S·T_L·t_L·R_L: |T_S·(TS1·t_L·R_L + X·t_excl) −
        T_L·TS1·t_L·R_L| ≥ T_S²·t_L·R_L, X = max(Total_L·t_L − TS1·res_L, 0)."""
        s, l = self.pair
        gs, gl = self.G[s], self.G[l]
        t_s, t_l = self.pair_T
        if gs is None or gl is None or not t_s or not t_l or not gl.t:
            return
        p, t, r = gs.pred, gl.t, self.R[l]
        x = max(-(-self.blocks[l] // self.n_sm) * t - p * gl.res, 0)
        t_excl = (self.alone[l] or gl).t
        if abs(t_s * (p * t * r + x * t_excl) - t_l * p * t * r) >= t_s * t_s * t * r:
            self._leave_sharing("spread")

    def _leave_sharing(self, why: str) -> None:
        s, l = self.pair
        self.pair = None
        self.sharing_log.append((s, l, why))
        if s in self.order:
            self.caps[s] = self.R[s]
            self.commands.append((CTL_CAP, s, 0, self.R[s], 0))

    def _recompute_caps(self) -> None:
        """MPMax ([SRTF MPMax]): every running kernel leaves room for one block of a composite
        co-runner (per resource, the largest footprint among the others); cap ≥ 1. Others: R_k."""
        for k in self.order:
            self.caps[k] = self.R[k]
        if self.pair is not None:
            self.caps[self.pair[0]] = min(self.R[self.pair[0]], self.share_cap)
        if self.policy != "mpmax":
            return
        for k in self.order:
            others = [self.fp[j] for j in self.order if j != k]
            if not others:
                continue
            cap = self.R[k]
            for r, limit in enumerate(self.limits):
                need = self.fp[k][r]
                if need:
                    comp = max(f[r] for f in others)
                    cap = min(cap, max(0, limit - comp) // need)
            self.caps[k] = max(1, cap)

    # -- outputs ---------------------------------------------------------------------------------
    def row(self, sm: int) -> list[tuple[int, int]]:
        """The allowed kernels of ``sm`` in priority order, each with its cap."""
        caps = self.caps
        if self.policy == "fifo":
            for k in self.order:
                if self.left[k]:
                    return [(k, caps[k])]
            return []
        if self.policy == "mpmax":
            return [(k, caps[k]) for k in self.order]
        run = self.run
        if run is None:
            return []
        if self.samp is not None and sm == self.sample_sm:
            return [(self.samp, caps[self.samp])]
        if self.pair is not None:
            return [(k, caps[k]) for k in self.pair]
        out = [(run, caps[run])]
        if self.backfill and not self.left[run]:
            b = self.next_kernel()
            if b is not None:
                out.append((b, caps[b]))
        return out


class KernelSchedPorts:
    """Port-level twin of hdl/kernel_sched.py (contract in hdl/params/kernel_sched.py): the
    method-level controller behind the ports, one event per cycle, outputs from the state after
    the previous edge. ``controller`` may be a mutant subclass (tests)."""

    def __init__(self, K: int = 8, NSM: int = 15, CW: int = 32, BW: int = 16, RW: int = 5,
                 policy: str = "srtf", controller=KernelSchedTwin, FW: int = 16,
                 LIMITS: str = GTX480_LIMITS):
        self.ctrl = controller(K, NSM, policy, limits_of(LIMITS))
        self.K, self.NSM, self.RW, self.FW = K, NSM, RW, FW
        self.kw = (K - 1).bit_length()
        self.end_pend = 0
        self.cmds: list[tuple] = []         # commands of the last event, shown one at a time
        self.cmd_fields = (0, 0, 0, 0, 0)   # the ctl_* registers keep the last command
        self.last_in = (0, 0)               # arr_valid, done_valid of the last step

    def peek(self) -> dict[str, int]:
        """Outputs after the last edge with the last inputs held (as the RTL proxy's ``peek``)."""
        return self.outputs(*self.last_in)

    def outputs(self, arr_valid: int = 0, done_valid: int = 0) -> dict[str, int]:
        c, K = self.ctrl, self.K
        busy = bool(self.cmds) or self.end_pend != 0
        allow = cap = first = 0
        for s in range(self.NSM):
            row = c.row(s)
            for k, cp in row:
                allow |= 1 << (s * K + k)
                cap |= cp << ((s * K + k) * self.RW)
            if row:
                first |= row[0][0] << (s * self.kw)
        prio = 0
        for rank, k in enumerate(c.order):
            prio |= rank << (k * self.kw)
        kind, k, total, res, t = self.cmd_fields
        return {"arr_ready": int(not busy), "upd_ready": int(not (busy or arr_valid or done_valid)),
                "done_ready": int(not busy and not arr_valid),
                "allow": allow, "cap": cap, "first": first, "prio": prio,
                "ctl_valid": int(bool(self.cmds)),
                "ctl_kind": kind, "ctl_k": k, "ctl_total": total, "ctl_res": res, "ctl_t": t,
                "run": c.run or 0, "run_valid": int(c.run is not None),
                "samp": c.samp or 0, "samp_valid": int(c.samp is not None),
                "mode": int(c.pair is not None)}

    def step(self, arr_valid=0, arr_k=0, arr_blocks=0, arr_R=0, upd_valid=0, upd_sm=0, upd_k=0,
             upd_rem=0, upd_t=0, all_dispatched=0, kernel_end=0, ctl_ready=0,
             arr_fp=0, arr_tsp=0, done_valid=0, done_k=0, upd_pred=0,
             upd_res=0) -> dict[str, int]:
        out = self.outputs(arr_valid, done_valid)
        self.last_in = (arr_valid, done_valid)
        c, cmd_was, pend = self.ctrl, bool(self.cmds), self.end_pend
        if cmd_was and ctl_ready:
            self.cmds.pop(0)
            if self.cmds:
                self.cmd_fields = self.cmds[0]
        for k in range(self.K):
            if all_dispatched >> k & 1:
                c.dispatched_all(k)
        self.end_pend |= kernel_end
        if not cmd_was:
            if pend:
                k = (pend & -pend).bit_length() - 1
                self.end_pend &= ~(1 << k)
                if k in c.order:
                    c.end(k)
            elif arr_valid:
                mask = (1 << self.FW) - 1
                c.arrive(arr_k, arr_blocks, arr_R,
                         tuple(arr_fp >> (r * self.FW) & mask for r in range(NR)), arr_tsp)
            elif done_valid:
                c.block_done(done_k)
            elif upd_valid:
                c.update(upd_sm, upd_k, upd_rem, upd_pred, upd_t, upd_res)
            if c.commands:
                self.cmds, c.commands = list(c.commands), []
                self.cmd_fields = self.cmds[0]
        return out
