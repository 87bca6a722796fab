"""The GPU model's per-warp issue-block API over an ``inorder_issue`` block reached only through
its ports (an RTL, lockstep or twin block from the run's provider): ``PortInorderIssue``."""

from __future__ import annotations

from hdl.socgpu import pack, pack_record
from sim.issue.inorder_block import FastInorderIssue
from sim.issue.port_issue import insert_ports
from sim.warp import ALU, DIV, FP64, LDST, NONE, SFU

# the block's 2-bit unit class ([SOCGPU dual issue]: SP, SFU, MEM, CTRL) of each model unit kind
UNIT_CLASS = {ALU: 0, FP64: 0, SFU: 1, DIV: 1, LDST: 2, NONE: 3}


def block_params(cfg) -> dict:
    """The ``inorder_issue`` block parameters of a GPU run: the dual mode, W = the model's
    write-back ports per warp, RW wide enough for every model register id, the scoreboard
    tables at their largest (the model's are unbounded, [SOCGPU baseline])."""
    from sim.issue.socgpu import MODEL_REG_IDS, WB_PORTS
    return {"dual": "on" if cfg.sm.dual_issue else "off", "W": WB_PORTS,
            "RW": (MODEL_REG_IDS - 1).bit_length(), "sb_write": 64, "sb_read": 64}


class PortInorderIssue:
    """``FastInorderIssue``'s model API over a flat-port ``inorder_issue`` block.

    As ``PortIssue``, every model event is one block clock: ``writeback`` (the written-back
    entries' records on the wb ports, W entries per clock), ``candidates`` (an idle clock),
    ``grant`` (grant / grant2 / flush), ``insert`` (both insert ports). An idle clock changes no
    state of the in-order block, so this is exact. ``start`` resets the block for a new warp in
    the slot (the model drops a finished warp's late write-backs, which would leave records in
    the block's tables).

    The model-side view is a ``FastInorderIssue`` (entry contents, issue tokens, the answers the
    model reads); every clock checks the block's outputs against it (``free_count``, ``empty``,
    ``ins_ready``, ``cand_valid``/``cand_pc``, ``cand2_valid``), so a run with the RTL alone is
    checked too. The block sees four unit classes (``UNIT_CLASS``); where two model units share
    one (FP64 with ALU, DIV with SFU) the block does not offer the pair the model's block does:
    ``cand2_valid`` is expected only where the classes differ, and such a pair, when the model
    issues it, is granted as the head alone and then the new head, in two clocks (the same
    end state: the second entry was clear of the head and of every pending record, with room).
    The block's tables are bounded (``sb_write``/``sb_read``); one full where the model's is not
    shows as a ``cand`` mismatch.
    """

    def __init__(self, port, params: dict, label: str = "inorder_issue"):
        self.port, self.label = port, label
        self.S, self.D, self.RW = params.get("S", 4), params.get("D", 2), params["RW"]
        self.PW, self.W = params.get("PW", 32), params["W"]
        self.RB = self.RW + 3
        self.dual = params["dual"]
        self.n = 2
        self.issued = 0
        self.steps = 0
        self.view = FastInorderIssue(dual=self.dual)

    # ---- the view the model reads ----
    @property
    def instr(self) -> list:
        return self.view.ib

    @property
    def valid(self) -> int:
        return self.view.valid

    @property
    def rdy(self) -> int:
        return self.view.rdy

    def start(self) -> None:
        """A new warp in this slot: the block reset, an empty view."""
        self.port.reset()
        self.view = FastInorderIssue(dual=self.dual)

    def _step(self, **inputs) -> dict:
        out = self.port.step(**inputs)
        self.steps += 1
        v = self.view
        ib = v.ib
        c2 = v._c2 and UNIT_CLASS[ib[1].unit] != UNIT_CLASS[ib[0].unit]
        want = {"free_count": 2 - len(ib), "empty": int(not ib), "ins_ready": int(not ib),
                "cand_valid": int(v._c1), "cand2_valid": int(c2)}
        if v._c1:
            want["cand_pc"] = ib[0].pc & ((1 << self.PW) - 1)
        for k, value in want.items():
            if out[k] != value:
                raise AssertionError(f"{self.label} step {self.steps}: {k} = {out[k]}, the model "
                                     f"view has {value} (IB {ib}, block outputs {out})")
        return out

    # ---- model API ----
    def cand(self, now: int) -> int:
        return self.view.cand(now)

    def candidates(self, now: int, unit_free: int = 0) -> tuple[int, int]:
        self._step()
        return self.view.candidates(now, unit_free)

    def grant(self, now: int, g: int, g2: int = -1, flush: bool = False) -> tuple[int, int]:
        v = self.view
        if g2 >= 0 and UNIT_CLASS[v.ib[1].unit] == UNIT_CLASS[v.ib[0].unit]:
            # a pair the block's classes cannot tell apart: two single grants, two clocks
            self._step(grant=1)
            tok = v.grant(now, g)[0]
            self._step(grant=1, flush=int(flush))
            return tok, v.grant(now, 0, -1, flush)[0]
        self._step(grant=1, grant2=int(g2 >= 0), flush=int(flush))
        return v.grant(now, g, g2, flush)

    def writeback(self, now: int, mask: int) -> None:
        inflight = self.view.inflight
        tokens = []
        m = mask
        while m:
            low = m & -m
            m ^= low
            if low in inflight:
                tokens.append(low)
        for k in range(0, len(tokens), self.W):
            chunk = tokens[k:k + self.W]
            dst, src = [], []
            for tok in chunk:
                e = inflight[tok]
                dst += self._records(e.dst, self.D)
                src += self._records(e.src, self.S)
            self._step(wb_valid=(1 << len(chunk)) - 1, wb_dst=pack(dst, self.RB),
                       wb_src=pack(src, self.RB))
            self.view.writeback(now, sum(chunk))
        rest = mask & ~sum(tokens)
        if rest or not tokens:          # tokens the block never issued: the view's own book
            self.view.writeback(now, rest)

    def _records(self, regs, width: int) -> list[int]:
        return [pack_record(r, s, self.RW) for r, s in regs] + [0] * (width - len(regs))

    def insert(self, now: int, entries) -> None:
        entries = list(entries)[:2]
        self._step(**insert_ports(self.label, entries, self.S, self.D, self.RW, self.PW, self.RB,
                                  UNIT_CLASS.__getitem__))
        self.view.insert(now, entries)
