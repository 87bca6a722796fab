"""Steal fabric ([IKRA Steal] step 2, our cycle contract): victim choice and per-region arbitration.

Each thief scans a constant permutation of the availability flags: the queues of its victims in
its victim order, then their chunks (all queues before any chunk). A first-one picks one region.
Each region (victim v's queue, victim v's chunk) grants the lowest-index thief aiming at it; the
grant fails if v dispatches its last TB of that region in the same cycle (race, our choice).
"""

from __future__ import annotations

from dataclasses import dataclass

from amaranth.hdl import Cat, Const, Module, Mux, Signal, Value

from hdl.common import first_one_hot, one_hot_index

from .params import IkraShape, victim_order
from .steal_cu import StealCu


@dataclass
class StealResult:
    won: list[Value]         # per thief: a steal succeeded
    val: list[Value]         # per thief: the stolen TB id
    chunk: list[Value]       # per thief: taken from a chunk (else a queue)
    victim: list[Value]      # per thief: victim index
    c_taken: list[Value]     # per victim: its chunk lost one TB
    q_taken: list[Value]     # per victim: its queue lost one TB


def build_fabric(m: Module, sh: IkraShape, cus: list[StealCu]) -> StealResult:
    p, idw, cw = sh.n_cus, sh.id_w, sh.cu_w
    zero = Const(0, 1)
    if p == 1:
        return StealResult([zero], [Const(0, idw)], [zero], [Const(0, cw)], [zero], [zero])
    width = 2 * (p - 1)
    # choice[i][(kind, v)]: thief i aims at region (kind, v); kind 0 = queue, 1 = chunk
    choice: list[dict[tuple[int, int], Value]] = []
    for i in range(p):
        order = victim_order(i, p, sh.victim_first)
        cand = Signal(width, name=f"thief{i}_cand")
        m.d.comb += cand.eq(Cat(*[cus[v].q_av for v in order], *[cus[v].c_av for v in order]))
        hot = first_one_hot(m, cand, width, f"thief{i}_aim")
        aim = Signal(width, name=f"thief{i}_aim_gated")
        m.d.comb += aim.eq(Mux(cus[i].thief, hot, 0))
        regions = [(0, v) for v in order] + [(1, v) for v in order]
        choice.append({r: aim[k] for k, r in enumerate(regions)})

    # success[i][(kind, v)]: thief i takes one TB from that region at this edge
    success = [dict() for _ in range(p)]
    taken = {0: [], 1: []}
    for kind in (0, 1):
        for v in range(p):
            name = f"{'queue' if kind == 0 else 'chunk'}{v}"
            req = Signal(p, name=f"{name}_req")
            m.d.comb += req.eq(Cat(*[choice[i][(kind, v)] if i != v else zero for i in range(p)]))
            grant = first_one_hot(m, req, p, f"{name}_grant")     # lowest-index thief wins
            race = cus[v].q_race if kind == 0 else cus[v].c_race
            ok = Signal(p, name=f"{name}_ok")
            m.d.comb += ok.eq(Mux(race, 0, grant))
            taken[kind].append(ok.any())
            for i in range(p):
                if i != v:
                    success[i][(kind, v)] = ok[i]

    qvals = Cat(*[cu.take_q_val for cu in cus])
    cvals = Cat(*[cu.take_c_val for cu in cus])
    res = StealResult([], [], [], [], taken[1], taken[0])
    for i in range(p):
        sq = Signal(p, name=f"thief{i}_from_queue")
        sc = Signal(p, name=f"thief{i}_from_chunk")
        m.d.comb += [sq.eq(Cat(*[success[i].get((0, v), zero) for v in range(p)])),
                     sc.eq(Cat(*[success[i].get((1, v), zero) for v in range(p)]))]
        victim = one_hot_index(m, sq | sc, p, f"thief{i}_victim")
        kind = sc.any()
        val = Signal(idw, name=f"thief{i}_val")
        m.d.comb += val.eq(Mux(kind, cvals.word_select(victim, idw), qvals.word_select(victim, idw)))
        res.won.append(sq.any() | kind)
        res.val.append(val)
        res.chunk.append(kind)
        res.victim.append(victim)
    return res
