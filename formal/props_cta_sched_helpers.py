"""Helper invariants of cta_sched (strengthening): they tie the wrapper's shadow registers (N,
the set of dispatched ids, blocks held per CU, set-up cycles left) to the block's own registers
(launch state, divider, each CU's id range), so that together with the block's invariants they
are inductive: if every assertion holds in one cycle, it holds in the next. An unbounded proof
then needs one induction step (``formal.bmc.prove_inductive``) instead of a search; each helper
is itself proved (a wrong helper fails the base case or the step).

The kernel's ids are tracked as bit sets over [0, 2^ID_W): ``seen`` (dispatched before this
cycle) and, per CU, the ids it will still offer; while a kernel runs they partition [0, N).
"""

from __future__ import annotations

from amaranth.hdl import Cat, Const, Module, Signal, Value


def _count(bits: Value) -> Value:
    return sum(bits[k] for k in range(len(bits)))


def id_range(lo: Value, hi: Value, width: int) -> Value:
    """The ids in [lo, hi) as a bit set of ``width`` bits (empty when lo >= hi)."""
    one = Const(1, width + 1)
    return (((one << hi) - 1) & ~((one << lo) - 1))[:width]


def add_helpers(props, m: Module, dut, sh) -> None:
    st, p, idw = props.state, props.n_cus, props.id_w
    active, init_left, n_dut, retired = (st[k] for k in ("active", "init_left", "n", "retired"))
    held_sum = sum(sh.held)
    inv = props.invariant
    inv(m, "helper: the block's N is the latched N", n_dut == sh.n)
    inv(m, "helper: idle: nothing held, every id of the last kernel dispatched",
        active | ((init_left == 0) & (sh.setup == 0) & (held_sum == 0) & (sh.seen == sh.mask)))
    inv(m, "helper: set-up: nothing dispatched, held or retired, counters in step",
        ~active | (init_left == 0)
        | ((sh.setup == init_left + 1) & (sh.seen == 0) & (held_sum == 0) & (retired == 0)))
    inv(m, "helper: running: dispatched = retired + held",
        ~active | (init_left != 0) | ((sh.setup <= 1) & (_count(sh.seen) == retired + held_sum)))
    inv(m, "helper: kernel_done only when idle", ~st["done_pulse"] | ~active)
    policy = getattr(dut, "inner", dut).shape.policy
    if policy != "rr":
        _divider(props, m, st, idw, p)
    if policy in ("chunk", "reset"):
        _chunks(props, m, dut, sh, st, idw, p)
    if policy == "steal":
        from formal.props_cta_sched_steal import steal_helpers
        steal_helpers(props, m, sh, st, idw, p)


def _divider(props, m: Module, st, idw: int, p: int) -> None:
    """After k of the ID_W restoring steps: the top k bits of N divided by P are in the
    quotient's low k bits and the remainder, N's low bits wait above them."""
    q, r, n, il = st["quotient"], st["remainder"], st["n"], st["init_left"]
    ok = []
    for k in range(idw + 1):
        left = idw + 2 - k                       # init_left after k steps (k = ID_W: 2, 1, 0)
        when = (il == left) if k < idw else (il <= 2)
        holds = ((q[:k] if k else Const(0, 1)) * p + r == (n >> (idw - k))) & (r < p)
        if k < idw:
            holds &= q[k:] == n[:idw - k]
        ok.append(~when | holds)
    props.invariant(m, "helper: the divider's partial quotient and remainder",
                    ~st["active"] | Cat(*ok).all())


def _chunks(props, m: Module, dut, sh, st, idw: int, p: int) -> None:
    """C / R: CU i will still offer [lo_i, hi_i); with the dispatched ids these partition [0, N)."""
    width = 1 << idw
    ranges = []
    for i in range(p):
        r = Signal(width, name=f"range{i}")
        m.d.comb += r.eq(id_range(dut.st_lo[i * idw:(i + 1) * idw],
                                  dut.st_hi[i * idw:(i + 1) * idw], width))
        ranges.append(r)
    after_setup = st["active"] & (st["init_left"] <= 1)
    union = sh.seen
    for r in ranges:
        union = union | r
    inv = props.invariant
    inv(m, "helper: dispatched ids and the CUs' ranges cover [0, N)",
        ~after_setup | (union == sh.mask))
    for i, r in enumerate(ranges):
        inv(m, "helper: a CU's range holds no dispatched id", ~after_setup | ((r & sh.seen) == 0))
        for j in range(i):
            inv(m, "helper: the CUs' ranges are disjoint", ~after_setup | ((r & ranges[j]) == 0))
