"""Opportunistic memory-side prefetch engine ``owl_prefetch``, one per memory controller ([OWL
§4.4, §4.5]): parameters, port table, storage and the shift-EMA reference.

One block cycle is one scheduling decision of the controller (a DRAM command slot, or a re-look
inside the same slot after a proposed line was found in the L2). Per cycle the controller reports
the command it issued since the last cycle (``cmd_*``) and the state of its demand queue; the
engine answers with a prefetch proposal, the banks whose open row it holds against conflicting
demands (scheme B) and the banks where it still has work.

Choices beyond the spec (the RTL and the twin follow them alike):

- The reported command is applied before this cycle's outputs are formed (a bypass): an ACT
  clears the bank's ``fetched`` vector, its prefetch count and its stop flag; a column read
  (demand or prefetch) or a skip (line already in the L2) sets the line's bit; ``cmd_pf`` counts
  a prefetch. So the engine never proposes the line just issued.
- ``stopped`` per bank ends the episode until the next ACT ("allow precharge"): without it a
  scheme-B bank would start a new episode of C lines right after stopping and never let the
  conflicting demand through.
- C = HIGHER when ``q_len`` < ⌊avg⌋, else LOWER, re-evaluated every cycle ([OWL §4.4]; the
  re-evaluation is ours).
- avg: 7 integer + 4 fraction bits, ``avg += ((min(q,127) << 4) − avg) >> 4`` (arithmetic
  shift, α = 1/16, our choice where [OWL §4.4] is silent) on cycles with ``tick`` = 1 (one sample
  per command slot, not per re-look). The spec's 7-bit register keeps only the integer part, which
  would stick when
  |q − avg| < 16; the 4 fraction bits avoid that.
- Several banks eligible: the lowest bank index gets the proposal; inside a bank the lowest
  unfetched column (scan from column 0: our choice where [OWL §4.4] is silent).
- Scheme A never holds a row; scheme B holds it while pf_count < C (row-hold), then behaves as A.
"""

from __future__ import annotations

from dataclasses import dataclass

from . import Param, Ports, port

AVG_FRAC = 4            # fraction bits of the running average
Q_MAX = 127             # q_len saturates here (7 bits, [OWL §4.5])


def _pow2(v: int) -> bool:
    return v >= 1 and not v & (v - 1)


PARAMS = {
    "BANKS": Param(int, 4, "an integer in 1..16 (banks per memory controller)", lambda v: 1 <= v <= 16),
    "LINES": Param(int, 32, "a power of two in 4..64 (lines per DRAM row)",
                   lambda v: _pow2(v) and 4 <= v <= 64),
    "LOWER": Param(int, 8, "an integer in 1..64 (minimum degree C)", lambda v: 1 <= v <= 64),
    "HIGHER": Param(int, 16, "an integer in 1..64 (C when the queue is below its average)",
                    lambda v: 1 <= v <= 64),
    "SCHEME": Param(str, "b", "a or b (stop-on-demand / minimum degree C)", lambda v: v in ("a", "b")),
}


@dataclass(frozen=True)
class PrefetchShape:
    """Sizes of one ``owl_prefetch`` instance (one memory controller)."""
    BANKS: int = 4
    LINES: int = 32
    LOWER: int = 8
    HIGHER: int = 16
    SCHEME: str = "b"

    def __post_init__(self):
        for name, p in PARAMS.items():
            v = getattr(self, name)
            if not p.check(v):
                raise ValueError(f"{name} = {v}: allowed: {p.allowed}")
        if self.LOWER > self.LINES or self.HIGHER > self.LINES:
            raise ValueError(f"LOWER = {self.LOWER}, HIGHER = {self.HIGHER}: at most LINES = {self.LINES}")

    @property
    def bw(self) -> int:
        return max(1, (self.BANKS - 1).bit_length())

    @property
    def lw(self) -> int:
        return (self.LINES - 1).bit_length()

    @property
    def cw(self) -> int:
        """Width of a prefetch count (0..LINES)."""
        return self.LINES.bit_length()

    @property
    def avg_w(self) -> int:
        return 7 + AVG_FRAC

    def ports(self) -> Ports:
        b, bw, lw = self.BANKS, self.bw, self.lw
        return {
            "cmd_bank": port("in", bw), "cmd_act": port("in", 1), "cmd_mark": port("in", 1),
            "cmd_line": port("in", lw), "cmd_pf": port("in", 1), "tick": port("in", 1),
            "hit_pending": port("in", b), "other_pending": port("in", b),
            "bank_ready": port("in", b), "q_len": port("in", 7),
            "pf_valid": port("out", 1), "pf_bank": port("out", bw), "pf_line": port("out", lw),
            "hold": port("out", b), "want": port("out", b), "c_high": port("out", 1),
        }

    def storage_bits(self) -> dict[str, int]:
        """State of one controller's engine: the [OWL §4.5] bit vectors and the rest."""
        b = self.BANKS
        return {"fetched": b * self.LINES, "opened": b, "stopped": b, "pf_count": b * self.cw,
                "avg_pending": self.avg_w}

    def paper_bits(self) -> int:
        """[OWL §4.5]: 1 bit per line of each bank's open row (128 per MC at 4 × 32)."""
        return self.BANKS * self.LINES


def ema_next(avg: int, q_len: int) -> int:
    """One step of the running average (fixed point, AVG_FRAC fraction bits)."""
    return avg + (((min(q_len, Q_MAX) << AVG_FRAC) - avg) >> AVG_FRAC)
