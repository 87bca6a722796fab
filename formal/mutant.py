"""Port-level mutants: the real block inside a shell of the same signature whose outputs are
corrupted by a function of the block's ports — the bug a prover must catch, without editing
the block (others own hdl/)."""

from __future__ import annotations

from typing import Callable

from amaranth.hdl import Module, Value
from amaranth.lib import wiring
from amaranth.lib.wiring import In

Corrupt = Callable[[Module, wiring.Component], dict[str, Value]]


class Mutant(wiring.Component):
    """``inner`` with the outputs named by ``corrupt(m, inner)`` replaced."""

    def __init__(self, inner: wiring.Component, corrupt: Corrupt, what: str):
        self.inner, self.corrupt, self.what = inner, corrupt, what
        super().__init__(inner.signature)

    def elaborate(self, platform):
        m = Module()
        m.submodules.inner = inner = self.inner
        replaced = self.corrupt(m, inner)
        for name, member in self.signature.members.items():
            mine, theirs = getattr(self, name), getattr(inner, name)
            if member.flow == In:
                m.d.comb += theirs.eq(mine)
            else:
                m.d.comb += mine.eq(replaced.get(name, theirs))
        return m
