"""IKRA CTA schedulers ([IKRA Steal]) in the GPU model: the ``cta_sched`` block at the
CTA-scheduler point.

``IkraCtaScheduler(cfg, policy=..., qdepth=32, id_w=32)`` drives the block through its ports
(the ports of our cycle contract), one ``step`` per cycle while a kernel is in it:

- launch handshake: the next kernel the kernel scheduler released (its launch countdown over) is
  presented with its grid dims while ``launch_ready`` (previous kernel fully retired; one kernel
  at a time, [IKRA]); the twin then spends ``ID_W + 2`` cycles initialising;
- ``slot_free[i]`` = ``gpu.can_accept(SM i, kernel)`` (occupancy limit, CTA-count limit, SM state),
  computed after this cycle's SMs ran; never from ``tb_valid`` (our cycle contract);
- every transfer ``(cu, tb_id, src)`` places exactly CTA ``tb_id`` on SM ``cu`` in this cycle;
- ``tb_done[i]`` = CTAs of the kernel that finished on SM i in this cycle.

Cycle skipping is exact: the policy asks for every cycle (``next_wakeup = now + 1``) unless the
block is provably quiescent: running, initialised, no SM can take a CTA, no retirement. Such a
cycle changes no block register (no transfer, no steal: a thief needs a free slot; ``retired``
unchanged), and any event that could free a slot (a CTA
finishing, an SM resumed, a limit raised) makes the GPU visit that cycle. ``every_cycle=True``
disables the skipping (used by the tests to check that it changes nothing).

Statistics: ``stats`` (the twin's scheduler counters plus transfers per ``tb_src``; G, C, R and F
report every transfer as ``chunk``) and ``steal_log`` (per kernel index, the CTA ids stolen
during that launch).

The kernel scheduler (FIFO) only admits kernels and runs their launch countdowns; which kernel
runs next is the launch order. ``on_cta_finish`` rejects CTAs of any other kernel.

The block is instance ``gpu`` of ``cta_sched`` from the run's block provider
(sim/blocks/provider.py) and is reached only through its ports: ``CtaSchedPorts`` presents the
launch / running view and the scheduler counters from ``step`` alone (launch handshake, ID_W + 2
set-up cycles and N retirements per our cycle contract; the counters replayed from the status
ports), the same for the twin, the RTL and lockstep.
"""

from __future__ import annotations

from collections import deque

from hdl.ikra.params import POLICIES as IKRA_POLICIES
from hdl.ikra.params import SRC_STOLEN_QUEUE, TB_DONE_W, IkraShape, pack, unpack, victim_order
from sim.blocks.cta_sched import CtaSchedTwin
from sim.policies.base import Policy

SRC_NAMES = ("chunk", "queue", "stolen_queue", "stolen_chunk")   # tb_src encoding (our cycle contract)


class IkraCtaScheduler(Policy):
    """G / C / R / F / S CTA scheduler of [IKRA] driven cycle by cycle (see module doc)."""

    per_cycle = True
    default_policy = "steal"

    def __init__(self, cfg, policy: str | None = None, qdepth: int = 32, id_w: int = 32,
                 every_cycle: bool = False):
        """The block (instance ``gpu`` of ``cta_sched``) comes from the run's provider when the
        GPU is built (``attach``)."""
        self.policy = policy or self.default_policy
        self.n = cfg.sm.count
        self.id_w, self.qdepth = id_w, qdepth
        self.victim_first = cfg.kernels.ikra_victim_first
        self.block = self.twin = None
        self.steps = 0                      # block cycles run (not part of the stats)
        self.every_cycle = every_cycle
        self.pending: deque = deque()       # runs released by the kernel scheduler, in order
        self.current = None                 # the run inside the twin (launched, not retired)
        self.done = [0] * self.n            # tb_done of this cycle
        self.quiet = False                  # twin provably unchanged until the next event
        self.src_counts = [0] * len(SRC_NAMES)
        self.steal_log: dict[int, list[int]] = {}

    def attach(self, gpu) -> None:
        super().attach(gpu)
        self.sms = gpu.sms
        params = {"C": self.n, "ID_W": self.id_w, "QDEPTH": self.qdepth, "policy": self.policy,
                  "victim_first": self.victim_first}
        make_twin = lambda: CtaSchedTwin(self.n, self.id_w, self.qdepth, self.policy,
                                         victim_first=self.victim_first)
        self.block = gpu.blocks.block("cta_sched", "gpu", lambda: params, make_twin)
        self.twin = CtaSchedPorts(self.block, self.n, self.id_w, self.qdepth, self.policy,
                                  self.victim_first)

    # -- Policy hooks ----------------------------------------------------------------------------
    def on_kernel_launch(self, now: int, run) -> None:
        self.pending.append(run)

    def on_cta_finish(self, now: int, sm, cta) -> None:
        if cta.run is not self.current:
            raise RuntimeError(f"IKRA: CTA of {cta.run.name} finished while {self.current} runs")
        self.done[sm.sm_id] += 1
        self.quiet = False

    def issue(self, now: int) -> int:
        """All placement happens in ``on_cycle`` (the twin decides); nothing to do here."""
        self.quiet = False                  # a limit or an SM state may have changed
        return 0

    def next_wakeup(self, now: int) -> int | None:
        tw = self.twin
        if tw.active:
            return None if self.quiet and not self.every_cycle else now + 1
        if self.pending:
            return max(now + 1, self.pending[0].ready_at)
        return None

    def on_cycle(self, now: int) -> None:
        """One twin cycle: launch handshake, slot_free / tb_done in, transfers out (our cycle
        contract)."""
        tw = self.twin
        launch = None
        if tw.launch_ready and self.pending and self.pending[0].ready_at <= now:
            self.current = self.pending.popleft()
            launch = self.current.kernel.grid
        run = self.current
        if tw.running:
            free = [int(self.gpu.can_accept(sm, run)) for sm in self.sms]
        else:
            free = [0] * self.n
        done, self.done = self.done, [0] * self.n
        self.steps += 1
        for cu, tb, src in tw.cycle(free, done, launch):
            self.place(now, cu, run, tb)
            self.src_counts[src] += 1
        if tw.steal_log:
            self.steal_log.setdefault(run.index, []).extend(tb for _, _, _, tb in tw.steal_log)
        if not tw.active:
            self.current = None
            self.quiet = False
        else:
            self.quiet = tw.running and not any(self.gpu.can_accept(sm, run) for sm in self.sms)

    # -- placement -------------------------------------------------------------------------------
    def place(self, now: int, cu: int, run, tb: int) -> None:
        """Place exactly CTA ``tb`` of ``run`` on SM ``cu``."""
        self.gpu.launch_cta(now, self.sms[cu], run, cta_id=tb)

    @property
    def stats(self) -> dict:
        """The twin's counters (steals by source, lost races, overflows, launches, reinits) and
        transfers per ``tb_src`` (scheduler statistics)."""
        return {**self.twin.stats, **{f"src_{n}": c for n, c in zip(SRC_NAMES, self.src_counts)}}

    def report(self) -> dict:
        """Scheduler statistics and, per launch, the CTA ids stolen in it."""
        return {"policy": self.policy, "stats": self.stats,
                "stolen": {str(k): v for k, v in sorted(self.steal_log.items())}}


class ProtocolError(RuntimeError):
    """An injected ``cta_sched`` block broke the port protocol (our cycle contract) the GPU side
    relies on."""


class CtaSchedPorts:
    """The GPU side's view of a ``cta_sched`` block reached only through ``step`` (the twin, the
    RTL or lockstep alike): ``cycle``, ``active``, ``running``, ``launch_ready``, ``steal_log``,
    ``stats``.

    State the ports do not show is tracked from the protocol (our cycle contract): a launch is taken
    when ``launch_valid`` meets ``launch_ready``; offers start ``ID_W + 2`` cycles later; the kernel
    retires at the edge where the reported ``tb_done`` reach N (checked against ``kernel_done``
    in the next cycle). Counters: launches and re-chunks at the handshake ([IKRA Steal]: first
    kernel, an overflow or new dims); steals, lost races / arbitrations and overflows by replaying
    the thieves' choice on the status ports ([IKRA Steal], our cycle contract), each theft confirmed
    by the thief's stolen offer in the next cycle, which also names the stolen id for ``steal_log``.
    """

    def __init__(self, block, n_cus: int, id_w: int, qdepth: int, policy: str,
                 victim_first: str = "right"):
        self.block, self.p, self.policy = block, n_cus, policy
        self.sh = IkraShape(n_cus, id_w, qdepth, policy, victim_first)
        self.active, self.init_left, self.n, self.retired = 0, 0, 0, 0
        self.expect_done, self.prev_dims = 0, None
        self.grants: list[tuple[int, int, int]] = []      # (thief, victim, kind) at the last edge
        self.steal_log: list[tuple[int, int, int, int]] = []
        self.stats = {"steals_queue": 0, "steals_chunk": 0, "steal_lost_race": 0,
                      "steal_lost_arbitration": 0, "overflows": 0, "launches": 0, "reinits": 0}

    @property
    def launch_ready(self) -> bool:
        return not self.active

    @property
    def running(self) -> bool:
        return bool(self.active and self.init_left == 0)

    def cycle(self, slot_free: list[int], tb_done: list[int] = (),
              launch: tuple[int, int, int] | None = None) -> list[tuple[int, int, int]]:
        """One ``step``: the transfers ``(cu, tb_id, src)`` of this cycle."""
        p, sh = self.p, self.sh
        free, done = pack(slot_free, 1), list(tb_done) or [0] * p
        gx, gy, gz = launch or (0, 0, 0)
        running = self.running
        out = self.block.step(launch_valid=int(launch is not None), grid_x=gx, grid_y=gy,
                              grid_z=gz, slot_free=free,
                              tb_done=pack(done, TB_DONE_W) if any(done) else 0)
        if out["launch_ready"] != int(not self.active) or out["kernel_done"] != self.expect_done:
            raise ProtocolError(f"cta_sched: launch_ready={out['launch_ready']} kernel_done="
                                f"{out['kernel_done']}, expected {int(not self.active)} / "
                                f"{self.expect_done} ({self.retired} of {self.n} retired)")
        valid = out["tb_valid"]
        if valid and not running:
            raise ProtocolError(f"cta_sched: offer tb_valid={valid:#x} outside a running kernel")
        ids = srcs = ()
        if valid:
            ids, srcs = unpack(out["tb_id"], sh.id_w, p), unpack(out["tb_src"], 2, p)
        if self.grants:
            self._confirm_steals(valid, ids, srcs, unpack(out["tb_victim"], sh.cu_w, p))
        elif self.steal_log:
            self.steal_log = []
        xfer = valid & free
        if running and self.policy == "steal" and out["nowork"] != (1 << p) - 1:
            # every CU saying nowork: no victim has work, so no steal, race or arbitration
            self._replay_steals(out, free, valid, xfer, srcs)
        fire, self.expect_done = launch is not None and not self.active, 0
        if running:
            self.retired += sum(done)
            if self.retired >= self.n:
                self.active, self.expect_done = 0, 1
        if fire:
            self._launch(launch, out)
        elif self.init_left:
            self.init_left -= 1
        return [(i, ids[i], srcs[i]) for i in range(p) if xfer >> i & 1]

    def _launch(self, dims: tuple[int, int, int], out: dict) -> None:
        gx, gy, gz = dims
        self.active, self.init_left = 1, self.sh.init_cycles
        self.n, self.retired = (gx * gy * gz) & ((1 << self.sh.id_w) - 1), 0
        self.stats["launches"] += 1
        if self.policy == "steal":
            self.stats["reinits"] += int(bool(out["st_reinit_pending"]) or dims != self.prev_dims)
            self.prev_dims = dims

    def _confirm_steals(self, valid: int, ids, srcs, victims) -> None:
        """Each theft of the last edge must show as the thief's stolen offer now (our cycle
        contract)."""
        for t, v, kind in self.grants:
            if not valid >> t & 1 or srcs[t] != SRC_STOLEN_QUEUE + kind or victims[t] != v:
                raise ProtocolError(f"cta_sched: CU {t} should offer the TB it stole from CU {v} "
                                    f"(src {SRC_STOLEN_QUEUE + kind}); tb_valid={valid:#x} "
                                    f"src={srcs[t]} victim={victims[t]}")
        self.steal_log = [(t, v, kind, ids[t]) for t, v, kind in self.grants]
        self.grants = []

    def _replay_steals(self, out: dict, free: int, valid: int, xfer: int, srcs) -> None:
        """The thieves' victim choice and arbitration at this edge, from the status ports."""
        p, sh, ph = self.p, self.sh, out["st_phase"]
        lo, hi, cur = (unpack(out[k], sh.id_w, p) for k in ("st_lo", "st_hi", "st_cur"))
        ql, qh, qc = (unpack(out[k], sh.q_w, p) for k in ("st_q_lo", "st_q_hi", "st_q_cur"))
        qmask = (1 << sh.q_w) - 1
        c_left = [max(0, cur[i] - lo[i] if ph else hi[i] - cur[i]) for i in range(p)]
        q_left = [((qc[i] - ql[i]) if ph else (qh[i] - qc[i])) & qmask for i in range(p)]
        stolen = [valid >> i & 1 and srcs[i] >= SRC_STOLEN_QUEUE for i in range(p)]
        aims: dict[tuple[int, int], int] = {}
        for i in range(p):
            if not free >> i & 1 or stolen[i] or c_left[i] or q_left[i]:
                continue
            order = victim_order(i, p, sh.victim_first)
            aim = next(((0, v) for v in order if q_left[v]), None) or \
                next(((1, v) for v in order if c_left[v]), None)
            if aim in aims:
                self.stats["steal_lost_arbitration"] += 1
            elif aim is not None:
                aims[aim] = i                           # ascending i: the lowest thief wins
        for (kind, v), thief in aims.items():
            local = 1 - srcs[v] if xfer >> v & 1 and not stolen[v] else None   # region it serves
            if local == kind and (c_left[v] if kind else q_left[v]) == 1:
                self.stats["steal_lost_race"] += 1      # the victim keeps its last TB
                continue
            self.stats["steals_chunk" if kind else "steals_queue"] += 1
            if (qh[thief] - ql[thief]) & qmask == sh.qdepth:
                self.stats["overflows"] += 1
            self.grants.append((thief, v, kind))


def ikra_scheduler_class(policy: str) -> type[IkraCtaScheduler]:
    """A subclass fixed to ``policy`` (named e.g. ``IkraStealCtaScheduler``), for the registry."""
    if policy not in IKRA_POLICIES:
        raise ValueError(f"IKRA policy {policy!r}: allowed: {', '.join(IKRA_POLICIES)}")
    name = f"Ikra{policy.capitalize()}CtaScheduler"
    return type(name, (IkraCtaScheduler,), {"default_policy": policy, "__doc__":
                                            f"IKRA `{policy}` CTA scheduler ([IKRA])."})


IKRA_CTA_SCHEDULERS: dict[str, type[IkraCtaScheduler]] = {
    f"ikra_{p}": ikra_scheduler_class(p) for p in IKRA_POLICIES}
