"""Twin of ``ck_dispatch`` ([THESIS §5.4]): the Kernel Status Block, the Core Status Block
and the concurrent-kernel dispatcher, cycle for cycle as hdl/ck_dispatch.py (contract in
hdl/params/ck_dispatch.py).

The GPU model's kernel schedulers (sim/policies/ck_dispatch.py) use the method level —
``launch``, ``allowed``, ``cap``, ``issue``, ``done``, ``completes`` — and the lockstep bench
``step``; both run the same code.

Choices (the thesis's figures give the fields, not the encoding): Grid dimension and Next block
are kept as linear CTA counts (the (x, y, z) order is the dispatcher's address generation, not a
scheduling decision); the Resources field holds what the scheduler reads of them, the two
per-core maxima ``full`` (occupancy alone) and ``share`` (the partition while sharing), computed
by the host from the kernel's registers and shared memory; the CSB's Assigned-kernel queue is
the per-(core, row) count of active blocks, and a core's Active kernel is the row it holds CTAs of.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hdl.params.ck_dispatch import KIDW, POLICIES


@dataclass
class KsbRow:
    valid: bool = False
    kid: int = 0
    grid: int = 0
    next: int = 0
    full: int = 0
    share: int = 0
    active_cores: int = 0
    age: int = 0            # launch order (the RTL keeps an age matrix)

    def left(self) -> bool:
        return self.valid and self.next != self.grid


@dataclass
class CkDispatchTwin:
    K: int = 16
    NC: int = 16
    BW: int = 16
    MW: int = 4
    policy: str = "interleaved"
    rows: list[KsbRow] = field(default_factory=list)
    count: list[list[int]] = field(default_factory=list)      # CSB: [core][row] active blocks
    launches: int = 0

    def __post_init__(self):
        if self.policy not in POLICIES:
            raise ValueError(f"policy = {self.policy!r}: allowed: {', '.join(POLICIES)}")
        self.rows = [KsbRow() for _ in range(self.K)]
        self.count = [[0] * self.K for _ in range(self.NC)]

    # -- combinational view of the state -------------------------------------------------------
    def free_row(self) -> int | None:
        return next((k for k, r in enumerate(self.rows) if not r.valid), None)

    def n_left(self) -> int:
        return sum(r.left() for r in self.rows)

    def cap(self, k: int) -> int:
        """Max blocks of row ``k`` per core (the CSB's Maximum-blocks entry)."""
        r = self.rows[k]
        if not r.valid:
            return 0
        if self.policy == "interleaved" and not (r.left() and self.n_left() == 1):
            return r.share
        return r.full

    def assigned(self, c: int) -> int | None:
        """Baseline: the row dealt to core ``c`` (round-robin over the rows with blocks left)."""
        left = [k for k, r in enumerate(self.rows) if r.left()]
        return left[c % len(left)] if left else None

    def oldest_left(self) -> int | None:
        left = [(r.age, k) for k, r in enumerate(self.rows) if r.left()]
        return min(left)[1] if left else None

    def allowed(self, c: int, k: int) -> bool:
        r = self.rows[k]
        if not r.left() or self.count[c][k] >= self.cap(k):
            return False
        if self.policy == "baseline":
            return self.assigned(c) == k and all(n == 0 for j, n in enumerate(self.count[c]) if j != k)
        if self.policy == "sequential":
            return self.oldest_left() == k
        return True

    # -- events (method level: each applied at once) -------------------------------------------
    def launch(self, blocks: int, full: int, share: int, kid: int = 0) -> int | None:
        """Fill the lowest free KSB row, or None: the launch fails (KSB full)."""
        k = self.free_row()
        if k is not None:
            self.fill(k, blocks, full, share, kid)
        return k

    def fill(self, k: int, blocks: int, full: int, share: int, kid: int) -> None:
        self.rows[k] = KsbRow(True, kid & ((1 << KIDW) - 1), blocks, 0, full, share, 0, self.launches)
        self.launches += 1

    def issue(self, c: int, k: int) -> None:
        assert self.allowed(c, k), f"core {c} may not take a CTA of row {k}"
        self.rows[k].next += 1
        self.count[c][k] += 1
        if self.count[c][k] == 1:
            self.rows[k].active_cores += 1

    def done(self, c: int, k: int) -> None:
        assert self.count[c][k] > 0, f"core {c} holds no CTA of row {k}"
        self.count[c][k] -= 1
        if self.count[c][k] == 0:
            self.rows[k].active_cores -= 1

    def completes(self) -> list[int]:
        """Rows complete now (valid, fully issued, on no core): marked invalid; the host is told."""
        out = [k for k, r in enumerate(self.rows) if r.valid and not r.left() and r.active_cores == 0]
        for k in out:
            self.rows[k].valid = False
        return out

    # -- port level (lockstep) -----------------------------------------------------------------
    def outputs(self) -> dict[str, int]:
        """The state's outputs (every one but the event answers ``launch_ok``, ``launch_row``,
        ``issue_ok`` and ``complete``)."""
        K, NC, MW = self.K, self.NC, self.MW
        allow = max_blocks = kid = valid = issued_all = 0
        for k, r in enumerate(self.rows):
            kid |= r.kid << (k * KIDW)          # kept after a row completes, as the RTL does
            if not r.valid:
                continue
            max_blocks |= self.cap(k) << (k * MW)
            valid |= 1 << k
            issued_all |= int(not r.left()) << k
            if r.left():
                for c in range(NC):
                    if self.allowed(c, k):
                        allow |= 1 << (c * K + k)
        free = self.free_row()
        return {"launch_ok": int(free is not None), "launch_row": free or 0, "valid": valid,
                "issued_all": issued_all, "allow": allow, "max_blocks": max_blocks,
                "issue_ok": 0, "complete": 0, "kid": kid}

    def peek(self) -> dict[str, int]:
        """Outputs after the last edge with no event on the inputs."""
        return self.outputs()

    def step(self, launch_valid=0, launch_kid=0, launch_blocks=0, launch_full=0, launch_share=0,
             issue_valid=0, issue_core=0, issue_k=0, done_valid=0, done_core=0, done_k=0) -> dict:
        K, NC = self.K, self.NC
        out = self.outputs()
        allow = out["allow"]
        free = self.free_row()
        issue_ok = bool(issue_valid and issue_core < NC and allow >> (issue_core * K + issue_k) & 1)
        done_ok = bool(done_valid and done_core < NC)
        if issue_ok:
            self.issue(issue_core, issue_k)
        if done_ok:
            self.done(done_core, done_k)
        complete = 0
        for k in self.completes():
            complete |= 1 << k
        if launch_valid and free is not None:        # the row free before this cycle's completions
            self.fill(free, launch_blocks, launch_full, launch_share, launch_kid)
        out["issue_ok"], out["complete"] = int(issue_ok), complete
        return out
