"""A tiny SM stand-in that drives a MemorySystem through its protocol (tests and benchmarks)."""

from __future__ import annotations

import dataclasses

from gpusched.config import get_preset, validate
from sim.memory.hierarchy import MemoryHierarchy
from sim.workload.kernel import Instr, Op


def config(preset: str = "tiny", **sections) -> object:
    """A validated preset with some sections' fields replaced: config(l1={"mshrs": 4})."""
    cfg = get_preset(preset)
    changes = {name: dataclasses.replace(getattr(cfg, name), **fields)
               for name, fields in sections.items() if isinstance(fields, dict)}
    changes.update({k: v for k, v in sections.items() if not isinstance(v, dict)})
    return validate(dataclasses.replace(cfg, **changes))


def warp_load(base: int, stride: int = 4, threads: int = 32, op: Op = Op.LDG, size: int = 4) -> Instr:
    """A warp access: thread i touches base + i × stride."""
    return Instr(op, dst=(1,), addrs=tuple(base + i * stride for i in range(threads)), size=size,
                 mask=(1 << threads) - 1)


class Driver:
    """Issues instructions, ticks the memory system, records completion cycles per token."""

    def __init__(self, cfg, mem=None):
        self.cfg = cfg
        self.mem = mem if mem is not None else MemoryHierarchy(cfg)
        self.done: dict[object, int] = {}
        self.now = 0
        for sm in range(cfg.sm.count):
            self.mem.connect(sm, self._on_complete)

    def _on_complete(self, token, cycle: int) -> None:
        assert token not in self.done, f"token {token} completed twice"
        self.done[token] = cycle

    def advance(self, cycle: int | None = None) -> None:
        """Move time to ``cycle`` (default: the memory system's next event)."""
        if cycle is None:
            cycle = self.mem.next_event()
            assert cycle is not None, "memory system idle but work is expected"
        cycle = max(cycle, self.now)
        self.mem.tick(cycle)
        self.now = cycle

    def issue(self, sm: int, instr: Instr, token) -> int:
        """Issue, retrying at later cycles on a structural stall; returns the issue cycle."""
        while not self.mem.issue(self.now, sm, instr, token):
            nxt = self.mem.next_event()
            self.advance(nxt if nxt is not None and nxt > self.now else self.now + 1)
        return self.now

    def wait(self, token) -> int:
        while token not in self.done:
            self.advance()
        return self.done[token]

    def drain(self) -> None:
        while self.mem.busy():
            self.advance()
