"""``gpusched bench rtl``: speed of a GPU run with one Verilator block in the loop.

Per scenario: the run on the twins, the same run with the block's RTL at one instance (the
Verilator library built beforehand if needed: the build is reported, not timed), the RTL's
block cycles, the wall seconds spent inside the RTL block (its calls, the Python↔simulator
crossing included) and so the block-cycles per second of the backend (also per CPU second: the
wall seconds scaled by the RTL run's CPU/wall ratio, which a loaded machine pulls below 1), and
the whole run's CPU time against the twin run's. Targets (docs/architecture.md): ≥ 100 000 block-cycles/s
inside the block, whole run ≤ 10× the twin run. The statistics of both runs must be equal.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass

from cosim.provider import RtlProvider, parse_selection
from sim.blocks.port_block import PortBlock

TARGET_BLOCK_CYCLES_PER_S = 100_000
TARGET_SLOWDOWN = 10.0


@dataclass(frozen=True)
class Scenario:
    name: str
    rtl: str                     # BLOCK@INSTANCE
    preset: str
    workload: str
    scale: float
    overrides: tuple[str, ...] = ()
    policies: tuple[tuple[str, str], ...] = ()
    memory: str = "hierarchy"


SCENARIOS = (
    Scenario("warp_sched", "warp_sched@sm0.sub0", "gtx480", "compute_only", 1.0),
    Scenario("cta_sched", "cta_sched@gpu", "ikra_15cu", "ikra_gpu_small", 1.0,
             policies=(("cta_scheduler", "ikra_steal"),)),
    Scenario("owl_prefetch", "owl_prefetch@mc0", "gtx480", "owl_t_stream_shared", 0.5,
             overrides=("dram.prefetch=owl_b",)),
)


class _Timed(PortBlock):
    """A block whose calls are timed (the wall seconds spent inside it); every call the points
    make is passed through as it is (``step_port`` stays ``step_port``)."""

    def __init__(self, inner):
        self.inner, self.seconds = inner, 0.0

    @property
    def cycles(self) -> int:
        return self.inner.cycles

    def step(self, **inputs) -> dict:
        t0 = time.perf_counter()
        out = self.inner.step(**inputs)
        self.seconds += time.perf_counter() - t0
        return out

    def step_port(self, port) -> None:
        t0 = time.perf_counter()
        self.inner.step_port(port)
        self.seconds += time.perf_counter() - t0

    def peek(self) -> dict:
        t0 = time.perf_counter()
        out = self.inner.peek()
        self.seconds += time.perf_counter() - t0
        return out

    def quiet_cycles(self) -> int:
        return self.inner.quiet_cycles()

    def skip(self, n: int, inputs: dict) -> None:
        t0 = time.perf_counter()
        self.inner.skip(n, inputs)
        self.seconds += time.perf_counter() - t0

    def reset(self) -> None:
        self.inner.reset()

    def close(self) -> None:
        self.inner.close()


class _TimedProvider(RtlProvider):
    def block(self, name, instance, params, twin):
        made = super().block(name, instance, params, twin)
        if not self.replaces(name, instance):
            return made
        timed = _Timed(made)
        key = instance + "/" + name
        self.placed[key] = (name, timed)
        return timed


def run_scenario(sc: Scenario, say=lambda text: None) -> dict:
    from gpusched.config import get_preset, with_overrides
    from sim.run import load_workload, simulate
    cfg = with_overrides(get_preset(sc.preset), list(sc.overrides))
    pol = dict(sc.policies)
    built = []
    warm = RtlProvider([parse_selection(sc.rtl)], "verilator",
                       say=lambda text: (built.append(text), say(text)))
    t0 = time.perf_counter()
    simulate(cfg, load_workload(sc.workload, seed=0, scale=min(sc.scale, 0.01)),
             memory=sc.memory, blocks=warm, **pol)      # builds (or finds) the library
    warm.close()
    build_s = time.perf_counter() - t0
    wl = load_workload(sc.workload, seed=0, scale=sc.scale)
    t0 = time.process_time()
    twin = simulate(cfg, wl, memory=sc.memory, **pol)
    twin_s = time.process_time() - t0
    prov = _TimedProvider([parse_selection(sc.rtl)], "verilator")
    wl = load_workload(sc.workload, seed=0, scale=sc.scale)
    t0, w0 = time.process_time(), time.perf_counter()
    rtl = simulate(cfg, wl, memory=sc.memory, blocks=prov, **pol)
    rtl_s, rtl_wall = time.process_time() - t0, time.perf_counter() - w0
    prov.close()
    blocks = [obj for _, obj in prov.placed.values()]
    cycles = sum(b.cycles for b in blocks)
    inside = sum(b.seconds for b in blocks)
    # the block's share of the run's CPU time: its wall seconds scaled by the run's CPU/wall
    # (on a loaded machine wall time counts other processes' turns too)
    inside_cpu = inside * rtl_s / rtl_wall if rtl_wall else 0.0
    return {"scenario": sc.name, "rtl": sc.rtl, "preset": sc.preset, "workload": sc.workload,
            "scale": sc.scale, "gpu_cycles": twin["cycles"], "block_cycles": cycles,
            "built": bool(built), "build_or_load_s": round(build_s, 2),
            "twin_cpu_s": round(twin_s, 3), "rtl_cpu_s": round(rtl_s, 3),
            "block_s": round(inside, 3),
            "block_cycles_per_s": round(cycles / inside) if inside else None,
            "rtl_wall_s": round(rtl_wall, 3), "block_cpu_s": round(inside_cpu, 3),
            "block_cycles_per_cpu_s": round(cycles / inside_cpu) if inside_cpu else None,
            "slowdown": round(rtl_s / twin_s, 2) if twin_s else None,
            "equal": json.dumps(twin, sort_keys=True) == json.dumps(rtl, sort_keys=True)}
