"""DRAM command timing: one directed test per constraint of GPGPU-Sim's timing set (each sets that
constraint long enough to bind and checks the command waits exactly that long), and a checker of
every constraint over the command log of random traffic.

The expected gaps are the definitions of GPGPU-Sim's ``memory_config::init`` (gpu-sim.h) written
out from the ``DRAMConfig`` fields: tRCDWR = tRCD − (WL + 1), read-to-write = CL + BL/2 + 2 − WL,
write-to-read = WL + BL/2 + tCDLR, write-to-precharge = WL + BL/2 + tWR, read-to-precharge =
BL/2 (here at least tRTP), where BL/2 is one burst in command cycles.
"""

import dataclasses
import random

import pytest

from gpusched.config.schema import DRAMConfig
from sim.memory.dram import DRAM
from sim.memory.events import EventQueue
from sim.memory.request import READ, WRITE, MemRequest

# one channel of 4 banks; DRAM and core clocks equal and DDR, so a command cycle is a core
# cycle; 8 B × burst 8 = 64 B = one burst of 4 command cycles per two-sector request
BASE = DRAMConfig(channels=1, banks=4, clock_mhz=1000.0, bus_bytes=8, data_rate=2, burst_length=8,
                  tCL=5, tRCD=4, tRP=3, tRAS=6, tWL=2, queue_size=16)
BURST = BASE.burst_length // BASE.data_rate


def run(d: DRAMConfig, reqs):
    """Give the channel ``reqs`` = [(cycle, kind, bank, row)] and run it dry: (log, done cycles)."""
    ev = EventQueue()
    done: dict[int, int] = {}
    dram = DRAM(ev, d, d.clock_mhz, 32, lambda now, r: done.__setitem__(r.line, now))
    dram.log = []
    for i, (cycle, kind, bank, row) in enumerate(reqs):
        r = MemRequest(kind, 0, i, 0b11, cycle)
        r.channel, r.bank, r.row = 0, bank, row
        ev.at(cycle, lambda now, req: dram.enqueue(now, req), r)
    ev.run_until(1 << 20)
    assert len(done) == len(reqs)
    assert violations(dram.log, d) == []
    return dram.log, done


def at(log, cmd, bank, nth=0):
    """The cycle of the nth ``cmd`` to ``bank``."""
    return [c for c, _, k, b in log if k == cmd and b == bank][nth]


def violations(log, d: DRAMConfig) -> list[str]:
    """Every pair of commands in ``log`` closer than GPGPU-Sim's timing allows (or a column
    command to a closed row, or two row / two column commands in one cycle)."""
    bl = -(-d.burst_length // d.data_rate)
    per = d.banks // d.bank_groups
    group = [b // per if d.bank_group_bits == "high" else b % d.bank_groups for b in range(d.banks)]
    rcdwr = max(0, d.tRCD - d.tWL - 1) if d.tWL else d.tRCD
    rtw = max(0, d.tCL + bl + 2 - d.tWL) if d.tWL else 0
    wtr = d.tWL + bl + d.tCDLR if d.tWL else 0
    wtp = d.tWL + bl + d.tWR if d.tWL else bl
    out: list[str] = []
    last: dict[tuple, int] = {}         # (command, bank or group or "any") → cycle
    is_open = [False] * d.banks
    cmds_in: dict[tuple[int, bool], int] = {}

    def gap(now, key, need, what):
        if key in last and now - last[key] < need:
            out.append(f"{what}: {now - last[key]} < {need} at {now}")

    for now, _, cmd, b in log:
        g = group[b]
        is_row = cmd in ("ACT", "PRE")
        cmds_in[now, is_row] = cmds_in.get((now, is_row), 0) + 1
        if cmds_in[now, is_row] > 1:
            out.append(f"two {'row' if is_row else 'column'} commands at {now}")
        if cmd == "ACT":
            if is_open[b]:
                out.append(f"ACT to open bank {b} at {now}")
            gap(now, ("ACT", "any"), d.tRRD, "tRRD")
            gap(now, ("ACT", b), max(d.tRC, 1), "tRC")
            gap(now, ("PRE", b), d.tRP, "tRP")
            is_open[b] = True
        elif cmd == "PRE":
            gap(now, ("ACT", b), d.tRAS, "tRAS")
            gap(now, ("RD", b), max(d.tRTP, bl), "tRTP")
            gap(now, ("RD", "g", g), d.tRTPL, "tRTPL")
            gap(now, ("WR", b), wtp, "write recovery (tWR)")
            is_open[b] = False
        else:
            if not is_open[b]:
                out.append(f"{cmd} to closed bank {b} at {now}")
            gap(now, ("ACT", b), d.tRCD if cmd == "RD" else rcdwr, "tRCD")
            for other in ("RD", "WR"):
                gap(now, (other, "any"), max(d.tCCD, bl), "tCCD / data bus")
                gap(now, (other, "g", g), d.tCCDL, "tCCDL")
            if cmd == "RD":
                gap(now, ("WR", "any"), wtr, "write-to-read (tCDLR)")
            else:
                gap(now, ("RD", "any"), rtw, "read-to-write")
            last[cmd, "g", g] = now
        last[cmd, "any"] = last[cmd, b] = now
    return out


def cfg(**fields) -> DRAMConfig:
    return dataclasses.replace(BASE, **fields)


def test_activates_to_two_banks_are_trrd_apart():
    d = cfg(tRRD=9)
    log, _ = run(d, [(0, READ, 0, 1), (0, READ, 1, 1)])
    assert at(log, "ACT", 1) - at(log, "ACT", 0) == d.tRRD


@pytest.mark.parametrize("kind", [READ, WRITE])
def test_column_command_waits_trcd_after_activate(kind):
    d = cfg(tRCD=12, tWL=4)
    log, _ = run(d, [(0, kind, 0, 1)])
    cmd = "RD" if kind == READ else "WR"
    want = d.tRCD if kind == READ else d.tRCD - (d.tWL + 1)      # GPGPU-Sim's tRCDWR
    assert at(log, cmd, 0) - at(log, "ACT", 0) == want


def test_precharge_respects_tras_then_activate_trp():
    d = cfg(tRAS=20, tRP=9)
    log, _ = run(d, [(0, READ, 0, 1), (0, READ, 0, 2)])      # a row conflict in bank 0
    assert at(log, "PRE", 0) - at(log, "ACT", 0) == d.tRAS
    assert at(log, "ACT", 0, 1) - at(log, "PRE", 0) == d.tRP


def test_activates_to_one_bank_are_trc_apart():
    d = cfg(tRC=30)                                          # > tRAS + tRP
    log, _ = run(d, [(0, READ, 0, 1), (0, READ, 0, 2)])
    assert at(log, "ACT", 0, 1) - at(log, "ACT", 0) == d.tRC


def test_precharge_waits_trtp_after_a_read():
    d = cfg(tRTP=15)
    log, _ = run(d, [(0, READ, 0, 1), (0, READ, 0, 2)])
    assert at(log, "PRE", 0) - at(log, "RD", 0) == d.tRTP


def test_precharge_waits_write_recovery():
    d = cfg(tWR=11)
    log, _ = run(d, [(0, WRITE, 0, 1), (0, READ, 0, 2)])
    assert at(log, "PRE", 0) - at(log, "WR", 0) == d.tWL + BURST + d.tWR


def test_read_after_write_waits_tcdlr():
    d = cfg(tCDLR=10)
    log, _ = run(d, [(0, WRITE, 0, 1), (0, READ, 1, 1)])
    assert at(log, "RD", 1) - at(log, "WR", 0) == d.tWL + BURST + d.tCDLR


def test_write_after_read_waits_the_read_to_write_turnaround():
    d = cfg(tCL=12, tWL=2)
    log, _ = run(d, [(0, READ, 0, 1), (d.tRCD + 1, WRITE, 1, 1)])     # after the read's command
    assert at(log, "WR", 1) - at(log, "RD", 0) == d.tCL + BURST + 2 - d.tWL


@pytest.mark.parametrize("tCCD, want", [(0, BURST), (10, 10)])
def test_column_commands_are_tccd_or_a_burst_apart(tCCD, want):
    d = cfg(tCCD=tCCD)
    log, _ = run(d, [(0, READ, 0, 1), (0, READ, 1, 1)])
    assert at(log, "RD", 1) - at(log, "RD", 0) == want


@pytest.mark.parametrize("bits, same, other", [("high", 1, 2), ("low", 2, 1)])
def test_tccdl_holds_within_a_bank_group_only(bits, same, other):
    """4 banks in 2 groups: high bits put banks 0, 1 together, low bits banks 0, 2."""
    d = cfg(bank_groups=2, bank_group_bits=bits, tCCDL=9)
    log, _ = run(d, [(0, READ, 0, 1), (0, READ, same, 1)])
    assert at(log, "RD", same) - at(log, "RD", 0) == d.tCCDL
    log, _ = run(d, [(0, READ, 0, 1), (0, READ, other, 1)])
    assert at(log, "RD", other) - at(log, "RD", 0) == BURST


def test_precharge_waits_trtpl_after_a_read_in_its_group():
    """Bank 1's row conflict waits tRTPL after bank 0's read (same group, high bits)."""
    d = cfg(bank_groups=2, tRTPL=14)
    log, _ = run(d, [(0, READ, 1, 1), (0, READ, 0, 1), (0, READ, 1, 2)])
    assert at(log, "PRE", 1) - at(log, "RD", 0) == d.tRTPL


@pytest.mark.parametrize("kind, latency", [(READ, "tCL"), (WRITE, "tWL")])
def test_data_moves_cl_or_wl_after_its_command(kind, latency):
    d = cfg(tCL=9, tWL=3)
    log, done = run(d, [(0, kind, 0, 1)])
    assert done[0] - at(log, "RD" if kind == READ else "WR", 0) == getattr(d, latency) + BURST


def test_without_write_latency_writes_time_as_reads():
    d = cfg(tWL=0, tCL=9)
    log, done = run(d, [(0, WRITE, 0, 1), (0, READ, 1, 1)])
    assert done[0] - at(log, "WR", 0) == d.tCL + BURST
    assert at(log, "RD", 1) - at(log, "WR", 0) == BURST       # no turnaround


@pytest.mark.parametrize("seed", range(3))
def test_random_traffic_keeps_every_constraint(seed):
    """GTX 480's timing (GPGPU-Sim's SM2_GTX480) with bank groups, 16 banks, mixed reads and
    writes over few rows: hits, conflicts and turnarounds all occur; none breaks a constraint."""
    d = dataclasses.replace(BASE, banks=16, tCL=12, tRCD=12, tRP=12, tRAS=28, tRRD=6, tRC=40,
                            tCCD=2, tWL=4, tCDLR=5, tWR=12, bank_groups=4, tCCDL=3, tRTPL=2)
    rng = random.Random(seed)
    reqs = [(rng.randrange(600), rng.choice((READ, READ, WRITE)), rng.randrange(16),
             rng.randrange(3)) for _ in range(300)]
    log, _ = run(d, sorted(reqs))
    kinds = {k for _, _, k, _ in log}
    assert kinds == {"ACT", "PRE", "RD", "WR"}
