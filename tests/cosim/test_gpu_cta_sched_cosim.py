"""The IKRA CTA scheduler RTL (hdl/cta_sched.py) dispatching every CTA of a GPU-model run.

The policy (sim/policies/ikra_cta.py) drives an injected block through its ports only
(``CtaSchedPorts``). First, without any simulator: that port path reproduces the stock twin's
fast path exactly (the whole stats dict, the scheduler counters included). Then, with cocotb +
Verilator: a multi-kernel run on ``tiny`` with the RTL alone in the loop gives the twin-only
stats, lockstep reports no mismatch, and a twin with a one-cycle-longer set-up is caught.
"""

from __future__ import annotations

import heapq
import json
import random

import pytest

from cosim.gpu_scenarios import canonical, cta_sched_params, gpu_cta_sched, run
from cosim.lockstep import LockstepMismatch
from cosim.runner import run_in_loop
from cosim.simulators import available
from gpusched.blocks import get_block
from sim.blocks.cta_sched import CtaSchedTwin
from sim.policies.ikra_cta import CtaSchedPorts
from sim.run import load_workload

cosim = pytest.mark.cosim
needs_verilator = pytest.mark.skipif(not available("verilator"), reason="verilator not installed")

# Two launches of the Work-Stealing microbenchmark (TB work grows with the id): on 2 SMs the
# steal policy moves CTAs between SMs (checked below), rr deals them round robin.
SCENARIO = {"preset": "tiny", "workload": "ikra_work_stealing", "scale": 0.05}
POLICIES = ("steal", "rr")


def kwargs_for(policies=POLICIES, scenario=SCENARIO, **extra) -> dict:
    overrides = scenario.get("overrides", ())
    params = [cta_sched_params(scenario["preset"], p, overrides) for p in policies]
    return {"params_list": params, **scenario, **extra}


class PortsOnlyTwin(CtaSchedTwin):
    """The stock twin under another class: the policy must take its port path (counted)."""

    steps = 0

    def step(self, **inputs) -> dict[str, int]:
        self.steps += 1
        return super().step(**inputs)


class LateInitTwin(CtaSchedTwin):
    """Mutant: launch set-up one cycle longer than ID_W + 2 (our cycle contract), so offers start
    late."""

    def _launch(self, dims) -> None:
        super()._launch(dims)
        self.init_left += 1


def late_init_twin(p: dict) -> LateInitTwin:
    return LateInitTwin(p["C"], p["ID_W"], p["QDEPTH"], p["policy"])


# -- port path == fast path (no simulator) ------------------------------------------------------

# 8 SMs, two k-means launches: thieves lose races and arbitrations (asserted)
CONTENDED = {"preset": "tiny", "workload": "ikra_kmeans", "scale": 0.1, "overrides": ["sm.count=8"]}


@pytest.mark.parametrize("scenario,policies",
                         [(SCENARIO, POLICIES), (CONTENDED, ("steal", "flip"))])
def test_port_path_reproduces_the_fast_path(scenario, policies):
    kw = kwargs_for(policies, scenario)
    fast = gpu_cta_sched(None, **kw)
    blocks = [PortsOnlyTwin(p["C"], p["ID_W"], p["QDEPTH"], p["policy"]) for p in kw["params_list"]]
    ports = gpu_cta_sched(blocks, **kw)
    assert json.dumps(ports, sort_keys=True) == json.dumps(fast, sort_keys=True)
    assert [b.steps for b in blocks] == [r["block_steps"] for r in ports["runs"]]   # via step
    steal = fast["runs"][0]["stats"]["policy_reports"]["cta_scheduler"]["stats"]
    assert steal["launches"] == 2
    if scenario is CONTENDED:
        assert steal["steal_lost_race"] > 0 and steal["steal_lost_arbitration"] > 0
    else:
        assert steal["steals_chunk"] > 0


def drive_both(p: int, seed: int, cycles: int = 6000):
    """Closed-loop random CTA traffic into the stock twin (``cycle``) and ``CtaSchedPorts`` over
    a twin reached by ``step`` only; transfers and handshake state must agree every cycle."""
    rng = random.Random(seed)
    fast = CtaSchedTwin(p, 12, 2, "steal")
    ports = CtaSchedPorts(PortsOnlyTwin(p, 12, 2, "steal"), p, 12, 2, "steal")
    slots = [rng.randint(1, 3) for _ in range(p)]
    p_free = [rng.choice((0.2, 0.6, 1.0)) for _ in range(p)]
    busy, heap, dims, logs = [0] * p, [], (7, 1, 1), ([], [])
    for t in range(cycles):
        launch = None
        if fast.launch_ready and t < cycles - 2000 and rng.random() < 0.2:
            dims = dims if rng.random() < 0.5 else (rng.randint(1, 80), rng.randint(1, 2), 1)
            launch = dims
        done = [0] * p
        while heap and heap[0][0] <= t:
            cu = heapq.heappop(heap)[1]
            done[cu] += 1
            busy[cu] -= 1
        free = [int(busy[i] < slots[i] and rng.random() < p_free[i]) if fast.running else 0
                for i in range(p)]
        a, b = fast.cycle(free, done, launch), ports.cycle(free, done, launch)
        assert a == b, f"seed {seed} cycle {t}: twin {a} ports {b}"
        assert (fast.active, fast.running) == (bool(ports.active), ports.running), (seed, t)
        logs[0].extend(fast.steal_log)
        logs[1].extend(ports.steal_log)
        for cu, _, _ in a:
            busy[cu] += 1
            heapq.heappush(heap, (t + rng.randint(1, 12 + 6 * cu), cu))
    assert not fast.active
    assert logs[0] == logs[1] and fast.stats == ports.stats, seed
    return fast.stats


def test_ports_adapter_replays_every_counter_under_random_traffic():
    totals: dict[str, int] = {}
    for seed in range(4):
        for k, v in drive_both(6, seed).items():
            totals[k] = totals.get(k, 0) + v
    # the replay has teeth: every counter it rebuilds from the status ports was exercised
    for key in ("steals_queue", "steals_chunk", "steal_lost_race", "steal_lost_arbitration",
                "overflows", "reinits"):
        assert totals[key] > 0, (key, totals)


# -- RTL in the GPU run (cocotb + Verilator) ----------------------------------------------------

@pytest.fixture(scope="module")
def twin_only():
    return run("cta_sched", kwargs_for(), "twin")


@cosim
@needs_verilator
# lockstep compares the RTL with the twin every cycle, so the RTL-only run is the slow suite's
@pytest.mark.parametrize("mode", [pytest.param("rtl", marks=pytest.mark.slow), "lockstep"])
def test_rtl_dispatching_every_cta_gives_the_twin_only_stats(mode, twin_only):
    got = run("cta_sched", kwargs_for(), mode)
    assert got["mismatch"] is None
    assert got["result"] == twin_only["result"]         # cycles, every counter, every CTA row
    runs = got["result"]["runs"]
    assert got["steps"] == [r["block_steps"] for r in runs] and min(got["steps"]) > 10_000
    workload = load_workload(SCENARIO["workload"], scale=SCENARIO["scale"])
    n_ctas = sum(k.n_ctas for k in workload.kernels)
    for r in runs:
        assert len(r["stats"]["ctas"]["rows"]) == n_ctas
        sched = r["stats"]["policy_reports"]["cta_scheduler"]
        assert sched["stats"]["launches"] == 2
        if r["policy"] == "steal":
            assert sched["stats"]["src_stolen_chunk"] > 0 and sched["stolen"]
    print(f"cta_sched {mode}: cycles {[r['cycles'] for r in runs]}, steps {got['steps']}, "
          f"{got['seconds']:.1f} s")


@cosim
@needs_verilator
def test_lockstep_catches_a_twin_with_a_longer_setup():
    """The first launch is taken in block cycle 0; its chunk bounds show from cycle ID_W + 2
    (set-up cycle 1 at the end of the ID_W divider steps, our cycle contract) in the RTL, a cycle
    later in the mutant. Same two instances as above, so the Verilator build is shared."""
    kw = kwargs_for(twin=f"{__name__}:late_init_twin")
    with pytest.raises(LockstepMismatch) as err:
        run_in_loop(get_block("cta_sched"), kw["params_list"], "cosim.gpu_scenarios:gpu_cta_sched",
                    kw, lockstep=True)
    msg = str(err.value)
    id_w = kw["params_list"][0]["ID_W"]
    assert msg.startswith("cta_sched[u0]") and "seed=0" in msg, msg
    assert f"mismatch at cycle {id_w + 2} on st_lo, st_hi" in msg, msg


@cosim
@needs_verilator
@pytest.mark.slow
@pytest.mark.parametrize("scenario,policies", [
    ({"preset": "tiny", "workload": "ikra_gpu_small", "scale": 0.5},
     ("rr", "chunk", "reset", "flip", "steal")),               # 8 launches, every IKRA policy
    (CONTENDED, ("steal",)),                                   # lost races and arbitrations
    ({**SCENARIO, "scale": 0.1}, ("steal",)),                   # 26 CTAs, longer run
])
def test_longer_runs_rtl_only_and_lockstep(scenario, policies):
    kw = kwargs_for(policies, scenario)
    want = canonical(gpu_cta_sched(None, **kw))
    for mode in ("rtl", "lockstep"):
        got = run("cta_sched", kw, mode)
        assert got["mismatch"] is None and got["result"] == want, mode
        cycles = [r["cycles"] for r in want["runs"]]
        print(f"{scenario['workload']} {policies} {mode}: cycles {cycles}, "
              f"steps {got['steps']}, {got['seconds']:.1f} s")
