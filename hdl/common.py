"""Small combinational pieces shared by blocks: log-depth prefix OR, find-first, one-hot encode.

Written as vector operations on named intermediate signals: synthesis sees log-depth structures
(a Kogge-Stone prefix, not the ripple carry an ``x & -x`` trick would give), and Amaranth's
simulator evaluates one wide operation per level instead of thousands of 1-bit expressions.
"""

from __future__ import annotations

from amaranth.hdl import Const, Module, Signal, Value
from amaranth.lib.wiring import In, Out, Signature


def prefix_or(m: Module, vec: Value, width: int, name: str) -> Signal:
    """Inclusive prefix OR: out[i] = vec[0] | ... | vec[i], in ceil(log2 width) levels."""
    cur = Signal(width, name=f"{name}_l0")
    m.d.comb += cur.eq(vec)
    span, level = 1, 0
    while span < width:
        level += 1
        nxt = Signal(width, name=f"{name}_l{level}")
        m.d.comb += nxt.eq(cur | (cur << span)[:width])
        cur, span = nxt, span * 2
    return cur


def first_one_hot(m: Module, vec: Value, width: int, name: str) -> Signal:
    """One-hot of the lowest set bit of ``vec`` (0 if none)."""
    seen = prefix_or(m, vec, width, f"{name}_seen")
    out = Signal(width, name=name)
    m.d.comb += out.eq(vec & ~(seen << 1)[:width])
    return out


def one_hot_index(m: Module, onehot: Value, width: int, name: str) -> Signal:
    """Binary index of a one-hot vector: one OR-reduction per index bit (0 for all-zero input)."""
    nbits = max(1, (width - 1).bit_length())
    out = Signal(nbits, name=name)
    for b in range(nbits):
        mask = sum(1 << i for i in range(width) if (i >> b) & 1)
        m.d.comb += out[b].eq((onehot & Const(mask, width)).any())
    return out


def signature_of(ports: dict) -> Signature:
    """A component signature from a port table {name: (direction, width[, init])} with direction
    "in" or "out" (``hdl.params``: the twins and the cosim bridge read the same table)."""
    members = {}
    for name, (d, w, *init) in ports.items():
        members[name] = In(w, init=init[0] if init else 0) if d == "in" else Out(w, init=init[0] if init else 0)
    return Signature(members)
