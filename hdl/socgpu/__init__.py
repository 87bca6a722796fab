"""Shared pieces of the SOCGPU issue block ([SOCGPU instruction buffer, dependence matrix]):
parameters, operand records, ports.

The RTL (``hdl.socgpu_issue``), the baseline (``hdl.inorder_issue``) and their twins import the
parameter checks and the flat-port packing from here, so both sides agree on every bit position.

Operand record ([SOCGPU instruction buffer]), ``RB = RW + 3`` bits: ``id`` = bits [0, RW), ``size``
code = bits [RW, RW+2) (0 = one register, 1 = aligned pair, 2 = aligned quad), ``valid`` = bit RW+2.
Arrays of per-port fields are packed little-end first: element ``k`` of a vector of ``w``-bit
fields sits at bits [k*w, (k+1)*w). ``ins_src`` holds port 0's S records, then port 1's.
"""

from __future__ import annotations

from dataclasses import dataclass

POLICIES = ("first", "oldest", "youngest", "most_ready", "least_ready", "random")
DUAL_MODES = ("off", "on", "smart")
UNITS = ("SP", "SFU", "MEM", "CTRL")
CNT_MAX = 15          # rdy_cnt saturates here (4 bits, our choice)
LFSR_BITS = 16        # [SOCGPU local policy]: Fibonacci LFSR, taps 16, 14, 13, 11


def insert_ports(p) -> dict[str, tuple[str, int]]:
    """The two decoded-instruction insert ports (our cycle contract) shared by ``socgpu_issue`` and
    ``inorder_issue``: port name → (direction, width), port 1's fields above port 0's."""
    return {"ins_valid": ("in", 2), "ins_pc": ("in", 2 * p.PW), "ins_npc": ("in", 2 * p.PW),
            "ins_src": ("in", 2 * p.S * p.RB), "ins_dst": ("in", 2 * p.D * p.RB),
            "ins_serial": ("in", 2), "ins_unit": ("in", 4)}


def insert_port_fields(block, p, k: int) -> dict:
    """Decoded fields of insert port ``k`` of a block with the shared insert ports (our cycle
    contract): the SOCGPU block and the in-order baseline both take
    ``ins_pc/npc/src/dst/serial/unit``."""
    return {"pc": block.ins_pc[k * p.PW:(k + 1) * p.PW],
            "npc": block.ins_npc[k * p.PW:(k + 1) * p.PW],
            "src": block.ins_src[k * p.S * p.RB:(k + 1) * p.S * p.RB],
            "dst": block.ins_dst[k * p.D * p.RB:(k + 1) * p.D * p.RB],
            "serial": block.ins_serial[k], "unit": block.ins_unit[2 * k:2 * k + 2]}


def idx_bits(n: int) -> int:
    """Width of an entry index: ceil(log2 N), at least 1."""
    return max(1, (n - 1).bit_length())


@dataclass(frozen=True)
class IssueParams:
    """Parameters of ``socgpu_issue`` (our cycle contract); defaults are the spec's [choice] values.

    ``dual``: 'off' | 'on' (non-smart, default) | 'smart' ([SOCGPU dual issue]). ``slot``: warp
    slot, seeds the random policy's LFSR with slot + 1 ([SOCGPU local policy]).
    """
    N: int = 8
    S: int = 4
    D: int = 2
    RW: int = 9
    PW: int = 32
    W: int = 4
    policy: str = "first"
    dual: str = "on"
    slot: int = 0

    def __post_init__(self):
        checks = [
            ("N", 2 <= self.N <= 64, "an integer in 2..64"),
            ("S", 1 <= self.S <= 8, "an integer in 1..8"),
            ("D", 1 <= self.D <= 4, "an integer in 1..4"),
            ("RW", 3 <= self.RW <= 16, "an integer in 3..16"),
            ("PW", 4 <= self.PW <= 64, "an integer in 4..64"),
            ("W", 1 <= self.W <= 8, "an integer in 1..8"),
            ("policy", self.policy in POLICIES, "one of " + ", ".join(POLICIES)),
            ("dual", self.dual in DUAL_MODES, "one of " + ", ".join(DUAL_MODES)),
            ("slot", 0 <= self.slot < (1 << LFSR_BITS) - 1, "an integer in 0..65534"),
        ]
        for name, ok, allowed in checks:
            if not ok:
                raise ValueError(f"{name} = {getattr(self, name)!r}: allowed: {allowed}")

    @property
    def RB(self) -> int:
        return self.RW + 3

    @property
    def IB(self) -> int:
        return idx_bits(self.N)

    @property
    def FB(self) -> int:
        """Width of ``free_count`` (0..N)."""
        return self.N.bit_length()

    def ports(self) -> dict[str, tuple[str, int]]:
        """Port name → (direction 'in'/'out', width); one place for RTL, twin and benches."""
        pw, w = self.PW, self.W
        return {
            **insert_ports(self),
            "rpc_valid": ("in", 1), "rpc": ("in", pw), "unit_free": ("in", 4),
            "grant": ("in", 1), "grant2": ("in", 1), "flush": ("in", 1),
            "wb_valid": ("in", w), "wb_idx": ("in", w * self.IB),
            "ins_ready": ("out", 1),
            "cand_valid": ("out", 1), "cand_idx": ("out", self.IB), "cand_unit": ("out", 2),
            "cand_pc": ("out", pw),
            "cand2_valid": ("out", 1), "cand2_idx": ("out", self.IB), "cand2_unit": ("out", 2),
            "free_count": ("out", self.FB), "empty": ("out", 1),
        }


def pack_record(reg: int, size: int, rw: int = 9) -> int:
    """A valid operand record for register ``reg`` with size code ``size``."""
    return (reg & ((1 << rw) - 1)) | ((size & 3) << rw) | (1 << (rw + 2))


def unpack_record(rec: int, rw: int = 9) -> tuple[int, int] | None:
    """(reg, size) of a record, or None if its valid bit is clear."""
    if not (rec >> (rw + 2)) & 1:
        return None
    return rec & ((1 << rw) - 1), (rec >> rw) & 3


def field(vec: int, k: int, width: int) -> int:
    """Element ``k`` of a packed vector of ``width``-bit fields."""
    return (vec >> (k * width)) & ((1 << width) - 1)


def pack(fields, width: int) -> int:
    """Pack an iterable of ints into one vector, element 0 in the low bits."""
    out = 0
    for k, v in enumerate(fields):
        out |= (v & ((1 << width) - 1)) << (k * width)
    return out


def low_ignore(size_a: int, size_b: int) -> int:
    """Mask of register-id bits ignored when comparing two records ([SOCGPU instruction buffer]:
    clear the low ``max(size_a, size_b)`` bits). Size code 3 is treated like a quad, as in the
    RTL."""
    m = size_a | size_b
    return (1 if m else 0) | (2 if m & 2 else 0)


def overlap(a: tuple[int, int], b: tuple[int, int]) -> bool:
    """Two valid records (reg, size) name overlapping aligned register ranges."""
    return ((a[0] ^ b[0]) & ~low_ignore(a[1], b[1])) == 0


def lfsr_next(x: int) -> int:
    """One step of the 16-bit Fibonacci LFSR with taps 16, 14, 13, 11 ([SOCGPU local policy])."""
    bit = (x ^ (x >> 2) ^ (x >> 3) ^ (x >> 5)) & 1
    return (x >> 1) | (bit << 15)
