"""ONAC / Seq-Det active-SM controller: the SWM detector twin plus one CoreSampler twin per SM,
stepped every cycle and wired to the GPU's pause / resume / gate services ([THESIS §4.4], with
our choices where it is silent; port protocols in hdl/onac_parts/swm.py and hdl/core_sampler.py).

Wiring, per cycle ``now`` (after the SMs ran, so the SMs' signals are those of cycle ``now``):

- every sampler is stepped with the detector's current registers (``pause_req`` / ``sample_req``
  bit i), ``instr`` = warp instructions SM i issued this cycle, ``in_flight`` (below),
  ``cta_done`` = CTAs of the detected kernel that finished on SM i this cycle and ``cta_limit`` =
  the CTA-count policy's limit for SM i; then the detector is stepped with the samplers' pre-edge
  outputs (``pause_ack``, ``sample_done``, packed ``sample_instr`` / ``sample_cycles``) and
  ``sm_idle`` = SM i holds no CTA. Both are registered, so this is the RTL's cycle timing.
- ``issue_hold`` of the next cycle (``pause_req`` or a sampler quiescing) → ``gpu.pause_sm`` (the
  SM keeps its CTAs and stops issuing), else ``gpu.resume_sm``; ``power_gate`` → pause, then
  ``gpu.gate_sm`` once the SM is drained. Changes take effect from cycle ``now + 1``, exactly
  when the registered outputs would.
- CTA placement: SM i may get a CTA only while bit i of the detector's ``dispatch_mask``
  (active & ~pause_req & ~power_gate) is set; the GPU's ``can_accept`` asks ``may_dispatch``
  (the active-SM controller protocol, sim/policies/active_sm.py). A quiescing SM
  is GPU-paused and so also gets no CTA for those few cycles (a small deviation from the CST rule).

``in_flight`` of SM i is what the sampler waits for, and the two waits differ:

- while ``pause_req`` i is high (a pause, [THESIS §4.4.2.5]: the ack comes once the in-flight
  instructions have drained): ``sm.in_flight()``, i.e. the pipeline *and* the SM's requests
  still in the memory system, so a paused SM sends no traffic into the next sample;
- otherwise (the quiesce before a sample, our choice where the thesis is silent):
  ``pipeline_busy(sm)``, i.e. the SM's own pipeline only (write-backs pending from its
  functional units, an LD/ST unit holding a refused request), not its loads already accepted by
  the memory system. Waiting for memory as well biased every sample up (docs/mechanisms/onac.md,
  "Measured: the quiesce before a sample").

Choices (where the thesis is silent): detection (the ``start`` pulse) begins after
``skip_waves`` × (SMs × occupancy limit) CTAs of the kernel completed (0 = at the kernel's first
CTA). The default is one wave; ``onac_skip<k>`` / ``seq_det_skip<k>`` below skip k, and
experiments/onac.py's headline uses k = 3 (the measured ramp-up, docs/mechanisms/onac.md).
If the kernel runs out of CTAs to place before a count is chosen, detection is abandoned: every
SM is resumed and may receive CTAs (otherwise paused SMs would hold their CTAs forever).
Detection restarts at every kernel start (our choice), assuming one kernel at a time.

``trace``: one dict per detected kernel with the samples (N, chip IPC, cycle), the estimates,
``n_opt`` and the start / decision / done cycles; ``events``: (cycle, sm, dispatch allowed) at
every change of an SM's eligibility for CTAs.

Blocks: the detector (instance ``gpu`` of ``onac`` / ``seq_det``) and one ``core_sampler`` per
SM (``sm<i>``) come from the run's block provider (sim/blocks/provider.py) and are reached only
through their ports. The detector through ``DetectorPorts``, which reads the post-edge
registers with ``peek`` after every step (every SWM output is a register and the controller acts
on them within the cycle) and rebuilds the detection log from them; each sampler's post-edge
state by ``peek`` as well, and every sampler is ``reset`` at a detection's start.
"""

from __future__ import annotations

from hdl.params.swm import SwmState, SwmWidths
from hdl.params.core_sampler import SamplerState
from sim.blocks.core_sampler import CoreSamplerTwin
from sim.blocks.onac import OnacTwin, SwmTwin
from sim.blocks.seq_det import SeqDetTwin
from sim.policies.base import Policy
from sim.sm import PWR_ACTIVE, PWR_GATED, PWR_PAUSED

DETECTORS: dict[str, type[SwmTwin]] = {"onac": OnacTwin, "seq_det": SeqDetTwin}
_RUN, _HOLD, _GATE = 0, 1, 2            # wanted GPU-side state of an SM
S_IDLE, S_QUIESCE, S_COUNT = SamplerState.IDLE, SamplerState.QUIESCE, SamplerState.COUNT


def pipeline_busy(sm) -> bool:
    """SM ``sm`` still has an instruction in its pipeline: a write-back pending from a functional
    unit (ALU, SFU, shared memory) or an LD/ST unit holding a request the memory system refused.
    Global-memory requests the memory system accepted are not counted (``sm.in_flight()`` counts
    them too): the sample quiesce of our choice (module docstring)."""
    return bool(sm.wb or sm.retry)


class OnacController(Policy):
    """Active-SM controller driving ``OnacTwin`` (mode ``onac``) or ``SeqDetTwin`` (``seq_det``).

    ``waves``: K of the 4-wave sampling window ([THESIS §4.4.2.3], our choice; smaller for
    scaled-down runs); ``skip_waves``: ramp-up waves before detection starts (module docstring);
    ``count_bits``: counter width shared by detector and samplers ([THESIS §4.4.2.3]; our width:
    24).
    """

    per_cycle = True

    def __init__(self, cfg, mode: str = "onac", waves: int = 4, skip_waves: int = 1,
                 count_bits: int = 24):
        """The detector (instance ``gpu`` of block ``mode``, ``M = cfg.sm.count``,
        ``count_bits`` and the default IPC widths) comes from the run's provider in ``attach``."""
        if mode not in DETECTORS:
            raise ValueError(f"mode {mode!r}: known: {', '.join(DETECTORS)}")
        self.mode, self.waves, self.skip_waves = mode, waves, skip_waves
        self.count_bits = count_bits
        self.m = cfg.sm.count
        self.block = self.det = None
        self.steps = 0                  # detector cycles run (not part of the stats)
        self.samplers: list = []        # one core_sampler per SM (``attach``), reset per detection
        self.sampled_state: list[int] = []      # each sampler's state after its last edge
        self.run = None                 # kernel under detection
        self.phase = "idle"             # idle | rampup | detect | settled | abandoned
        self.start_after = 0            # completed CTAs of ``run`` before the start pulse
        self.pending_start = False      # the start pulse is applied at the next step
        self.cta_done = [0] * self.m    # completions this cycle (filled by on_cta_finish)
        self.last_insts = [0] * self.m
        self.allowed = [True] * self.m  # last logged dispatch eligibility per SM
        self.trace: list[dict] = []
        self.events: list[tuple[int, int, bool]] = []

    def attach(self, gpu) -> None:
        super().attach(gpu)
        twin_cls = DETECTORS[self.mode]
        params = {"M": self.m, "count_bits": self.count_bits}
        self.block = gpu.blocks.block(self.mode, "gpu", lambda: params,
                                      lambda: twin_cls(self.m, self.count_bits))
        self.det = DetectorPorts(self.block, SwmWidths(self.m, self.count_bits))
        sp = {"K": self.waves, "count_bits": self.count_bits, "limit_bits": 5}
        self.samplers = [gpu.blocks.block("core_sampler", f"sm{i}", lambda: sp,
                                          lambda: CoreSamplerTwin(self.waves, self.count_bits))
                         for i in range(self.m)]
        self.sampled_state = [int(S_IDLE)] * self.m

    # -- GPU hooks ----------------------------------------------------------------------------
    def report(self) -> dict:
        """The detection trace per kernel (samples, estimates, n_opt, cycles) and the CTA
        eligibility changes (cycle, sm, allowed)."""
        return {"mode": self.mode, "trace": self.trace, "events": self.events}

    def may_dispatch(self, i: int) -> bool:
        """The controller's say in CTA placement: see ``_dispatch_mask``."""
        return bool(self._dispatch_mask() >> i & 1)

    def _dispatch_mask(self) -> int:
        """SMs that may receive CTAs: the detector's dispatch mask while it owns the SMs
        (detecting or settled), else every SM (-1)."""
        if self.phase == "settled" or self.phase == "detect" and not self.pending_start:
            return self.det.dispatch_mask
        return -1

    def on_kernel_start(self, now: int, run) -> None:
        self.run, self.phase = run, "rampup"
        self.start_after = self.skip_waves * self.m * run.occupancy.limit
        for i in range(self.m):                    # a new kernel un-gates every SM
            self._apply(now, i, _RUN)
        self._log_dispatch(now)
        if self.start_after == 0:
            self._start(now)

    def on_cta_finish(self, now: int, sm, cta) -> None:
        if cta.run is not self.run:
            return
        self.cta_done[sm.sm_id] += 1
        if self.phase == "rampup" and cta.run.ctas_done >= self.start_after:
            self._start(now)

    def next_wakeup(self, now: int) -> int | None:
        return now + 1 if self.phase == "detect" else None

    def on_cycle(self, now: int) -> None:
        if self.phase != "detect":
            self.cta_done = [0] * self.m
            return
        if not self.run.has_ctas_left() and self.det.state < SwmState.DRAIN:
            self._abandon(now)
            return
        self._step(now)

    # -- detection ----------------------------------------------------------------------------
    def _start(self, now: int) -> None:
        """The detector's ``start`` pulse, applied in this cycle's step."""
        self.phase = "detect"
        self.pending_start = True
        for s in self.samplers:
            s.reset()
        self.sampled_state = [int(S_IDLE)] * self.m
        self.last_insts = [sm.warp_insts() for sm in self.gpu.sms]
        self.trace.append({"kernel": self.run.index, "name": self.run.name, "mode": self.mode,
                           "start": now, "samples": [], "estimates": [], "n_opt": None,
                           "decided": None, "done": None, "abandoned": False})

    def _step(self, now: int) -> None:
        gpu, det, w = self.gpu, self.det, self.det.w
        pr, sr = det.pause_req, det.sample_req
        ack = done = instr_vec = cyc_vec = idle = 0
        last, cta_done, limit_of = self.last_insts, self.cta_done, gpu.cta_limit.limit
        states = self.sampled_state
        for i, (sm, s) in enumerate(zip(gpu.sms, self.samplers)):
            # Inputs the sampler ignores in its current state are not computed (same steps):
            # ``instr`` counts only in COUNT, ``cta_limit`` is read and ``in_flight`` waited
            # on only in QUIESCE, ``in_flight`` also gates ``pause_ack`` while paused. The
            # instruction baseline is kept from QUIESCE on, so COUNT's first delta is exact.
            st = states[i]
            paused = pr >> i & 1
            counting = st == S_COUNT or st == S_QUIESCE
            insts = sm.warp_insts() if counting else 0
            if paused:
                busy = sm.in_flight()
            elif st == S_QUIESCE:
                busy = pipeline_busy(sm)
            else:
                busy = False
            out = s.step(pause_req=paused, sample_req=sr >> i & 1,
                         instr=insts - last[i] if counting else 0, in_flight=int(busy),
                         cta_done=cta_done[i],
                         cta_limit=limit_of(sm, self.run) if st == S_QUIESCE else 0)
            states[i] = s.peek()["state"]
            if counting:
                last[i] = insts
            ack |= out["pause_ack"] << i
            done |= out["sample_done"] << i
            instr_vec |= out["sample_instr"] << (i * w.instr_bits)
            cyc_vec |= out["sample_cycles"] << (i * w.count_bits)
            idle |= int(sm.n_ctas == 0) << i
        self.cta_done = [0] * self.m
        self.steps += 1
        det.step(start=int(self.pending_start), pause_ack=ack, sample_done=done,
                 sample_instr=instr_vec, sample_cycles=cyc_vec, sm_idle=idle)
        self.pending_start = False
        self._record(now)
        pr, gate = det.pause_req, det.power_gate
        settled = det.is_done
        for i in range(self.m):
            # the sampler's issue_hold: pause_req, or quiescing for a sample
            hold = pr >> i & 1 or states[i] == S_QUIESCE
            want = _GATE if gate >> i & 1 else _HOLD if hold else _RUN
            settled = self._apply(now, i, want) and settled
        self._log_dispatch(now)
        if settled:
            self.phase = "settled"

    def _record(self, now: int) -> None:
        rec, det = self.trace[-1], self.det
        f = 1 << det.w.ipc_frac
        for n, ipc in det.samples[len(rec["samples"]):]:
            rec["samples"].append({"n": n, "ipc": ipc / f, "cycle": now})
        rec["estimates"] = list(det.estimates)
        if rec["decided"] is None and det.state >= SwmState.DRAIN:
            rec["decided"], rec["n_opt"] = now, det.n_opt
        if rec["done"] is None and det.is_done:
            rec["done"] = now

    def _abandon(self, now: int) -> None:
        """The kernel has no CTA left to place: give every SM back (see the module docstring)."""
        self.phase = "abandoned"
        self.trace[-1]["abandoned"] = True
        for i in range(self.m):
            self._apply(now, i, _RUN)
        self._log_dispatch(now)
        self.gpu.request_cta_issue()

    # -- GPU side -----------------------------------------------------------------------------
    def _apply(self, now: int, i: int, want: int) -> bool:
        """Move SM i toward ``want``; True once it is there."""
        gpu, state = self.gpu, self.gpu.sms[i].state
        if want == _RUN:
            if state != PWR_ACTIVE:
                gpu.resume_sm(now, i)
            return True
        if want == _HOLD:
            if state == PWR_ACTIVE:
                gpu.pause_sm(now, i)
            return True
        if state == PWR_ACTIVE:
            gpu.pause_sm(now, i)
        elif state == PWR_PAUSED:
            gpu.gate_sm(now, i)
            return True
        return state == PWR_GATED

    def _log_dispatch(self, now: int) -> None:
        mask = self._dispatch_mask()
        for i, sm in enumerate(self.gpu.sms):
            ok = sm.state == PWR_ACTIVE and bool(mask >> i & 1)
            if ok != self.allowed[i]:
                self.allowed[i] = ok
                self.events.append((now, i, ok))


class SeqDetController(OnacController):
    """Seq-Det ([THESIS §4.4]): the one-SM-at-a-time baseline with ONAC's handshakes."""

    def __init__(self, cfg, waves: int = 4, skip_waves: int = 1, count_bits: int = 24):
        super().__init__(cfg, mode="seq_det", waves=waves, skip_waves=skip_waves,
                         count_bits=count_bits)


class DetectorPorts:
    """The SWM twin's method-level API over a detector reached only through its ports.

    After every ``step`` the post-edge registers are read with ``peek`` (and the next step's
    outputs must equal them); they drive ``pause_req`` … ``dispatch_mask``. The detection log
    is rebuilt from them: a sample ``(n_est, chip IPC)`` is taken at each DECIDE, the chip IPC
    being the saturating sum of ``sm_ipc`` over the SMs of the last SAMPLE's ``sample_req``;
    every change of ``n_est`` after the start is an estimate (a new count only ever differs
    from the one before it).
    """

    def __init__(self, block, widths: SwmWidths):
        self.block, self.w = block, widths
        self._peek = block.peek
        self.regs = self._peek()
        self.sampled = 0                # sample_req of the last SAMPLE state
        self.samples: list[tuple[int, int]] = []
        self.estimates: list[int] = []

    def step(self, **inputs) -> dict[str, int]:
        """One cycle: the block's outputs of this cycle; the registers after its edge are kept."""
        before = self.block.step(**inputs)
        if before != self.regs:
            raise RuntimeError(f"SWM detector: outputs {before} differ from the registers read "
                               f"after the last edge {self.regs} (every output is a register)")
        self.regs = regs = self._peek()
        if inputs.get("start"):
            self.samples, self.estimates = [], []
        else:
            if before["state"] == SwmState.DECIDE:
                w = self.w
                ipc = sum(before["sm_ipc"] >> (i * w.ipc_bits) & w.ipc_max
                          for i in range(w.m) if self.sampled >> i & 1)
                self.samples.append((before["n_est"], min(ipc, w.ipc_max)))
            if regs["n_est"] != before["n_est"]:
                self.estimates.append(regs["n_est"])
        if regs["state"] == SwmState.SAMPLE:
            self.sampled = regs["sample_req"]
        return before

    @property
    def pause_req(self) -> int:
        return self.regs["pause_req"]

    @property
    def sample_req(self) -> int:
        return self.regs["sample_req"]

    @property
    def power_gate(self) -> int:
        return self.regs["power_gate"]

    @property
    def dispatch_mask(self) -> int:
        r = self.regs
        return r["active"] & ~r["pause_req"] & ~r["power_gate"] & self.w.all_sms

    @property
    def state(self) -> int:
        return self.regs["state"]

    @property
    def is_done(self) -> bool:
        return bool(self.regs["done"])

    @property
    def n_opt(self) -> int:
        return self.regs["n_opt"]
