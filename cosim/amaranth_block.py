"""A block's RTL in Amaranth's own simulator, stepped from the caller like a twin.

Amaranth's simulator drives its testbenches itself, so the simulator runs in a worker thread
whose testbench waits for the caller's inputs each cycle: ``step(**inputs)`` hands them over,
the testbench applies them, reads the settled outputs, hands them back and awaits the clock
edge. No Verilog and no C++ toolchain are needed; it is the slow, always-available backend.
"""

from __future__ import annotations

import queue
import threading

from gpusched.blocks import BlockSpec
from sim.blocks.port_block import PortBlock

_STOP = object()


class AmaranthBlock(PortBlock):
    """One instance of a block's RTL in Amaranth's simulator, with the twin's port interface."""

    def __init__(self, spec: BlockSpec, params: dict):
        from amaranth.hdl import ClockDomain, Module
        from amaranth.sim import Simulator
        self.dut = dut = spec.make_rtl(params)
        self.ins = [(n, getattr(dut, n)) for n in spec.inputs]
        self.outs = [(n, getattr(dut, n)) for n in spec.outputs]
        self.requests: queue.Queue = queue.Queue()
        self.replies: queue.Queue = queue.Queue()
        self.cycles = 0
        self.error: BaseException | None = None
        # the sync domain made explicit, so that ``reset`` can drive its rst signal (the
        # simulator does not let a testbench assign ResetSignal() of an implicit domain)
        top = Module()
        top.domains.sync = self.domain = ClockDomain("sync")
        top.submodules.dut = dut
        sim = Simulator(top)
        sim.add_clock(1e-8)
        sim.add_testbench(self._bench)
        self.thread = threading.Thread(target=self._run, args=(sim,), daemon=True)
        self.thread.start()

    def _run(self, sim) -> None:
        try:
            sim.run()
        except BaseException as e:      # handed to the caller at its next call
            self.error = e
            self.replies.put(None)

    async def _bench(self, ctx) -> None:
        while True:
            req = self.requests.get()
            if req is _STOP:
                return
            kind, inputs = req
            if kind == "peek":
                self.replies.put({n: ctx.get(s) for n, s in self.outs})
                continue
            if kind == "reset":
                ctx.set(self.domain.rst, 1)
                await ctx.tick()
                ctx.set(self.domain.rst, 0)
                self.replies.put({})
                continue
            for n, s in self.ins:
                ctx.set(s, inputs.get(n, 0))
            self.replies.put({n: ctx.get(s) for n, s in self.outs})
            await ctx.tick()

    def _call(self, kind: str, inputs: dict) -> dict:
        if self.error is not None:
            raise RuntimeError(f"Amaranth simulation stopped: {self.error}")
        self.requests.put((kind, inputs))
        out = self.replies.get()
        if out is None:
            raise RuntimeError(f"Amaranth simulation stopped: {self.error}")
        return out

    def step(self, **inputs) -> dict:
        """One clock cycle: this cycle's outputs for ``inputs``, then the edge."""
        self.cycles += 1
        return self._call("step", inputs)

    def reset(self) -> None:
        """The synchronous reset: ``rst`` high for one clock edge."""
        self._call("reset", {})

    def quiet_cycles(self) -> int:
        """The skip hook: the RTL cannot tell which coming cycles are quiet (0: step each)."""
        return 0

    def skip(self, n: int, inputs: dict) -> None:
        for _ in range(n):
            self.step(**inputs)

    def peek(self) -> dict:
        """Outputs after the last edge with the last inputs held (no edge)."""
        return self._call("peek", {})

    def close(self) -> None:
        if self.thread.is_alive():
            self.requests.put(_STOP)
            self.thread.join(timeout=5)
