"""What the top hands to a policy unit (our cycle contract for [IKRA]): launch/init timing and the
grid size."""

from __future__ import annotations

from dataclasses import dataclass

from amaranth.hdl import Signal, Value


@dataclass
class Control:
    """Global timing of one kernel, all derived from registers except ``fire`` and ``slot_free``.

    fire: launch handshake this cycle (edge latches dims). setup1 / setup2: the two chunk set-up
    cycles after the divider. running: initialisation over, kernel not yet retired.
    """
    fire: Value
    setup1: Value
    setup2: Value
    running: Value
    n: Signal            # N, latched at the handshake
    base: Value          # N // P (valid from setup1)
    rem: Value           # N % P
    grid: Value          # Cat(grid_x, grid_y, grid_z) inputs, meaningful when fire
    slot_free: Value     # P bits


def per_cu(ports: dict[str, Value], name: str, width: int, values: list[Value]) -> None:
    """Record a packed per-CU output (CU 0 in the low bits) in a unit's output dictionary."""
    from amaranth.hdl import Cat
    ports[name] = Cat(*[v[:width] if isinstance(v, Value) else v for v in values])
