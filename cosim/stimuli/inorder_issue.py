"""Stimulus for the baseline ``inorder_issue`` block ([SOCGPU baseline]; the cycle contract is
ours).

Fetch inserts a pair when the IB is empty (sometimes one, sometimes into a non-empty IB to test
the append/drop rule); the picker grants the head and the second candidate at random; a flush
follows the grant of a serial head (or, rarely, any head); granted instructions write back their
own operand records (garbage in invalid records included) after random latencies, at most W per
cycle on random WB ports. A shadow twin gives this cycle's candidates before the grant is chosen.
"""

from __future__ import annotations

import random

from cosim.stimuli.socgpu_issue import InstrGen, wb_latency
from hdl.socgpu import pack
from sim.blocks.inorder_issue import InorderIssueTwin
from sim.blocks.socgpu_issue import decode_port


class InorderStimulus:
    def __init__(self, params: dict, seed: int, p_fetch: float = 0.6, p_grant: float = 0.7,
                 p_serial: float = 0.04, reg_pool: int = 48):
        self.params = dict(params)
        self.rng = random.Random(seed)
        self.shadow = InorderIssueTwin(**params)
        f = self.shadow.flat
        self.gen = InstrGen(self.rng, f.S, f.D, f.RW, f.PW, p_serial, reg_pool)
        self.p_fetch, self.p_grant = p_fetch, p_grant
        self.cycle = 0
        self.inflight: list[tuple[int, dict]] = []        # (due cycle, instruction)

    def next(self, prev_out: dict | None) -> dict:
        rng, sh, f, w_ports = self.rng, self.shadow, self.shadow.flat, self.shadow.W
        self.cycle += 1
        due = [e for e in self.inflight if e[0] <= self.cycle]
        rng.shuffle(due)
        due = due[:w_ports]
        for e in due:
            self.inflight.remove(e)
        ports = rng.sample(range(w_ports), len(due))
        by_port = dict(zip(ports, [x for _, x in due]))
        wb_dst = pack([r for w in range(w_ports) for r in by_port.get(w, {"dst": [rng.getrandbits(
            f.RB)] * f.D})["dst"]], f.RB)
        wb_src = pack([r for w in range(w_ports) for r in by_port.get(w, {"src": [rng.getrandbits(
            f.RB)] * f.S})["src"]], f.RB)

        out = sh.outputs()
        grant = int((out["cand_valid"] and rng.random() < self.p_grant) or rng.random() < 0.02)
        grant2 = int(grant and out["cand2_valid"] and rng.random() < 0.8)
        flush = 0
        if grant and out["cand_valid"]:
            flush = int(rng.random() < (0.4 if sh.ib[0].serial else 0.02))
        if flush:
            grant2 = 0
        ins = []
        if out["ins_ready"] and rng.random() < self.p_fetch:
            ins = [self.gen.instr() for _ in range(1 if rng.random() < 0.1 else 2)]
        elif rng.random() < 0.03:
            ins = [self.gen.instr() for _ in range(rng.randint(1, 2))]
        inputs = {**self.gen.ports(ins), "grant": grant, "grant2": grant2, "flush": flush,
                  "wb_valid": sum(1 << w for w in ports), "wb_dst": wb_dst, "wb_src": wb_src}

        issued = sh.ib[:(1 if grant and out["cand_valid"] else 0)
                       + (1 if grant and grant2 and out["cand2_valid"] else 0)]
        decoded = [decode_port(f, k, inputs) for k in range(len(ins))]
        wbs = [decode_port(f, 0, {"ins_src": x["src_packed"], "ins_dst": x["dst_packed"]})
               for _, x in due]
        sh.clock(grant, grant2, flush, wbs, decoded)
        for x in issued:
            self.inflight.append((self.cycle + wb_latency(rng), x.tag))
        for k, x in enumerate(decoded):
            x.tag = {"src": ins[k]["src"], "dst": ins[k]["dst"],
                     "src_packed": pack(ins[k]["src"], f.RB), "dst_packed": pack(ins[k]["dst"], f.RB)}
        if flush:
            self.gen.redirect()
        return inputs
