"""Twin of ``hdl.owl_prefetch.OwlPrefetch``: the opportunistic prefetch engine of one memory
controller ([OWL §4.4]; ports, cycle semantics and choices in hdl/params/owl_prefetch.py).

``step(**inputs)`` applies the reported command, returns this cycle's outputs and then applies
the clock edge, exactly as the RTL does. The GPU model (sim/memory/prefetch.py) drives one
instance per DRAM channel through this interface and nothing else.
"""

from __future__ import annotations

from hdl.params.owl_prefetch import PrefetchShape, ema_next


class OwlPrefetchTwin:
    """Behavioural ``owl_prefetch``; per-bank state readable as lists (tests, model)."""

    def __init__(self, BANKS: int = 4, LINES: int = 32, LOWER: int = 8, HIGHER: int = 16,
                 SCHEME: str = "b"):
        self.shape = PrefetchShape(BANKS, LINES, LOWER, HIGHER, SCHEME)
        self.full = (1 << LINES) - 1
        self.scheme_b = SCHEME == "b"
        self.fetched = [0] * BANKS
        self.opened = [0] * BANKS
        self.stopped = [0] * BANKS
        self.pf_count = [0] * BANKS
        self.avg = 0

    def eligible(self, b: int, hit: int, other: int, hold: int) -> bool:
        """May bank ``b`` prefetch now? Never while a demand to its open row waits ([OWL §4.4]);
        mutants override this."""
        return not hit and (not other or hold)

    def step(self, cmd_bank: int = 0, cmd_act: int = 0, cmd_mark: int = 0, cmd_line: int = 0,
             cmd_pf: int = 0, tick: int = 0, hit_pending: int = 0, other_pending: int = 0,
             bank_ready: int = 0, q_len: int = 0) -> dict:
        sh = self.shape
        fetched, opened, stopped, count = self.fetched, self.opened, self.stopped, self.pf_count
        if cmd_bank < sh.BANKS:     # the command reported for the previous slot (bypass)
            if cmd_act:
                fetched[cmd_bank] = 0
                opened[cmd_bank] = 1
                stopped[cmd_bank] = 0
                count[cmd_bank] = 0
            if cmd_mark:
                fetched[cmd_bank] |= 1 << cmd_line
            if cmd_pf and count[cmd_bank] < sh.LINES:
                count[cmd_bank] += 1
        c_high = int(q_len < self.avg >> 4)
        c = sh.HIGHER if c_high else sh.LOWER
        hold = want = 0
        pf_bank = pf_line = 0
        pf_valid = 0
        for b in range(sh.BANKS):
            if not opened[b] or stopped[b] or fetched[b] == self.full:
                continue
            hit, other = hit_pending >> b & 1, other_pending >> b & 1
            held = self.scheme_b and count[b] < c
            if held:
                hold |= 1 << b
            if self.eligible(b, hit, other, held):
                want |= 1 << b
                if not pf_valid and bank_ready >> b & 1:
                    pf_valid, pf_bank = 1, b
                    free = ~fetched[b] & self.full
                    pf_line = (free & -free).bit_length() - 1
            elif not hit and other:
                stopped[b] = 1      # a conflicting demand after the minimum: let the row close
        if tick:
            self.avg = ema_next(self.avg, q_len)
        return {"pf_valid": pf_valid, "pf_bank": pf_bank, "pf_line": pf_line, "hold": hold,
                "want": want, "c_high": c_high}
