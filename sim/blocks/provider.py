"""Who stands behind each block instance of a GPU run: the twin, the RTL, or both in lockstep.

Every scheduling point asks the run's provider for its block once, when the GPU is built:
``provider.block(name, instance, params, twin)``. ``name`` is the block's registry name
(``gpusched.blocks``), ``instance`` where it sits (``gpu``, ``sm3``, ``sm3.sub1``, ``sm3.w17``,
``mc2``: see ``instance names`` in docs/architecture.md), ``params`` its parameters in the
block's own vocabulary and ``twin`` a factory of the model's twin for them. The point then talks
to whatever it got only through the block's ports (``step(**inputs) -> outputs``, ``peek()``).

``BlockProvider`` itself gives the twin everywhere; cosim's ``RtlProvider`` (cosim/provider.py)
gives RTL or lockstep blocks at the instances it was asked for. This module imports nothing
outside the model, so a twin-only run never loads Amaranth or a simulator.
"""

from __future__ import annotations

from typing import Any, Callable


class BlockProvider:
    """The twin at every instance (the default of ``sim.run.simulate``)."""

    def block(self, name: str, instance: str, params: dict, twin: Callable[[], Any]) -> Any:
        """The block standing at ``instance``: here always ``twin()``."""
        return twin()

    def replaces(self, name: str, instance: str) -> bool:
        """True when ``block`` would not give the twin there (the point then builds the
        port-level parameters the RTL needs; a twin-only run skips that work)."""
        return False

    def report(self) -> dict | None:
        """What the provider put into the run (None for twins only): per instance the backend
        and the block cycles run."""
        return None


TWINS = BlockProvider()


class GivenBlocks(BlockProvider):
    """Ready-made blocks at named instances (``{(block, instance): object}``), the twins
    elsewhere: for drivers that build their blocks themselves (tests, mutants, cosim benches)."""

    def __init__(self, given: dict[tuple[str, str], Any]):
        self.given = dict(given)

    def replaces(self, name: str, instance: str) -> bool:
        return (name, instance) in self.given

    def block(self, name: str, instance: str, params: dict, twin: Callable[[], Any]) -> Any:
        return self.given[name, instance] if (name, instance) in self.given else twin()
