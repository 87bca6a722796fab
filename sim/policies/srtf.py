"""SRTF-family kernel schedulers ([SRTF]): the ``kernel_sched`` twin steering ``tb_dispatch``,
fed by one ``srtf_pred`` twin per SM.

Registered as ``srtf``, ``adaptive``, ``mpmax`` and ``srtf_fifo``; zero-sampling SRTF
(``ZeroSamplingKernelScheduler``) takes the kernels' standalone runtimes, so it is built by the
caller ([SRTF FIFO]: only the oldest kernel
with undispatched blocks, cap R_k; ``fifo`` stays GPGPU-Sim's slot-pointer FIFO). Kernel slots and
launch countdowns are FIFO's (sim/policies/kernel_sched.py); blocks of several kernels share an
SM, so ``kernels.concurrent_sm`` must be on.

Predictors (``srtf_pred`` at ``sm<i>`` from the run's block provider) run cycle-exactly but
lazily (``PredictorPort``): an SM's block starts and ends of a cycle are its inputs for that
cycle, stepped once a later cycle begins; quiet stretches (no job, nothing pending) and the
arithmetic cycles of a job are skipped through the block's skip hook (``quiet_cycles`` /
``skip``: exact on the twin; an RTL block is stepped every cycle).
A record that appears in cycle c reaches the controller in cycle c + 1 (all records of a cycle,
lowest SM first: the model's stand-in for the one-per-cycle arbiter of our cycle contract), and its
effect on the dispatch rows is seen by that cycle's CTA issue. Commands go to each predictor when it
is ready.

The controller runs either as the method-level twin (the default, fast: each event applied at
once) or, when the run's provider replaces ``kernel_sched`` at ``gpu``, as that block behind its
ports (``ControllerPort``: one event per cycle, so its timing differs from the method level; its
twin reference is ``KernelSchedPorts``, ``--rtl kernel_sched --rtl-sim twin``), for the policies
the RTL has (hdl/params/kernel_sched.py ``POLICIES``).
"""

from __future__ import annotations

from collections import deque

from gpusched.config import ConfigError
from sim.blocks.kernel_sched import KernelSchedPorts, KernelSchedTwin
from sim.blocks.srtf_pred import SrtfPredFixedR, SrtfPredTwin
from sim.policies.kernel_sched import FIFOKernelScheduler
from sim.policies.names import Arg, Family
from sim.policies.srtf_port import ControllerPort

NO_INPUT: dict = {}
STEP_DEFAULTS = {"blk_start_valid": 0, "blk_start_slot": 0, "blk_start_k": 0, "blk_end": 0,
                 "ctl_valid": 0, "ctl_kind": 0, "ctl_k": 0, "ctl_total": 0, "ctl_res": 0,
                 "ctl_t": 0, "upd_ready": 1}


class PredictorPort:
    """One SM's predictor driven lazily; ``advance_to(c)`` steps every cycle before c.

    ``block``: anything with the predictor's port interface: ``step(**inputs)``, ``peek()`` and
    the skip hook ``quiet_cycles()`` / ``skip(n, idle_inputs)`` (the twin skips quiet stretches
    exactly; an RTL block says 0 and is stepped every cycle, in lockstep the twin decides).
    """

    def __init__(self, block):
        self.block = block
        self.cur = 0                        # the cycle whose inputs are being gathered
        self.inputs: dict = {}
        self.queue: deque = deque()         # commands not yet accepted
        self.records: list[tuple[int, dict]] = []
        self.steps = 0

    def quiet_cycles(self) -> int | None:
        return self.block.quiet_cycles()

    def _step(self, cycle: int, inputs: dict) -> None:
        blk = self.block
        if self.queue:
            if blk.peek()["ctl_ready"]:
                kind, k, total, res, t = self.queue.popleft()
                inputs = {**inputs, "ctl_valid": 1, "ctl_kind": kind, "ctl_k": k,
                          "ctl_total": total, "ctl_res": res, "ctl_t": t}
        out = blk.step(**{**STEP_DEFAULTS, **inputs})
        self.steps += 1
        if out["upd_valid"]:
            self.records.append((cycle, out))

    def advance_to(self, cycle: int) -> None:
        while self.cur < cycle:
            if self.inputs or self.queue:
                self._step(self.cur, self.inputs)
                self.inputs = {}
                self.cur += 1
                continue
            q = self.quiet_cycles()
            n = cycle - self.cur if q is None else min(cycle - self.cur, q)
            if n > 0:
                self.block.skip(n, STEP_DEFAULTS)
                self.cur += n
            else:
                self._step(self.cur, NO_INPUT)
                self.cur += 1

    def next_change(self) -> int | None:
        """The first cycle at which ``advance_to`` must run for a record or a command."""
        if self.inputs or self.queue:
            return self.cur + 1
        q = self.quiet_cycles()
        return None if q is None else self.cur + q + 1


class SrtfKernelScheduler(FIFOKernelScheduler):
    """Kernel slots as FIFO; which kernel each SM may take decided by ``KernelSchedTwin``."""

    per_cycle = True
    policy = "srtf"             # the registered name
    controller_policy = "srtf"  # KernelSchedTwin's policy
    controller = KernelSchedTwin   # tests inject mutants here

    def __init__(self, cfg, hysteresis: float = 0.0, backfill: bool = True,
                 sample_sm: int | None = 0, sample_size: int = 1, resident: str = "cap"):
        """Knobs ([SRTF], defaults the spec's): ``hysteresis`` h, ``sample_sm`` (None: the
        first SM with a free slot that fits the sample), ``sample_size`` (records from the
        sampling SM before a decision), ``resident`` ("cap": Eq. 2 divides by min(R, cap); "R":
        by R, the document's form). The blocks come from the run's provider in ``attach``:
        ``srtf_pred`` at ``sm<i>``, and ``kernel_sched`` at ``gpu`` when the provider replaces
        it (the controller then runs behind its ports, ``ControllerPort``; otherwise the
        method-level controller)."""
        super().__init__(cfg)
        if not cfg.kernels.concurrent_sm:
            raise ConfigError("kernels.concurrent_sm", False,
                              f"must be true for kernel scheduler {self.policy} (kernels share SMs)")
        self.K = max(2, 1 << (cfg.kernels.max_concurrent - 1).bit_length())
        if self.K > 16:
            raise ConfigError("kernels.max_concurrent", cfg.kernels.max_concurrent,
                              f"at most 16 for kernel scheduler {self.policy} (srtf_pred K)")
        sm = cfg.sm
        self.n_sm = sm.count
        self.cfg = cfg
        if sample_sm is not None and not 0 <= sample_sm < sm.count:
            raise ConfigError("sample_sm", sample_sm, f"an SM index below sm.count = {sm.count}")
        if resident not in ("cap", "R"):
            raise ConfigError("resident", resident, "cap (min(R, cap)) or R")
        self.knobs = (hysteresis, backfill, sample_sm, sample_size, resident)
        self.predictor_twin = SrtfPredTwin if resident == "cap" else SrtfPredFixedR
        limits = self.limits_of(cfg)
        self.ctrl = self.controller(self.K, sm.count, self.controller_policy, limits, hysteresis,
                                    backfill, sample_sm, sample_size=sample_size)
        self.records_seen = 0
        self.ports: list[PredictorPort] = []
        self.cport = None

    def attach(self, gpu) -> None:
        super().attach(gpu)
        cfg, blocks = self.cfg, gpu.blocks
        p = self.predictor_params(cfg)
        twin = self.predictor_twin
        self.ports = [PredictorPort(blocks.block("srtf_pred", f"sm{i}", lambda: p,
                                                 lambda: twin(p["K"], p["SLOTS"])))
                      for i in range(self.n_sm)]
        if blocks.replaces("kernel_sched", "gpu"):
            from hdl.params.kernel_sched import POLICIES as RTL_POLICIES
            if self.controller_policy not in RTL_POLICIES or \
                    self.knobs != (0.0, True, 0, 1, "cap"):
                raise ConfigError("kernel_scheduler", self.policy,
                                  "the kernel_sched block has policies "
                                  + ", ".join(RTL_POLICIES) + " at their defaults only")
            cp = self.controller_params(cfg)
            block = blocks.block("kernel_sched", "gpu", lambda: cp,
                                 lambda: KernelSchedPorts(**cp))
            self.cport = ControllerPort(block, self.K, self.n_sm)
            self.fw = cp["FW"]

    @staticmethod
    def predictor_params(cfg) -> dict:
        """The ``srtf_pred`` parameters of every SM's predictor on ``cfg``."""
        return {"K": max(2, 1 << (cfg.kernels.max_concurrent - 1).bit_length()),
                "SLOTS": max(2, 1 << (cfg.sm.max_ctas_per_sm - 1).bit_length()),
                "CW": 32, "BW": 16, "RW": 5}

    @classmethod
    def controller_params(cls, cfg) -> dict:
        """The ``kernel_sched`` block parameters of this scheduler's controller on ``cfg``."""
        K = max(2, 1 << (cfg.kernels.max_concurrent - 1).bit_length())
        pol = {"srtf_fifo": "fifo"}.get(cls.policy, cls.policy)
        limits = cls.limits_of(cfg)
        return {"K": K, "NSM": cfg.sm.count, "CW": 32, "BW": 16, "RW": 5, "policy": pol,
                "FW": max(max(limits).bit_length(), 2), "LIMITS": ",".join(map(str, limits))}

    @staticmethod
    def limits_of(cfg) -> tuple[int, ...]:
        """Per-SM limits in footprint order: threads, registers, shared memory, slots, warps."""
        sm = cfg.sm
        return (sm.threads_per_sm, sm.regs_per_sm, sm.smem_per_sm, sm.max_ctas_per_sm,
                sm.warps_per_sm)

    # -- commands and records ----------------------------------------------------------------------
    def _broadcast(self, now: int) -> None:
        cmds = self.ctrl.commands
        if cmds:
            for p in self.ports:
                p.advance_to(now)
                p.queue.extend(cmds)
            cmds.clear()

    def on_cycle(self, now: int) -> None:
        recs = []
        for i, p in enumerate(self.ports):
            if p.cur < now and (p.inputs or p.queue or p.quiet_cycles() is not None):
                p.advance_to(now)
            if p.records:
                recs += [(c, i, r) for c, r in p.records]
                p.records.clear()
        if recs:
            recs.sort(key=lambda x: (x[0], x[1]))
            self.records_seen += len(recs)
            if self.cport is not None:
                self.cport.records.extend((sm_id, r["upd_k"], r["upd_rem"], r["upd_t"],
                                           r["upd_pred"], r["upd_res"]) for _, sm_id, r in recs)
            else:
                for _, sm_id, r in recs:
                    self.ctrl.update(sm_id, r["upd_k"], r["upd_rem"], r["upd_pred"], r["upd_t"],
                                     r["upd_res"])
                self.gpu.request_cta_issue()
        if self.cport is not None:
            self._step_controller(now)
        self._broadcast(now)

    def _step_controller(self, now: int) -> None:
        rows = list(self.cport.rows)
        cmd = self.cport.step(all(not p.queue for p in self.ports))
        if cmd is not None:
            self.ctrl.commands.append(cmd)
        if self.cport.rows != rows:
            self.gpu.request_cta_issue()

    def next_wakeup(self, now: int) -> int | None:
        if self.cport is not None:
            return now + 1              # the controller block is stepped every cycle
        times = [t for p in self.ports if (t := p.next_change()) is not None]
        return max(now + 1, min(times)) if times else None

    # -- GPU hooks -----------------------------------------------------------------------------------
    def on_kernel_launch(self, now: int, run) -> None:
        if self.cport is not None:
            if run.n_ctas >> 16 or run.occupancy.limit >> 5:
                raise ConfigError("workload", run.name, f"{run.n_ctas} blocks, R = "
                                  f"{run.occupancy.limit}: beyond the kernel_sched block's "
                                  "BW = 16 / RW = 5 bit ports")
            fp = self.footprint(run)
            if any(v >> self.fw for v in fp):
                raise ConfigError("workload", run.name, f"footprint {fp} beyond the "
                                  f"kernel_sched block's FW = {self.fw} bit fields")
            packed = sum(v << (r * self.fw) for r, v in enumerate(fp))
            self.cport.arrivals.append((run.slot, run.n_ctas, run.occupancy.limit, packed,
                                        self.t_sp(run)))
            return
        self.ctrl.arrive(run.slot, run.n_ctas, run.occupancy.limit, self.footprint(run),
                         self.t_sp(run))
        self._broadcast(now)

    def t_sp(self, run) -> int:
        """The standalone runtime the controller gets at arrival (zero-sampling only)."""
        return 0

    @staticmethod
    def footprint(run) -> tuple[int, ...]:
        """A block of ``run`` in the order of ``limits_of``."""
        return (run.padded_threads, run.regs_per_cta, run.smem_per_cta, 1, run.warps_per_cta)

    def on_cta_start(self, now: int, sm, cta) -> None:
        p = self.ports[sm.sm_id]
        p.advance_to(now)
        if p.inputs.get("blk_start_valid"):
            raise RuntimeError(f"SM {sm.sm_id}: two blocks placed in cycle {now} (srtf_pred takes one)")
        p.inputs.update(blk_start_valid=1, blk_start_slot=cta.cta_slot, blk_start_k=cta.run.slot)
        if not cta.run.has_ctas_left():
            if self.cport is not None:
                self.cport.all_dispatched |= 1 << cta.run.slot
            else:
                self.ctrl.dispatched_all(cta.run.slot)

    def on_cta_finish(self, now: int, sm, cta) -> None:
        super().on_cta_finish(now, sm, cta)
        p = self.ports[sm.sm_id]
        p.advance_to(now)
        p.inputs["blk_end"] = p.inputs.get("blk_end", 0) | 1 << cta.cta_slot

    def on_kernel_end(self, now: int, run) -> None:
        if self.cport is not None:
            self.cport.kernel_end |= 1 << run.slot
            return
        self.ctrl.end(run.slot)
        self._broadcast(now)
        self.gpu.request_cta_issue()

    # -- the dispatcher row ------------------------------------------------------------------------
    def dispatch_row(self, now: int, sm) -> list:
        slots, c = self.slots, self.ctrl
        if c.samp is not None and c.sample_sm is None and self.cport is None:
            run = slots[c.samp]
            if run is not None and now >= run.ready_at and run.has_ctas_left() and \
                    self.gpu.can_accept(sm, run):
                c.bind_sample_sm(sm.sm_id)      # the first SM with room for a sample block
        row = c.row(sm.sm_id) if self.cport is None else self.cport.rows[sm.sm_id]
        return [(slots[k], cap) for k, cap in row
                if slots[k] is not None and now >= slots[k].ready_at]

    def report(self) -> dict:
        c = self.ctrl
        switches = self.cport.switches if self.cport is not None else c.switches
        out = {"policy": self.policy, "switches": [list(s) for s in switches],
               "records": self.records_seen}
        if self.controller_policy == "adaptive":
            log = self.cport.sharing if self.cport is not None else c.sharing_log
            out["sharing"] = [list(s) for s in log]
        if c.sample_free or c.sample_sm:
            out["sample_sm"] = "free" if c.sample_free else c.sample_sm
        return out


class MPMaxKernelScheduler(SrtfKernelScheduler):
    """Just-in-time MPMax ([SRTF MPMax]): every running kernel allowed, capped to leave room for
    one block of a composite co-runner; arrival order."""
    policy = controller_policy = "mpmax"


class SpecFifoKernelScheduler(SrtfKernelScheduler):
    """The spec's FIFO ([SRTF FIFO]) through ``kernel_sched``: the oldest kernel with
    undispatched blocks, cap R_k."""
    policy, controller_policy = "srtf_fifo", "fifo"


class AdaptiveKernelScheduler(SrtfKernelScheduler):
    """SRTF/Adaptive ([SRTF SRTF/Adaptive]): SRTF plus a sharing mode when SRTF would be unfair."""
    policy = controller_policy = "adaptive"


class ZeroSamplingKernelScheduler(SrtfKernelScheduler):
    """Zero-sampling SRTF ([SRTF zero-sampling]): remaining times known from arrival, from each kernel's
    standalone runtime T^SP (``standalone``: kernel name → cycles, or a multiprogram member's
    name → its T^SP, which stands for each of its kernels), scaled by its unfinished blocks;
    isolates the hand-off delay. Not in the name registry: it needs T^SP, which the
    multiprogram harness measures first (pass an instance or a factory)."""
    policy = controller_policy = "srtf_zero"

    def __init__(self, cfg, standalone: dict[str, int], **kw):
        super().__init__(cfg, **kw)
        self.standalone = standalone

    def t_sp(self, run) -> int:
        name = run.name if run.name in self.standalone else run.kernel.meta.get("member", run.name)
        if name not in self.standalone:
            raise ConfigError("standalone", run.name, "no standalone runtime for this kernel "
                              "(zero-sampling SRTF needs T^SP of every kernel)")
        t = self.standalone[name]
        if self.cport is not None and t >> 32:
            raise ConfigError("standalone", run.name, f"T^SP = {t} beyond the kernel_sched "
                              "block's CW = 32 bit port")
        return t

    def on_cta_finish(self, now: int, sm, cta) -> None:
        super().on_cta_finish(now, sm, cta)
        if self.cport is not None:
            self.cport.dones.append(cta.run.slot)       # block ends queue, one per cycle
            return
        self.ctrl.block_done(cta.run.slot)
        self.gpu.request_cta_issue()


SRTF_KERNEL_SCHEDULERS = {"srtf": SrtfKernelScheduler, "mpmax": MPMaxKernelScheduler,
                          "srtf_fifo": SpecFifoKernelScheduler,
                          "adaptive": AdaptiveKernelScheduler}

_KNOBS = (Arg("h_pct", lo=0, hi=99, default=0, doc="switch hysteresis h, in per cent"),
          Arg("sample_sm", words=("sm0", "free"), default="sm0",
              doc="sm0 or free (the first SM with room for a sample block)"),
          Arg("samples", lo=1, hi=64, default=1,
              doc="records of the sample from its SM before the decision"),
          Arg("resident", words=("cap", "R"), default="cap",
              doc="Resident in Eq. 2: cap = min(R, cap), R = the document's fixed R"))


def _with_knobs(cls):
    def make(cfg, a):
        return cls(cfg, hysteresis=a["h_pct"] / 100,
                   sample_sm=0 if a["sample_sm"] == "sm0" else None,
                   sample_size=a["samples"], resident=a["resident"])
    return make


SRTF_FAMILIES = {
    name: Family(name, _with_knobs(cls), f"{name} with its [SRTF] knobs (plain {name}: all "
                 "defaults)", args=_KNOBS)
    for name, cls in (("srtf", SrtfKernelScheduler), ("adaptive", AdaptiveKernelScheduler))}
