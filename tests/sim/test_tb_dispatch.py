"""The dispatcher contract ``tb_dispatch`` (our contract for [SRTF]'s thread-block scheduler): allow
rows, caps, priority with fallback, per-(SM, kernel) resident counts."""

from collections import Counter

from sim.policies.kernel_sched import FIFOKernelScheduler
from sim.policies.tb_dispatch import TBDispatch
from sim_helpers import run
from sim_kernels import independent, make_kernel, workload

CONCURRENT = ("kernels.concurrent_sm=true",)


def kernels(n_a=16, n_b=16, len_a=40, len_b=40):
    # tiny: 256 threads, 8 warps and 4 CTA slots per SM, so R = 4 for 64-thread CTAs
    a = make_kernel("a", lambda c, w: independent(len_a), grid=(n_a, 1, 1), block=(64, 1, 1))
    b = make_kernel("b", lambda c, w: independent(len_b), grid=(n_b, 1, 1), block=(64, 1, 1))
    return workload(a, b)


class RowPolicy(FIFOKernelScheduler):
    """SM ``sm``'s row is ``rows(runs, sm)`` (runs = the launched kernels in slot order); checks the
    contract at every placement: caps, one block per SM per cycle, SM limits."""

    def __init__(self, cfg, rows):
        super().__init__(cfg)
        self.rows = rows
        self.placed: Counter = Counter()        # (cycle, sm) -> blocks placed
        self.max_resident: Counter = Counter()  # (sm, kernel index) -> most resident at once
        self.order: list[tuple[int, int, int]] = []

    def dispatch_row(self, now, sm):
        runs = [r for r in self.slots if r is not None]
        return self.rows(runs, sm)

    def on_cta_start(self, now, sm, cta):
        d = self.gpu.dispatch
        self.placed[now, sm.sm_id] += 1
        key = (sm.sm_id, cta.run.index)
        self.max_resident[key] = max(self.max_resident[key], d.resident_blocks(sm.sm_id, cta.run))
        assert sum(d.resident[sm.sm_id]) == sm.n_ctas <= sm.max_ctas
        self.order.append((now, sm.sm_id, cta.run.index))


def run_rows(rows, wl=None, *overrides):
    holder = {}

    def make(cfg):
        holder["p"] = RowPolicy(cfg, rows)
        return holder["p"]
    r = run(wl or kernels(), "tiny", *CONCURRENT, *overrides, kernel_scheduler=make)
    return r, holder["p"]


def test_cap_priority_and_fallback():
    # b first but capped at 1 block per SM, a after it up to its R: every SM holds one b block
    # and three a blocks while both have blocks left
    r, p = run_rows(lambda runs, sm: [(runs[1], 1), (runs[0], runs[0].occupancy.limit)])
    assert max(p.placed.values()) == 1                       # ≤ 1 block per SM per cycle
    assert all(p.max_resident[sm, 1] == 1 for sm in (0, 1))  # b never above its cap
    assert all(p.max_resident[sm, 0] == 3 for sm in (0, 1))  # a fills what b leaves
    first = {sm: k for _, sm, k in sorted(p.order, reverse=True)}
    assert first == {0: 1, 1: 1}                             # priority: b's block goes first
    ids = Counter((row[0], row[1]) for row in r["ctas"]["rows"])
    assert len(ids) == 32 and set(ids.values()) == {1}       # every block exactly once
    assert p.gpu.dispatch.resident == [[0, 0], [0, 0]]       # all retired


def test_allow_row_excludes_a_kernel_until_the_other_is_dispatched():
    # b is allowed only once a has no undispatched block (the FIFO rule of [SRTF FIFO])
    def rows(runs, sm):
        a, b = runs[0], runs[1] if len(runs) > 1 else None
        if b is None or not TBDispatch.all_dispatched(a):
            return [(a, 4)]
        return [(a, 4), (b, 4)]
    r, p = run_rows(rows)
    last_a = max(t for t, _, k in p.order if k == 0)
    first_b = min(t for t, _, k in p.order if k == 1)
    assert first_b > last_a


def test_empty_row_dispatches_nothing_on_that_sm():
    # SM 1 is allowed nothing: every block runs on SM 0
    r, p = run_rows(lambda runs, sm: [(x, 4) for x in runs] if sm.sm_id == 0 else [],
                    kernels(n_a=4, n_b=4))
    assert {sm for _, sm, _ in p.order} == {0}
    assert len(p.order) == 8
