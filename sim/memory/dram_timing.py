"""DRAM timing constraints and the per-channel bank state the command scheduler (dram.py) keeps.

Sources: GPGPU-Sim's DRAM model (gpu-sim.h ``memory_config::init`` derives the turnarounds,
dram.cc ``issue_col_command`` / ``issue_row_command`` apply them; the Accel-Sim copy read is
listed in docs/validation.md, "DRAM timing"). All times are absolute *beats* (1 / data_rate of a command
clock, as in dram.py), so a constraint is "the command may issue at the first command edge at or
after this beat". GPGPU-Sim counts each as a down-counter set when a command issues; a counter
set to X at edge t lets the command go at t + X, which is what these absolute times hold.

Per bank: the request in service (GPGPU-Sim's ``mrq``) and its bursts still to move, the open row
(-1: precharged), and the earliest read / write column command (ACT + tRCD, ACT + tRCDWR), the
earliest precharge (ACT + tRAS, read + tRTP, write + tWTP) and the earliest activate (ACT + tRC,
PRE + tRP). Per bank group: the earliest column (last column + tCCDL) and precharge (read +
tRTPL). Per channel: the earliest column command of any bank (last column + tCCD, at least one
burst: the shared data bus), read (last write + tWTR) and write (last read + tRTW), and activate
(last ACT + tRRD).
"""

from __future__ import annotations

from collections import deque

from gpusched.config.schema import DRAMConfig

from .request import MemRequest


class Timing:
    """``DRAMConfig`` timing in beats, with GPGPU-Sim's derived constraints. With ``tWL`` = 0
    writes time as reads: data tCL after the command, no turnaround, no write recovery."""

    __slots__ = ("dr", "burst", "cl", "wl", "rcd", "rcdwr", "rp", "ras", "rc", "rrd", "ccd",
                 "ccdl", "rtp", "rtpl", "wtp", "rtw", "wtr", "groups", "group_of")

    def __init__(self, d: DRAMConfig):
        dr = self.dr = d.data_rate
        bl = -(-d.burst_length // dr)           # command cycles one burst holds the data bus
        self.burst = d.burst_length             # beats of data one column command moves
        self.cl, self.rcd, self.rp, self.ras = d.tCL * dr, d.tRCD * dr, d.tRP * dr, d.tRAS * dr
        self.rc, self.rrd = d.tRC * dr, d.tRRD * dr
        self.ccd = max(d.tCCD, bl) * dr         # any two column commands: tCCD, and the data bus
        self.ccdl = d.tCCDL * dr
        self.rtp = max(d.tRTP, bl) * dr         # GPGPU-Sim: read to precharge = BL / ratio
        self.rtpl = d.tRTPL * dr
        self.groups = d.bank_groups
        # gpu-sim dram_t::get_bankgrp_number: the bank index's high bits (policy 0, the default)
        # or its low bits (-dram_bnkgrp_indexing_policy 1)
        per_group = d.banks // d.bank_groups
        self.group_of = [b // per_group if d.bank_group_bits == "high" else b % d.bank_groups
                         for b in range(d.banks)]
        if d.tWL:                               # gpu-sim.h: tRCDWR, tRTW, tWTR, tWTP
            self.wl = d.tWL * dr
            self.rcdwr = max(0, d.tRCD - (d.tWL + 1)) * dr
            self.rtw = max(0, d.tCL + bl + 2 - d.tWL) * dr
            self.wtr = (d.tWL + bl + d.tCDLR) * dr
            self.wtp = (d.tWL + bl + d.tWR) * dr
        else:
            self.wl, self.rcdwr, self.rtw, self.wtr, self.wtp = self.cl, self.rcd, 0, 0, bl * dr


class Channel:
    """One channel: its FR-FCFS window and input buffer, bank and group state (module docstring)
    and the statistics integrated over time."""

    __slots__ = ("index", "queue", "overflow", "mrq", "left", "open_row", "rd_ok", "wr_ok",
                 "pre_ok", "act_ok", "gcol_ok", "gpre_ok", "col_ok", "rcol_ok", "wcol_ok",
                 "act_any", "prio", "pf_want", "next_edge", "wake_at", "outstanding",
                 "busy_banks", "last_t", "blp_area", "blp_time", "q_area", "max_queue")

    def __init__(self, index: int, banks: int, groups: int):
        self.index = index
        self.queue: list[MemRequest] = []
        self.overflow: deque[MemRequest] = deque()
        self.mrq: list[MemRequest | None] = [None] * banks     # request in service per bank
        self.left = [0] * banks         # its column commands still to issue
        self.open_row = [-1] * banks    # -1: precharged (no open row)
        self.rd_ok = [0] * banks        # earliest read column command (ACT + tRCD)
        self.wr_ok = [0] * banks        # earliest write column command (ACT + tRCDWR)
        self.pre_ok = [0] * banks       # earliest PRE (tRAS, tRTP, tWTP)
        self.act_ok = [0] * banks       # earliest ACT (tRC, tRP)
        self.gcol_ok = [0] * groups     # earliest column command in the group (tCCDL)
        self.gpre_ok = [0] * groups     # earliest PRE in the group (tRTPL)
        self.col_ok = 0                 # earliest column command of the channel (tCCD, data bus)
        self.rcol_ok = 0                # earliest read after a write (tWTR)
        self.wcol_ok = 0                # earliest write after a read (tRTW)
        self.act_any = 0                # earliest ACT of the channel (tRRD)
        self.prio = 0                   # first bank of the command scan (GPGPU-Sim's prio)
        self.pf_want = 0                # banks OWL's prefetcher has work in (prefetch.py)
        self.next_edge = 0              # first command edge not yet scheduled
        self.wake_at = -1               # core cycle of the pending scheduler wake-up (-1: none)
        self.outstanding = [0] * banks  # requests per bank, queued or in service (BLP)
        self.busy_banks = 0
        self.last_t = 0
        self.blp_area = self.blp_time = self.q_area = 0
        self.max_queue = 0
