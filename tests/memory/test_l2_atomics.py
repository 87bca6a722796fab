"""Atomics at the L2 with 32-byte sector requests (icnt.sector_requests, GPGPU-Sim's coalescer for
arch >= 40): an atomic on k sectors of a line is k one-sector requests, each with its own packet,
L2 access and reply, and a fill answers the atomics merged into a line sector by sector, so
every warp of a hot line waits for the release of the whole line."""

from __future__ import annotations

import pytest

from memdriver import Driver, config, warp_load
from sim.workload.kernel import Op

LINE = 0x40000


def hot_line(n_sms: int, sector_requests: bool = True) -> tuple[dict, dict, object]:
    """``n_sms`` SMs each send one full-line atomic (32 threads × 4 bytes) to the same cold line at
    cycle 0: (completion cycle per SM, memory statistics, config)."""
    cfg = config("titanx", icnt={"latency": 2, "sector_requests": sector_requests},
                 l2={"hit_latency": 1}, dram={"controller_latency": 0})
    drv = Driver(cfg)
    for sm in range(n_sms):
        drv.issue(sm, warp_load(LINE, op=Op.ATOM), sm)
    drv.drain()
    return drv.done, drv.mem.stats(), cfg


def test_a_full_line_atomic_is_one_request_and_reply_per_sector():
    done, st, cfg = hot_line(1)
    sectors = cfg.l2.line_bytes // cfg.l1.sector_bytes
    assert st["icnt.up.packets"] == st["icnt.down.packets"] == sectors
    # each packet is a sector's data and a header: one flit each way
    assert cfg.icnt.header_bytes + cfg.l1.sector_bytes <= cfg.icnt.bytes_per_cycle
    assert st["icnt.up.flits"] == st["icnt.down.flits"] == sectors
    # the first sector misses, the others find the line allocated (Accel-Sim's SECTOR_MISS)
    assert (st["l2.acc_r_miss"], st["l2.acc_r_sector_miss"]) == (1, sectors - 1)
    assert st["l2.atomics"] == sectors


@pytest.mark.parametrize("n_sms", [4, 8])
def test_a_hot_lines_fill_answers_sector_by_sector(n_sms):
    done, st, cfg = hot_line(n_sms)
    sectors = cfg.l2.line_bytes // cfg.l1.sector_bytes
    # every later sector request merges into the pending sector (Accel-Sim counts these
    # HIT_RESERVED, none a HIT: its atomics_hot has 16 MISS, 48 SECTOR_MISS, 1 728 HIT_RESERVED)
    assert st["l2.acc_r_hit_reserved"] == sectors * (n_sms - 1)
    assert st["l2.acc_r_hit"] == 0
    # the last sector's replies leave the slice last, one flit per cycle in arrival order, so
    # the atomics complete in consecutive cycles (one line reply each: 4 cycles apart)
    order = sorted(done.values())
    assert order[-1] - order[0] == n_sms - 1
    assert [done[sm] for sm in range(n_sms)] == order


def test_line_requests_keep_one_packet_per_atomic():
    done, st, cfg = hot_line(4, sector_requests=False)
    assert st["icnt.up.packets"] == st["icnt.down.packets"] == 4
    order = sorted(done.values())
    line_flits = -(-(cfg.icnt.header_bytes + cfg.l2.line_bytes) // cfg.icnt.bytes_per_cycle)
    assert order[-1] - order[0] == line_flits * 3
