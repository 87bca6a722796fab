"""IKRA CTA schedulers in the GPU model ([IKRA Chunk, Steal, DeNovo]): sim/policies/ikra_cta.py."""

import json

import pytest

from hdl.ikra.params import chunk_bounds
from sim.policies.ikra_cta import IKRA_CTA_SCHEDULERS, IkraCtaScheduler, ikra_scheduler_class
from sim.run import simulate
from sim.workload.catalogue import get_workload
from sim_helpers import config
from sim_kernels import independent, loads, make_kernel, workload

POLICIES = ("rr", "chunk", "reset", "flip", "steal")


def iterative(launches: int = 4, grid=(6, 2, 1), skew: int = 0, name: str = "it"):
    """``launches`` launches of one kernel (2 warps per CTA); CTA c does 6 + skew·c ALU ops."""
    return workload(*(make_kernel(f"{name}_{k}", lambda c, w: independent(6 + skew * c),
                                  grid=grid, block=(64, 1, 1)) for k in range(launches)),
                    name=name)


def run_ikra(wl, policy: str, *overrides: str, preset: str = "tiny", memory: str = "fixed",
             **kw) -> tuple[dict, IkraCtaScheduler]:
    cfg = config(preset, *overrides)
    sched = IkraCtaScheduler(cfg, policy, **kw)
    return simulate(cfg, wl, memory=memory, cta_scheduler=sched), sched


def placements(result) -> dict[int, dict[int, tuple[int, int]]]:
    """kernel → cta → (sm, start cycle)."""
    out: dict[int, dict[int, tuple[int, int]]] = {}
    for k, cta, sm, start, _ in result["ctas"]["rows"]:
        assert cta not in out.setdefault(k, {}), f"CTA {cta} of kernel {k} ran twice"
        out[k][cta] = (sm, start)
    return out


def per_sm(kernel: dict[int, tuple[int, int]]) -> dict[int, list[int]]:
    """sm → its CTA ids in start order."""
    out: dict[int, list[int]] = {}
    for cta, (sm, start) in sorted(kernel.items(), key=lambda kv: (kv[1][1], kv[0])):
        out.setdefault(sm, []).append(cta)
    return out


# -- (a) every CTA id exactly once, launch handshake -------------------------------------------

@pytest.mark.parametrize("policy", POLICIES)
def test_every_cta_runs_exactly_once(policy):
    wl = iterative(3, grid=(5, 3, 1), skew=3)
    wl.kernels.insert(1, make_kernel("odd", lambda c, w: independent(4), grid=(7, 1, 1),
                                     block=(64, 1, 1)))                # dims change in between
    result, sched = run_ikra(wl, policy, "sm.count=4")
    got = placements(result)
    assert sorted(got) == list(range(len(wl.kernels)))
    for k, kern in enumerate(wl.kernels):
        assert sorted(got[k]) == list(range(kern.n_ctas)), kern.name
    assert sched.stats["launches"] == len(wl.kernels)
    assert sum(v for key, v in sched.stats.items() if key.startswith("src_")) == \
        sum(k.n_ctas for k in wl.kernels)


@pytest.mark.parametrize("id_w", [16, 32])
def test_one_kernel_at_a_time_with_launch_initialisation(id_w):
    """tiny admits 8 kernels at once, but the twin takes the next only when the previous fully
    retired (launch_ready), and offers nothing for ID_W + 2 init cycles (our cycle contract)."""
    result, _ = run_ikra(iterative(3), "reset", id_w=id_w)
    ks = result["kernels"]
    # launched in cycle 0; init edges 1..ID_W+2; first transfer at ID_W+3
    assert ks[0]["start"] == id_w + 3
    for prev, nxt in zip(ks, ks[1:]):
        # last retirement at end; launch handshake next cycle; then the same ID_W+3
        assert nxt["start"] - prev["end"] == id_w + 4


def test_selectable_by_class_and_registry_names():
    cfg = config("tiny")
    wl = iterative(2)
    by_class = simulate(cfg, wl, cta_scheduler=IkraCtaScheduler)          # class taking cfg
    assert by_class["policies"]["cta_scheduler"] == "IkraCtaScheduler"
    flip = simulate(cfg, wl, cta_scheduler=IKRA_CTA_SCHEDULERS["ikra_flip"])
    assert flip["policies"]["cta_scheduler"] == "IkraFlipCtaScheduler"
    assert set(IKRA_CTA_SCHEDULERS) == {f"ikra_{p}" for p in POLICIES}
    with pytest.raises(ValueError):
        ikra_scheduler_class("lifo")


# -- (b) mapping across launches -----------------------------------------------------------------

@pytest.mark.parametrize("policy", ["reset", "flip"])
def test_reset_and_flip_keep_the_chunk_mapping(policy):
    n_sms, wl = 3, iterative(4, grid=(7, 2, 1), skew=4)
    result, sched = run_ikra(wl, policy, f"sm.count={n_sms}")
    got = placements(result)
    n = wl.kernels[0].n_ctas
    for k in got:
        for cta, (sm, _) in got[k].items():
            lo, hi = chunk_bounds(sm, n, n_sms, 0)                         # [IKRA Chunk], s = 0
            assert lo <= cta < hi, (k, cta, sm)
    for k in range(1, len(got)):
        assert {c: s for c, (s, _) in got[k].items()} == {c: s for c, (s, _) in got[k - 1].items()}
    assert sched.stats["steals_chunk"] + sched.stats["steals_queue"] == 0


def test_flip_reverses_the_order_every_launch():
    n_sms, wl = 2, iterative(4, grid=(12, 1, 1), skew=2)
    result, _ = run_ikra(wl, "flip", f"sm.count={n_sms}")
    for k, kern in placements(result).items():
        for sm, order in per_sm(kern).items():
            assert order == sorted(order, reverse=k % 2 == 1), (k, sm, order)


def test_reset_order_is_ascending_every_launch():
    result, _ = run_ikra(iterative(3, grid=(12, 1, 1), skew=2), "reset", "sm.count=2")
    for k, kern in placements(result).items():
        for order in per_sm(kern).values():
            assert order == sorted(order)


def test_chunk_gives_each_sm_the_rotated_contiguous_range():
    n_sms, wl = 3, iterative(4, grid=(11, 1, 1), skew=3)
    result, _ = run_ikra(wl, "chunk", f"sm.count={n_sms}")
    n, rotations = wl.kernels[0].n_ctas, []
    for k, kern in placements(result).items():
        owned = {sm: sorted(ids) for sm, ids in per_sm(kern).items()}
        fits = [s for s in range(n_sms)
                if all(owned.get(sm, []) == list(range(*chunk_bounds(sm, n, n_sms, s)))
                       for sm in range(n_sms))]
        assert fits, (k, owned)
        rotations.append(fits[0])
    assert rotations[0] == 0                 # last_cu starts at P − 1 (our choice)
    assert len(set(rotations)) > 1           # s = last_cu + 1 moves between launches


def test_steal_keeps_the_mapping_except_for_new_thefts():
    """Rising work per CTA makes the low SMs steal; a stolen CTA stays with its thief in the
    next launch ([IKRA Steal]), every other CTA runs where it ran before."""
    n_sms, wl = 3, iterative(5, grid=(15, 1, 1), skew=12)
    result, sched = run_ikra(wl, "steal", f"sm.count={n_sms}")
    got = placements(result)
    assert sched.stats["steals_chunk"] > 0 and sched.stats["overflows"] == 0
    moved = 0
    for k in range(1, len(got)):
        stolen = set(sched.steal_log.get(k, ()))
        for cta, (sm, _) in got[k].items():
            if cta in stolen:
                moved += got[k - 1][cta][0] != sm
            else:
                assert sm == got[k - 1][cta][0], (k, cta)
    assert moved > 0
    # kernel 0 starts from the [IKRA Chunk] chunks; thefts show up as stolen sources
    for cta, (sm, _) in got[0].items():
        lo, hi = chunk_bounds(sm, 15, n_sms, 0)
        assert lo <= cta < hi or cta in sched.steal_log[0]
    assert sched.stats["src_stolen_chunk"] + sched.stats["src_stolen_queue"] == \
        sum(len(v) for v in sched.steal_log.values())


@pytest.mark.parametrize("first,victim", [("right", 1), ("left", 2)])
def test_config_sets_the_first_victim(first, victim):
    """kernels.ikra_victim_first reaches the block: SM 0 (the shortest CTAs under rising work)
    runs dry first and steals its first CTA from its right neighbour SM 1 (Fig 3, the default)
    or, with ``left``, from SM 2 ([IKRA Steal])."""
    n_sms, wl = 3, iterative(2, grid=(15, 1, 1), skew=12)
    order = [] if first == "right" else ["kernels.ikra_victim_first=left"]    # right: default
    result, sched = run_ikra(wl, "steal", f"sm.count={n_sms}", *order)
    got = placements(result)
    stolen_by_0 = [c for c in sched.steal_log[0] if got[0][c][0] == 0]
    assert stolen_by_0, "SM 0 never stole in kernel 0"
    lo, hi = chunk_bounds(victim, 15, n_sms, 0)
    assert lo <= min(stolen_by_0, key=lambda c: got[0][c][1]) < hi


# -- (c) inter-kernel L1 reuse ([IKRA DeNovo])
# -------------------------------------------------------------

def test_stable_mapping_reuses_the_previous_kernels_l1_data():
    wl = get_workload("ikra_hotspot", scale=0.4)                     # 4 launches × 26 TBs
    hits = {}
    for policy in ("rr", "reset", "flip", "steal"):
        result, _ = run_ikra(wl, policy, "sm.count=3", preset="ikra_15cu", memory="hierarchy")
        hits[policy] = result["memory"]["l1"]["hits_prev_kernel"]
    for policy in ("reset", "flip", "steal"):
        assert hits[policy] > 1.5 * hits["rr"], hits       # measured ≈ 1.8–1.9×


# -- (d) determinism and exact cycle skipping ---------------------------------------------------

class Counting(IkraCtaScheduler):
    """Counts the cycles the GPU visits while this policy runs."""

    def on_cycle(self, now: int) -> None:
        self.visits = getattr(self, "visits", 0) + 1
        super().on_cycle(now)


def skewed_loads(launches: int = 3):
    """CTA c does 1 + c // 3 global loads (own lines): memory stalls fill the SMs, and the
    rising work makes steal move CTAs."""
    return workload(*(make_kernel(f"ld_{k}", lambda c, w: loads(1 + c // 3, base=(2 * c + w) << 12)
                                  + independent(4), grid=(30, 1, 1), block=(64, 1, 1))
                      for k in range(launches)), name="skewed_loads")


@pytest.mark.parametrize("policy", ["rr", "steal"])
def test_deterministic_and_skipping_is_exact(policy):
    cfg = config("tiny", "sm.count=3")
    runs = []
    for every_cycle in (False, False, True):
        sched = Counting(cfg, policy, every_cycle=every_cycle)
        runs.append((simulate(cfg, skewed_loads(), memory="hierarchy", cta_scheduler=sched),
                     sched))
    (a, sa), (b, _), (c, sc) = runs
    assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
    # visiting every cycle changes nothing but the occupancy sampling instants
    assert sa.visits < 0.8 * sc.visits == 0.8 * c["cycles"]
    assert {k: v for k, v in a.items() if k != "occupancy"} == \
        {k: v for k, v in c.items() if k != "occupancy"}
    assert sa.stats == sc.stats
    if policy == "steal":
        assert sa.stats["steals_chunk"] + sa.stats["steals_queue"] > 0


def test_twin_rr_places_like_the_baseline_round_robin():
    """G ([IKRA]) is GPGPU-Sim's round robin: with one SM per cluster and one kernel at a time
    (ikra_15cu) every CTA lands where the baseline puts it; each launch costs ID_W + 3 cycles."""
    cfg = config("ikra_15cu", "sm.count=3")
    wl = skewed_loads(3)
    base = simulate(cfg, wl, memory="hierarchy")
    twin = simulate(cfg, wl, memory="hierarchy", cta_scheduler=IkraCtaScheduler(cfg, "rr"))
    def where(result):
        return {(k, cta): sm for k, cta, sm, *_ in result["ctas"]["rows"]}
    assert where(twin) == where(base)
    assert twin["cycles"] - base["cycles"] == 3 * (32 + 3)


def test_the_stock_twin_is_reached_only_through_its_ports(monkeypatch):
    # one seam: the CTA-scheduler point steps its block through ``step`` whatever stands there
    # (no fast method path for the stock twin); the run still steals
    from sim.blocks.cta_sched import CtaSchedTwin
    calls = {"step": 0}
    step = CtaSchedTwin.step

    def counted_step(self, **inputs):
        calls["step"] += 1
        return step(self, **inputs)

    def no_cycle(self, *a, **kw):
        raise AssertionError("the model called the twin's method API")

    monkeypatch.setattr(CtaSchedTwin, "step", counted_step)
    monkeypatch.setattr(CtaSchedTwin, "cycle", no_cycle)
    result, sched = run_ikra(skewed_loads(), "steal", "sm.count=3", memory="hierarchy")
    assert calls["step"] == sched.steps > 0
    assert sched.stats["steals_chunk"] + sched.stats["steals_queue"] > 0
