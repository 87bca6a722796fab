"""``kernel_sched`` controller ([SRTF FIFO, MPMax]; the cycle contract is ours): parameters and port
table of the RTL scope (policies ``fifo``, ``srtf``, ``mpmax``, ``srtf_zero`` and ``adaptive``).

Cycle contract (port level; the twin's ``KernelSchedPorts`` wraps the method-level twin):

- One event per cycle, taken only while no command waits: the lowest pending kernel end
  (``kernel_end`` pulses are latched), else an arrival (``arr_valid`` while ``arr_ready``), else a
  block end (``done_valid`` while ``done_ready``; low in a cycle with ``arr_valid``), else a
  predictor record (``upd_valid`` while ``upd_ready``; low in a cycle with ``arr_valid`` or
  ``done_valid``). ``all_dispatched`` clears ``left[k]`` every cycle, before the event.
- Zero-sampling SRTF (``srtf_zero``, [SRTF zero-sampling]): ``arr_tsp`` is the arriving kernel's
  standalone runtime T^SP; a block end of kernel ``done_k`` sets G[k].rem = T^SP · max(B − done,
  0) // max(B, 1) (a CW × BW multiply and a CW-step restoring divide, combinational) and, like an
  arrival, switches to next() if its rem is strictly below run's. Records are taken and ignored;
  no sampling. The other policies take block ends and ignore them.
- An event's command (LAUNCH, END, SEED or CAP) is held on ``ctl_*`` until ``ctl_ready`` (all
  predictors ready). An Adaptive event may give up to three (END, CAP leaving sharing, CAP
  entering it); they are shown one after the other, and no event is taken until all are out.
- Adaptive ([SRTF SRTF/Adaptive]): records also carry ``upd_pred`` and ``upd_res``; sharing starts
  when
  ``2 · T_S > T_L`` (S = run, L = next()), S capped at ``SHARE_CAP`` blocks per SM, both allowed
  on every SM, S first (``mode`` = 1 while sharing); the spread test is exact integer arithmetic
  (combinational multipliers).
- ``allow``, ``cap`` and ``first`` (the kernel each SM tries first; the other allowed kernels
  after it, in ``prio`` order) are decoded from the registers: they follow an event from the
  next cycle. ``prio[k]``: k's rank among the running kernels in arrival order (0 = oldest).
- ``arr_fp``: the arriving kernel's per-block footprint, ``NR`` fields of ``FW`` bits (threads,
  registers, shared memory, block slots, warps); MPMax caps ([SRTF MPMax]) are computed from the
  stored footprints of the running kernels and ``LIMITS`` without a divider: per resource the
  largest c <= R with c · fp <= L − (largest co-runner footprint), by an RW-step binary search.
"""

from __future__ import annotations

from . import Param, Ports, port

POLICIES = ("fifo", "srtf", "mpmax", "srtf_zero", "adaptive")
NR = 5          # resources of a footprint: threads, registers, shared memory, block slots, warps
GTX480_LIMITS = "1536,32768,49152,8,48"


def limits_of(text: str) -> tuple[int, ...]:
    """The five per-SM limits of the ``LIMITS`` parameter."""
    return tuple(int(v) for v in str(text).split(","))


def _limits_ok(text) -> bool:
    try:
        vals = limits_of(text)
    except ValueError:
        return False
    return len(vals) == NR and all(v >= 1 for v in vals)


def _pow2(v: int) -> bool:
    return v >= 2 and not v & (v - 1)


PARAMS = {
    "K": Param(int, 8, "a power of two in 2..16 (kernel slots)", lambda v: _pow2(v) and v <= 16),
    "NSM": Param(int, 15, "an integer in 1..64 (SMs)", lambda v: 1 <= v <= 64),
    "CW": Param(int, 32, "an integer in 8..40 (cycle values)", lambda v: 8 <= v <= 40),
    "BW": Param(int, 16, "an integer in 4..24 (block counts)", lambda v: 4 <= v <= 24),
    "RW": Param(int, 5, "an integer in 2..8 (residency)", lambda v: 2 <= v <= 8),
    "policy": Param(str, "srtf", "fifo, srtf, mpmax, srtf_zero or adaptive",
                    lambda v: v in POLICIES),
    "FW": Param(int, 16, "an integer in 2..20 (footprint values; every limit below 2**FW)",
                lambda v: 2 <= v <= 20),
    "LIMITS": Param(str, GTX480_LIMITS, "five integers >= 1, comma-separated: per-SM threads, "
                    "registers, shared memory, block slots, warps (MPMax)", _limits_ok),
}


def kw_of(K: int) -> int:
    return (K - 1).bit_length()


def ports(K: int = 8, NSM: int = 15, CW: int = 32, BW: int = 16, RW: int = 5,
          FW: int = 16) -> Ports:
    kw, smw = kw_of(K), max(1, (NSM - 1).bit_length())
    return {
        "arr_valid": port("in", 1), "arr_k": port("in", kw), "arr_blocks": port("in", BW),
        "arr_R": port("in", RW), "arr_fp": port("in", NR * FW), "arr_tsp": port("in", CW),
        "done_valid": port("in", 1), "done_k": port("in", kw),
        "upd_valid": port("in", 1), "upd_sm": port("in", smw), "upd_k": port("in", kw),
        "upd_rem": port("in", CW), "upd_t": port("in", CW),
        "upd_pred": port("in", CW), "upd_res": port("in", RW),
        "all_dispatched": port("in", K), "kernel_end": port("in", K), "ctl_ready": port("in", 1),
        "arr_ready": port("out", 1, init=1), "upd_ready": port("out", 1, init=1),
        "done_ready": port("out", 1, init=1),
        "allow": port("out", NSM * K), "cap": port("out", NSM * K * RW),
        "first": port("out", NSM * kw), "prio": port("out", K * kw),
        "ctl_valid": port("out", 1), "ctl_kind": port("out", 3), "ctl_k": port("out", kw),
        "ctl_total": port("out", BW), "ctl_res": port("out", RW), "ctl_t": port("out", CW),
        "run": port("out", kw), "run_valid": port("out", 1), "samp": port("out", kw),
        "samp_valid": port("out", 1), "mode": port("out", 1),
    }
