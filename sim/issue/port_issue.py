"""The GPU model's per-warp issue-block API over a ``socgpu_issue`` block reached only through
its ports (an RTL or lockstep block from the run's provider): ``PortIssue``."""

from __future__ import annotations


class PortIssue:
    """The GPU model's per-warp block API (``FastSocgpuIssue``'s model API) over a flat-port
    ``socgpu_issue`` block: an ``RtlProxy``, a ``LockstepProxy`` or a twin (``step`` only).

    As ``TwinBlock`` in tests/sim/test_socgpu_model.py, every model event is one block clock:
    ``writeback`` (wb ports, W indices per clock), ``candidates`` (an idle clock that returns
    ``cand``/``cand2``), ``grant`` (grant/grant2/flush; the block grants its own candidate,
    checked against the model's choice) and ``insert`` (both insert ports). Only stateless local
    policies (first, oldest, youngest): idle clocks then change nothing.

    Which entry issues comes from the block's outputs. The adapter keeps the model-side view the
    ports do not carry: entry contents (``instr``, the model's IBEntry objects), ``valid`` /
    ``issued`` (entries are written at the lowest free index, our cycle contract) and, for the
    ready-entry statistic and ``cand(now)``, the [SOCGPU dependence matrix] ready set computed from
    that view (no DM state). Every clock checks the block's ``free_count`` / ``empty`` and every
    candidate query checks ``cand_valid`` / ``cand_idx`` against it, so RTL-only runs are checked
    too.
    """

    STATELESS = ("first", "oldest", "youngest")

    def __init__(self, port, params: dict, label: str = "socgpu_issue"):
        from hdl.socgpu import IssueParams
        self.port, self.label = port, label
        self.p = IssueParams(**params)
        if self.p.policy not in self.STATELESS or self.p.dual == "smart":
            raise ValueError(f"{label}: PortIssue needs a stateless policy and dual off/on")
        self.n, self.full = self.p.N, (1 << self.p.N) - 1
        self.valid = self.issued = self.rdy = 0
        self.instr: list = [None] * self.n
        self.seq = [0] * self.n
        self.next_seq = 0
        self.rpc_in = (0, 0)
        self.unit_free = 0
        self.steps = 0
        self._cand = self._cand2 = -1

    # ---- the view ----
    @property
    def dm(self) -> list[int]:
        """Rows of the [SOCGPU dependence matrix] invariant (stall messages only)."""
        from sim.blocks.socgpu_issue import conflicts
        rows = [0] * self.n
        for i in self._bits(self.valid):
            for j in self._bits(self.valid):
                if self.seq[j] < self.seq[i] and conflicts(self.instr[i], self.instr[j]):
                    rows[i] |= 1 << j
        return rows

    @staticmethod
    def _bits(mask: int):
        while mask:
            low = mask & -mask
            yield low.bit_length() - 1
            mask ^= low

    def _refresh(self) -> None:
        from sim.blocks.socgpu_issue import conflicts
        from sim.issue.block import proxy_rpc
        valid, seq, instr = self.valid, self.seq, self.instr
        self.rpc_in = rv, rpc = proxy_rpc(valid, self.issued, seq, instr)
        pending = valid & ~self.issued
        oldest = min(self._bits(pending), key=seq.__getitem__) if rv and pending else -1
        rdy = 0
        for i in self._bits(pending):
            a = instr[i]
            if rv and not (a.npc < rpc or i == oldest):
                continue
            if any(seq[j] < seq[i] and conflicts(a, instr[j]) for j in self._bits(valid)):
                continue
            rdy |= 1 << i
        self.rdy = rdy

    def _pick(self, ready: int) -> int:
        if not ready:
            return -1
        if self.p.policy == "first":
            return (ready & -ready).bit_length() - 1
        key = self.seq.__getitem__
        return (min if self.p.policy == "oldest" else max)(self._bits(ready), key=key)

    def _step(self, **inputs) -> dict:
        rv, rpc = self.rpc_in
        out = self.port.step(rpc_valid=rv, rpc=rpc, unit_free=self.unit_free, **inputs)
        self.steps += 1
        free = self.n - self.valid.bit_count()
        if out["free_count"] != free or out["empty"] != int(not self.valid):
            raise AssertionError(f"{self.label} step {self.steps}: free_count {out['free_count']}"
                                 f" empty {out['empty']}, model view has {free} free entries")
        return out

    # ---- model API ----
    def start(self) -> None:
        """A new warp in this slot: nothing to reset (the last one's entries all wrote back by
        its EXIT, and the stateless policies keep no other state)."""

    def cand(self, now: int) -> int:
        return self._pick(self.rdy)

    def candidates(self, now: int, unit_free: int = 0):
        self.unit_free = unit_free & 0xF
        out = self._step()
        c = out["cand_idx"] if out["cand_valid"] else -1
        c2 = out["cand2_idx"] if out["cand2_valid"] else -1
        want = self._pick(self.rdy)
        if c != want:
            raise AssertionError(f"{self.label} step {self.steps}: cand {c}, the model view's "
                                 f"ready set {self.rdy:#x} picks {want}")
        self._cand, self._cand2 = c, c2
        return c, c2

    def grant(self, now: int, g: int, g2: int = -1, flush: bool = False):
        out = self._step(grant=1, grant2=int(g2 >= 0), flush=int(flush))
        if out["cand_idx"] != g or not out["cand_valid"] or (
                g2 >= 0 and (out["cand2_idx"] != g2 or not out["cand2_valid"])):
            raise AssertionError(f"{self.label} step {self.steps}: granting ({g}, {g2}) but the "
                                 f"block offers {out}")
        granted = 1 << g | (1 << g2 if g2 >= 0 else 0)
        pending = self.valid & ~self.issued
        self.issued |= granted
        if flush:
            drop = pending & ~granted
            self.valid &= ~drop
            self.issued &= ~drop
        self._refresh()
        return 1 << g, (1 << g2 if g2 >= 0 else 0)

    def writeback(self, now: int, mask: int) -> None:
        from hdl.socgpu import pack
        idx = list(self._bits(mask))
        for k in range(0, len(idx), self.p.W):
            chunk = idx[k:k + self.p.W]
            self._step(wb_valid=(1 << len(chunk)) - 1, wb_idx=pack(chunk, self.p.IB))
            for i in chunk:
                self.valid &= ~(1 << i)
                self.issued &= ~(1 << i)
        self._refresh()

    def insert(self, now: int, entries) -> None:
        p = self.p
        entries = list(entries)[:2]
        self._step(**insert_ports(self.label, entries, p.S, p.D, p.RW, p.PW, p.RB,
                                  lambda unit: min(unit, 3)))   # 2-bit class: only reported
        free = ~self.valid & self.full
        for e in entries:
            if not free:
                break
            k = (free & -free).bit_length() - 1
            free &= ~(1 << k)
            self.instr[k], self.seq[k] = e, self.next_seq
            self.next_seq += 1
            self.valid |= 1 << k
            self.issued &= ~(1 << k)
        self._refresh()


def insert_ports(label: str, entries: list, S: int, D: int, RW: int, PW: int, RB: int,
                 unit_class) -> dict[str, int]:
    """The insert ports of an issue block (socgpu_issue and inorder_issue share the record
    format, hdl/socgpu/__init__.py) for up to two entries; ValueError naming the block when an
    entry does not fit its widths."""
    from hdl.socgpu import pack, pack_record
    pcs, npcs, srcs, dsts, serial, units = [], [], [], [], 0, []
    for k, e in enumerate(entries):
        regs = [r for r, _ in e.src + e.dst]
        if len(e.src) > S or len(e.dst) > D or any(r >> RW for r in regs) or (e.pc | e.npc) >> PW:
            raise ValueError(f"{label}: {e!r} does not fit S={S} D={D} RW={RW} PW={PW}")
        pcs.append(e.pc)
        npcs.append(e.npc)
        srcs += [pack_record(r, s, RW) for r, s in e.src] + [0] * (S - len(e.src))
        dsts += [pack_record(r, s, RW) for r, s in e.dst] + [0] * (D - len(e.dst))
        serial |= int(e.serial) << k
        units.append(unit_class(e.unit))
    return dict(ins_valid=(1 << len(entries)) - 1, ins_pc=pack(pcs, PW), ins_npc=pack(npcs, PW),
                ins_src=pack(srcs, RB), ins_dst=pack(dsts, RB), ins_serial=serial,
                ins_unit=pack(units, 2))
