"""Warp-arbiter order, CTA placement, occupancy limits and kernel order ([GPGPU-Sim
scheduler_unit::cycle(), issue_block2core()])."""

import math

import pytest

from gpusched.config import ConfigError
from sim.cta import occupancy_limit
from sim_helpers import GrantRecorder, config, run
from sim_kernels import dependent_chain, independent, make_kernel, workload


def cta_rows(result, kernel=None):
    rows = [dict(zip(result["ctas"]["fields"], r)) for r in result["ctas"]["rows"]]
    return [r for r in rows if kernel is None or r["kernel"] == kernel]


# -- warp arbiter ------------------------------------------------------------------------------

def grants_of_scheduler0(policy: str, body) -> list[int]:
    rec = GrantRecorder()
    # one CTA of 8 warps on tiny: slots 0..7, scheduler 0 holds slots 0, 2, 4, 6 as local 0..3;
    # fetching 8 warps per cycle keeps every instruction buffer filled, so only the policy decides
    run(workload(make_kernel("k", body, block=(256, 1, 1))), "tiny", f"sm.warp_sched={policy}",
        "sm.fetch_per_cycle=8", blocks=rec)
    return rec.of(0)


def test_lrr_rotates_over_ready_warps():
    g = grants_of_scheduler0("lrr", lambda c, w: independent(12))
    # all four warps stay ready: strict rotation starting at the lowest slot
    # ([GPGPU-Sim scheduler_unit::cycle()] LRR)
    assert g[:12] == [0, 1, 2, 3] * 3


def test_gto_stays_greedy_then_oldest():
    g = grants_of_scheduler0("gto", lambda c, w: independent(12))
    # warp 0 never stalls, so it issues all 13 instructions (12 + EXIT), then the oldest next
    assert g == [0] * 13 + [1] * 13 + [2] * 13 + [3] * 13


def test_gto_switches_on_stall_to_oldest():
    # a dependent chain stalls the greedy warp; the oldest ready warp (lowest dynamic id) issues
    g = grants_of_scheduler0("gto", lambda c, w: dependent_chain(3))
    assert g[:4] == [0, 1, 2, 3]


# -- occupancy ---------------------------------------------------------------------------------

def k(block=256, regs=0, smem=0, grid=1000):
    return make_kernel("k", lambda c, w: [], grid=(grid, 1, 1), block=(block, 1, 1), regs=regs, smem=smem)


@pytest.mark.parametrize("kernel,limit,limiter", [
    (k(block=512), 1536 // 512, "threads"),
    (k(block=33), 8, "cta_slots"),                                  # padded to 64 threads: 24 by threads
    (k(block=256, regs=30), 32768 // (256 * 32), "registers"),      # 30 regs rounded up to 32
    (k(block=256, regs=33), 32768 // (256 * 36), "registers"),      # 33 → 36
    (k(block=64, smem=20000), 49152 // 20000, "shared_memory"),
    (k(block=64, grid=20), math.ceil(20 / 15), "small_grid"),       # 20 CTAs < 8 × 15 SMs
])
def test_occupancy_limit_gtx480(kernel, limit, limiter):
    sm = config("gtx480").sm
    occ = occupancy_limit(sm, kernel, sm.count)
    assert (occ.limit, occ.limiter) == (limit, limiter)


def test_occupancy_below_one_is_an_input_error():
    with pytest.raises(ConfigError, match="does not fit"):
        occupancy_limit(config("gtx480").sm, k(block=256, smem=60000), 15)


def test_resident_ctas_never_exceed_limit():
    # tiny: 256 threads/SM → CTAs of 96 threads (3 warps) → 2 per SM; 12 CTAs over 2 SMs
    r = run(workload(make_kernel("k", lambda c, w: independent(20), grid=(12, 1, 1), block=(96, 1, 1))))
    assert r["kernels"][0]["occupancy_limit"] == 256 // 96
    for sm in range(2):
        rows = [x for x in cta_rows(r) if x["sm"] == sm]
        for cycle in range(r["cycles"]):
            assert sum(x["start"] <= cycle < x["end"] for x in rows) <= 2
    assert max(sum(x["start"] <= 1 < x["end"] for x in cta_rows(r) if x["sm"] == s) for s in range(2)) == 2


# -- CTA placement -----------------------------------------------------------------------------

def test_cta_round_robin_one_per_cluster_per_cycle():
    r = run(workload(make_kernel("k", lambda c, w: independent(200), grid=(30, 1, 1), block=(64, 1, 1))), "gtx480")
    for x in cta_rows(r):
        assert (x["sm"], x["start"]) == (x["cta"] % 15, x["cta"] // 15)


def test_cta_round_robin_inside_clusters():
    # 5 clusters × 3 SMs: each cycle every cluster places one CTA, on its next SM in turn
    r = run(workload(make_kernel("k", lambda c, w: independent(200), grid=(15, 1, 1), block=(64, 1, 1))),
            "gtx480", "sm.sms_per_cluster=3")
    for x in cta_rows(r):
        cluster, turn = x["cta"] % 5, x["cta"] // 5
        assert (x["sm"], x["start"]) == (cluster * 3 + turn, turn)


# -- kernels -----------------------------------------------------------------------------------

def two_kernels(**kw):
    a = make_kernel("a", lambda c, w: independent(50), grid=(8, 1, 1), block=(64, 1, 1), **kw)
    b = make_kernel("b", lambda c, w: independent(10), grid=(8, 1, 1), block=(64, 1, 1), **kw)
    return workload(a, b)


def test_fifo_kernels_in_order_and_sm_holds_one_kernel():
    # kernel a's even CTAs (all on SM 0) run long: SM 1 drains first and moves on to kernel b
    # while SM 0 still finishes a ([GPGPU-Sim issue_block2core()] default mode)
    a = make_kernel("a", lambda c, w: independent(300 if c % 2 == 0 else 30), grid=(8, 1, 1), block=(64, 1, 1))
    b = make_kernel("b", lambda c, w: independent(10), grid=(8, 1, 1), block=(64, 1, 1))
    r = run(workload(a, b))
    rows_a, rows_b = cta_rows(r, 0), cta_rows(r, 1)
    assert max(x["start"] for x in rows_a) <= min(x["start"] for x in rows_b)
    for y in rows_b:   # an SM takes kernel b only once it holds no CTA of kernel a
        assert all(x["end"] <= y["start"] for x in rows_a if x["sm"] == y["sm"])
    ka, kb = r["kernels"]
    assert ka["launched"] == kb["launched"] == 0
    first_b = min(rows_b, key=lambda y: y["start"])
    assert first_b["sm"] == 1 and first_b["start"] < ka["end"]


def test_fifo_one_kernel_slot_serialises_kernels():
    r = run(two_kernels(), "tiny", "kernels.max_concurrent=1")
    ka, kb = r["kernels"]
    assert kb["launched"] == ka["end"] + 1 and kb["start"] == kb["launched"]


def test_launch_countdown_delays_first_cta():
    r = run(two_kernels(), "tiny", "kernels.launch_latency=7", "kernels.tb_launch_latency=2")
    assert r["kernels"][0]["start"] == 7 + 8 * 2


def test_sm_partition_runs_kernels_side_by_side():
    # while both kernels have CTAs to hand out, SM 0 runs kernel a and SM 1 kernel b; once b has
    # none left, SM 1 drains and joins a
    r = run(two_kernels(), "tiny", kernel_scheduler="sm_partition")
    rows_a, rows_b = cta_rows(r, 0), cta_rows(r, 1)
    assert {y["sm"] for y in rows_b} == {1}
    last_b = max(y["start"] for y in rows_b)
    assert {x["sm"] for x in rows_a if x["start"] <= last_b} == {0}
    assert r["kernels"][1]["start"] == r["kernels"][0]["start"] == 0


def _chain_kernel(name: str, stream):
    k = make_kernel(name, lambda c, w: dependent_chain(20))
    if stream is not None:
        k.meta["cuda stream"] = stream
    return k


@pytest.mark.parametrize("streams,serial", [(("0", "0"), True), (("0", "1"), False),
                                            ((None, None), False)])
def test_stream_order_runs_a_streams_kernels_one_after_another(streams, serial):
    # kernels.stream_order (Accel-Sim: a kernel starts only in an idle CUDA stream): kernels of one
    # stream wait for each other; other streams and stream-less kernels still overlap (tiny: 2
    # SMs, one kernel each)
    wl = workload(*[_chain_kernel(f"k{i}", s) for i, s in enumerate(streams)])
    free = run(wl, "tiny", "kernels.stream_order=false")["kernels"]
    assert all(k["start"] == 0 for k in free)              # without the option all overlap
    ks = run(wl, "tiny", "kernels.stream_order=true")["kernels"]
    if serial:
        for a, b in zip(ks, ks[1:]):
            assert b["start"] > a["end"]
            assert b["cycles"] == a["cycles"]
    else:
        assert [k["start"] for k in ks] == [0, 0] and ks == free


def test_a_waiting_stream_does_not_hold_back_other_streams():
    # k1 waits for k0 (stream "0"); k2 (stream "1") arrived after k1 but starts at once (CUDA
    # streams are independent queues; tiny: 2 SMs, so k0 and k2 run side by side)
    wl = workload(*[_chain_kernel(f"k{i}", s) for i, s in enumerate(("0", "0", "1"))])
    ks = run(wl, "tiny", "kernels.stream_order=true")["kernels"]
    assert ks[1]["start"] > ks[0]["end"]
    assert ks[2]["start"] == 0
