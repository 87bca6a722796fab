"""Insert-time dependence check ([SOCGPU dependence matrix], sub-block ``dep_check``).

For an instruction A presented on an insert port, bit j of its dependence vector is

    overlap(A.dst, dst[j] ∪ src[j])  or  overlap(A.src, dst[j])  or  A.serial  or  serial[j]

i.e. WAW + WAR, RAW and the serial fence. Per stored entry that is D·(S+D) + S·D masked
comparators (20 for S = 4, D = 2). The caller masks the vector with ``live``.
"""

from __future__ import annotations

from amaranth.hdl import Cat, Const, Module, Signal, Value

from . import IssueParams


def rec_parts(rec: Value, rw: int) -> tuple[Value, Value, Value]:
    """(id, size, valid) slices of an operand record."""
    return rec[:rw], rec[rw:rw + 2], rec[rw + 2]


def overlap(a: Value, b: Value, rw: int) -> Value:
    """1 iff both records are valid and their aligned register ranges overlap ([SOCGPU instruction
    buffer]): the ids agree after clearing the low max(size_a, size_b) bits."""
    ia, sa, va = rec_parts(a, rw)
    ib, sb, vb = rec_parts(b, rw)
    care = ~Cat((sa | sb).any(), sa[1] | sb[1], Const(0, rw - 2))
    return va & vb & (((ia ^ ib) & care) == 0)


def records(vec: Value, count: int, rb: int) -> list[Value]:
    return [vec[k * rb:(k + 1) * rb] for k in range(count)]


def conflict(p: IssueParams, a_src: list[Value], a_dst: list[Value], a_serial: Value,
             b_src: list[Value], b_dst: list[Value], b_serial: Value) -> Value:
    """Expression: younger instruction A must wait for older instruction B (one bit)."""
    rw = p.RW
    terms = [a_serial, b_serial]
    terms += [overlap(d, o, rw) for d in a_dst for o in b_dst + b_src]   # WAW, WAR
    terms += [overlap(s, o, rw) for s in a_src for o in b_dst]           # RAW
    return Cat(*terms).any()


class EntryPlanes:
    """Per operand slot, the fields of that slot of all N entries side by side (slot b of entry j
    at chunk j): ids (N·RW bits), ignored low id bits from the entry's size (N·RW), valid (N).

    Comparing one insert-port record against a whole plane is then a few wide operations and
    one zero test per chunk: the same comparators, but far fewer simulator operations.
    Slots 0..S-1 are sources, S..S+D-1 destinations.
    """

    def __init__(self, m: Module, p: IssueParams, ent_src: list[Signal], ent_dst: list[Signal]):
        rw, n = p.RW, p.N
        self.ids, self.ign, self.valid = [], [], []
        for b in range(p.S + p.D):
            recs = [records(ent_src[j], p.S, p.RB)[b] if b < p.S
                    else records(ent_dst[j], p.D, p.RB)[b - p.S] for j in range(n)]
            ids, ign, val = Signal(n * rw, name=f"plane{b}_id"), Signal(n * rw, name=f"plane{b}_ign"), \
                Signal(n, name=f"plane{b}_valid")
            m.d.comb += [
                ids.eq(Cat(*[rec_parts(r, rw)[0] for r in recs])),
                ign.eq(Cat(*[ignore_bits(rec_parts(r, rw)[1], rw) for r in recs])),
                val.eq(Cat(*[rec_parts(r, rw)[2] for r in recs])),
            ]
            self.ids.append(ids)
            self.ign.append(ign)
            self.valid.append(val)


def plane_hits(rec: Value, ids: Value, ign: Value, valid: Value, n: int, rw: int,
               m: Module, name: str) -> Value:
    """N-bit expression: chunk j of the plane (ids, ign, valid) overlaps record ``rec``.

    The wide difference is a named signal (read N times below, computed once)."""
    a_id, a_size, a_valid = rec_parts(rec, rw)
    diff = Signal(n * rw, name=name)
    m.d.comb += diff.eq((ids ^ a_id.replicate(n)) & ~(ign | ignore_bits(a_size, rw).replicate(n)))
    same = Cat(*[~diff[j * rw:(j + 1) * rw].any() for j in range(n)])
    return same & valid & a_valid.replicate(n)


def ignore_bits(size: Value, rw: int) -> Value:
    """Low id bits a record's size code makes irrelevant (pair: bit 0, quad: bits 0-1)."""
    return Cat(size.any(), size[1], Const(0, rw - 2))


def dep_vector(m_cmp: Module, m_row: Module, p: IssueParams, name: str, a_src: Value,
               a_dst: Value, a_serial: Value, planes: EntryPlanes, ent_serial: Value,
               live: Value) -> Signal:
    """N-bit vector: bit j = entry j is live and A conflicts with it (WAW, WAR, RAW, serial).

    ``m_cmp`` gets one wide difference signal per (port record, entry slot) pair, ``m_row`` the
    per-chunk zero tests and the OR; two modules so the simulator settles each in one pass.
    """
    rw, n = p.RW, p.N
    asrc, adst = records(a_src, p.S, p.RB), records(a_dst, p.D, p.RB)
    pairs = [(d, b) for d in adst for b in range(p.S + p.D)]          # WAW + WAR
    pairs += [(s, b) for s in asrc for b in range(p.S, p.S + p.D)]     # RAW
    hits = []
    for k, (rec, b) in enumerate(pairs):
        hits.append(plane_hits(rec, planes.ids[b], planes.ign[b], planes.valid[b], n, rw,
                               m_cmp, f"{name}_diff{k}"))
    vec = Signal(n, name=name)
    m_row.d.comb += vec.eq((or_tree(hits) | a_serial.replicate(n) | ent_serial) & live)
    return vec


def or_tree(terms: list[Value]) -> Value:
    while len(terms) > 1:
        terms = [terms[i] | terms[i + 1] if i + 1 < len(terms) else terms[i]
                 for i in range(0, len(terms), 2)]
    return terms[0]
