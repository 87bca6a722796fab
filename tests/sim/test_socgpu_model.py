"""SOCGPU issue stage in the GPU model ([SOCGPU instruction buffer, dependence matrix]; the checks
are ours).

- The model's per-warp block (``FastSocgpuIssue``) against the twin: the block benches' random
  streams through the twin API, and the model API (event calls, skipped cycles, lazy counters
  and LFSR) against a twin clocked every cycle.
- The whole model with the twin in place of the fast block: identical statistics.
- Per-cycle properties of the twin-driven model (ordering against older conflicting and serial
  entries, issue-exactly-once-or-flushed, wrong-path slots never issue, IB empty at warp end).
- Configuration fields and errors, the CLI. Timing behaviour: test_socgpu_timing.py.
"""

from __future__ import annotations

import random

import pytest

import sim.issue.socgpu as socgpu_mod
from cosim.stimuli.socgpu_issue import SocgpuStimulus
from sim.blocks.socgpu_issue import SocgpuIssueTwin, conflict_kinds
from sim.issue.block import FastSocgpuIssue, IBEntry, proxy_rpc
from sim.workload.kernel import Instr, Op
from sim_helpers import SOC, config, run
from sim_kernels import make_kernel, workload



def bits(mask: int) -> list[int]:
    return [i for i in range(mask.bit_length()) if mask >> i & 1]


# ---- the block: twin API on the benches' stimulus ------------------------------------------

@pytest.mark.parametrize("n,policy,dual", [
    (2, "first", "on"), (4, "oldest", "smart"), (8, "youngest", "off"), (8, "most_ready", "on"),
    (16, "least_ready", "smart"), (8, "random", "on"), (16, "first", "smart")])
def test_block_lockstep_with_twin(n, policy, dual):
    params = dict(N=n, policy=policy, dual=dual, slot=5)
    for seed in range(2):
        stim = SocgpuStimulus(params, seed)
        twin, fast = SocgpuIssueTwin(**params), FastSocgpuIssue(**params)
        for cyc in range(1200):
            inp = stim.next(None)
            want, got = twin.step(**inp), fast.step(**inp)
            assert got == want, (f"seed {seed} cycle {cyc} {params}: inputs {inp}\n twin {want}\n"
                                 f" fast {got}")


# ---- the block: model API with skipped cycles against a per-cycle twin ----------------------

def _random_entry(rng: random.Random, pc: int) -> IBEntry:
    regs = lambda k: tuple((rng.randrange(12), rng.choice((0, 0, 0, 1))) for _ in range(k))
    serial = rng.random() < 0.06
    pe = not serial and rng.random() < 0.05
    e = IBEntry(pc, pc + 8, regs(rng.randint(0, 3)), regs(rng.randint(0, 2)), serial,
                rng.randrange(5), pe)
    return e


@pytest.mark.parametrize("policy", ["first", "oldest", "most_ready", "least_ready", "random"])
@pytest.mark.parametrize("dual", ["on", "smart"])
def test_model_api_matches_twin_over_skipped_cycles(policy, dual):
    """Events at random cycles (the model's order: write-back, grant/flush, insert); the twin is
    clocked every cycle with the same inputs folded into its edges; candidates agree at every
    event cycle, so lazy rdy_cnt counters and the LFSR are exact."""
    rng = random.Random(hash((policy, dual)) & 0xFFFF)
    n, slot = 8, 3
    twin = SocgpuIssueTwin(N=n, policy=policy, dual=dual, slot=slot)
    fast = FastSocgpuIssue(N=n, policy=policy, dual=dual, slot=slot)
    inflight: list[tuple[int, int]] = []     # (cycle the WB becomes visible, entry)
    pc = 0x100
    wb_next: list[int] = []                  # WBs visible from the next cycle (this edge)
    for now in range(3000):
        wb_now = sorted({i for due, i in inflight if due == now})
        inflight = [(d, i) for d, i in inflight if d != now]
        if wb_now:                            # the model processes them at the start of `now`
            fast.writeback(now, sum(1 << i for i in wb_now))
        rv, rpc = proxy_rpc(twin.valid, twin.issued, twin.seq, twin.instr)
        unit_free = rng.getrandbits(5)
        out = twin.outputs(rv, rpc, unit_free)
        event = rng.random() < 0.3
        grant = grant2 = flush = 0
        inserts = []
        if event:
            if out["cand_valid"]:
                c, c2 = fast.candidates(now, unit_free)
                assert (c, c2) == (twin._cand, twin._cand2), f"cycle {now}: {out}"
                grant = int(rng.random() < 0.8)
                flush = int(grant and rng.random() < (0.5 if twin.instr[c].serial else 0.03))
                grant2 = int(grant and not flush and c2 >= 0 and rng.random() < 0.7)
                if grant:
                    fast.grant(now, c, c2 if grant2 else -1, bool(flush))
                    for i in [c] + ([c2] if grant2 else []):
                        inflight.append((now + 2 + rng.choice((0, 1, 3, 8, 40)), i))
            if not flush and out["free_count"] >= 2 and rng.random() < 0.7:
                inserts = [_random_entry(rng, pc), _random_entry(rng, pc + 8)]
                pc += 16
                fast.insert(now, inserts)
        # the twin's edge `now` carries the write-backs the model sees at `now + 1`
        wb_next = sorted({i for due, i in inflight if due == now + 1})
        twin.clock(grant, grant2, flush, wb_next, inserts)
    end = now + 1
    if wb_next:
        fast.writeback(end, sum(1 << i for i in wb_next))
    fast._advance(end)
    assert (fast.valid, fast.issued) == (twin.valid, twin.issued)
    for i in bits(twin.valid):
        assert (fast.dm[i], fast.seq[i]) == (twin.dm[i], twin.seq[i])
        if policy in ("most_ready", "least_ready"):
            assert fast.cnt[i] == twin.cnt[i]


# ---- the model with the twin in place of the fast block --------------------------------------

class TwinBlock:
    """The model API on the twin: every event is one twin clock (stateless local policies)."""

    def __init__(self, N: int, policy: str, dual: str, slot: int):
        assert policy in ("first", "oldest", "youngest")
        self.tw = SocgpuIssueTwin(N=N, policy=policy, dual=dual, slot=slot)
        self.n, self.rpc_in, self.rdy = N, (0, 0), 0

    valid = property(lambda self: self.tw.valid)
    issued = property(lambda self: self.tw.issued)
    instr = property(lambda self: self.tw.instr)
    seq = property(lambda self: self.tw.seq)
    dm = property(lambda self: self.tw.dm)

    def _refresh(self) -> None:
        tw = self.tw
        self.rpc_in = proxy_rpc(tw.valid, tw.issued, tw.seq, tw.instr)
        self.rdy = tw.ready_mask(*self.rpc_in)

    def writeback(self, now, mask):
        self.tw.clock(wb=bits(mask))
        self._refresh()

    def candidates(self, now, unit_free=0):
        self.tw.outputs(*self.rpc_in, unit_free)
        return self.tw._cand, self.tw._cand2

    def cand(self, now):
        return self.tw.pick(self.rdy)

    def grant(self, now, g, g2=-1, flush=False):
        assert self.tw._cand == g and (g2 < 0 or self.tw._cand2 == g2)
        self.tw.clock(grant=1, grant2=int(g2 >= 0), flush=int(flush))
        self._refresh()
        return 1 << g, (1 << g2 if g2 >= 0 else 0)

    def insert(self, now, entries):
        self.tw.clock(inserts=list(entries))
        self._refresh()


class Checked:
    """Wraps a block; checks the ordering and exactly-once properties of our test plan on every
    event with its own program-order record (no dependence matrix)."""

    log: list = []

    def __init__(self, inner):
        self.b = inner
        self.live: dict[int, list] = {}      # entry → [seq, instr, issued]
        self.seq = 0
        Checked.log.append(self)
        self.inserted, self.issued_ids, self.flushed, self.wrote_back = 0, 0, [], 0

    def __getattr__(self, name):
        return getattr(self.b, name)

    def writeback(self, now, mask):
        for i in bits(mask):
            rec = self.live.pop(i)
            assert rec[2], f"cycle {now}: entry {i} wrote back without issuing"
            self.wrote_back += 1
        self.b.writeback(now, mask)

    def grant(self, now, g, g2=-1, flush=False):
        for x in [g] + ([g2] if g2 >= 0 else []):
            seq, ins, issued = self.live[x]
            assert not issued, f"cycle {now}: entry {x} issued twice"
            assert not ins.ph, f"cycle {now}: wrong-path slot issued"
            for j, (s, other, _) in self.live.items():
                if s < seq and conflict_kinds(ins, other):
                    raise AssertionError(f"cycle {now}: {ins!r} issued before older {other!r} "
                                         f"wrote back ({conflict_kinds(ins, other)})")
            self.live[x][2] = True
            self.issued_ids += 1
        if flush:
            for j in [j for j, r in self.live.items() if not r[2]]:
                self.flushed.append(self.live.pop(j)[1])
        return self.b.grant(now, g, g2, flush)

    def insert(self, now, entries):
        before = self.b.valid
        self.b.insert(now, entries)
        for i, e in zip(bits(self.b.valid & ~before), entries):
            self.live[i] = [self.seq, e, False]
            self.seq += 1
            self.inserted += 1


def divergent(cta: int, warp: int) -> list[Instr]:
    """Straight-line code with loads, a taken loop branch (serial redirect), a path end that is
    not a branch (reconvergence jump: a3), a fence and a barrier."""
    out, pc = [], 0x100
    rng = random.Random(cta * 97 + warp)

    def emit(op, dst=(), src=(), nxt=None, addrs=None):
        nonlocal pc
        out.append(Instr(op, dst, src, addrs, 4, 0xFFFFFFFF, pc, nxt))
        pc = nxt if nxt is not None else pc + 8

    for it in range(6):
        top = pc
        for k in range(10):
            r = 1 + rng.randrange(12)
            if rng.random() < 0.2:
                a = it * 4096 + k * 128
                emit(Op.LDG, (r,), (20,), addrs=tuple(range(a, a + 128, 4)))
            else:
                emit(rng.choice((Op.ALU, Op.ALU, Op.SFU)), (r,), (1 + rng.randrange(12),))
        emit(Op.ALU, (5,), (6,), nxt=top + 0x400)          # path end, not serial: a3 applies
        emit(Op.ALU, (7,), (5,))
        if it == 2:
            emit(Op.MEMBAR)
        emit(Op.BAR)
        emit(Op.BRA, (), (256,), nxt=top + 0x800)          # taken: flush of the wrong path
    emit(Op.EXIT)
    return out


def _soc_run(monkeypatch, make, wl, *overrides):
    monkeypatch.setattr(socgpu_mod, "FastSocgpuIssue", make)
    return run(wl, "tiny", *SOC, *overrides, memory="fixed")


@pytest.mark.parametrize("policy", ["first", "oldest", "youngest"])
def test_model_with_twin_equals_fast_block_and_keeps_properties(monkeypatch, policy):
    wl = lambda: workload(make_kernel("div", divergent, grid=(6, 1, 1), block=(128, 1, 1)))
    ov = (f"sm.local_policy={policy}", "sm.dual_issue=true")
    fast = _soc_run(monkeypatch, FastSocgpuIssue, wl(), *ov)
    Checked.log = []
    twin = _soc_run(monkeypatch, lambda **kw: Checked(TwinBlock(**kw)), wl(), *ov)
    assert twin == fast
    st = fast["issue_stage"]
    assert st["flushes"] == 6 * 4 * 6 * 2          # CTAs × warps × iterations × two redirects
    issued = sum(c.issued_ids for c in Checked.log)
    assert issued == fast["warp_insts"] + 0        # wrong-path slots never issue
    for c in Checked.log:
        assert not c.live, "entries left in an IB at warp end"
        assert all(e.ph for e in c.flushed), "a correct-path instruction was flushed"
        assert c.inserted == c.issued_ids + len(c.flushed)
    flushed = sum(len(c.flushed) for c in Checked.log)
    # a wrong-path slot is either inserted and flushed, or dropped with its in-flight fetch
    assert flushed == st["flushed_entries"]
    assert st["wrong_path_slots"] == flushed + st["dropped_slots"]


def test_model_with_twin_on_a_catalogue_workload(monkeypatch):
    from sim.workload.catalogue import get_workload
    Checked.log = []
    fast = _soc_run(monkeypatch, FastSocgpuIssue, get_workload("graph_like", scale=0.05))
    twin = _soc_run(monkeypatch, lambda **kw: Checked(TwinBlock(**kw)),
                    get_workload("graph_like", scale=0.05))
    assert twin == fast and fast["issue_stage"]["flushes"] > 0
    assert all(not c.live and all(e.ph for e in c.flushed) for c in Checked.log)


# ---- the baseline block (sm.issue = inorder_issue) against its twin --------------------------

def test_inorder_block_matches_twin_unbounded():
    """``FastInorderIssue`` (tokens) against ``InorderIssueTwin`` with unbounded scoreboards
    (our choice): same candidates every cycle on a random stream with WAR-heavy reuse."""
    from sim.blocks.inorder_issue import InorderIssueTwin
    from sim.issue.inorder_block import FastInorderIssue
    rng = random.Random(7)
    twin = InorderIssueTwin(sb_write=None, sb_read=None, dual="on")
    fast = FastInorderIssue(dual="on")
    inflight: list[tuple[int, int, IBEntry]] = []       # (visible cycle, token, entry)
    pc = 0
    for now in range(4000):
        due = [x for x in inflight if x[0] == now]
        inflight = [x for x in inflight if x[0] != now]
        if due:
            fast.writeback(now, sum(tok for _, tok, _ in due))
        out = twin.outputs()
        c, c2 = fast.candidates(now)
        assert (c >= 0, c2 >= 0) == (bool(out["cand_valid"]), bool(out["cand2_valid"])), now
        grant = int(c >= 0 and rng.random() < 0.8)
        grant2 = int(grant and c2 >= 0 and rng.random() < 0.7)
        flush = int(grant and not grant2 and rng.random() < 0.03)
        issued = fast.ib[:grant + grant2]
        toks = fast.grant(now, c, c2 if grant2 else -1, bool(flush)) if grant else ()
        for tok, x in zip(toks, issued):
            inflight.append((now + 2 + rng.choice((0, 2, 4, 20, 300)), tok, x))
        inserts = []
        if not flush and not fast.ib and rng.random() < 0.7:
            inserts = [_random_entry(rng, pc), _random_entry(rng, pc + 8)]
            pc += 16
            fast.insert(now, inserts)
        twin.clock(grant, grant2, flush, [x for d, _, x in inflight if d == now + 1], inserts)
    assert fast.ib == twin.ib


def test_config_fields_and_errors():
    from gpusched.config import ConfigError
    cfg = config("tiny", *SOC, "sm.local_policy=oldest", "sm.smart_dual=true")
    assert (cfg.sm.issue, cfg.sm.ib_entries, cfg.sm.local_policy) == ("socgpu", 8, "oldest")
    for bad, field in ((("sm.issue=socgpu", "sm.ib_entries=1"), "sm.ib_entries"),
                       (("sm.local_policy=fifo",), "sm.local_policy"),
                       (("sm.issue=ooo",), "sm.issue")):
        with pytest.raises(ConfigError) as e:
            config("tiny", *bad)
        assert str(e.value).startswith(field) and "\n" not in str(e.value)


def test_cli_set_issue_socgpu(cli_json):
    r = cli_json("--preset", "tiny", "--workload", "sg_hotspot", "--scale", "0.05",
                 "--memory", "fixed", "--set", "sm.issue=socgpu")
    assert r["issue_stage"]["kind"] == "socgpu" and r["issue_stage"]["fetches"] > 0
    assert r["issue_stage"]["ib_occupancy"] <= 2          # N = sm.ib_entries (default 2)
    r8 = cli_json("--preset", "tiny", "--workload", "sg_hotspot", "--scale", "0.05",
                  "--memory", "fixed", "--issue", "socgpu")
    assert 2 < r8["issue_stage"]["ib_occupancy"] <= 8 and r8["warp_insts"] == r["warp_insts"]


@pytest.fixture
def cli_json(capsys):
    import json
    from gpusched.cli import main

    def call(*args):
        capsys.readouterr()
        try:
            main(["run", *args, "--json"])
        except SystemExit as e:
            assert not e.code, capsys.readouterr().err
        return json.loads(capsys.readouterr().out)
    return call
