"""Circular-order helpers over the P CUs (our cycle contract for [IKRA]: G's pointer, C's last_cu,
ranks)."""

from __future__ import annotations

from amaranth.hdl import Cat, Module, Mux, Signal, Value

from hdl.common import first_one_hot, one_hot_index


def rotate_down(m: Module, vec: Value, start: Value, n: int, name: str) -> Signal:
    """Bit k of the result = vec[(start + k) mod n]: the CUs in circular order from ``start``."""
    out = Signal(n, name=name)
    m.d.comb += out.eq((Cat(vec, vec) >> start)[:n])
    return out


def add_mod(m: Module, a: Value, b: Value, n: int, width: int, name: str) -> Signal:
    """(a + b) mod n for a, b < n."""
    total = Signal(width + 1, name=f"{name}_sum")
    out = Signal(width, name=name)
    m.d.comb += [total.eq(a + b), out.eq(Mux(total >= n, total - n, total))]
    return out


def latest_in_circular_order(m: Module, vec: Value, start: Value, n: int, width: int,
                             name: str) -> tuple[Signal, Signal]:
    """(any, index) of the set bit of ``vec`` that comes last in circular order from ``start``.

    Used for "the CU that received the last TB" when several CUs transfer in one cycle
    (our cycle contract and choices: the latest in circular order wins).
    """
    rot = rotate_down(m, vec, start, n, f"{name}_rot")
    rev = Signal(n, name=f"{name}_rev")
    m.d.comb += rev.eq(Cat(*[rot[n - 1 - k] for k in range(n)]))
    hot = first_one_hot(m, rev, n, f"{name}_hot")
    pos_rev = one_hot_index(m, hot, n, f"{name}_pos")
    offset = Signal(width, name=f"{name}_off")
    m.d.comb += offset.eq(n - 1 - pos_rev)
    return rot.any(), add_mod(m, start, offset, n, width, name)
