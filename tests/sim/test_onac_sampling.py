"""ONAC / Seq-Det samples read the kernel's steady-state IPC ([THESIS §4.4.2], with our choices
where it is silent).

A quarter of the ``thesis`` chip (8 SMs, 3 memory partitions: the bandwidth per SM of the full
chip, as the quick ONAC experiment) with the full memory hierarchy, running the bandwidth-bound
TP-like kernel, which saturates near 3 of these 8 SMs: every count Seq-Det samples first (8, 7,
6 SMs) is on the plateau, so each sample should read the all-SM steady-state IPC. ONAC accepts a
count within 2 % of IPC_all ([THESIS §4.4.2]), so a sampling bias of a few percent moves its choice.

The bias this guards against: the quiesce before a sample used to wait for the SM's memory
requests as well as its pipeline. All sampled SMs quiesce at once, so that drained the whole
memory system while the window's counters stood still, and the window opened on empty DRAM
queues with every warp's loads back: samples read 4–5 % above steady state here (7 % for
IPC_all on the full chip), which put 0.98 × IPC_all above the plateau. Our choice quiesces "until the
pipeline is empty"; the pause acknowledge still waits for everything in flight ([THESIS §4.4.2.3]).
"""

import pytest

from experiments.onac import QUARTER_CHIP
from experiments.thesis_runs import steady_ipc, wave_workload
from gpusched.config import get_preset, with_overrides
from hdl.params.core_sampler import SamplerState
from sim.policies.onac_ctrl import OnacController
from sim.run import simulate

CFG = with_overrides(get_preset("thesis"), [f"{k}={v}" for k, v in QUARTER_CHIP.items()])
KERNEL, SCALE, WAVES = "onac_tp_like", 0.25, 16
MARGIN = 0.02                       # ONAC's acceptance margin: IPC_threshold = 0.98 × IPC_all


class RecordingController(OnacController):
    """Seq-Det controller that notes, per sampler state change, whether the SM still had
    anything in flight (pipeline or memory, ``sm.in_flight()``)."""

    def __init__(self, cfg, **kw):
        super().__init__(cfg, mode="seq_det", **kw)
        self.window_opened: list[bool] = []     # in flight when QUIESCE → COUNT
        self.acked_busy: list[bool] = []        # in flight in a cycle that raised pause_ack

    def _step(self, now: int) -> None:
        before = [(s.state, s.pause_ack) for s in self.samplers]
        busy = [sm.in_flight() for sm in self.gpu.sms]
        super()._step(now)
        for (state, ack), s, b in zip(before, self.samplers, busy):
            if state == SamplerState.QUIESCE and s.state == SamplerState.COUNT:
                self.window_opened.append(b)
            if s.pause_ack and not ack:
                self.acked_busy.append(b)


def workload():
    return wave_workload(KERNEL, CFG, WAVES, CFG.sm.count, 0, SCALE)


@pytest.fixture(scope="module")
def steady():
    """Steady-state IPC of the all-SM run (whole waves between 20 % and 80 % of the CTAs)."""
    stats = simulate(CFG, workload(), memory="hierarchy")
    ends = sorted(row[4] for row in stats["ctas"]["rows"])
    wave = stats["kernels"][0]["occupancy_limit"] * CFG.sm.count
    return steady_ipc(ends, stats["warp_insts"], wave)["ipc"]


@pytest.fixture(scope="module")
def seq_det():
    ctl = RecordingController(CFG, waves=4, skip_waves=2)   # start past the ramp-up
    simulate(CFG, workload(), memory="hierarchy", sm_controller=ctl)
    return ctl


@pytest.mark.xfail(strict=True, reason="open since the DRAM timing set (tRRD, tCDLR, tWR, bank "
                   "groups): the 7-SM sample reads 1.797 against a 7-SM steady state of 1.724 "
                   "(8/7/6 SMs run at 1.722/1.724/1.729: on the plateau), a +4.2 % bias; the "
                   "mean of the first three samples is +2.08 %, over ONAC's 2 % margin")
def test_samples_on_the_plateau_read_the_steady_state_ipc(steady, seq_det):
    samples = seq_det.trace[0]["samples"][:3]
    assert [s["n"] for s in samples] == [8, 7, 6]
    ipcs = [s["ipc"] for s in samples]
    mean = sum(ipcs) / len(ipcs)
    assert abs(mean / steady - 1) < MARGIN, (ipcs, steady)


def test_sample_quiesce_waits_for_the_pipeline_and_pause_for_everything(seq_det):
    # the window opens while loads are still out in the memory system (our choice) ...
    assert len(seq_det.window_opened) >= 3 * 6
    assert sum(seq_det.window_opened) > len(seq_det.window_opened) // 2
    # ... but a paused SM acknowledges only once nothing is in flight ([THESIS §4.4.2.3] "Core
    # pausing")
    assert seq_det.acked_busy and not any(seq_det.acked_busy)
