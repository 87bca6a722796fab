"""Per-kernel issue-slot breakdown (sim/kernel_issue.py): a kernel counts the SMs holding its
blocks, so overlapping kernels no longer count each other's slots (srtf issue item 3)."""

from sim_helpers import run
from sim_kernels import independent, loads, make_kernel, workload


def overlapping():
    # a's long even CTAs keep SM 0 busy while SM 1 already runs b (FIFO default mode)
    a = make_kernel("a", lambda c, w: independent(300 if c % 2 == 0 else 30) + loads(2),
                    grid=(8, 1, 1), block=(64, 1, 1))
    b = make_kernel("b", lambda c, w: independent(40) + loads(2), grid=(8, 1, 1), block=(64, 1, 1))
    return workload(a, b)


def test_lone_kernel_counts_every_slot_of_its_window():
    r = run(workload(overlapping().kernels[0]))
    k = r["kernels"][0]
    assert sum(k["issue"].values()) == 2 * 2 * (k["end"] - k["start"])    # tiny: 2 SMs × 2 sub-cores
    assert k["issue"]["issued"] == k["warp_insts"]


def test_overlapping_kernels_count_only_their_own_issues():
    r = run(overlapping())
    ka, kb = r["kernels"]
    assert kb["start"] < ka["end"]                      # the windows overlap
    for k in (ka, kb):                                  # one instruction per issued slot
        assert k["issue"]["issued"] == k["warp_insts"]
    # the SMs' slots are shared out, not counted twice: the two breakdowns together exceed the
    # GPU's slots over the union of the windows only by idle SMs, which count for both
    union = 2 * 2 * (max(ka["end"], kb["end"]) - min(ka["start"], kb["start"]))
    both = sum(ka["issue"].values()) + sum(kb["issue"].values())
    assert both - ka["issue"]["idle"] - kb["issue"]["idle"] <= union


def test_sm_partition_side_by_side_kernels():
    r = run(overlapping(), kernel_scheduler="sm_partition")
    for k in r["kernels"]:
        assert k["issue"]["issued"] == k["warp_insts"]
