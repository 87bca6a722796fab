"""Twin of ``hdl.cta_sched.CtaSched``: IKRA CTA scheduler, same ports and cycle behaviour.

Two ways in:
- ``step(**ports) -> dict`` for lockstep: packed integer ports (``hdl.ikra.params`` packing);
  returns this cycle's outputs, then advances the state as the clock edge does.
- ``cycle(slot_free, tb_done, launch) -> transfers`` for the GPU model: per-CU lists in, the
  list of ``(cu, tb_id, src)`` transfers of this cycle out; ``launch_ready``, ``kernel_done``,
  ``running`` and ``nowork(cu)`` can be read between cycles. Same state, same timing.

Our cycle contract and our choices where [IKRA] is silent are those documented in
``hdl/cta_sched.py``. The divider is not simulated bit by bit: base and rem appear at set-up cycle
1, as in the RTL. Per-event counters (``stats``) feed the scheduler statistics and the property
checks.
"""

from __future__ import annotations

from operator import lt
from typing import Sequence

from hdl.ikra.params import (SRC_CHUNK, SRC_QUEUE, SRC_STOLEN_QUEUE, TB_DONE_W, IkraShape,
                             chunk_bounds, pack, unpack, victim_order)


class CtaSchedTwin:
    """Behavioural G / C / R / F / S CTA scheduler for ``n_cus`` CUs."""

    def __init__(self, n_cus: int, id_w: int = 32, qdepth: int = 32, policy: str = "steal",
                 steal_extra_latency: int = 0, victim_first: str = "right"):
        """``steal_extra_latency`` (twin only, our choice, our parameter list): extra cycles before
        a stolen TB is offered, for sensitivity studies; 0 = the RTL's timing (offer in the next
        cycle). ``victim_first``: the neighbour a thief tries first
        (``hdl.ikra.params.VICTIM_FIRST``)."""
        self.steal_extra_latency = steal_extra_latency
        self.sh = sh = IkraShape(n_cus, id_w, qdepth, policy, victim_first)
        self.p, self.id_w, self.qdepth, self.policy = n_cus, id_w, qdepth, policy
        self.mask = (1 << id_w) - 1
        self.qmask = (1 << sh.q_w) - 1
        self.order = [victim_order(i, n_cus, victim_first) for i in range(n_cus)]
        p = n_cus
        self.active, self.init_left, self.n, self.retired, self.done_pulse = 0, 0, 0, 0, 0
        self.last_cu, self.rot_start, self.next_tb = p - 1, 0, 0
        self.phase = 1 if policy in ("flip", "steal") else 0
        self.lo, self.hi, self.cur = [0] * p, [0] * p, [0] * p
        self.q = [[0] * qdepth for _ in range(p)]
        self.q_lo, self.q_hi, self.q_cur = [0] * p, [0] * p, [0] * p
        self.stolen_valid, self.stolen_tb = [0] * p, [0] * p
        self.stolen_chunk, self.stolen_victim = [0] * p, [0] * p
        self.stolen_wait = [0] * p
        self.overflow = [0] * p
        self.fresh, self.reinit, self.prev_dims = 1, 0, None
        self.stats = {"steals_queue": 0, "steals_chunk": 0, "steal_lost_race": 0,
                      "steal_lost_arbitration": 0, "overflows": 0, "launches": 0, "reinits": 0}
        self.steal_log: list[tuple[int, int, int, int]] = []   # (thief, victim, kind, tb) last edge
        self._last_packed: dict[str, tuple[list[int], int]] = {}

    # ------------------------------------------------------------------ method-level API
    @property
    def launch_ready(self) -> bool:
        return not self.active

    @property
    def running(self) -> bool:
        return bool(self.active and self.init_left == 0)

    @property
    def kernel_done(self) -> bool:
        """The registered pulse the next cycle shows: the last ``cycle()`` retired the N-th TB."""
        return bool(self.done_pulse)

    def cycle(self, slot_free: Sequence[int] | int, tb_done: Sequence[int] = (),
              launch: tuple[int, int, int] | None = None) -> list[tuple[int, int, int]]:
        """One cycle for the GPU model: transfers ``(cu, tb_id, src)``; launch = dims or None."""
        free = slot_free if isinstance(slot_free, int) else pack(slot_free, 1)
        valid, ids, srcs, _ = self._offers(free)
        out = [(i, ids[i], srcs[i]) for i in range(self.p) if valid[i] and free >> i & 1]
        self._edge(launch is not None, launch or (0, 0, 0), free, list(tb_done) or [0] * self.p,
                   valid)
        return out

    # ------------------------------------------------------------------ port-level API
    def step(self, launch_valid: int = 0, grid_x: int = 0, grid_y: int = 0, grid_z: int = 0,
             slot_free: int = 0, tb_done: int = 0) -> dict[str, int]:
        """One clock cycle on packed ports: this cycle's outputs, then the edge."""
        valid, ids, srcs, victims = self._offers(slot_free)
        out = self.outputs(valid, ids, srcs, victims)
        self._edge(launch_valid, (grid_x, grid_y, grid_z), slot_free,
                   unpack(tb_done, TB_DONE_W, self.p) if tb_done else [0] * self.p, valid)
        return out

    def outputs(self, valid, ids, srcs, victims) -> dict[str, int]:
        sh, p, pol = self.sh, self.p, self.policy
        z_id, z_q = [0] * p, [0] * p
        lo = hi = cur = z_id
        q_lo = q_hi = q_cur = z_q
        if pol != "rr":
            lo, hi = self.lo, self.hi
            cur = self.cur if pol == "steal" else (hi if self.phase else lo)
        if pol == "steal":
            q_lo, q_hi, q_cur = self.q_lo, self.q_hi, self.q_cur
        return {
            "launch_ready": 0 if self.active else 1,
            "tb_valid": pack(valid, 1), "tb_id": pack(ids, self.id_w), "tb_src": pack(srcs, 2),
            "tb_victim": pack(victims, sh.cu_w),
            "nowork": self.nowork_mask(),
            "kernel_done": self.done_pulse,
            "st_lo": self._packed("st_lo", lo, self.id_w),
            "st_hi": self._packed("st_hi", hi, self.id_w),
            "st_cur": self._packed("st_cur", cur, self.id_w),
            "st_q_lo": self._packed("st_q_lo", q_lo, sh.q_w),
            "st_q_hi": self._packed("st_q_hi", q_hi, sh.q_w),
            "st_q_cur": self._packed("st_q_cur", q_cur, sh.q_w),
            "st_phase": self.phase, "st_overflow": self._packed("st_overflow", self.overflow, 1),
            "st_last_cu": self.last_cu if pol in ("rr", "chunk") else 0,
            "st_reinit_pending": int(pol == "steal" and (self.fresh or any(self.overflow))),
        }

    def _packed(self, port: str, values: list[int], width: int) -> int:
        """``pack(values, width)``, repacked only when ``values`` changed since the last cycle
        (the status registers change on a few edges only; the GPU model steps every cycle)."""
        last = self._last_packed.get(port)
        if last is not None and last[0] == values:
            return last[1]
        packed = pack(values, width)
        self._last_packed[port] = (list(values), packed)
        return packed

    # ------------------------------------------------------------------ policy state
    def nowork(self, i: int) -> int:
        """Our cycle contract: G no id left; C/R/F own chunk exhausted; S nothing anywhere, nothing
        pending."""
        if not self.running:
            return 0
        if self.policy == "rr":
            return int(self.n == self.next_tb)
        if self.policy == "steal":
            return int(not self.stolen_valid[i] and not any(
                self._c_av(v) or self._q_av(v) for v in range(self.p)))
        return int(self.lo[i] >= self.hi[i])

    def nowork_mask(self) -> int:
        """``nowork`` of all CUs as a mask (bit i = CU i)."""
        if not self.running:
            return 0
        p = self.p
        if self.policy == "steal":
            # work somewhere: ``_c_av`` or ``_q_av`` of some CU (one pass over the lists)
            if self.phase:
                if any(map(lt, self.lo, self.cur)) or self.q_cur != self.q_lo:
                    return 0
            elif any(map(lt, self.cur, self.hi)) or self.q_cur != self.q_hi:
                return 0
            return pack([1 - sv for sv in self.stolen_valid], 1)
        return pack([self.nowork(i) for i in range(p)], 1)

    def _c_av(self, i: int) -> bool:
        return self.lo[i] < self.cur[i] if self.phase else self.cur[i] < self.hi[i]

    def _q_av(self, i: int) -> bool:
        return self.q_cur[i] != (self.q_lo[i] if self.phase else self.q_hi[i])

    def _c_left(self, i: int) -> int:
        return self.cur[i] - self.lo[i] if self.phase else self.hi[i] - self.cur[i]

    def _q_left(self, i: int) -> int:
        d = (self.q_cur[i] - self.q_lo[i]) if self.phase else (self.q_hi[i] - self.q_cur[i])
        return d & self.qmask

    def _q_read(self, i: int, ptr: int) -> int:
        return self.q[i][ptr & (self.qdepth - 1)]

    def rr_pointer(self) -> int:
        """G's pointer: successor of the CU that received the last TB ([IKRA])."""
        return (self.last_cu + 1) % self.p

    def _offers(self, slot_free: int):
        """Per-CU (valid, tb_id, src, victim) from the state (and slot_free for G only)."""
        p = self.p
        valid, ids, srcs, victims = [0] * p, [0] * p, [0] * p, [0] * p
        if not self.running:
            return valid, ids, srcs, victims
        pol = self.policy
        if pol == "rr":
            ptr = self.rr_pointer()
            left = min(self.n - self.next_tb, p)
            rank = 0
            for k in range(p):
                i = (ptr + k) % p
                if slot_free >> i & 1:
                    if rank < left:
                        valid[i], ids[i] = 1, self.next_tb + rank
                    rank += 1
        elif pol == "steal":
            ph = self.phase
            for i in range(p):
                if self.stolen_valid[i]:
                    if self.stolen_wait[i]:
                        continue                       # steal_extra_latency still running
                    valid[i], ids[i] = 1, self.stolen_tb[i]
                    srcs[i] = SRC_STOLEN_QUEUE + self.stolen_chunk[i]
                    victims[i] = self.stolen_victim[i]
                    continue
                c_av, q_av = self._c_av(i), self._q_av(i)
                from_q = q_av if ph else (q_av and not c_av)
                if from_q:
                    valid[i], srcs[i] = 1, SRC_QUEUE
                    ids[i] = self._q_read(i, self.q_cur[i] - 1 if ph else self.q_cur[i])
                elif c_av:
                    valid[i], srcs[i] = 1, SRC_CHUNK
                    ids[i] = self.cur[i] - 1 if ph else self.cur[i]
        else:
            for i in range(p):
                if self.lo[i] < self.hi[i]:
                    valid[i] = 1
                    ids[i] = self.hi[i] - 1 if self.phase else self.lo[i]
        return valid, ids, srcs, victims

    # ------------------------------------------------------------------ clock edge
    def _edge(self, launch_valid, dims, slot_free: int, done: Sequence[int], valid) -> None:
        p, pol = self.p, self.policy
        running = self.running
        fire = launch_valid and not self.active
        xfer = [valid[i] and slot_free >> i & 1 for i in range(p)]
        self.steal_log = []
        if running:
            if pol == "rr":
                self._edge_rr(xfer)
            elif pol == "steal":
                self._edge_steal(slot_free, xfer)
            else:
                self._edge_chunk(xfer)
        self.done_pulse = 0
        if running:
            self.retired += sum(done)
            if self.retired >= self.n:
                self.active, self.done_pulse = 0, 1
        if fire:
            self._launch(dims)
        elif self.init_left:
            if self.init_left == 2:
                self._setup1()
            elif self.init_left == 1:
                self._setup2()
            self.init_left -= 1

    def _launch(self, dims: tuple[int, int, int]) -> None:
        gx, gy, gz = dims
        self.active, self.init_left = 1, self.sh.init_cycles
        self.n, self.retired = (gx * gy * gz) & self.mask, 0
        self.stats["launches"] += 1
        if self.policy == "rr":
            self.next_tb = 0
        elif self.policy == "chunk":
            self.rot_start = (self.last_cu + 1) % self.p
        elif self.policy == "steal":
            assert not any(self.stolen_valid), "stolen_valid set at a launch (our choice)"
            self.reinit = int(self.fresh or any(self.overflow) or dims != self.prev_dims)
            self.prev_dims, self.fresh = dims, 0

    def _setup1(self) -> None:
        if self.policy == "rr" or (self.policy == "steal" and not self.reinit):
            return
        start = self.rot_start if self.policy == "chunk" else 0
        for i in range(self.p):
            self.lo[i], self.hi[i] = chunk_bounds(i, self.n, self.p, start)
        if self.policy == "steal":
            self.stats["reinits"] += 1
            for i in range(self.p):
                self.q_lo[i] = self.q_hi[i] = 0
                self.overflow[i] = 0

    def _setup2(self) -> None:
        if self.policy not in ("flip", "steal"):
            return
        self.phase ^= 1
        if self.policy == "steal":
            for i in range(self.p):
                self.cur[i] = self.hi[i] if self.phase else self.lo[i]
                self.q_cur[i] = self.q_hi[i] if self.phase else self.q_lo[i]

    def _edge_rr(self, xfer) -> None:
        ptr = self.rr_pointer()
        served = [k for k in range(self.p) if xfer[(ptr + k) % self.p]]
        if served:
            self.next_tb += len(served)
            self.last_cu = (ptr + served[-1]) % self.p

    def _edge_chunk(self, xfer) -> None:
        for i in range(self.p):
            if xfer[i]:
                if self.phase:
                    self.hi[i] -= 1
                else:
                    self.lo[i] += 1
        if self.policy == "chunk":
            s = self.rot_start
            served = [k for k in range(self.p) if xfer[(s + k) % self.p]]
            if served:
                self.last_cu = (s + served[-1]) % self.p

    def _take(self, v: int, kind: int) -> int:
        """Remove and return the TB victim ``v`` would run last from its queue (0) or chunk (1)."""
        if kind:
            if self.phase:
                self.lo[v] += 1
                return self.lo[v] - 1
            self.hi[v] -= 1
            return self.hi[v]
        if self.phase:
            val = self._q_read(v, self.q_lo[v])
            self.q_lo[v] = (self.q_lo[v] + 1) & self.qmask
            return val
        self.q_hi[v] = (self.q_hi[v] - 1) & self.qmask
        return self._q_read(v, self.q_hi[v])

    def _append(self, i: int, tb: int) -> None:
        """The thief records the stolen TB at its q_hi, born dispatched ([IKRA Steal] step 5)."""
        if (self.q_hi[i] - self.q_lo[i]) & self.qmask == self.qdepth:
            self.overflow[i] = 1
            self.stats["overflows"] += 1
            return
        self.q[i][self.q_hi[i] & (self.qdepth - 1)] = tb
        self.q_hi[i] = (self.q_hi[i] + 1) & self.qmask
        if not self.phase:
            self.q_cur[i] = (self.q_cur[i] + 1) & self.qmask

    def _edge_steal(self, slot_free: int, xfer) -> None:
        p, ph = self.p, self.phase
        c_av = [self._c_av(i) for i in range(p)]
        q_av = [self._q_av(i) for i in range(p)]
        # Victim choice and arbitration on the registered state (our steal timing).
        aims: dict[tuple[int, int], int] = {}
        for i in range(p):
            if not (slot_free >> i & 1) or self.stolen_valid[i] or c_av[i] or q_av[i]:
                continue
            aim = next(((0, v) for v in self.order[i] if q_av[v]), None) or \
                next(((1, v) for v in self.order[i] if c_av[v]), None)
            if aim is None:
                continue
            if aim in aims:
                self.stats["steal_lost_arbitration"] += 1
            else:
                aims[aim] = i                          # ascending i: lowest index wins
        local = {}
        for i in range(p):
            if xfer[i] and not self.stolen_valid[i]:
                from_q = q_av[i] if ph else (q_av[i] and not c_av[i])
                local[i] = 0 if from_q else 1          # region kind it dispatches from
        grants = []
        for (kind, v), thief in aims.items():
            left = self._c_left(v) if kind else self._q_left(v)
            if local.get(v) == kind and left == 1:
                self.stats["steal_lost_race"] += 1     # the victim keeps its last TB
                continue
            grants.append((thief, kind, v))
        if self.steal_extra_latency:
            self.stolen_wait = [max(0, w - 1) for w in self.stolen_wait]
        # Local dispatches (registered cursors move) …
        for i in range(p):
            if not xfer[i]:
                continue
            if self.stolen_valid[i]:
                self.stolen_valid[i] = 0
            elif local[i]:
                self.cur[i] += -1 if ph else 1
            else:
                self.q_cur[i] = (self.q_cur[i] + (-1 if ph else 1)) & self.qmask
        # … and thefts shrink the victims and load the thieves.
        for thief, kind, v in grants:
            tb = self._take(v, kind)
            self.stolen_valid[thief], self.stolen_tb[thief] = 1, tb
            self.stolen_chunk[thief], self.stolen_victim[thief] = kind, v
            self.stolen_wait[thief] = self.steal_extra_latency
            self.stats["steals_chunk" if kind else "steals_queue"] += 1
            self.steal_log.append((thief, v, kind, tb))
            self._append(thief, tb)
