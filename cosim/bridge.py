"""Put RTL block instances inside Python code that only knows the twin interface.

``MultiTop`` wraps K instances of one block into a single Verilog top, each in its own clock
domain (ports ``u{k}_<port>``, clocks ``u{k}_clk``), so every instance advances exactly when its
proxy is stepped — the caller may step them in any order and skip idle instances.

``RtlProxy`` has the twin's ``step(**inputs) -> outputs``: it is called from a thread started with
cocotb's ``bridge`` and blocks while a cocotb coroutine applies the inputs, samples the settled
outputs and pulses that instance's clock. ``peek() -> outputs`` reads the outputs after the last
edge without a new one (inputs held): for a block whose outputs are registers, the values the
next ``step`` will return — what a driver needs to react to a registered output within the
cycle. ``LockstepProxy`` steps a twin and an RTL proxy with the same inputs and raises
LockstepMismatch on the first difference (``peek`` included), returning the twin's outputs.
So the GPU model (or any driver) never knows whether it talks to a twin, the RTL, or both.
"""

from __future__ import annotations

import copy

from amaranth.hdl import ClockDomain, DomainRenamer, Module
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from gpusched.blocks import BlockSpec
from sim.blocks.port_block import PortBlock

from .lockstep import compare


class MultiTop(wiring.Component):
    """K instances of one block, instance k in clock domain ``u{k}`` with ports ``u{k}_<port>``;
    ``spec`` may also be a list, one block per instance (different blocks in one loop)."""

    def __init__(self, spec: BlockSpec | list[BlockSpec], params_list: list[dict]):
        specs = spec if isinstance(spec, list) else [spec] * len(params_list)
        self.spec = spec
        self.subs = [s.make_rtl(p) for s, p in zip(specs, params_list)]
        members = {}
        for k, sub in enumerate(self.subs):
            members[f"u{k}_clk"] = In(1)
            members[f"u{k}_rst"] = In(1)
            for name, member in sub.signature.members.items():
                flow = In if member.flow == wiring.In else Out
                members[f"u{k}_{name}"] = flow(member.shape)
        super().__init__(members)

    def elaborate(self, platform):
        m = Module()
        for k, sub in enumerate(self.subs):
            cd = ClockDomain(f"u{k}")
            m.domains += cd
            m.d.comb += [cd.clk.eq(getattr(self, f"u{k}_clk")), cd.rst.eq(getattr(self, f"u{k}_rst"))]
            m.submodules[f"u{k}"] = DomainRenamer(f"u{k}")(sub)
            for name, member in sub.signature.members.items():
                outer, inner = getattr(self, f"u{k}_{name}"), getattr(sub, name)
                m.d.comb += inner.eq(outer) if member.flow == wiring.In else outer.eq(inner)
        return m


class RtlProxy(PortBlock):
    """Twin-shaped access to instance ``k`` of a MultiTop DUT (call only from a bridged thread)."""

    def __init__(self, dut, k: int, spec: BlockSpec):
        from cocotb.task import resume
        self.spec = spec
        self.ins = [(n, getattr(dut, f"u{k}_{n}")) for n in spec.inputs]
        self.outs = [(n, getattr(dut, f"u{k}_{n}")) for n in spec.outputs]
        self.clk = getattr(dut, f"u{k}_clk")
        self.rst = getattr(dut, f"u{k}_rst")
        self.cycles = 0
        self._cycle = resume(self._drive)
        self._peek = resume(self._read)

    async def reset(self) -> None:
        from cocotb.triggers import Timer
        for _, h in self.ins:
            h.value = 0
        self.rst.value = 1
        self.clk.value = 0
        await Timer(1, "ns")
        self.clk.value = 1
        await Timer(1, "ns")
        self.clk.value = 0
        self.rst.value = 0
        await Timer(1, "ns")

    async def _drive(self, inputs: dict) -> dict:
        from cocotb.triggers import Timer
        for n, h in self.ins:
            h.value = inputs.get(n, 0)
        await Timer(1, "ns")            # combinational settle: outputs may depend on inputs
        out = {n: int(h.value) for n, h in self.outs}
        self.clk.value = 1              # this instance's rising edge: state update
        await Timer(1, "ns")
        self.clk.value = 0
        self.cycles += 1
        return out

    async def _read(self) -> dict:
        return {n: int(h.value) for n, h in self.outs}

    def step(self, **inputs) -> dict:
        return self._cycle(inputs)

    def peek(self) -> dict:
        """Outputs after the last edge, inputs held, no clock edge."""
        return self._peek()

    def quiet_cycles(self) -> int:
        """The skip hook: stepped every cycle."""
        return 0


class LockstepProxy(PortBlock):
    """Steps a twin and an RTL proxy together; returns the twin's outputs or raises on mismatch."""

    def __init__(self, twin, rtl: RtlProxy, label: str, params: dict, seed: int = 0):
        self.twin, self.rtl, self.label, self.params, self.seed = twin, rtl, label, params, seed
        self.cycles = 0
        self.last_inputs: dict = {}

    def step(self, **inputs) -> dict:
        expected = self.twin.step(**inputs)
        got = self.rtl.step(**inputs)
        compare(self.label, self.params, self.seed, self.cycles, inputs, expected, got)
        self.cycles += 1
        self.last_inputs = inputs
        return expected

    def peek(self) -> dict:
        """Both sides' ``peek``; the twin's is a step of a throw-away copy with the inputs held."""
        expected = copy.deepcopy(self.twin).step(**self.last_inputs)
        got = self.rtl.peek()
        compare(self.label + " (peek)", self.params, self.seed, self.cycles, self.last_inputs,
                expected, got)
        return expected

    def quiet_cycles(self) -> int:
        """The skip hook: stepped every cycle (the RTL side cannot skip)."""
        return 0

    def __getattr__(self, name):
        # Method-level helpers of the twin (e.g. inspection) stay reachable through the proxy.
        return getattr(self.twin, name)
