"""cta_sched (our test plan for [IKRA]): directed cases on RTL and twin, RTL-vs-twin lockstep in the
Amaranth simulator with the property checker on the RTL's outputs, and twin property runs."""

from __future__ import annotations

import pytest

from cosim.amaranth_backend import run_sequence
from gpusched.blocks import get_block
from hdl.ikra.params import (POLICIES, SRC_STOLEN_CHUNK, TB_DONE_W, chunk_bounds, pack, unpack,
                             victim_order)
from sim.blocks.cta_sched import CtaSchedTwin

from cta_sched_harness import run_rtl_checked, run_twin_checked

SPEC = get_block("cta_sched")


def both(params: dict, inputs: list[dict]) -> list[tuple[dict, dict]]:
    """(rtl, twin) outputs per cycle for a fixed input list."""
    rtl = run_sequence(SPEC, params, inputs)
    twin = SPEC.make_twin(params)
    return list(zip(rtl, [twin.step(**{k: i.get(k, 0) for k in SPEC.inputs}) for i in inputs]))


@pytest.mark.parametrize("policy", POLICIES)
def test_first_offer_after_exactly_id_w_plus_2_cycles(policy):
    """Our cycle contract: handshake in cycle 0, ID_W + 2 init cycles, first offer in cycle ID_W +
    3."""
    p, idw = 3, 8
    params = {"C": p, "ID_W": idw, "QDEPTH": 4, "policy": policy, "check": 0}
    inputs = [{"launch_valid": 1 if c == 0 else 0, "grid_x": 5, "grid_y": 2, "grid_z": 1,
               "slot_free": 0b111} for c in range(idw + 6)]
    for c, (rtl, twin) in enumerate(both(params, inputs)):
        assert rtl == twin, f"cycle {c}"
        assert rtl["launch_ready"] == (1 if c == 0 else 0)
        assert bool(rtl["tb_valid"]) == (c >= idw + 3), f"cycle {c}: tb_valid={rtl['tb_valid']}"


@pytest.mark.parametrize("policy", ["chunk", "reset", "flip", "steal"])
def test_first_offers_are_the_section_2_2_chunks(policy):
    """N = 10, P = 3: base 3, rem 1 → chunks [0, 4), [4, 7), [7, 10); first kernel ascending."""
    p, idw = 3, 8
    params = {"C": p, "ID_W": idw, "QDEPTH": 4, "policy": policy, "check": 0}
    inputs = [{"launch_valid": int(c == 0), "grid_x": 10, "grid_y": 1, "grid_z": 1,
               "slot_free": 0b111} for c in range(idw + 4)]
    rtl, twin = both(params, inputs)[-1]
    assert rtl == twin
    assert unpack(rtl["tb_id"], idw, p) == [0, 4, 7]
    assert [chunk_bounds(i, 10, 3, 0) for i in range(3)] == [(0, 4), (4, 7), (7, 10)]


def test_rr_deals_in_circular_order_and_kernel_done_pulses():
    """G: the first sweep deals ids 0, 1, 2 to CUs 0, 1, 2; the next kernel starts after the CU
    that got the last id; kernel_done one cycle after the N-th retirement ([IKRA], our cycle
    contract)."""
    p, idw = 3, 6
    params = {"C": p, "ID_W": idw, "QDEPTH": 4, "policy": "rr", "check": 0}
    start = idw + 3
    inputs = [{"launch_valid": int(c == 0), "grid_x": 4, "grid_y": 1, "grid_z": 1,
               "slot_free": 0b111 if c == start else (0b010 if c == start + 1 else 0)}
              for c in range(start + 2)]
    done = {"tb_done": pack([1, 2, 1], TB_DONE_W)}
    inputs += [done, {}, {"launch_valid": 1, "grid_x": 2, "grid_y": 1, "grid_z": 1}]
    inputs += [{"slot_free": 0b111}] * (idw + 3)
    res = both(params, inputs)
    for c, (rtl, twin) in enumerate(res):
        assert rtl == twin, f"cycle {c}"
    rtl = [r for r, _ in res]
    assert unpack(rtl[start]["tb_id"], idw, p) == [0, 1, 2] and rtl[start]["tb_valid"] == 0b111
    assert rtl[start + 1]["tb_valid"] == 0b010 and unpack(rtl[start + 1]["tb_id"], idw, p)[1] == 3
    assert rtl[start + 1]["nowork"] == 0 and rtl[start + 2]["nowork"] == 0b111
    assert [r["kernel_done"] for r in rtl[start + 2:start + 5]] == [0, 1, 0]
    # last id went to CU 1 → the next kernel starts at CU 2
    last = rtl[-1]
    assert last["tb_valid"] == 0b101 and unpack(last["tb_id"], idw, p) == [1, 0, 0]


LOCKSTEP = [(pol, p, q, cycles, "right") for pol in POLICIES
            for p, q, cycles in ((1, 4, 2000), (2, 4, 2000), (3, 4, 2500), (5, 8, 1500), (16, 4, 700))]
# the other victim order (only Steal has victims; P >= 3 has two neighbours)
LOCKSTEP += [("steal", p, q, cycles, "left") for p, q, cycles in ((3, 4, 2500), (5, 8, 1500),
                                                                  (16, 4, 700))]


@pytest.mark.parametrize("policy,p,qdepth,cycles,first", LOCKSTEP)
def test_lockstep_rtl_vs_twin_with_properties(policy, p, qdepth, cycles, first):
    """Amaranth simulator: identical outputs every cycle, the properties of our test plan on the RTL
    outputs."""
    twin = run_rtl_checked(p, 10, qdepth, policy, cycles, seed=p * 7 + qdepth, max_n=120,
                           victim_first=first)
    assert twin.checker.kernel >= 3, "too few kernels to mean anything"
    if policy == "steal" and p > 1:
        assert twin.stats["steals_chunk"] > 0


@pytest.mark.parametrize("first,victim", [("right", 1), ("left", 2)])
def test_fig3_cu0_steals_from_its_first_neighbour(first, victim):
    """The paper's Fig 3 example: P = 3, N = 9, chunks [0, 3), [3, 6), [6, 9). CU 0 alone gets
    slots and runs out of its chunk while CUs 1 and 2 still hold all of theirs; it steals the
    TB its victim would have run last (hi − 1 in phase 0): CU 1's TB 5 with the right
    neighbour first (Fig 3), CU 2's TB 8 with the left one. RTL and twin, checker on."""
    p, idw = 3, 8
    params = {"C": p, "ID_W": idw, "QDEPTH": 4, "policy": "steal", "victim_first": first,
              "check": 1}
    start = idw + 3                                   # first offer (our cycle contract)
    inputs = [{"launch_valid": int(c == 0), "grid_x": 9, "grid_y": 1, "grid_z": 1,
               "slot_free": 0b001 if c >= start else 0} for c in range(start + 5)]
    res = both(params, inputs)
    for c, (rtl, twin) in enumerate(res):
        assert rtl == twin, f"cycle {c}"
    own = [unpack(res[start + k][0]["tb_id"], idw, p)[0] for k in range(3)]
    assert own == [0, 1, 2]
    steal = res[start + 4][0]                        # thief in start + 3, offer in start + 4
    assert steal["tb_valid"] & 1
    assert unpack(steal["tb_src"], 2, p)[0] == SRC_STOLEN_CHUNK
    assert unpack(steal["tb_victim"], 1 if p < 3 else 2, p)[0] == victim
    assert unpack(steal["tb_id"], idw, p)[0] == chunk_bounds(victim, 9, p, 0)[1] - 1


def test_victim_first_is_checked_with_one_line():
    with pytest.raises(ValueError, match="victim_first = 'up': allowed: right, left"):
        CtaSchedTwin(3, 8, 4, "steal", victim_first="up")


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("p", [1, 2, 3, 15, 16])
def test_twin_properties_long(policy, p):
    """Twin-only closed loop, our test plan checker every cycle (the twin equals the RTL by
    lockstep)."""
    twin = CtaSchedTwin(p, 16, 8, policy)
    checker = run_twin_checked(twin, 6000 if p < 15 else 4000, seed=100 + p)
    assert checker.kernel >= 2
    if policy == "steal" and p > 1:
        assert twin.stats["steals_chunk"] > 0 and checker.steal_checks > 0


def _cover(twin: CtaSchedTwin) -> list[int]:
    """Every TB id held by a chunk [lo, hi) or a live queue region [q_lo, q_hi), with repeats."""
    held = []
    for i in range(twin.p):
        held += range(twin.lo[i], twin.hi[i])
        ptr = twin.q_lo[i]
        while ptr != twin.q_hi[i]:
            held.append(twin._q_read(i, ptr))
            ptr = (ptr + 1) & twin.qmask
    return held


@pytest.mark.parametrize("p,qdepth", [(3, 32), (8, 16), (16, 32)])
def test_steal_disjoint_cover_at_every_launch(p, qdepth):
    """[IKRA Steal] invariant: at every launch, chunks + queues hold each id of [0, N) exactly
    once."""
    launches = []

    def at_launch(twin, inputs, out):
        if twin.active and twin.init_left == 0 and not getattr(twin, "_seen_run", False):
            assert sorted(_cover(twin)) == list(range(twin.n)), f"launch {len(launches)}"
            launches.append((twin.reinit, twin.stats["steals_queue"]))
        twin._seen_run = twin.running

    twin = CtaSchedTwin(p, 16, qdepth, "steal")
    run_twin_checked(twin, 12000, seed=p, on_cycle=at_launch)
    kept = [r for r, _ in launches if not r]
    assert len(launches) >= 10 and kept, "need launches that keep chunks and queues"
    assert twin.stats["steals_queue"] > 0, "queue steals must be exercised"


def test_steal_without_steals_equals_flip():
    """Our test plan: while S has not stolen since its last re-chunk, it offers exactly what F
    offers."""
    p = 4
    s_twin, f_twin = CtaSchedTwin(p, 16, 8, "steal"), CtaSchedTwin(p, 16, 8, "flip")
    state = {"clean": False, "compared": 0}

    def compare_with_flip(twin, inputs, out):
        f_out = f_twin.step(**inputs)
        if twin.init_left == 1 and twin.reinit:
            state["clean"] = True            # S re-chunks at this edge: same state as F
        if state["clean"] and twin.running:
            state["compared"] += 1
            assert (out["tb_valid"], out["tb_id"]) == (f_out["tb_valid"], f_out["tb_id"])
        if twin.steal_log:
            state["clean"] = False

    run_twin_checked(s_twin, 15000, seed=5, on_cycle=compare_with_flip)
    assert state["compared"] > 1000


def test_steal_balanced_kernels_never_steal_and_match_flip():
    """Equal chunks, all slots always free, fixed TB time: no thief while work remains, so S's
    offers equal F's over repeated launches (both run in the RTL and the twin)."""
    p, idw, n = 4, 8, 24
    f_twin = CtaSchedTwin(p, idw, 4, "flip")
    inputs, outs, inflight, launch_cycle = [], [], [], 0
    for c in range(200):
        done = [0] * p
        for item in list(inflight):
            if item[0] == c:
                done[item[1]] += 1
                inflight.remove(item)
        inp = {"launch_valid": int(c >= launch_cycle), "grid_x": n, "grid_y": 1, "grid_z": 1,
               "slot_free": (1 << p) - 1, "tb_done": pack(done, TB_DONE_W)}
        out = f_twin.step(**inp)
        if out["launch_ready"] and inp["launch_valid"]:
            launch_cycle = c + 3
        for i in range(p):
            if out["tb_valid"] >> i & 1:
                inflight.append((c + 3, i))
        inputs.append(inp)
        outs.append(out)
    s_twin = CtaSchedTwin(p, idw, 4, "steal")
    rtl = run_sequence(SPEC, {"C": p, "ID_W": idw, "QDEPTH": 4, "policy": "steal", "check": 0},
                       inputs)
    for c, (inp, f_out, r) in enumerate(zip(inputs, outs, rtl)):
        s_out = s_twin.step(**inp)
        assert s_out == r, f"cycle {c}"
        assert (r["tb_valid"], r["tb_id"]) == (f_out["tb_valid"], f_out["tb_id"]), f"cycle {c}"
    assert s_twin.stats["launches"] >= 4 and s_twin.stats["steals_chunk"] == 0


def test_flip_reverses_per_cu_order_on_alternate_launches():
    """R/F keep TB i on its CU for equal dims; F's per-CU order reverses every launch."""
    p = 3
    twin = CtaSchedTwin(p, 12, 8, "flip")
    seqs: list[tuple[tuple, list[list[int]]]] = []

    def record(tw, inputs, out):
        if tw.init_left == 1:
            seqs.append(((tw.n, tw.phase ^ 1), [[] for _ in range(p)]))
        if tw.running and seqs:
            for i in range(p):
                if (out["tb_valid"] & inputs["slot_free"]) >> i & 1:
                    seqs[-1][1][i].append(unpack(out["tb_id"], 12, p)[i])

    run_twin_checked(twin, 20000, seed=9, max_n=200, on_cycle=record)
    done = seqs[:-1]                          # the last kernel may be cut off by the run end
    pairs = [(a, b) for a, b in zip(done, done[1:]) if a[0][0] == b[0][0]]
    assert pairs, "need consecutive launches with equal N"
    for (key_a, a), (key_b, b) in pairs:
        assert key_a[1] != key_b[1]
        assert all(x == list(reversed(y)) for x, y in zip(a, b))


def test_overflow_rechunks_and_deep_queue_never_overflows():
    """[IKRA Steal]: overflows happen with QDEPTH 4 (checker verifies the re-chunk); with
    QDEPTH ≥ max N a queue can never overflow (the cover invariant bounds it)."""
    small = CtaSchedTwin(3, 12, 4, "steal")
    run_twin_checked(small, 10000, seed=3)
    assert small.stats["overflows"] > 0 and small.stats["reinits"] > 1
    deep = CtaSchedTwin(3, 12, 64, "steal")
    run_twin_checked(deep, 10000, seed=3, max_n=64)
    assert deep.stats["overflows"] == 0 and deep.stats["steals_chunk"] > 0


@pytest.mark.parametrize("policy", POLICIES)
def test_method_api_matches_port_api(policy):
    """``cycle()`` (GPU-model API) and ``step()`` give the same transfers and state."""
    from cosim.stimuli.cta_sched import CtaSchedStimulus
    a, b = CtaSchedTwin(4, 12, 8, policy), CtaSchedTwin(4, 12, 8, policy)
    stim = CtaSchedStimulus(4, 12, seed=11)
    prev = None
    for _ in range(3000):
        inp = stim.next(prev)
        prev = a.step(**inp)
        launch = (inp["grid_x"], inp["grid_y"], inp["grid_z"]) if inp["launch_valid"] else None
        got = b.cycle(inp["slot_free"], unpack(inp["tb_done"], TB_DONE_W, 4), launch)
        ids = unpack(prev["tb_id"], 12, 4)
        srcs = unpack(prev["tb_src"], 2, 4)
        want = [(i, ids[i], srcs[i]) for i in range(4)
                if (prev["tb_valid"] & inp["slot_free"]) >> i & 1]
        assert got == want
    assert a.stats == b.stats


def test_steal_extra_latency_delays_stolen_offers_and_keeps_exactly_once():
    """Twin-only knob (our choice): a stolen TB appears 1 + latency cycles after the steal; still
    every id exactly once and kernel_done when all retired (the other checker rules assume latency
    0)."""
    from cosim.stimuli.cta_sched import CtaSchedStimulus
    twin = CtaSchedTwin(4, 12, 16, "steal", steal_extra_latency=3)
    stim = CtaSchedStimulus(4, 12, seed=8, max_n=200)
    prev, pending, kernels, seen, n = None, {}, 0, set(), 0
    for cycle in range(8000):
        inp = stim.next(prev)
        prev = twin.step(**inp)
        ids, srcs = unpack(prev["tb_id"], 12, 4), unpack(prev["tb_src"], 2, 4)
        for i in range(4):
            if prev["tb_valid"] >> i & 1 and srcs[i] >= 2 and i in pending:
                assert cycle - pending.pop(i) == 4
            if (prev["tb_valid"] & inp["slot_free"]) >> i & 1:
                assert ids[i] not in seen
                seen.add(ids[i])
        for thief, _, _, _ in twin.steal_log:
            pending[thief] = cycle
        if prev["kernel_done"]:
            assert len(seen) == n
            seen, kernels = set(), kernels + 1
        if inp["launch_valid"] and prev["launch_ready"]:
            seen, n = set(), inp["grid_x"] * inp["grid_y"] * inp["grid_z"]
    assert kernels >= 3 and twin.stats["steals_chunk"] > 0


def test_victim_order_neighbours_first_then_ascending():
    """[IKRA Steal]: both neighbours (the chosen one first), then i+2, i+3, … mod P, each other CU
    once; with P = 2 the only victim is the other CU."""
    assert victim_order(0, 5, "right") == [1, 4, 2, 3]
    assert victim_order(0, 5, "left") == [4, 1, 2, 3]
    assert victim_order(3, 5, "right") == [4, 2, 0, 1]
    assert victim_order(1, 2, "right") == victim_order(1, 2, "left") == [0]
    for p in (3, 4, 15):
        for i in range(p):
            assert sorted(victim_order(i, p)) == [v for v in range(p) if v != i]
