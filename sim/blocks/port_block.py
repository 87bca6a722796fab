"""The one interface of every object that stands at a block instance of a GPU run (the twins, the
RTL backends, lockstep pairs): ``step(**inputs) -> outputs`` is one clock cycle, and
``step_port(port)`` is the same cycle with the inputs read from, and the outputs written into, a
port record the scheduling point keeps and reuses (no dict per cycle on a hot point).

``PortBlock.step_port`` goes through ``step``, so any block has it; a twin on a hot point
overrides it with the same behaviour and no dicts. Because every such object derives from this
compiled class, a compiled point calls ``step_port`` natively whatever stands behind it (an
interpreted subclass's override is still called, through Python).
"""

from __future__ import annotations

from mypy_extensions import mypyc_attr


@mypyc_attr(allow_interpreted_subclasses=True)
class PortRecord:
    """One block's ports as fields, filled by the point and answered by the block."""

    def inputs(self) -> dict[str, int]:
        """The input ports as the dict ``step`` takes."""
        raise NotImplementedError("a port record defines inputs()")

    def set_outputs(self, out: dict[str, int]) -> None:
        """Store the output ports ``step`` returned."""
        raise NotImplementedError("a port record defines set_outputs()")


@mypyc_attr(allow_interpreted_subclasses=True)
class PortBlock:
    """Base of every block object a provider hands to a scheduling point."""

    def step(self, **inputs: int) -> dict[str, int]:
        """One clock cycle: this cycle's outputs for ``inputs``, then the edge."""
        raise NotImplementedError("a block defines step()")

    def step_port(self, port: PortRecord) -> None:
        """``step`` with the inputs of ``port``, its outputs stored back into ``port``."""
        port.set_outputs(self.step(**port.inputs()))
