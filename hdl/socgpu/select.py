"""Local selection policies of one warp's IB ([SOCGPU local policy], sub-block ``select``).

Each function returns the one-hot pick among an N-bit candidate vector (0 if none); all are
written as a few wide vector operations per level so the simulator stays fast and synthesis sees
log-depth trees.

- first: lowest index (priority encoder).
- oldest / youngest: the candidate with no older / younger candidate (age-matrix reduction).
- most_ready / least_ready: largest / smallest ``rdy_cnt``, ties to the lowest index. Found
  bit-serially from the counter MSB: keep the candidates with that bit set (clear) if any.
- random: the first candidate at or after ``lfsr mod N``, circularly (rotated encoder).
"""

from __future__ import annotations

from amaranth.hdl import Cat, Const, Module, Mux, Signal, Value

from ..common import first_one_hot


def pick_first(m: Module, vec: Value, n: int, name: str) -> Signal:
    return first_one_hot(m, vec, n, name)


def pick_by_age(m: Module, vec: Value, n: int, rows: list[Value], name: str) -> Signal:
    """Candidate i such that no other candidate is set in ``rows[i]`` (rows[i] = entries older
    than i gives the oldest; entries younger than i gives the youngest)."""
    bits = []
    for i in range(n):
        b = Signal(name=f"{name}_{i}")
        m.d.comb += b.eq(vec[i] & ~(vec & rows[i]).any())
        bits.append(b)
    out = Signal(n, name=name)
    m.d.comb += out.eq(Cat(*bits))
    return out


def pick_by_count(m: Module, vec: Value, n: int, cnt_bits: list[Value], largest: bool,
                  name: str) -> Signal:
    """Largest (or smallest) counter among candidates, ties to lowest index.

    ``cnt_bits[b]`` is the N-bit vector of bit b of every entry's counter.
    """
    cur = Signal(n, name=f"{name}_c{len(cnt_bits)}")
    m.d.comb += cur.eq(vec)
    for b in reversed(range(len(cnt_bits))):
        keep = Signal(n, name=f"{name}_k{b}")
        m.d.comb += keep.eq(cur & (cnt_bits[b] if largest else ~cnt_bits[b]))
        nxt = Signal(n, name=f"{name}_c{b}")
        m.d.comb += nxt.eq(Mux(keep.any(), keep, cur))
        cur = nxt
    return first_one_hot(m, cur, n, name)


def pick_random(m: Module, vec: Value, n: int, start: Value, name: str) -> Signal:
    """First candidate at or after position ``start``, wrapping around."""
    at_or_after = Signal(n, name=f"{name}_from")
    m.d.comb += at_or_after.eq((Const((1 << n) - 1, n) << start)[:n])
    upper = Signal(n, name=f"{name}_upper")
    m.d.comb += upper.eq(vec & at_or_after)
    pick_upper = first_one_hot(m, upper, n, f"{name}_pu")
    pick_any = first_one_hot(m, vec, n, f"{name}_pa")
    out = Signal(n, name=name)
    m.d.comb += out.eq(Mux(upper.any(), pick_upper, pick_any))
    return out


def pick(m: Module, policy: str, vec: Value, n: int, name: str, *, older_rows=None,
         younger_rows=None, cnt_bits=None, start=None) -> Signal:
    """Dispatch on the policy name ([SOCGPU local policy] table)."""
    if policy == "first":
        return pick_first(m, vec, n, name)
    if policy == "oldest":
        return pick_by_age(m, vec, n, older_rows, name)
    if policy == "youngest":
        return pick_by_age(m, vec, n, younger_rows, name)
    if policy in ("most_ready", "least_ready"):
        return pick_by_count(m, vec, n, cnt_bits, policy == "most_ready", name)
    if policy == "random":
        return pick_random(m, vec, n, start, name)
    raise ValueError(policy)
