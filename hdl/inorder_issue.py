"""Baseline per-warp issue block: 2-entry in-order IB + scoreboard CAMs ([SOCGPU baseline]; the
cycle contract is ours).

Same insert, candidate, grant and flush ports as ``socgpu_issue`` (no rpc / unit_free: the head
is always the oldest instruction). Write-back ports carry operand records instead of an index:
``wb_valid`` (W), ``wb_dst`` (W×D×12), ``wb_src`` (W×S×12), packed as in ``hdl/socgpu``.

State: a 2-entry FIFO of the [SOCGPU instruction buffer] entry format without ``issued`` (entry 0 =
head) and two CAMs [our choice]: ``sb_write`` records of pending destinations (RAW, WAW) and
``sb_read`` records of pending sources (WAR). Rules:

- ``cand`` = head, if it conflicts with no pending record and both tables have room for its
  records. ``ins_ready`` = IB empty; ``free_count`` = 2 − occupancy.
- ``cand2`` (dual='on', default) = entry 1, if cand is valid, entry 1 passes the scoreboard, does
  not conflict with the head (RAW/WAR/WAW, and neither is serial), uses another unit, and the
  tables have room for both [doc/ext: GPGPU-Sim's issue loop]. Serial instructions never pair.
- Edge: write-back removes, per valid WB record, one equal pending record (lowest index first);
  grant frees the head's IB entry and adds its records to entries free at the start of the cycle
  (``grant2``, honoured only with ``grant``, does the same for entry 1); flush drops the IB
  entries not granted and this cycle's inserts; inserts append behind the remaining entries
  (an insert without room is dropped).
"""

from __future__ import annotations

from dataclasses import dataclass

from amaranth.hdl import Cat, Const, Module, Mux, Signal, Value
from amaranth.lib import wiring

from .common import signature_of
from .socgpu import insert_port_fields, insert_ports
from .socgpu.dep_check import conflict, ignore_bits, or_tree, plane_hits, records


@dataclass(frozen=True)
class InorderParams:
    S: int = 4
    D: int = 2
    RW: int = 9
    PW: int = 32
    W: int = 4
    sb_write: int = 8
    sb_read: int = 16
    dual: str = "on"

    def __post_init__(self):
        checks = [("S", 1 <= self.S <= 8), ("D", 1 <= self.D <= 4), ("RW", 3 <= self.RW <= 16),
                  ("PW", 4 <= self.PW <= 64), ("W", 1 <= self.W <= 8),
                  ("sb_write", 1 <= self.sb_write <= 64), ("sb_read", 1 <= self.sb_read <= 64),
                  ("dual", self.dual in ("off", "on"))]
        for name, ok in checks:
            if not ok:
                raise ValueError(f"{name} = {getattr(self, name)!r} out of range")

    @property
    def RB(self) -> int:
        return self.RW + 3

    def ports(self) -> dict[str, tuple[str, int]]:
        s, d, rb, pw, w = self.S, self.D, self.RB, self.PW, self.W
        return {
            **insert_ports(self),
            "grant": ("in", 1), "grant2": ("in", 1), "flush": ("in", 1),
            "wb_valid": ("in", w), "wb_dst": ("in", w * d * rb), "wb_src": ("in", w * s * rb),
            "ins_ready": ("out", 1),
            "cand_valid": ("out", 1), "cand_idx": ("out", 1), "cand_unit": ("out", 2),
            "cand_pc": ("out", pw),
            "cand2_valid": ("out", 1), "cand2_idx": ("out", 1), "cand2_unit": ("out", 2),
            "free_count": ("out", 2), "empty": ("out", 1),
        }


def popcount(bits: list[Value]) -> Value:
    """Balanced adder tree over 1-bit values."""
    terms = list(bits) or [Const(0, 1)]
    while len(terms) > 1:
        terms = [terms[i] + terms[i + 1] if i + 1 < len(terms) else terms[i]
                 for i in range(0, len(terms), 2)]
    return terms[0]


class ScoreboardCam:
    """One CAM of pending operand records (``size`` entries of RB bits; bit RW+2 = occupied)."""

    def __init__(self, m: Module, name: str, size: int, rb: int, rw: int):
        self.size, self.rb, self.rw, self.name = size, rb, rw, name
        self.ent = [Signal(rb, name=f"{name}_{i}") for i in range(size)]
        self.occ = Signal(size, name=f"{name}_occ")
        m.d.comb += self.occ.eq(Cat(*[e[rw + 2] for e in self.ent]))
        self.free_n = Signal(range(size + 1), name=f"{name}_free_n")
        m.d.comb += self.free_n.eq(size - popcount([self.occ[i] for i in range(size)]))
        # Planes: all entries' ids / ignored low bits side by side, for the hazard compares.
        self.ids = Signal(size * rw, name=f"{name}_ids")
        self.ign = Signal(size * rw, name=f"{name}_ign")
        m.d.comb += [self.ids.eq(Cat(*[e[:rw] for e in self.ent])),
                     self.ign.eq(Cat(*[ignore_bits(e[rw:rw + 2], rw) for e in self.ent]))]

    def hazard(self, m: Module, recs: list[Value], name: str) -> Value:
        """Expression: any of ``recs`` overlaps a pending record."""
        hits = [plane_hits(r, self.ids, self.ign, self.occ, self.size, self.rw, m, f"{name}{k}")
                for k, r in enumerate(recs)]
        return or_tree(hits).any()

    def update(self, m: Module, wb_recs: list[Value], add_recs: list[Value],
               add_ok: list[Value]) -> None:
        """Write-back removal, then adds into entries free at the start of the cycle.

        Entry i is removed iff fewer equal entries sit below it than there are equal WB
        records (= one removal per WB record, lowest index first). The t-th added record goes
        to the t-th lowest free entry. Each step is its own submodule of one level of signals
        (register-only parts settle once per edge in Amaranth's simulator).
        """
        rw, n, name = self.rw, self.size, self.name
        stages = {k: Module() for k in ("wb", "rank", "slots", "adds", "remove")}
        for k, sub in stages.items():
            m.submodules[f"{name}_{k}"] = sub

        wb = []
        for k, r in enumerate(wb_recs):                 # WB records, zero when the port is idle
            sig = Signal(self.rb, name=f"{name}_wb{k}")
            stages["wb"].d.comb += sig.eq(r)
            wb.append(sig)
        rank = []                                       # equal entries below entry i
        for i, e in enumerate(self.ent):
            sig = Signal(range(n), name=f"{name}_rank{i}")
            stages["rank"].d.comb += sig.eq(popcount([self.ent[j] == e for j in range(i)]))
            rank.append(sig)
        remove = Signal(n, name=f"{name}_remove")
        stages["remove"].d.comb += remove.eq(Cat(*[
            e[rw + 2] & (rank[i] < popcount([(r == e) & r[rw + 2] for r in wb]))
            for i, e in enumerate(self.ent)]))

        free_rank = []                                  # free entries below entry i
        for i in range(n):
            sig = Signal(range(n + 1), name=f"{name}_free_rank{i}")
            stages["slots"].d.comb += sig.eq(popcount([~self.occ[j] for j in range(i)]))
            free_rank.append(sig)
        by_rank = []                                    # the t-th valid added record
        for t in range(len(add_recs)):
            sig = Signal(self.rb, name=f"{name}_add{t}")
            stages["adds"].d.comb += sig.eq(or_tree([
                Mux(add_ok[k] & (popcount(add_ok[:k]) == t), add_recs[k], 0)
                for k in range(t, len(add_recs))]))
            by_rank.append(sig)

        for i, e in enumerate(self.ent):
            with m.If(~e[rw + 2]):
                m.d.sync += e.eq(or_tree([Mux(free_rank[i] == t, by_rank[t], 0)
                                          for t in range(len(add_recs))]))
            with m.Elif(remove[i]):
                m.d.sync += e.eq(0)


class InorderIssue(wiring.Component):
    """In-order issue with scoreboard CAMs; ``InorderParams`` as keyword arguments."""

    def __init__(self, **params):
        self.p = InorderParams(**params)
        super().__init__(signature_of(self.p.ports()))

    def _port(self, k: int) -> dict:
        """Decoded fields of insert port k."""
        return insert_port_fields(self, self.p, k)

    def elaborate(self, platform):
        m = Module()
        p = self.p
        ms = Module()
        m.submodules.scoreboard = ms
        ib = [{"valid": Signal(name=f"ib{i}_valid"), "serial": Signal(name=f"ib{i}_serial"),
               "pc": Signal(p.PW, name=f"ib{i}_pc"), "npc": Signal(p.PW, name=f"ib{i}_npc"),
               "src": Signal(p.S * p.RB, name=f"ib{i}_src"),
               "dst": Signal(p.D * p.RB, name=f"ib{i}_dst"),
               "unit": Signal(2, name=f"ib{i}_unit")} for i in range(2)]
        wr = ScoreboardCam(ms, "sb_write", p.sb_write, p.RB, p.RW)
        rd = ScoreboardCam(ms, "sb_read", p.sb_read, p.RB, p.RW)
        src = [records(e["src"], p.S, p.RB) for e in ib]
        dst = [records(e["dst"], p.D, p.RB) for e in ib]
        vbit = p.RW + 2

        # --- candidates ---
        mh, mc = Module(), Module()
        m.submodules.hazard = mh
        m.submodules.candidates = mc
        need_w = [popcount([r[vbit] for r in d]) for d in dst]
        need_r = [popcount([r[vbit] for r in s]) for s in src]
        clear = [Signal(name=f"ib{i}_clear") for i in range(2)]
        for i in range(2):
            mh.d.comb += clear[i].eq(~wr.hazard(mh, src[i] + dst[i], f"raw_waw{i}_")
                                     & ~rd.hazard(mh, dst[i], f"war{i}_"))
        cand_valid = Signal()
        mc.d.comb += cand_valid.eq(ib[0]["valid"] & clear[0] & (need_w[0] <= wr.free_n)
                                   & (need_r[0] <= rd.free_n))
        cand2_valid = Signal()
        if p.dual == "on":
            pair_ok = ~conflict(p, src[1], dst[1], ib[1]["serial"], src[0], dst[0], ib[0]["serial"])
            mc.d.comb += cand2_valid.eq(cand_valid & ib[1]["valid"] & clear[1] & pair_ok
                                        & (ib[1]["unit"] != ib[0]["unit"])
                                        & (need_w[0] + need_w[1] <= wr.free_n)
                                        & (need_r[0] + need_r[1] <= rd.free_n))
        occupancy = ib[0]["valid"] + ib[1]["valid"]
        m.d.comb += [
            self.cand_valid.eq(cand_valid), self.cand_idx.eq(0),
            self.cand_unit.eq(Mux(cand_valid, ib[0]["unit"], 0)),
            self.cand_pc.eq(Mux(cand_valid, ib[0]["pc"], 0)),
            self.cand2_valid.eq(cand2_valid), self.cand2_idx.eq(Mux(cand2_valid, 1, 0)),
            self.cand2_unit.eq(Mux(cand2_valid, ib[1]["unit"], 0)),
            self.free_count.eq(2 - occupancy), self.ins_ready.eq(~ib[0]["valid"]),
            self.empty.eq(~ib[0]["valid"]),
        ]

        # --- edge: write-back, grant, flush, insert ---
        g1, g2 = Signal(), Signal()
        m.d.comb += [g1.eq(self.grant & cand_valid), g2.eq(self.grant & self.grant2 & cand2_valid)]
        wb_dst = records(self.wb_dst, p.W * p.D, p.RB)
        wb_src = records(self.wb_src, p.W * p.S, p.RB)
        wr_ok = [r[vbit] & g for g, d in ((g1, dst[0]), (g2, dst[1])) for r in d]
        rd_ok = [r[vbit] & g for g, s in ((g1, src[0]), (g2, src[1])) for r in s]
        wr.update(m, [Mux(self.wb_valid[k // p.D], r, 0) for k, r in enumerate(wb_dst)],
                  dst[0] + dst[1], wr_ok)
        rd.update(m, [Mux(self.wb_valid[k // p.S], r, 0) for k, r in enumerate(wb_src)],
                  src[0] + src[1], rd_ok)

        # FIFO: entries left after the grant shift down; inserts append behind them.
        keep0 = Signal()        # entry 1 moves to the head (head issued alone)
        m.d.comb += keep0.eq(g1 & ~g2 & ib[1]["valid"])
        remaining = Signal(2)
        m.d.comb += remaining.eq(occupancy - g1 - g2)
        ins = [self._port(0), self._port(1)]
        n_ins = Signal(2)
        m.d.comb += n_ins.eq(Mux(self.flush | ~self.ins_valid[0], 0,
                                 Mux(self.ins_valid[1], 2, 1)))
        fields = ("serial", "pc", "npc", "src", "dst", "unit")
        # Next head: stays (no grant), entry 1 (head issued alone), else port 0's insert.
        # Next entry 1: stays (no grant), else the first or second insert behind the survivors.
        with m.If(self.flush):
            m.d.sync += [ib[0]["valid"].eq(0), ib[1]["valid"].eq(0)]
        with m.Else():
            with m.If(~g1 & ib[0]["valid"]):
                pass                                   # head stays
            with m.Elif(keep0):
                m.d.sync += [ib[0][f].eq(ib[1][f]) for f in fields + ("valid",)]
            with m.Else():
                m.d.sync += [ib[0][f].eq(ins[0][f]) for f in fields]
                m.d.sync += ib[0]["valid"].eq(n_ins >= 1)
            with m.If(~g1 & ib[1]["valid"]):
                pass
            with m.Elif(remaining == 1):
                m.d.sync += [ib[1][f].eq(ins[0][f]) for f in fields]
                m.d.sync += ib[1]["valid"].eq(n_ins >= 1)
            with m.Else():
                m.d.sync += [ib[1][f].eq(ins[1][f]) for f in fields]
                m.d.sync += ib[1]["valid"].eq(n_ins == 2)
        return m
