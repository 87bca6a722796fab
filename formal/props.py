"""Base of the properties wrappers: instantiate a block, drive its inputs freely, assert.

A wrapper does not touch the block's own ``elaborate``: it instantiates the block as ``dut``,
drives every input port with a free value each cycle (``AnySeq``: the solver picks it), holds
reset low (registers start at their init values), then adds the block's invariants as Amaranth
``Assert`` statements on the ports (and on shadow registers it keeps itself), with ``Assume``
for the environment's side of a protocol.
"""

from __future__ import annotations

import sys

from amaranth.asserts import AnySeq
from amaranth.hdl import Assert, Assume, Module, ResetSignal, Value
from amaranth.lib import wiring
from amaranth.lib.wiring import In


class PropsTop(wiring.Component):
    """Subclasses set ``name`` and implement ``properties(m, dut)``."""

    name = "block"

    def __init__(self, dut: wiring.Component):
        self.dut = dut
        self._invariants: dict[tuple[str, int], str] = {}
        self._names: list[str] = []
        super().__init__({})

    # -- used by subclasses ----------------------------------------------------------------
    def invariant(self, m: Module, text: str, holds: Value) -> None:
        """Assert ``holds`` in every step; ``text`` names the invariant in reports."""
        caller = sys._getframe(1)
        self._invariants[(caller.f_code.co_filename, caller.f_lineno)] = text
        if text not in self._names:
            self._names.append(text)
        m.d.comb += Assert(holds, text, src_loc_at=1)

    def assume(self, m: Module, holds: Value) -> None:
        m.d.comb += Assume(holds, src_loc_at=1)

    def properties(self, m: Module, dut: wiring.Component) -> None:
        raise NotImplementedError

    def instance(self, platform):
        """What goes in as the ``dut`` submodule: the block itself; a wrapper that needs the
        block's internal state elaborates it here and keeps what it needs."""
        return self.dut

    def trace_ports(self) -> list[str]:
        """Ports shown in a counterexample (dotted VCD names)."""
        return [f"dut.{n}" for n in self.dut.signature.members]

    # -- used by the prover ----------------------------------------------------------------
    def invariant_names(self) -> list[str]:
        return list(self._names)

    def invariant_at(self, filename: str, line: int) -> str:
        for (f, l), text in self._invariants.items():
            if l == line and (f == filename or f.endswith(filename) or filename.endswith(f)):
                return text
        return f"{filename}:{line}"

    def elaborate(self, platform):
        m = Module()
        m.submodules.dut = self.instance(platform)
        dut = self.dut
        for pname, member in dut.signature.members.items():
            if member.flow == In:
                port = getattr(dut, pname)
                m.d.comb += port.eq(AnySeq(len(port)))
        m.d.comb += Assume(~ResetSignal())
        self.properties(m, dut)
        return m
