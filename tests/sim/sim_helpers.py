"""Test helpers: run a hand-written workload, record the warp arbiters' grants."""

from __future__ import annotations

from gpusched.config import get_preset, with_overrides
from sim.blocks.port_block import PortBlock
from sim.blocks.provider import BlockProvider
from sim.run import simulate

SOC = ("sm.issue=socgpu", "sm.ib_entries=8")     # the SOCGPU headline issue stage (N = 8)


def config(preset: str = "tiny", *overrides: str):
    return with_overrides(get_preset(preset), list(overrides))


def run(wl, preset: str = "tiny", *overrides: str, **kw) -> dict:
    return simulate(config(preset, *overrides), wl, **kw)


class GrantRecorder(BlockProvider):
    """A block provider wrapping the warp-scheduler twins; records (scheduler index, granted slot).

    Scheduler index = creation order: SM 0 sub-core 0, SM 0 sub-core 1, …, SM 1 sub-core 0, …
    """

    def __init__(self):
        self.grants: list[tuple[int, int]] = []
        self.n = 0

    def block(self, name, instance, params, make_twin):
        if name != "warp_sched":
            return make_twin()
        twin, sid, grants = make_twin(), self.n, self.grants
        self.n += 1

        class Recording(PortBlock):
            def step(self, **inputs) -> dict:
                out = twin.step(**inputs)
                if out["grant_valid"]:
                    grants.append((sid, out["grant_idx"]))
                return out
        return Recording()

    def of(self, sid: int) -> list[int]:
        return [g for s, g in self.grants if s == sid]
