"""socgpu_issue: directed cases on RTL and twin, properties, lockstep, mutations, storage.

[SOCGPU dependence matrix, local policy, dual issue, area]; the cycle contract and the checks are
ours.
"""

from __future__ import annotations

import pytest

from cosim.amaranth_backend import run_lockstep_amaranth, run_sequence
from cosim.lockstep import LockstepMismatch
from cosim.stimuli.socgpu_issue import PropertyViolation, SocgpuChecker
from gpusched.blocks import get_block, parse_params
from hdl.socgpu import IssueParams, lfsr_next, pack, pack_record
from sim.blocks.inorder_issue import InorderIssueTwin
from sim.blocks.socgpu_issue import IssueInstr, SocgpuIssueTwin, conflict_kinds

SPEC = get_block("socgpu_issue")
R = pack_record


def params(**kv) -> dict:
    return parse_params(SPEC, kv)


# ---- directed: the [SOCGPU dependence matrix] illustration, run on the twin and on the RTL ----

def _ins(*instrs) -> dict:
    """Flat insert-port inputs for up to two (pc, dst regs, src regs, unit) tuples."""
    p = IssueParams()
    srcs = [[R(r, 0) for r in i[2]] + [0] * (p.S - len(i[2])) for i in instrs]
    dsts = [[R(r, 0) for r in i[1]] + [0] * (p.D - len(i[1])) for i in instrs]
    return {"ins_valid": (1 << len(instrs)) - 1, "ins_pc": pack([i[0] for i in instrs], 32),
            "ins_npc": pack([i[0] + 8 for i in instrs], 32),
            "ins_src": pack([r for s in srcs for r in s], 12),
            "ins_dst": pack([r for d in dsts for r in d], 12),
            "ins_unit": pack([i[3] for i in instrs], 2)}


def _wb(*idx) -> dict:
    return {"wb_valid": (1 << len(idx)) - 1, "wb_idx": pack(idx, 2)}


SP, MEM = 0, 2
ILLUSTRATION = [   # (inputs, expected outputs subset) for N = 4, first-ready, dual on
    (_ins((0x00, [20], [], SP), (0x08, [21], [], MEM)), {"free_count": 4}),
    (_ins((0x10, [22], [], SP), (0x18, [23], [], MEM)) | {"grant": 1, "grant2": 1},
     {"cand_idx": 0, "cand2_idx": 1}),
    ({"grant": 1, "grant2": 1}, {"cand_idx": 2, "cand2_idx": 3, "free_count": 0}),
    (_wb(1, 3), {"cand_valid": 0, "free_count": 0}),
    # i0 LDG R1,[R8] → entry 1; i1 FMUL R5,R6,R6 → entry 3
    (_ins((0x100, [1], [8], MEM), (0x108, [5], [6, 6], SP)), {"free_count": 2, "ins_ready": 1}),
    (_wb(0, 2), {"cand_idx": 1, "cand2_idx": 3, "cand_pc": 0x100}),
    # i2 FFMA R4,R1,R2,R4 → entry 0 (RAW on entry 1); i3 IADD R8,R8,4 → entry 2 (WAR on 1)
    (_ins((0x110, [4], [1, 2, 4], SP), (0x118, [8], [8], SP)),
     {"cand_idx": 1, "cand2_idx": 3, "free_count": 2}),
    ({"grant": 1}, {"cand_valid": 1, "cand_idx": 1, "cand_pc": 0x100, "cand2_valid": 1,
                    "cand2_idx": 3, "free_count": 0}),
    ({}, {"cand_idx": 3, "cand2_valid": 0}),           # i2, i3 still wait for entry 1
    (_wb(1), {"cand_idx": 3, "cand2_valid": 0}),
    ({}, {"cand_idx": 0, "cand2_idx": 2, "cand_pc": 0x110}),  # the cycle after i0's WB
]


def _check_sequence(outs: list[dict]) -> None:
    for cyc, (out, (_, want)) in enumerate(zip(outs, ILLUSTRATION)):
        got = {k: out[k] for k in want}
        assert got == want, f"cycle {cyc}: got {got}, want {want}"


def test_illustration_twin():
    twin = SocgpuIssueTwin(N=4)
    _check_sequence([twin.step(**inp) for inp, _ in ILLUSTRATION])


def test_illustration_rtl():
    _check_sequence(run_sequence(SPEC, params(N=4), [inp for inp, _ in ILLUSTRATION]))


# ---- a3: only the oldest pending entry may cross the reconvergence PC ([SOCGPU local policy]) ----

A3 = [  # A (pc 0x00, npc 0x08) → entry 0, B (pc 0x08, npc 0x10) → entry 1; independent, SP/MEM
    (_ins((0x00, [20], [], SP), (0x08, [21], [], MEM)), {"cand_valid": 0}),
    ({"rpc_valid": 1, "rpc": 0x10}, {"cand_idx": 0, "cand2_valid": 0}),    # B crosses, not oldest
    ({"rpc_valid": 1, "rpc": 0x08}, {"cand_idx": 0, "cand2_valid": 0}),    # A crosses but is oldest
    ({"rpc_valid": 0}, {"cand_idx": 0, "cand2_valid": 1, "cand2_idx": 1}),
    ({"rpc_valid": 1, "rpc": 0x08, "grant": 1}, {"cand_idx": 0}),          # A issues
    ({"rpc_valid": 1, "rpc": 0x08}, {"cand_valid": 1, "cand_idx": 1}),     # B is now the oldest
]


def test_a3_guard_twin_and_rtl():
    twin = SocgpuIssueTwin(N=4)
    rtl = run_sequence(SPEC, params(N=4), [inp for inp, _ in A3])
    for cyc, ((inp, want), r) in enumerate(zip(A3, rtl)):
        t = twin.step(**inp)
        assert {k: t[k] for k in want} == want, f"twin cycle {cyc}: {t}"
        assert {k: r[k] for k in want} == want, f"rtl cycle {cyc}: {r}"


# ---- throughput (our test plan) ----

def _run_stream(block, make_instr, cycles: int, latency: int, dual: bool, socgpu: bool) -> int:
    """Always-granting picker, fixed WB latency; returns the number of issued instructions."""
    pc, issued, inflight = 0, 0, []
    for cyc in range(cycles):
        out = block.outputs()
        grant = out["cand_valid"]
        grant2 = int(dual and out["cand2_valid"] and out["cand2_unit"] != out["cand_unit"])
        got = [block.ib[k] for k in range(grant + grant2)] if not socgpu else \
            [out["cand_idx"]] * grant + [out["cand2_idx"]] * grant2
        wb = [x for due, x in inflight if due == cyc]
        inserts = []
        if out["ins_ready"]:
            inserts = [make_instr(pc), make_instr(pc + 8)]
            pc += 16
        block.clock(grant, grant2, 0, wb, inserts)
        inflight += [(cyc + latency, x) for x in got]
        issued += grant + grant2
    return issued


def test_dual_issue_reaches_two_per_cycle():
    def independent(pc):                  # alternating SP / MEM, no shared registers
        return IssueInstr(pc, pc + 8, src=[(pc // 8 % 100 + 100, 0)], dst=[(pc // 8 % 90, 0)],
                          unit=SP if pc % 16 == 0 else MEM)
    twin = SocgpuIssueTwin(N=8)
    n = _run_stream(twin, independent, 400, latency=2, dual=True, socgpu=True)
    assert n >= 2 * 400 * 0.95, n


@pytest.mark.parametrize("n", [2, 8])
def test_dependent_chain_no_faster_than_inorder(n):
    def chain(pc):                         # every instruction reads the previous one's result
        k = pc // 8
        return IssueInstr(pc, pc + 8, src=[(k % 50, 0)], dst=[((k + 1) % 50, 0)], unit=k % 2 * 2)
    soc = _run_stream(SocgpuIssueTwin(N=n), chain, 300, latency=4, dual=True, socgpu=True)
    base = _run_stream(InorderIssueTwin(sb_write=None, sb_read=None), chain, 300, latency=4,
                       dual=True, socgpu=False)
    assert soc <= base, (soc, base)
    assert soc >= 300 * 2 // 11 - 2   # N=2 refills only when both entries wrote back: 2 per 11


# ---- property runs driven by the twin (fast; every policy and dual mode) ----

def _property_run(twin, prm: dict, cycles: int, seed: int, invariant: bool = True) -> SocgpuChecker:
    stim = SPEC.make_stimulus(prm, seed)
    chk = SocgpuChecker(prm)
    for _ in range(cycles):
        inputs = stim.next(None)
        chk.check(inputs, twin.step(**inputs))
        if invariant:
            bad = twin.dm_invariant_violation()
            if bad:
                chk.fail(f"[SOCGPU dependence matrix] invariant: {bad}")
    assert chk.balance() is None, chk.balance()
    return chk


@pytest.mark.parametrize("policy", ["first", "oldest", "youngest", "most_ready", "least_ready",
                                    "random"])
@pytest.mark.parametrize("dual", ["off", "on", "smart"])
def test_properties_policies(policy, dual):
    prm = params(N=8, policy=policy, dual=dual)
    chk = _property_run(SocgpuIssueTwin(**prm), prm, 1500, seed=11)
    s = chk.stats
    assert s["issued"] > 150 and s["flushed"] > 10 and s["written_back"] > 150, s


@pytest.mark.parametrize("n", [2, 4, 16])
def test_properties_sizes(n):
    prm = params(N=n)
    _property_run(SocgpuIssueTwin(**prm), prm, 3000, seed=n, invariant=n <= 8)


def test_lfsr_is_maximal_length():
    x, period = 1, 0
    while True:
        x, period = lfsr_next(x), period + 1
        if x == 1:
            break
    assert period == (1 << 16) - 1


# ---- lockstep RTL vs twin in Amaranth's simulator, with the properties on the outputs ----

class CheckedTwin:
    """Twin wrapper: checks the properties of our test plan and the DM invariant on every cycle's
    outputs (equal to the RTL's, since the lockstep stops at the first difference)."""

    def __init__(self, prm: dict, twin=None):
        self.twin = twin or SocgpuIssueTwin(**prm)
        self.chk = SocgpuChecker(prm)

    def step(self, **inputs):
        out = self.twin.step(**inputs)
        self.chk.check(inputs, out)
        bad = self.twin.dm_invariant_violation() if self.twin.n <= 8 else None
        if bad:
            self.chk.fail(f"[SOCGPU dependence matrix] invariant: {bad}")
        return out


LOCKSTEP = [(2, "first", "on", 4000), (4, "oldest", "smart", 4000), (4, "least_ready", "on", 3000),
            (8, "first", "on", 3000), (8, "most_ready", "smart", 3000), (8, "random", "off", 3000),
            (16, "youngest", "on", 2000)]


@pytest.mark.parametrize("n,policy,dual,cycles", LOCKSTEP)
def test_lockstep_amaranth(n, policy, dual, cycles):
    prm = params(N=n, policy=policy, dual=dual)
    rep = run_lockstep_amaranth(SPEC, prm, cycles, seed=n, twin=CheckedTwin(prm))
    assert rep.cycles == cycles


# ---- mutations: each broken twin must be reported, by the checker and by the lockstep ----

class ForgetTwin(SocgpuIssueTwin):
    """Sets DM bits for every dependence kind except ``forget`` (RAW, WAR, WAW or serial)."""
    forget = ""

    def conflict(self, a, b):
        return bool(set(conflict_kinds(a, b)) - {self.forget})


def forget(kind: str):
    return type(f"Forget{kind}", (ForgetTwin,), {"forget": kind})


class ClearColumnAtIssue(SocgpuIssueTwin):
    def on_issue(self, idx):
        for r in range(self.n):
            self.dm[r] &= ~(1 << idx)


class FlushDropsIssued(SocgpuIssueTwin):
    def flush_mask(self, pending, granted):
        return self.valid & ~granted


MUTANTS = [(forget("WAR"), "WAR"), (forget("WAW"), "WAW"), (forget("serial"), "serial"),
           (ClearColumnAtIssue, "before its blockers are gone"), (FlushDropsIssued, "free_count")]


@pytest.mark.parametrize("cls,words", MUTANTS, ids=[m[0].__name__ for m in MUTANTS])
def test_mutant_caught_by_checker(cls, words):
    prm = params(N=8, dual="on")
    with pytest.raises(PropertyViolation) as e:
        _property_run(cls(**prm), prm, 5000, seed=5, invariant=False)
    assert words in str(e.value), str(e.value)


@pytest.mark.parametrize("cls", [m[0] for m in MUTANTS], ids=[m[0].__name__ for m in MUTANTS])
def test_mutant_caught_by_lockstep(cls):
    prm = params(N=4, dual="on")
    with pytest.raises(LockstepMismatch) as e:
        run_lockstep_amaranth(SPEC, prm, 5000, seed=5, twin=cls(**prm))
    assert "mismatch at cycle" in str(e.value) and "seed=5" in str(e.value)


# ---- storage: Yosys flops against the analytic count ----

@pytest.mark.synth
@pytest.mark.parametrize("policy,extra", [
    ("first", 0),
    pytest.param("most_ready", 4 * 2, marks=pytest.mark.slow),
    pytest.param("random", 16, marks=pytest.mark.slow)])
def test_flops_match_storage_formula(policy, extra):
    from synth.area import area
    n = 2
    entry = 1 + 1 + 1 + 32 + 32 + 4 * 12 + 2 * 12 + 2      # valid issued serial pc npc src dst unit
    storage = n * entry + 2 * n * (n - 1)                     # + DM + AGE
    assert storage == 286                                     # our storage count, N = 2
    res = area(SPEC, params(N=n, policy=policy), "sky130hd")
    assert res["flops"] == storage + extra, res               # + rdy_cnt (4/entry) or LFSR (16)
