"""``gpusched bench rtl``'s timed wrapper (cosim/bench_rtl.py) times the calls a point makes as
they are: a point's ``step_port`` reaches the block's own ``step_port`` (the one-call path of the
Verilator backend), not ``step`` with a dict."""

from __future__ import annotations

from cosim.bench_rtl import _Timed
from sim.blocks.port_block import PortBlock
from sim.blocks.warp_sched import WarpSchedPort


class Recorder(PortBlock):
    def __init__(self):
        self.calls: list[str] = []
        self.cycles = 0

    def step(self, **inputs) -> dict:
        self.calls.append("step")
        return {"grant": 0, "grant_valid": 0, "grant_idx": 0}

    def step_port(self, port) -> None:
        self.calls.append("step_port")
        port.grant, port.grant_valid, port.grant_idx = 4, 1, 2

    def skip(self, n: int, inputs: dict) -> None:
        self.calls.append(f"skip {n}")


def test_the_timed_wrapper_passes_each_call_through_as_it_is():
    inner = Recorder()
    timed = _Timed(inner)
    port = WarpSchedPort()
    timed.step_port(port)
    timed.skip(3, {})
    timed.step(ready=1)
    assert inner.calls == ["step_port", "skip 3", "step"]
    assert (port.grant, port.grant_valid, port.grant_idx) == (4, 1, 2)
    assert timed.seconds > 0
