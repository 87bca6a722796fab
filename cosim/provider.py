"""RTL into a GPU run: the block provider that puts RTL (or RTL + twin in lockstep) at chosen
block instances, the twins everywhere else (the model side is sim/blocks/provider.py).

A selection is ``BLOCK`` (every instance of the block) or ``BLOCK@INSTANCE`` (that instance and
the instances inside it: ``warp_sched@sm0`` is both sub-cores of SM 0, ``warp_sched@sm0.sub1``
one of them). Backends: ``verilator`` (the Verilated model in this process,
cosim/verilator_block.py), ``amaranth`` (Amaranth's simulator, cosim/amaranth_block.py) and
``twin`` (the block registry's port-level twin behind the same ports: the reference for points
whose model default is a method-level controller, e.g. ``kernel_sched``). With ``lockstep``
every step of the RTL is compared with the registry twin fed the same inputs; the first
difference raises ``LockstepMismatch`` naming the instance, the cycle, the inputs and both outputs.
"""

from __future__ import annotations

import copy
import time
from dataclasses import dataclass
from typing import Any, Callable

from gpusched.blocks import block_names, get_block, parse_params
from gpusched.config import ConfigError
from sim.blocks.port_block import PortBlock
from sim.blocks.provider import BlockProvider

from .lockstep import compare

BACKENDS = ("verilator", "amaranth", "twin")


@dataclass(frozen=True)
class Selection:
    block: str
    instance: str | None        # None: every instance

    def covers(self, block: str, instance: str) -> bool:
        if block != self.block:
            return False
        return self.instance is None or instance == self.instance or \
            instance.startswith(self.instance + ".")

    def __str__(self) -> str:
        return self.block if self.instance is None else f"{self.block}@{self.instance}"


def parse_selection(text: str, where: str = "--rtl") -> Selection:
    """``BLOCK`` or ``BLOCK@INSTANCE``; ConfigError naming ``where`` otherwise."""
    block, _, inst = text.partition("@")
    if block not in block_names():
        raise ConfigError(where, text, "known blocks: " + ", ".join(block_names()))
    if "@" in text and not inst:
        raise ConfigError(where, text, "expected BLOCK or BLOCK@INSTANCE (e.g. warp_sched@sm0)")
    return Selection(block, inst or None)


class LockstepBlock(PortBlock):
    """The RTL and the registry twin stepped with the same inputs; the twin's outputs are
    returned, the first difference raises ``LockstepMismatch``."""

    def __init__(self, twin, rtl, label: str, params: dict):
        self.twin, self.rtl, self.label, self.params = twin, rtl, label, params
        self.cycles = 0
        self.last_inputs: dict = {}

    def step(self, **inputs) -> dict:
        expected = self.twin.step(**inputs)
        got = self.rtl.step(**inputs)
        compare(self.label, self.params, 0, self.cycles, inputs, expected, got)
        self.cycles += 1
        self.last_inputs = inputs
        return expected

    def peek(self) -> dict:
        """Both sides' outputs after the last edge; the twin's from a throw-away copy stepped
        with the inputs held (or its own ``peek``)."""
        own = getattr(self.twin, "peek", None)
        expected = own() if own is not None else \
            copy.deepcopy(self.twin).step(**self.last_inputs)
        got = self.rtl.peek()
        compare(self.label + " (peek)", self.params, 0, self.cycles, self.last_inputs,
                expected, got)
        return expected

    def reset(self) -> None:
        self.twin.reset()
        self.rtl.reset()

    def quiet_cycles(self) -> int | None:
        """The skip hook: the twin knows its quiet stretches (0 if it has no such hook)."""
        own = getattr(self.twin, "quiet_cycles", None)
        return own() if own is not None else 0

    def skip(self, n: int, inputs: dict) -> None:
        """``n`` quiet cycles on both sides (the RTL's in one crossing), then their registered
        outputs compared."""
        self.twin.skip(n, inputs)
        self.rtl.skip(n, inputs)
        self.cycles += n
        self.last_inputs = inputs
        self.peek()

    def close(self) -> None:
        self.rtl.close()


class _Counted(PortBlock):
    """The registry twin behind the ports (backend ``twin``), counting its cycles."""

    def __init__(self, twin):
        self.twin, self.cycles = twin, 0

    def step(self, **inputs) -> dict:
        self.cycles += 1
        return self.twin.step(**inputs)

    def peek(self) -> dict:
        own = getattr(self.twin, "peek", None)
        return own() if own is not None else self.twin.outputs()

    def quiet_cycles(self) -> int | None:
        own = getattr(self.twin, "quiet_cycles", None)
        return own() if own is not None else 0

    def skip(self, n: int, inputs: dict) -> None:
        self.twin.skip(n, inputs)

    def reset(self) -> None:
        self.twin.reset()

    def close(self) -> None:
        pass


class RtlProvider(BlockProvider):
    """RTL (``backend``), or RTL + twin with ``lockstep``, at the selected instances."""

    def __init__(self, selections: list[Selection], backend: str = "verilator",
                 lockstep: bool = False, twin: Callable[[str, dict], Any] | None = None,
                 say: Callable[[str], None] = lambda text: None):
        """``twin(block, params)``: the lockstep reference instead of the registry's twin
        (tests put a mutant there); ``say``: told before a Verilator build."""
        if backend not in BACKENDS:
            raise ConfigError("--rtl-sim", backend, "allowed: " + ", ".join(BACKENDS))
        self.selections, self.backend, self.lockstep = list(selections), backend, lockstep
        self.make_reference = twin or (lambda name, p: get_block(name).make_twin(p))
        self.say = say
        self.placed: dict[str, tuple[str, Any]] = {}     # instance -> (block, backend object)
        self.seconds = 0.0                                # spent building and loading RTL

    def replaces(self, name: str, instance: str) -> bool:
        return any(s.covers(name, instance) for s in self.selections)

    def block(self, name: str, instance: str, params, twin):
        if not self.replaces(name, instance):
            return twin()
        t0 = time.perf_counter()
        spec = get_block(name)
        p = parse_params(spec, params())
        label = f"{name}@{instance}"
        if self.backend == "verilator":
            from .verilator_block import VerilatorBlock
            rtl: Any = VerilatorBlock(spec, p, self.say)
        elif self.backend == "amaranth":
            from .amaranth_block import AmaranthBlock
            rtl = AmaranthBlock(spec, p)
        else:
            rtl = _Counted(spec.make_twin(p))
        made = LockstepBlock(self.make_reference(name, p), rtl, label, p) \
            if self.lockstep else rtl
        self.placed[instance + "/" + name] = (name, made)
        self.seconds += time.perf_counter() - t0
        return made

    def unused(self) -> list[Selection]:
        """Selections that matched no instance of the run (a typo, or a point not in use)."""
        return [s for s in self.selections
                if not any(s.covers(b, i.rsplit("/", 1)[0]) for i, (b, _) in
                           self.placed.items())]

    def report(self) -> dict:
        return {"backend": self.backend, "lockstep": self.lockstep,
                "instances": {k.rsplit("/", 1)[0]: {"block": b, "cycles": obj.cycles}
                              for k, (b, obj) in sorted(self.placed.items())},
                "setup_seconds": round(self.seconds, 3)}

    def close(self) -> None:
        for _, obj in self.placed.values():
            obj.close()
