"""``ck_dispatch``: Kernel Status Block, Core Status Block and the concurrent-kernel dispatcher
([THESIS §5.4], with our choices where it is silent): parameters and port table (no Amaranth here).

Cycle contract (RTL hdl/ck_dispatch.py, twin sim/blocks/ck_dispatch.py ``CkDispatchTwin``):

- Outputs are combinational on the registers and this cycle's inputs; state changes at the edge.
- ``launch_valid`` with ``launch_blocks`` (CTAs in the grid, linearised), ``launch_full`` (max
  blocks per core while it runs alone: its occupancy), ``launch_share`` (max blocks per core while
  sharing cores, interleaved only) and ``launch_kid``: taken into the lowest row with Valid = 0
  (``launch_ok``, ``launch_row``); none free → ``launch_ok`` = 0: the launch fails (the host
  retries).
- ``allow[c·K + k]``: core ``c`` may take a CTA of row ``k`` now (the policy's mapping, blocks
  left, below the per-(core, kernel) maximum ``max_blocks[k]``).
- ``issue_valid`` (``issue_core``, ``issue_k``): the dispatcher placed a CTA of row ``k`` on core
  ``c``; accepted (``issue_ok``) only if ``allow`` holds for it this cycle: Next block += 1 and the
  core's count of ``k`` += 1.
- ``done_valid`` (``done_core``, ``done_k``): a CTA of ``k`` completed on ``c`` (count − 1).
- ``complete[k]`` (a pulse): row ``k`` is valid, fully issued, and after this cycle's events no
  core holds a CTA of it: Valid ← 0 at the edge (the host interrupt).

Policies: ``baseline`` (spatial: the rows with blocks left are dealt to the cores round-robin in
row order, core c → the (c mod n)-th; a core starts its assigned kernel once it holds no CTA of
another one), ``sequential`` (left-over: every core serves the oldest row with blocks left, tails
overlap) and ``interleaved`` (every row on every core; max blocks ``share`` while another row
still has blocks to issue, ``full`` once it is the only one: the shift of resources).
"""

from __future__ import annotations

from . import Param, Ports, port

POLICIES = ("baseline", "sequential", "interleaved")


def _pow2(v: int) -> bool:
    return v >= 2 and not v & (v - 1)


PARAMS = {
    "K": Param(int, 16, "a power of two in 2..32 (KSB rows: concurrent kernels)",
               lambda v: _pow2(v) and v <= 32),
    "NC": Param(int, 16, "an integer in 1..64 (cores: CSB rows)", lambda v: 1 <= v <= 64),
    "BW": Param(int, 16, "an integer in 4..24 (grid size in CTAs)", lambda v: 4 <= v <= 24),
    "MW": Param(int, 4, "an integer in 2..6 (max blocks per core)", lambda v: 2 <= v <= 6),
    "policy": Param(str, "interleaved", "baseline, sequential or interleaved", lambda v: v in POLICIES),
}
KIDW = 8        # the KSB's kernel-index field


def kw_of(K: int) -> int:
    return max(1, (K - 1).bit_length())


def cw_of(NC: int) -> int:
    return max(1, (NC - 1).bit_length())


def ports(K: int = 16, NC: int = 16, BW: int = 16, MW: int = 4) -> Ports:
    kw, cw = kw_of(K), cw_of(NC)
    return {
        "launch_valid": port("in", 1), "launch_kid": port("in", KIDW), "launch_blocks": port("in", BW),
        "launch_full": port("in", MW), "launch_share": port("in", MW),
        "issue_valid": port("in", 1), "issue_core": port("in", cw), "issue_k": port("in", kw),
        "done_valid": port("in", 1), "done_core": port("in", cw), "done_k": port("in", kw),
        "launch_ok": port("out", 1), "launch_row": port("out", kw),
        "valid": port("out", K), "issued_all": port("out", K), "allow": port("out", NC * K),
        "max_blocks": port("out", K * MW), "issue_ok": port("out", 1), "complete": port("out", K),
        "kid": port("out", K * KIDW),
    }
