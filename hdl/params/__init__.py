"""Block specs in plain Python: each block's parameters, their checks, its policy list and its
port table, in one module per block that imports no Amaranth.

The RTL (``hdl/``), the twin (``sim/blocks/``), the block entry (``cosim/specs/``), config
validation and the tests all read these modules, so the GPU model never imports Amaranth and a
name or a width is declared once. A port table maps a port name to ``(direction, width, init)``;
``hdl.common.signature_of`` turns it into an Amaranth signature.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

Ports = dict[str, tuple[str, int, int]]


@dataclass(frozen=True)
class Param:
    """One block parameter: its type, default, the allowed values in words, and their check."""
    type: type
    default: Any
    allowed: str
    check: Callable[[Any], bool] = lambda v: True


def port(direction: str, width: int, init: int = 0) -> tuple[str, int, int]:
    """One row of a port table: ``"in"`` or ``"out"``, a width in bits, a reset value."""
    return direction, width, init


def inputs_of(ports: Ports) -> tuple[str, ...]:
    return tuple(n for n, (d, _, _) in ports.items() if d == "in")


def outputs_of(ports: Ports) -> tuple[str, ...]:
    return tuple(n for n, (d, _, _) in ports.items() if d == "out")
