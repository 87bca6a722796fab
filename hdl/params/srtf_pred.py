"""Simple Slicing runtime predictor ``srtf_pred``, one per SM ([SRTF Simple Slicing]; the cycle
contract is ours): parameters, command kinds, port table, storage and the Eq. 2 integer reference.

Our choices where [SRTF] is silent (the RTL and the twin follow them alike):

- Each entry also keeps ``Rmax`` = R_k (RW bits) from LAUNCH, so CAP can apply min(R_k, r) in
  the predictor: 141 bits per entry instead of the spec's 136.
- A block end latches the block's duration (now − BlockStart, mod 2^CW) and its kernel into the
  slot's ``EndTime``/``end_k`` registers, so the slot may take a new block before the sequencer
  serves the end (``end_k``: SLOTS × log2 K bits more). A second end on a slot whose previous
  end is still pending replaces it (that block is then not counted in ``Done``); it needs a
  block shorter than the sequencer's queue, SLOTS × PRED_LAT cycles.
- SEED is Eq. 2 with t = t0 (Done = 0 while no prediction exists) and goes through the same
  sequential multiply/divide, so it takes PRED_LAT cycles instead of 1; it emits no record.
- END also clears ``pvalid[k]``.
- ``Pred`` is not stored in the RTL: the record carries it to the controller's snapshot and
  nothing in the predictor reads it back (synthesis would remove the flops anyway); the twin
  keeps it for inspection. An entry is therefore 141 − 32 = 109 bits.
- A block is resident from its start cycle up to, not including, its end cycle: ``Active``
  counts those cycles and t = end − start.
"""

from __future__ import annotations

from dataclasses import dataclass

from . import Param, Ports, port

# ctl_kind encoding (3 bits, our cycle contract for [SRTF])
CTL_LAUNCH, CTL_END, CTL_CAP, CTL_SEED = 0, 1, 2, 3
CTL_NAMES = ("launch", "end", "cap", "seed")
KIND_W = 3


def _pow2(v: int) -> bool:
    return v >= 2 and not v & (v - 1)


PARAMS = {
    "K": Param(int, 8, "a power of two in 2..16 (kernel slots)", lambda v: _pow2(v) and v <= 16),
    "SLOTS": Param(int, 8, "a power of two in 2..32 (block slots per SM)",
                   lambda v: _pow2(v) and v <= 32),
    "CW": Param(int, 32, "an integer in 8..40 (cycle counters)", lambda v: 8 <= v <= 40),
    "BW": Param(int, 16, "an integer in 4..24 (block counters)", lambda v: 4 <= v <= 24),
    "RW": Param(int, 5, "an integer in 2..8 (residency)", lambda v: 2 <= v <= 8),
}


@dataclass(frozen=True)
class PredShape:
    """Widths of one ``srtf_pred`` instance; PRED_LAT = 1 + BW + (BW + CW) + 1 (clamp and
    subtract, shift-add multiply, restoring divide, add and write)."""
    K: int = 8
    SLOTS: int = 8
    CW: int = 32
    BW: int = 16
    RW: int = 5

    def __post_init__(self):
        for name, p in PARAMS.items():
            v = getattr(self, name)
            if not p.check(v):
                raise ValueError(f"{name} = {v}: allowed: {p.allowed}")

    @property
    def kw(self) -> int:
        return (self.K - 1).bit_length()

    @property
    def sw(self) -> int:
        return (self.SLOTS - 1).bit_length()

    @property
    def prod_w(self) -> int:
        """Width of (Total − Done) · t."""
        return self.BW + self.CW

    @property
    def pred_lat(self) -> int:
        return 2 + self.BW + self.prod_w

    def ports(self) -> Ports:
        kw, sw, cw, bw, rw = self.kw, self.sw, self.CW, self.BW, self.RW
        return {
            "blk_start_valid": port("in", 1), "blk_start_slot": port("in", sw),
            "blk_start_k": port("in", kw), "blk_end": port("in", self.SLOTS),
            "ctl_valid": port("in", 1), "ctl_kind": port("in", KIND_W), "ctl_k": port("in", kw),
            "ctl_total": port("in", bw), "ctl_res": port("in", rw), "ctl_t": port("in", cw),
            "upd_ready": port("in", 1),
            "ctl_ready": port("out", 1, init=1), "upd_valid": port("out", 1),
            "upd_k": port("out", kw), "upd_rem": port("out", cw), "upd_pred": port("out", cw),
            "upd_t": port("out", cw), "upd_res": port("out", rw), "pvalid": port("out", self.K),
        }

    def entry_bits(self) -> dict[str, int]:
        """One (SM, kernel) entry as built: the [SRTF Simple Slicing] fields plus Rmax, without
        Pred."""
        return {"valid": 1, "Active": self.CW, "Done": self.BW, "Total": self.BW,
                "Resident": self.RW, "Rmax": self.RW, "t": self.CW, "Reslice": 1, "pvalid": 1}

    def storage_bits(self) -> dict[str, int]:
        """Architectural state of one SM's predictor (the rows of our estimate; datapath registers
        apart)."""
        s = self.SLOTS
        return {"entries": self.K * sum(self.entry_bits().values()),
                "BlockStart": s * self.CW, "EndTime": s * self.CW, "slot_k": s * self.kw,
                "end_k": s * self.kw, "occupied": s, "end_pending": s, "now": self.CW}

    def datapath_bits(self) -> dict[str, int]:
        """Sequencer, multiply/divide and the held update record."""
        cw, rw = self.CW, self.RW
        return {"stage": 2, "count": self.prod_w.bit_length(), "job": self.kw + 1 + cw + rw,
                "multiplier": self.BW, "multiplicand": self.prod_w, "product/quotient": self.prod_w,
                "remainder": rw + 1, "record": 1 + self.kw + 3 * cw + rw}

    def spec_estimate_bits(self) -> int:
        """Our estimate ([SRTF] gives none) for one SM: 8 × 136 + 584 = 1,672 at the defaults."""
        return self.K * 136 + 2 * self.SLOTS * self.CW + self.SLOTS * self.kw + 2 * self.SLOTS + self.CW


def eq2_rem(total: int, done: int, t: int, resident: int, shape: PredShape) -> int:
    """Eq. 2's remaining part: floor(max(Total − Done, 0) · t / Resident), saturated to CW bits."""
    q = max(total - done, 0) * t // max(resident, 1)
    return min(q, (1 << shape.CW) - 1)
