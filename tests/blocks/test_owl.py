"""OWL's warp schedulers ([OWL §4.1–§4.3]) and two-level [44]: Algorithm 1 on the
twin's arithmetic and on the RTL group formation unit, directed grants on twin and RTL, random
lockstep with the per-cycle group property, and the BLP mutant caught."""

from __future__ import annotations

import pytest
from amaranth.sim import Simulator

from cosim.amaranth_backend import run_lockstep_amaranth, run_sequence
from cosim.lockstep import LockstepMismatch
from gpusched.blocks import get_block, parse_params
from hdl.owl import GroupFormation
from hdl.params.owl import (OWL_POLICIES, ctas_per_group, form_groups, group_of_cta,
                            groups_on_core)
from sim.blocks.owl import CheckedOwlTwin, OwlSchedTwin, group_rule_violation

LOCKSTEP_CYCLES = 5_000    # random-stimulus lockstep here; the 100k-cycle soaks: gpusched verify

SPEC = get_block("warp_sched")


# -- 1. group formation (Algorithm 1, our reproduction plan)
# -----------------------------------------

def test_algorithm_1_worked_example_and_the_small_kernel_clamp():
    assert form_groups(10, 2, 5) == (3, [3, 3, 4])          # our example: N=10, k=2, g=5
    assert [group_of_cta(c, 10, 2, 5) for c in range(10)] == [0, 0, 0, 1, 1, 1, 2, 2, 2, 2]
    for n_ctas, k in ((3, 2), (6, 1), (1, 6)):             # WP-like: N*k = 6 < g_size = 8
        assert len(form_groups(n_ctas, k, 8)[1]) == 1
        assert groups_on_core(n_ctas, k, 8) == 1
        assert {group_of_cta(c, n_ctas, k, 8) for c in range(n_ctas)} == {0}
    assert form_groups(8, 4, 8) == (2, [2, 2, 2, 2])       # 32 warps, 8-warp groups


def _formation_outputs(g_size: int, n_groups: int, cases: list[tuple[int, int, int]]) -> list:
    dut = GroupFormation(g_size, n_groups)
    out = []

    async def bench(ctx):
        for k, n_ctas, cta in cases:
            ctx.set(dut.k, k)
            ctx.set(dut.n_ctas, n_ctas)
            ctx.set(dut.cta, cta)
            out.append((ctx.get(dut.n), ctx.get(dut.g_core), ctx.get(dut.group)))

    sim = Simulator(dut)
    sim.add_testbench(bench)
    sim.run()
    return out


def test_rtl_group_formation_worked_examples():
    got = _formation_outputs(5, 8, [(2, 10, c) for c in range(10)])
    assert {(n, g) for n, g, _ in got} == {(3, 3)}
    groups = [grp for _, _, grp in got]
    assert [groups.count(g) for g in range(3)] == [3, 3, 4]
    assert _formation_outputs(8, 8, [(2, 3, c) for c in range(3)]) == [(4, 1, 0)] * 3
    assert _formation_outputs(8, 8, [(6, 1, 0)]) == [(2, 1, 0)]


@pytest.mark.parametrize("g_size, n_groups", [(5, 8), (8, 8), (4, 4), (16, 16)])
def test_rtl_group_formation_equals_algorithm_1(g_size, n_groups):
    cases = [(k, n, c) for k in (0, 1, 2, 3, 4, 5, 7, 8, 9, 16, 33, 127)
             for n in (0, 1, 2, 3, 5, 8, 10, 17, 40, 127) for c in (0, 1, 2, 5, 9, 16, 63)]
    want = [(ctas_per_group(k, g_size), groups_on_core(n, k, g_size, n_groups),
             group_of_cta(c, n, k, g_size, n_groups)) for k, n, c in cases]
    assert _formation_outputs(g_size, n_groups, cases) == want


# -- directed grants on twin and RTL (Fig. 4/5-style scenarios) -----------------------------

def _launch_all(n_ctas: int, k: int, sm_id: int = 0) -> list[dict]:
    """One CTA launch per cycle into CTA slots 0..N-1 (warp slots c*k..), nothing ready."""
    return [{"ready": 0, "launch": ((1 << k) - 1) << (c * k), "launch_cta": c,
             "warps_per_cta": k, "resident_ctas": n_ctas, "sm_id": sm_id} for c in range(n_ctas)]


def _run_both(policy: str, w: int, inputs: list[dict], g_size: int = 8) -> list:
    twin = CheckedOwlTwin(w, policy, g_size)
    twin_grants = [o["grant_idx"] if o["grant_valid"] else None
                   for o in (twin.step(**i) for i in inputs)]
    params = parse_params(SPEC, {"W": w, "policy": policy, "g_size": g_size})
    rtl_grants = [o["grant_idx"] if o["grant_valid"] else None
                  for o in run_sequence(SPEC, params, inputs)]
    assert twin_grants == rtl_grants
    return twin_grants


# N=10, k=2, g_size=5 (our example): groups {warps 0-5}, {6-11}, {12-19}
GROUP = [range(0, 6), range(6, 12), range(12, 20)]
ALL = (1 << 20) - 1


def _ready(sm_id: int = 0, *ranges) -> dict:
    mask = sum(1 << s for r in ranges for s in r)
    return {"ready": mask, "launch": 0, "sm_id": sm_id}


def test_locality_returns_to_the_top_group_as_soon_as_it_is_ready():
    setup = _launch_all(10, 2)
    seq = [_ready(0, range(20))] * 3 + [_ready(0, GROUP[1], GROUP[2])] * 2 \
        + [_ready(0, range(20))]
    got = _run_both("owl_locality", 20, setup + seq, g_size=5)[len(setup):]
    assert got == [0, 1, 2, 6, 7, 3]       # RR in group 0; group 1 while 0 waits; back to 0


def test_blp_top_group_is_sm_id_mod_g_core():
    for sm_id, top in ((0, 0), (4, 1), (29, 2)):             # g_core = 3
        setup = _launch_all(10, 2, sm_id)
        others = _ready(sm_id, GROUP[(top + 1) % 3], GROUP[(top + 2) % 3])
        got = _run_both("owl_blp", 20, setup + [_ready(sm_id, range(20))] * 2 + [others],
                        g_size=5)
        assert got[len(setup):len(setup) + 2] == [GROUP[top][0], GROUP[top][1]]
        # top group blocked: the next in priority order (top + 1) mod g_core
        assert got[-1] == GROUP[(top + 1) % 3][0]


def test_cta_aware_sticks_to_its_group_until_it_has_no_ready_warp():
    setup = _launch_all(10, 2)
    seq = [_ready(0, range(20)), _ready(0, GROUP[1], GROUP[2]), _ready(0, range(20)),
           _ready(0, GROUP[0], GROUP[2]), _ready(0, range(20))]
    got = _run_both("owl_cta", 20, setup + seq, g_size=5)[len(setup):]
    # group 0; 0 blocked → 1 (RR next); 1 stays although 0 is ready again (strict group RR,
    # Fig. 4A); 1 blocked → 2 (after 1, not back to 0); 2 stays
    assert got == [0, 6, 7, 12, 13]


def test_two_level_narasiman_groups_by_warp_slot_across_cta_boundaries():
    setup = _launch_all(5, 3)                        # 15 warps of 3-warp CTAs, groups of 8 slots
    seq = [_ready(0, range(16))] * 2 + [_ready(0, range(8, 16))] + [_ready(0, range(16))]
    got = _run_both("tl_narasiman", 16, setup + seq)[len(setup):]
    assert got == [0, 1, 8, 9]       # group 0 = slots 0-7 cuts CTA 2 (slots 6-8) in two; sticky


def test_property_rejects_a_grant_outside_the_chosen_group():
    twin = OwlSchedTwin(20, "owl_locality", 5)
    for i in _launch_all(10, 2):
        twin.step(**i)
    inputs = _ready(0, range(20))
    assert group_rule_violation(twin, inputs, 0) is None
    assert "top group 0" in group_rule_violation(twin, inputs, 7)
    assert "not ready" in group_rule_violation(twin, _ready(0, GROUP[1]), 0)


# -- random lockstep, property every cycle, mutant --------------------------------------------

def _lockstep(params: dict, cycles: int, seed: int, twin=None) -> None:
    p = parse_params(SPEC, params)
    twin = twin or CheckedOwlTwin(p["W"], p["policy"], p["g_size"], p["G"])
    report = run_lockstep_amaranth(SPEC, p, cycles, seed=seed, twin=twin)
    assert report.cycles == cycles and report.mismatches == 0


@pytest.mark.parametrize("policy", OWL_POLICIES)
def test_random_lockstep_5k_cycles_with_the_group_property(policy):
    _lockstep({"W": 32, "policy": policy}, LOCKSTEP_CYCLES, seed=4100)


@pytest.mark.parametrize("policy, w, g_size, groups", [("owl_blp", 8, 2, 4),
                                                       ("owl_cta", 16, 4, 4),
                                                       ("owl_locality", 48, 5, 8),
                                                       ("tl_narasiman", 20, 6, 8)])
def test_random_lockstep_other_sizes(policy, w, g_size, groups):
    _lockstep({"W": w, "policy": policy, "g_size": g_size, "G": groups}, 5_000, seed=4200 + w)


class BlpWithoutCoreOffset(OwlSchedTwin):
    """Mutation: BLP's g_pri = g mod g_core, i.e. every SM prioritises group 0 (Locality)."""

    def top_at_launch(self, sm_id: int, g_core: int) -> int:
        return 0


def test_lockstep_catches_blp_priority_without_the_core_offset():
    params = parse_params(SPEC, {"W": 32, "policy": "owl_blp"})
    with pytest.raises(LockstepMismatch, match="mismatch at cycle") as e:
        run_lockstep_amaranth(SPEC, params, 20_000, seed=4100,
                              twin=BlpWithoutCoreOffset(32, "owl_blp"))
    assert "seed=4100" in str(e.value) and "sm_id=" in str(e.value)


@pytest.mark.slow
@pytest.mark.parametrize("policy", OWL_POLICIES)
def test_random_lockstep_soak_100k_cycles(policy):
    _lockstep({"W": 32, "policy": policy}, 100_000, seed=7300)
