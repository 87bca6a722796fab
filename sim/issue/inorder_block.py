"""The SOCGPU paper's baseline issue block for the GPU model: the semantics of
``sim.blocks.inorder_issue.InorderIssueTwin`` with unbounded scoreboards (our cycle contract for
[SOCGPU], [SOCGPU baseline], our choice), behind the same model API as ``FastSocgpuIssue``.

2-entry FIFO, only the head may issue, entries freed at issue, ``ins_ready`` = buffer empty;
a scoreboard of pending destinations (RAW/WAW) and of pending sources (WAR), set at issue and
released at write-back; the dual candidate is the second entry when the head issues, it passes
the scoreboard, does not conflict with the head and uses another unit ([SOCGPU dual issue]).
``sm.issue = inorder_issue`` runs it through the SOCGPU glue, so fetch, flush and write-back are
modelled as for SOCGPU and only the per-warp block differs. The default ``inorder`` stage is the
GPGPU-Sim scoreboard (RAW/WAW only) and is not this block.

Issued instructions are named by *tokens* (bits, lowest free first) because entries are freed at
issue; ``grant`` returns them and ``writeback`` takes a mask of them.
"""

from __future__ import annotations


class FastInorderIssue:
    """One warp's baseline block; ``N``/``policy``/``slot`` are accepted and ignored (2 entries,
    head only); ``dual``: off | on (smart means on: the baseline has no smart mode)."""

    __slots__ = ("n", "dual", "ib", "valid", "issued", "inflight", "tokens", "pend_d", "pend_s",
                 "rdy", "_c1", "_c2")

    def __init__(self, N: int = 2, policy: str = "first", dual: str = "on", slot: int = 0):
        self.n, self.dual = 2, dual != "off"
        self.ib: list = []
        self.valid = self.issued = 0
        self.inflight: dict[int, object] = {}    # token bit → issued entry (until write-back)
        self.tokens = 0
        self.pend_d = self.pend_s = 0             # register masks of pending dst / src records
        self.rdy = 0
        self._c1 = self._c2 = False

    @property
    def instr(self) -> list:
        return self.ib

    def _clear(self, x) -> bool:
        return not (x.umask & self.pend_d or x.dmask & self.pend_s)

    def _refresh(self) -> None:
        ib = self.ib
        c1 = bool(ib) and self._clear(ib[0])
        c2 = False
        if self.dual and c1 and len(ib) == 2:
            a, b = ib[1], ib[0]
            c2 = (self._clear(a) and a.unit != b.unit and not a.serial and not b.serial
                  and not (a.dmask & b.umask or a.umask & b.dmask))
        self._c1, self._c2 = c1, c2
        self.rdy = (1 if c1 else 0) | (2 if c2 else 0)
        self.valid = (1 << len(ib)) - 1

    def _recompute(self) -> None:
        d = s = 0
        for e in self.inflight.values():
            d |= e.dmask
            s |= e.smask
        self.pend_d, self.pend_s = d, s

    # ---- model API (as FastSocgpuIssue) ----
    def writeback(self, now: int, mask: int) -> None:
        inflight = self.inflight
        m = mask
        while m:
            low = m & -m
            m ^= low
            inflight.pop(low, None)
        self.tokens &= ~mask
        self._recompute()
        self._refresh()

    def candidates(self, now: int, unit_free: int = 0) -> tuple[int, int]:
        return (0 if self._c1 else -1), (1 if self._c2 else -1)

    def cand(self, now: int) -> int:
        return 0 if self._c1 else -1

    def grant(self, now: int, g: int, g2: int = -1, flush: bool = False) -> tuple[int, int]:
        """Issue the head (and the second entry); returns their tokens. ``flush`` empties the
        buffer after them."""
        n = 2 if g2 >= 0 else 1
        toks = []
        for x in self.ib[:n]:
            free = ~self.tokens
            tok = free & -free
            self.tokens |= tok
            self.inflight[tok] = x
            self.pend_d |= x.dmask
            self.pend_s |= x.smask
            toks.append(tok)
        self.ib = [] if flush else self.ib[n:]
        self._refresh()
        return toks[0], (toks[1] if n == 2 else 0)

    def insert(self, now: int, entries) -> None:
        self.ib = (self.ib + list(entries))[:2]
        self._refresh()
