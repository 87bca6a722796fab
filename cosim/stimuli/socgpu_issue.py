"""Stimulus and per-cycle property checker for ``socgpu_issue`` (our cycle contract and our test
plan for [SOCGPU]).

``SocgpuStimulus`` plays fetch/decode, the sub-core picker and the pipeline around one warp's
block. It keeps its own twin (the shadow) so it sees this cycle's candidates before deciding the
grant, like a real picker, and learns granted indices for the write-back pipeline. Streams have
random operands and sizes (garbage in invalid records), serial instructions, flushes at the grant
of a serial or path-ending instruction, random write-back latencies (short, medium, long) spread
over random WB ports, single and dual inserts (sometimes into a full IB), random rpc and unit_free.

``SocgpuChecker`` is an independent reference: it tracks the inserted instructions in program
order without a dependence matrix and checks every cycle that the observed outputs obey the
ordering rules, the a3 guard, the policy, occupancy and issue-exactly-once (our test plan).
"""

from __future__ import annotations

import random

from hdl.socgpu import CNT_MAX, IssueParams, field, lfsr_next, pack, pack_record
from sim.blocks.socgpu_issue import SocgpuIssueTwin, conflict_kinds, conflicts, decode_port


class InstrGen:
    """Random decoded instructions for insert ports (shared with the baseline's stimulus)."""

    def __init__(self, rng: random.Random, S: int, D: int, RW: int, PW: int,
                 p_serial: float = 0.04, reg_pool: int = 64):
        self.rng, self.S, self.D, self.RW, self.PW = rng, S, D, RW, PW
        self.p_serial, self.reg_pool = p_serial, reg_pool
        self.pc = 0x100

    def record(self) -> int:
        rng, rw = self.rng, self.RW
        if rng.random() < 0.5:                            # invalid record with garbage bits
            return rng.getrandbits(rw + 2)
        if rng.random() < 0.1:
            return pack_record(256 + rng.randrange(7), 0, rw)   # predicate P0..P6
        size = rng.choices((0, 1, 2), (6, 2, 1))[0]
        reg = rng.randrange(self.reg_pool) & ~((1 << size) - 1)
        return pack_record(reg, size, rw)

    def instr(self) -> dict:
        rng = self.rng
        size = 16 if rng.random() < 0.1 else 8
        pc, self.pc = self.pc, self.pc + size
        serial = int(rng.random() < self.p_serial)
        placeholder = rng.random() < 0.03                 # wrong-path slot: no operands
        return {"pc": pc, "npc": pc + size, "serial": serial, "unit": rng.randrange(4),
                "src": [0 if placeholder else self.record() for _ in range(self.S)],
                "dst": [0 if placeholder else self.record() for _ in range(self.D)]}

    def redirect(self) -> None:
        """After a flush, fetch restarts somewhere else."""
        self.pc = 0x100 + 8 * self.rng.randrange(1 << 12)

    def ports(self, ins: list[dict]) -> dict:
        """Flat insert-port inputs for up to two instructions."""
        pw, rb = self.PW, self.RW + 3
        return {"ins_valid": (1 << len(ins)) - 1,
                "ins_pc": pack([i["pc"] for i in ins], pw),
                "ins_npc": pack([i["npc"] for i in ins], pw),
                "ins_src": pack([r for i in ins for r in i["src"]], rb),
                "ins_dst": pack([r for i in ins for r in i["dst"]], rb),
                "ins_serial": pack([i["serial"] for i in ins], 1),
                "ins_unit": pack([i["unit"] for i in ins], 2)}


def wb_latency(rng: random.Random) -> int:
    """Write-back latency: mostly short (SP), some medium (SFU, shared memory), a few long."""
    r = rng.random()
    if r < 0.7:
        return rng.randint(1, 6)
    if r < 0.97:
        return rng.randint(7, 30)
    return rng.randint(50, 200)


class SocgpuStimulus:
    def __init__(self, params: dict, seed: int, p_fetch: float = 0.6, p_grant: float = 0.7,
                 p_serial: float = 0.04, reg_pool: int = 64):
        self.p = p = IssueParams(**params)
        self.rng = random.Random(seed)
        self.gen = InstrGen(self.rng, p.S, p.D, p.RW, p.PW, p_serial, reg_pool)
        self.shadow = SocgpuIssueTwin(**params)
        self.p_fetch, self.p_grant = p_fetch, p_grant
        self.cycle = 0
        self.inflight: list[tuple[int, int]] = []        # (due cycle, entry index)

    def _inserts(self, free: int) -> list[dict]:
        rng = self.rng
        if free >= 2 and rng.random() < self.p_fetch:
            return [self.gen.instr() for _ in range(1 if rng.random() < 0.1 else 2)]
        if rng.random() < 0.02:                           # ignores ins_ready: tests the drop rule
            return [self.gen.instr() for _ in range(rng.randint(1, 2))]
        return []

    def _writebacks(self) -> tuple[int, int]:
        """Due write-backs, at most W this cycle on random ports; the rest wait (our choice)."""
        p, rng = self.p, self.rng
        due = [e for e in self.inflight if e[0] <= self.cycle]
        rng.shuffle(due)
        due = due[:p.W]
        for e in due:
            self.inflight.remove(e)
        ports = rng.sample(range(p.W), len(due))
        wb_valid = sum(1 << w for w in ports)
        wb_idx = rng.getrandbits(p.W * p.IB)             # unused ports carry garbage indices
        for w, (_, idx) in zip(ports, due):
            wb_idx = (wb_idx & ~(((1 << p.IB) - 1) << (w * p.IB))) | (idx << (w * p.IB))
        return wb_valid, wb_idx

    def next(self, prev_out: dict | None) -> dict:
        """Inputs for the coming cycle (``prev_out`` is not needed: the shadow twin is exact)."""
        rng, p, sh = self.rng, self.p, self.shadow
        self.cycle += 1
        wb_valid, wb_idx = self._writebacks()
        rpc_valid, rpc = 0, rng.getrandbits(p.PW)
        if rng.random() < 0.15 and sh.valid:
            rpc_valid = 1
            live = [sh.instr[i].npc for i in range(p.N) if (sh.valid >> i) & 1]
            rpc = rng.choice(live) + rng.choice((-8, 0, 0, 8))
            rpc &= (1 << p.PW) - 1
        unit_free = 0xF if rng.random() < 0.6 else rng.getrandbits(4)
        out = sh.outputs(rpc_valid, rpc, unit_free)

        grant = int(out["cand_valid"] and rng.random() < self.p_grant) or int(rng.random() < 0.02)
        grant2 = 0
        if grant and out["cand2_valid"]:
            fits = out["cand2_unit"] != out["cand_unit"] and (unit_free >> out["cand2_unit"]) & 1
            grant2 = int((fits and rng.random() < 0.8) or rng.random() < 0.05)
        flush = 0
        if grant and out["cand_valid"]:
            x = sh.instr[out["cand_idx"]]
            flush = int(rng.random() < (0.4 if x.serial else 0.02))
        flush |= int(rng.random() < 0.003)
        if flush:
            grant2 = 0                                    # a flush never coincides with grant2
        ins = self._inserts(out["free_count"])

        inputs = {
            **self.gen.ports(ins),
            "rpc_valid": rpc_valid, "rpc": rpc, "unit_free": unit_free,
            "grant": grant, "grant2": grant2, "flush": flush,
            "wb_valid": wb_valid, "wb_idx": wb_idx,
        }
        decoded = [decode_port(p, k, inputs) for k in range(len(ins))]
        wbs = [field(wb_idx, w, p.IB) for w in range(p.W) if (wb_valid >> w) & 1]
        g, g2 = sh._cand if grant else -1, sh._cand2 if grant and grant2 else -1
        sh.clock(grant, grant2, flush, wbs, decoded)
        for idx in (g, g2):
            if idx >= 0:
                self.inflight.append((self.cycle + wb_latency(rng), idx))
        if flush:
            self.gen.redirect()
        return inputs


class PropertyViolation(AssertionError):
    """A property of our test plan failed; the message names the cycle, the rule and the entries
    involved."""


class _Entry:
    __slots__ = ("seq", "instr", "issued", "cnt")

    def __init__(self, seq, instr):
        self.seq, self.instr, self.issued, self.cnt = seq, instr, False, 0


class SocgpuChecker:
    """Reference model of one warp's IB in program order; ``check(inputs, outputs)`` per cycle."""

    def __init__(self, params: dict):
        self.p = IssueParams(**params)
        self.entries: dict[int, _Entry] = {}
        self.next_seq = 0
        self.cycle = 0
        self.lfsr = self.p.slot + 1
        self.stats = {"inserted": 0, "issued": 0, "flushed": 0, "written_back": 0}

    def fail(self, msg: str) -> None:
        raise PropertyViolation(f"cycle {self.cycle}: {msg}")

    def _desc(self, i: int) -> str:
        e = self.entries[i]
        return f"entry {i} (seq {e.seq}, pc {e.instr.pc:#x})"

    def _blockers(self, i: int) -> list[int]:
        e = self.entries[i]
        return [j for j, o in self.entries.items() if o.seq < e.seq and conflicts(e.instr, o.instr)]

    def _why(self, i: int, blockers: list[int]) -> list[str]:
        e = self.entries[i]
        return [f"{'/'.join(conflict_kinds(e.instr, self.entries[j].instr))} on older "
                f"{self._desc(j)}" for j in blockers]

    def _ready(self, ins: dict) -> tuple[set, dict]:
        """Reference ready set and, for blocked pending entries, (older blockers, a3 flag)."""
        pend = [i for i, e in self.entries.items() if not e.issued]
        oldest = self._oldest = min(pend, key=lambda i: self.entries[i].seq) if pend else -1
        ready, blocked = set(), {}
        for i in pend:
            b = self._blockers(i)
            a3 = bool(ins.get("rpc_valid")) and self.entries[i].instr.npc >= ins["rpc"] and i != oldest
            if b or a3:
                blocked[i] = (b, a3)
            else:
                ready.add(i)
        return ready, blocked

    def _reasons(self, i: int, blocked: dict, ins: dict) -> str:
        b, a3 = blocked[i]
        out = self._why(i, b)
        if a3:
            out.append(f"a3: npc >= rpc {ins['rpc']:#x} and the oldest pending is "
                       f"{self._desc(self._oldest)}")
        return "; ".join(out)

    def _expected_pick(self, ready: set) -> int | None:
        """The policy's choice, for the policies the reference models (all of them)."""
        if not ready:
            return None
        pol, ents = self.p.policy, self.entries
        if pol == "first":
            return min(ready)
        if pol == "oldest":
            return min(ready, key=lambda i: ents[i].seq)
        if pol == "youngest":
            return max(ready, key=lambda i: ents[i].seq)
        if pol == "most_ready":
            return min(ready, key=lambda i: (-ents[i].cnt, i))
        if pol == "least_ready":
            return min(ready, key=lambda i: (ents[i].cnt, i))
        start = self.lfsr % self.p.N
        return min(ready, key=lambda i: ((i - start) % self.p.N))

    def _check_cand(self, name: str, out: dict, ready: set, why: dict, ins: dict) -> int:
        if not out[f"{name}_valid"]:
            if ready:
                self.fail(f"{name}_valid = 0 while {sorted(ready)} are ready")
            return -1
        i = out[f"{name}_idx"]
        if i not in self.entries:
            self.fail(f"{name} names entry {i}, which holds no instruction")
        e = self.entries[i]
        if e.issued:
            self.fail(f"{name} names {self._desc(i)}, which has already issued")
        if i in why:
            self.fail(f"{name} offers {self._desc(i)} before its blockers are gone: "
                      + self._reasons(i, why, ins))
        if out[f"{name}_unit"] != e.instr.unit or (name == "cand" and out["cand_pc"] != e.instr.pc):
            self.fail(f"{name} fields do not match {self._desc(i)}")
        want = self._expected_pick(ready)
        if want != i:
            self.fail(f"policy {self.p.policy}: {name} = {i}, expected {want} among {sorted(ready)}")
        return i

    def check(self, ins: dict, out: dict) -> None:
        p, ents = self.p, self.entries
        free = p.N - len(ents)
        if (out["free_count"], out["ins_ready"], out["empty"]) != (free, int(free >= 2), int(not ents)):
            self.fail(f"free_count/ins_ready/empty = {out['free_count']}/{out['ins_ready']}/"
                      f"{out['empty']} but {len(ents)} entries hold instructions")
        ready, why = self._ready(ins)
        c = self._check_cand("cand", out, ready, why, ins)
        c2 = -1
        if p.dual == "off":
            if out["cand2_valid"]:
                self.fail("cand2_valid with dual issue off")
        else:
            r2 = ready - {c}
            if p.dual == "smart" and c >= 0:
                cu = ents[c].instr.unit
                r2 = {j for j in r2 if ents[j].instr.unit != cu
                      and (ins.get("unit_free", 0) >> ents[j].instr.unit) & 1}
            c2 = self._check_cand("cand2", out, r2, why, ins)
        self._edge(ins, c if ins.get("grant") else -1,
                   c2 if ins.get("grant") and ins.get("grant2") else -1, ready)
        self.cycle += 1

    def _edge(self, ins: dict, g: int, g2: int, ready: set) -> None:
        p, ents = self.p, self.entries
        start_free = [i for i in range(p.N) if i not in ents]
        for w in range(p.W):
            if (ins.get("wb_valid", 0) >> w) & 1:
                idx = field(ins["wb_idx"], w, p.IB)
                if idx not in ents or not ents[idx].issued:
                    self.fail(f"write-back of entry {idx}, which is not an issued instruction")
                del ents[idx]
                self.stats["written_back"] += 1
        for i in (g, g2):
            if i >= 0:
                ents[i].issued = True
                self.stats["issued"] += 1
        if ins.get("flush"):
            for i in [i for i, e in ents.items() if not e.issued]:
                del ents[i]
                self.stats["flushed"] += 1
        else:
            n_ins = 2 if ins.get("ins_valid", 0) & 3 == 3 else ins.get("ins_valid", 0) & 1
            for k, idx in zip(range(n_ins), start_free):
                ents[idx] = _Entry(self.next_seq, decode_port(p, k, ins))
                self.next_seq += 1
                self.stats["inserted"] += 1
        for i in ready - {g, g2}:
            if i in ents:
                ents[i].cnt = min(ents[i].cnt + 1, CNT_MAX)
        self.lfsr = lfsr_next(self.lfsr)

    def balance(self) -> str | None:
        """Every inserted instruction issued exactly once or was flushed (None if so)."""
        s = self.stats
        pending = sum(1 for e in self.entries.values() if not e.issued)
        if s["inserted"] != s["issued"] + s["flushed"] + pending:
            return f"inserted {s['inserted']} != issued + flushed + pending ({s}, {pending})"
        return None
