"""Per-cycle properties of ``cta_sched`` checked from port values only (our test plan for [IKRA]).

``CtaSchedChecker.check(inputs, outputs)`` is called once per cycle with the inputs and the
outputs of that cycle, from the twin or from the RTL. It raises ``PropertyViolation`` naming the
cycle, the property and the values. Checked:

- no offer while idle or before initialisation ends (ID_W + 2 cycles after the handshake);
- every id of ``[0, N)`` transferred exactly once per kernel; ``kernel_done`` exactly in the
  cycle after the retirements reach N; ``nowork`` as our cycle contract defines it;
- G: each cycle's transfers are the next ids, dealt in circular order from last served + 1;
- C / R / F: CU i is offered exactly its [IKRA Chunk] chunk (C rotated from last served + 1),
  ascending, or descending in F's odd launches (so R / F keep TB i on the same CU for equal dims and F's
  per-CU order flips on alternate launches);
- S at every launch: chunks disjoint, chunk + live queue sizes = N, and a full re-chunk with empty
  queues after the first kernel, an overflow or a dims change; every cycle, each thief (free slot,
  no offer) aims at the first available region in [IKRA Steal] order (queues first), the lowest
  thief per region wins unless the victim dispatches that region's last TB, and a winner offers in
  the next cycle the victim's last-to-run TB (checked by value for chunks) with matching src/victim.
"""

from __future__ import annotations

from hdl.ikra.params import (SRC_STOLEN_QUEUE, TB_DONE_W, IkraShape, chunk_bounds, unpack,
                             victim_order)


class PropertyViolation(AssertionError):
    """A ``cta_sched`` property failed; the message names cycle, property and values."""


class CtaSchedChecker:
    def __init__(self, n_cus: int, id_w: int = 32, qdepth: int = 32, policy: str = "steal",
                 victim_first: str = "right"):
        self.sh = IkraShape(n_cus, id_w, qdepth, policy, victim_first)
        self.p, self.policy = n_cus, policy
        self.cycle = -1
        self.kernel = -1                  # launches so far - 1
        self.n = 0
        self.first_run = None             # first cycle offers are allowed
        self.active = False
        self.seen: bytearray | None = None
        self.sent = 0
        self.retired = 0
        self.expect_done = False
        self.last_cu = n_cus - 1          # G / C: CU that received the last TB
        self.rot_start = 0
        self.seq: list[list[int]] = []    # C/R/F: expected per-CU order of this kernel
        self.pos: list[int] = []
        self.prev_dims = None
        self.dims = None
        self.fresh = True
        self.reinit = False
        self.steal_expect: dict[int, tuple[int, int, int | None]] | None = None
        self.thieves: list[int] = []
        self.steal_checks = 0

    def fail(self, what: str) -> None:
        raise PropertyViolation(f"cta_sched {self.policy} P={self.p}: cycle {self.cycle}, "
                                f"kernel {self.kernel} (N={self.n}): {what}")

    # ------------------------------------------------------------------
    def check(self, inp: dict, out: dict) -> None:
        self.cycle += 1
        p, sh = self.p, self.sh
        valid = out["tb_valid"]
        free = inp["slot_free"]
        xfer = valid & free
        ids = unpack(out["tb_id"], sh.id_w, p)
        srcs = unpack(out["tb_src"], 2, p)

        if out["kernel_done"] != int(self.expect_done):
            self.fail(f"kernel_done={out['kernel_done']} but {self.retired} of {self.n} retired")
        if self.expect_done:
            if self.sent != self.n or (self.seen is not None and not all(self.seen)):
                self.fail(f"kernel_done after {self.sent} of {self.n} ids were transferred")
            self.active, self.expect_done = False, False
        running = self.active and self.first_run is not None and self.cycle >= self.first_run
        if out["launch_ready"] != int(not self.active):
            self.fail(f"launch_ready={out['launch_ready']} with kernel active={self.active}")
        if not running and valid:
            self.fail(f"offer tb_valid={valid:#x} outside a running kernel (idle or init)")

        if self.policy == "steal" and self.steal_expect is not None:
            self._check_steals(valid, ids, srcs, out)
        self.steal_expect = None

        if running:
            if self.cycle == self.first_run:
                self._kernel_starts(out)
            self._check_offers(valid, ids, srcs, free, out)
            self._check_nowork(valid, srcs, out)
            for i in range(p):
                if xfer >> i & 1:
                    self._transfer(i, ids[i])
            if self.policy in ("rr", "chunk") and xfer:
                start = self._rr_ptr() if self.policy == "rr" else self.rot_start
                served = [k for k in range(p) if xfer >> ((start + k) % p) & 1]
                self.last_cu = (start + served[-1]) % p
            if self.policy == "steal":
                self._plan_steals(valid, free, xfer, srcs, out)
            done = sum(unpack(inp["tb_done"], TB_DONE_W, p))
            before = self.retired
            self.retired += done
            if self.retired > self.sent:
                self.fail(f"{self.retired} retired but only {self.sent} transferred")
            self.expect_done = before < self.n <= self.retired
        elif out["nowork"]:
            self.fail(f"nowork={out['nowork']:#x} outside a running kernel")

        if inp["launch_valid"] and out["launch_ready"]:
            self._launch((inp["grid_x"], inp["grid_y"], inp["grid_z"]), out)

    # ------------------------------------------------------------------
    def _launch(self, dims, out) -> None:
        gx, gy, gz = dims
        self.kernel += 1
        self.n = (gx * gy * gz) & ((1 << self.sh.id_w) - 1)
        self.first_run = self.cycle + self.sh.init_cycles + 1
        self.active, self.sent, self.retired = True, 0, 0
        self.seen = bytearray(self.n)
        self.reinit = self.fresh or bool(out["st_reinit_pending"]) or dims != self.prev_dims
        self.prev_dims, self.fresh = dims, False
        if self.policy == "chunk":
            self.rot_start = (self.last_cu + 1) % self.p
        self.next_tb = 0

    def _transfer(self, i: int, tb: int) -> None:
        if tb >= self.n:
            self.fail(f"CU {i} received id {tb} >= N")
        if self.seen[tb]:
            self.fail(f"id {tb} transferred twice (now to CU {i})")
        self.seen[tb] = 1
        self.sent += 1
        if self.seq:
            self.pos[i] += 1

    def _status(self, out, name: str, w: int) -> list[int]:
        return unpack(out[name], w, self.p)

    def _kernel_starts(self, out) -> None:
        p, idw, qw = self.p, self.sh.id_w, self.sh.q_w
        self.seq, self.pos = [], []
        if self.policy in ("chunk", "reset", "flip"):
            start = self.rot_start if self.policy == "chunk" else 0
            down = self.policy == "flip" and self.kernel % 2 == 1
            for i in range(p):
                lo, hi = chunk_bounds(i, self.n, p, start)
                self.seq.append(list(range(hi - 1, lo - 1, -1)) if down else list(range(lo, hi)))
            self.pos = [0] * p
        if self.policy != "steal":
            return
        lo, hi = self._status(out, "st_lo", idw), self._status(out, "st_hi", idw)
        q_lo, q_hi = self._status(out, "st_q_lo", qw), self._status(out, "st_q_hi", qw)
        if out["st_phase"] != self.kernel % 2:
            self.fail(f"phase {out['st_phase']} in launch {self.kernel} (expected alternating from 0)")
        if self.reinit:
            for i in range(p):
                if (lo[i], hi[i]) != chunk_bounds(i, self.n, p, 0) or q_lo[i] != q_hi[i] or q_lo[i]:
                    self.fail(f"re-chunk expected: CU {i} has [{lo[i]}, {hi[i]}) queue "
                              f"[{q_lo[i]}, {q_hi[i]}), want {chunk_bounds(i, self.n, p, 0)}, empty")
        spans = sorted((lo[i], hi[i]) for i in range(p) if hi[i] > lo[i])
        for (a0, a1), (b0, b1) in zip(spans, spans[1:]):
            if b0 < a1:
                self.fail(f"chunks overlap: [{a0}, {a1}) and [{b0}, {b1})")
        if spans and (spans[0][0] < 0 or spans[-1][1] > self.n):
            self.fail(f"chunks {spans} outside [0, {self.n})")
        qmask = (1 << qw) - 1
        total = sum(hi[i] - lo[i] for i in range(p) if hi[i] > lo[i])
        total += sum((q_hi[i] - q_lo[i]) & qmask for i in range(p))
        if total != self.n:
            self.fail(f"chunks + queues hold {total} TBs at launch, N = {self.n} (cover broken)")

    def _rr_ptr(self) -> int:
        return (self.last_cu + 1) % self.p

    def _check_offers(self, valid, ids, srcs, free, out) -> None:
        p = self.p
        if self.policy == "rr":
            ptr = self._rr_ptr()
            order = [(ptr + k) % p for k in range(p) if free >> ((ptr + k) % p) & 1]
            expect = order[:max(0, self.n - self.sent)]
            for rank, i in enumerate(expect):
                if not (valid >> i & 1) or ids[i] != self.sent + rank:
                    self.fail(f"G: CU {i} (rank {rank} from pointer {ptr}) should get id "
                              f"{self.sent + rank}; tb_valid={valid:#x} tb_id[{i}]={ids[i]}")
            extra = valid & ~sum(1 << i for i in expect)
            if extra:
                self.fail(f"G: unexpected offers {extra:#x} (pointer {ptr}, {self.sent} sent)")
        elif self.seq:
            for i in range(p):
                rest = self.seq[i][self.pos[i]:]
                want = (1, rest[0]) if rest else (0, 0)
                if (valid >> i & 1, ids[i]) != want:
                    self.fail(f"CU {i}: offer (valid, id) = ({valid >> i & 1}, {ids[i]}), "
                              f"its [IKRA Chunk] chunk order wants {want}")

    def _check_nowork(self, valid, srcs, out) -> None:
        p, nw = self.p, out["nowork"]
        if self.policy == "rr":
            want = (1 << p) - 1 if self.sent == self.n else 0
        elif self.policy == "steal":
            av = self._avail(out)
            any_work = any(c or q for c, q, _, _ in av)
            want = 0 if any_work else sum(1 << i for i in range(p)
                                         if not (valid >> i & 1 and srcs[i] >= SRC_STOLEN_QUEUE))
        else:
            want = sum(1 << i for i in range(p) if self.pos[i] >= len(self.seq[i]))
        if nw != want:
            self.fail(f"nowork={nw:#x}, expected {want:#x}")

    def _avail(self, out) -> list[tuple[bool, bool, int, int]]:
        """Per CU: (chunk available, queue available, chunk TBs left, queue TBs left)."""
        idw, qw, ph = self.sh.id_w, self.sh.q_w, out["st_phase"]
        lo, hi, cur = (self._status(out, k, idw) for k in ("st_lo", "st_hi", "st_cur"))
        ql, qh, qc = (self._status(out, k, qw) for k in ("st_q_lo", "st_q_hi", "st_q_cur"))
        qmask = (1 << qw) - 1
        res = []
        for i in range(self.p):
            c_left = cur[i] - lo[i] if ph else hi[i] - cur[i]
            q_left = ((qc[i] - ql[i]) if ph else (qh[i] - qc[i])) & qmask
            res.append((c_left > 0, q_left > 0, c_left, q_left))
        return res

    def _plan_steals(self, valid, free, xfer, srcs, out) -> None:
        """Which thief must succeed against which region at this edge ([IKRA Steal], our cycle
        contract)."""
        p, idw, ph = self.p, self.sh.id_w, out["st_phase"]
        av = self._avail(out)
        lo, hi = self._status(out, "st_lo", idw), self._status(out, "st_hi", idw)
        self.thieves = [i for i in range(p) if free >> i & 1 and not valid >> i & 1]
        taken: set[tuple[int, int]] = set()
        expect = {}
        for i in self.thieves:                                  # ascending: lowest index first
            order = victim_order(i, p, self.sh.victim_first)
            aim = next(((0, v) for v in order if av[v][1]), None) or \
                next(((1, v) for v in order if av[v][0]), None)
            if aim is None or aim in taken:
                continue
            taken.add(aim)
            kind, v = aim
            local_kind = None
            if xfer >> v & 1 and srcs[v] < SRC_STOLEN_QUEUE:
                local_kind = 1 if srcs[v] == 0 else 0
            if local_kind == kind and av[v][3 - kind] == 1:
                continue                                        # victim keeps its last TB
            want_id = (lo[v] if ph else hi[v] - 1) if kind else None
            expect[i] = (kind, v, want_id)
        self.steal_expect = expect

    def _check_steals(self, valid, ids, srcs, out) -> None:
        victims = unpack(out["tb_victim"], self.sh.cu_w, self.p)
        for i in self.thieves:
            got = valid >> i & 1
            want = self.steal_expect.get(i)
            if want is None:
                if got:
                    self.fail(f"CU {i} got a TB ({ids[i]}, src {srcs[i]}) it should not have stolen")
                continue
            kind, v, want_id = want
            self.steal_checks += 1
            if not got:
                self.fail(f"thief CU {i} should have stolen from CU {v}'s "
                          f"{'chunk' if kind else 'queue'} but offers nothing")
            if srcs[i] != SRC_STOLEN_QUEUE + kind or victims[i] != v:
                self.fail(f"thief CU {i}: src {srcs[i]} victim {victims[i]}, expected src "
                          f"{SRC_STOLEN_QUEUE + kind} victim {v} ([IKRA Steal] victim order)")
            if want_id is not None and ids[i] != want_id:
                self.fail(f"thief CU {i} took id {ids[i]} from CU {v}'s chunk; the victim's "
                          f"last-to-run TB is {want_id}")


def checked_twin_class(base):
    """A subclass of twin class ``base`` whose ``step`` runs the property checker on its outputs."""

    class Checked(base):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.checker = CtaSchedChecker(self.p, self.id_w, self.qdepth, self.policy,
                                           self.sh.victim_first)

        def step(self, **inputs) -> dict[str, int]:
            out = super().step(**inputs)
            self.checker.check(inputs, out)
            return out

    Checked.__name__ = f"Checked{base.__name__}"
    return Checked
