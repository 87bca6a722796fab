"""The model's three enumerations — warp wait states, issue-slot reasons, SM power states — are
prefixed Final ints (WS_, SLOT_, PWR_) so no bare name has two meanings (MEMORY was 2 as a wait
state and 3 as a slot reason; PAUSED both a power state and a slot reason)."""

import sim.sm_memory
import sim.stats
import sim.warp


def _consts(module, prefix):
    return {n: v for n, v in vars(module).items() if n.startswith(prefix) and isinstance(v, int)}


def test_each_enumeration_is_dense_and_matches_its_names():
    ws = _consts(sim.warp, "WS_")
    assert sorted(ws.values()) == list(range(len(sim.warp.STATE_NAMES)))
    assert all(sim.warp.STATE_NAMES[v] == n[3:].lower() for n, v in ws.items())
    slot = _consts(sim.stats, "SLOT_")
    assert sorted(slot.values()) == list(range(len(sim.stats.ISSUE_SLOT_REASONS)))
    names = {"SLOT_INTERVAL": "issue_interval"}
    assert all(sim.stats.ISSUE_SLOT_REASONS[v] == names.get(n, n[5:].lower()) for n, v in slot.items())
    pwr = _consts(sim.sm_memory, "PWR_")
    assert sorted(pwr.values()) == [0, 1, 2, 3]


def test_no_bare_name_is_left_with_two_meanings():
    for module in (sim.warp, sim.stats, sim.sm_memory):
        for bare in ("READY", "MEMORY", "SCOREBOARD", "BARRIER", "FETCH", "DONE", "PAUSED",
                     "ACTIVE", "GATED", "PAUSING", "ISSUED", "IDLE"):
            assert not hasattr(module, bare), f"{module.__name__}.{bare}"
