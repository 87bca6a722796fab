"""Stores with 32-byte sector requests (icnt.sector_requests, GPGPU-Sim's coalescer for arch >= 40):
a store to k sectors of a line is k one-sector write requests, each its own one-flit packet, L2
access and acknowledgement, so stores of different SMs to one slice interleave sector by sector
at its port instead of taking it a whole line at a time."""

from __future__ import annotations

from memdriver import Driver, config, warp_load
from sim.workload.kernel import Op

LINE = 0x40000


def two_stores(sector_requests: bool = True) -> tuple[dict, dict, object]:
    """SMs 0 and 1 each store a full line (32 threads × 4 bytes) to the same line at cycle 0:
    (completion cycle per SM, memory statistics, config)."""
    cfg = config("titanx", icnt={"latency": 2, "sector_requests": sector_requests},
                 l2={"hit_latency": 1})
    assert cfg.l1.store_ack and cfg.l1.sector_acks      # a store completes with its last ack
    drv = Driver(cfg)
    for sm in (0, 1):
        drv.issue(sm, warp_load(LINE, op=Op.STG), sm)
    drv.drain()
    return drv.done, drv.mem.stats(), cfg


def test_a_full_line_store_is_one_request_per_sector():
    done, st, cfg = two_stores()
    sectors = cfg.l2.line_bytes // cfg.l1.sector_bytes
    # each sector's data and a header fit one flit: 2 stores × 4 one-flit packets
    assert cfg.icnt.header_bytes + cfg.l1.sector_bytes <= cfg.icnt.bytes_per_cycle
    assert st["icnt.up.packets"] == st["icnt.up.flits"] == 2 * sectors
    assert st["icnt.down.packets"] == 2 * sectors                   # one ack per sector
    assert st["l2.acc_w_miss"] + st["l2.acc_w_sector_miss"] + st["l2.acc_w_hit"] == 2 * sectors


def test_two_sms_stores_interleave_at_the_slice_sector_by_sector():
    done, _, _ = two_stores()
    # the port alternates the two SMs' one-flit packets: the second store's last sector and
    # ack come one cycle after the first's
    assert done[1] - done[0] == 1


def test_line_requests_keep_one_packet_per_store():
    done, st, cfg = two_stores(sector_requests=False)
    line_flits = -(-(cfg.icnt.header_bytes + cfg.l2.line_bytes) // cfg.icnt.bytes_per_cycle)
    assert st["icnt.up.packets"] == 2 and st["icnt.up.flits"] == 2 * line_flits
    assert done[1] - done[0] == line_flits
