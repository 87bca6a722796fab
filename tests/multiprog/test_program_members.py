"""Suite programs as multiprogram members (issue 34): a member runs its standalone launches at its
own address lane, two members never share an address, a member's launches stay in order under
any kernel scheduler, and bad member names are one-line input errors."""

import pytest

from gpusched.commands.config_cmd import resolve_config
from gpusched.config import ConfigError
from ptx.memory import GLOBAL_BASE
from sim.multiprog.compose import LANE_BYTES, Member, build_member, compose, lane_base
from sim.run import load_workload
from sim.workload.kernel import GLOBAL_OPS

SGEMM, CUTCP, JPEG = "program:sgemm@0.01", "program:cutcp@0.02", "program:jpeg@0.015625"


def _warps(kernel):
    n_warps = -(-kernel.block[0] * kernel.block[1] * kernel.block[2] // 32)
    n_ctas = kernel.grid[0] * kernel.grid[1] * kernel.grid[2]
    return [(c, w) for c in range(n_ctas) for w in range(n_warps)]


def _global_addrs(kernels) -> set[int]:
    return {a for k in kernels for c, w in _warps(k) for i in k.stream(c, w)
            if i.op in GLOBAL_OPS and i.addrs and i.pc not in k.meta.get("local_pcs", ())
            for a in i.addrs}


def test_member_runs_its_standalone_launches_moved_to_its_lane():
    alone = load_workload("program:sgemm", scale=0.01, preset="gtx480").kernels
    member = build_member(SGEMM, preset="gtx480")
    shift = lane_base(SGEMM) - GLOBAL_BASE
    assert [k.name for k in member] == [k.name for k in alone]
    moved = 0
    for a, m in zip(alone, member):
        assert (a.grid, a.block, a.regs_per_thread, a.smem_per_cta) == \
            (m.grid, m.block, m.regs_per_thread, m.smem_per_cta)
        for c, w in _warps(a):
            for x, y in zip(a.stream(c, w), m.stream(c, w), strict=True):
                assert (x.op, x.pc, x.mask, x.size) == (y.op, y.pc, y.mask, y.size)
                if x.addrs is None:
                    assert y.addrs is None
                    continue
                want = tuple(v + shift if GLOBAL_BASE <= v < GLOBAL_BASE + LANE_BYTES else v
                             for v in x.addrs)
                assert y.addrs == want
                moved += want != x.addrs
    assert moved > 0                        # the program's global accesses did move


def test_member_is_the_same_alone_and_in_a_pair():
    alone = compose([Member(SGEMM)], preset="gtx480").kernels
    pair = [k for k in compose([Member(CUTCP), Member(SGEMM, 100)], preset="gtx480").kernels
            if k.meta["member"] == SGEMM]
    assert _global_addrs(alone) == _global_addrs(pair)
    assert all(k.arrival == 100 for k in pair)


def test_two_program_members_do_not_share_addresses():
    wl = compose([Member(SGEMM), Member(CUTCP), Member("ercb_sad")], scale=0.01, preset="gtx480")
    by = {m: _global_addrs([k for k in wl.kernels if k.meta["member"] == m])
          for m in (SGEMM, CUTCP, "ercb_sad")}
    assert all(by.values())
    assert not by[SGEMM] & by[CUTCP] and not by[SGEMM] & by["ercb_sad"]
    for m in (SGEMM, CUTCP):                # each program inside its own lane
        assert all(lane_base(m) <= a < lane_base(m) + LANE_BYTES for a in by[m])


def test_kernel_filter_keeps_one_kernels_launches():
    enc = build_member("program:aes~aesEncrypt128@0.0056", preset="gtx480")
    assert [k.name for k in enc] == ["aesEncrypt128"]


def _ck_run(stream_order: bool):
    from sim.run import simulate
    cfg = resolve_config("tiny", ["kernels.concurrent_sm=true", "kernels.max_concurrent=8",
                                  "sm.regs_per_sm=65536",
                                  f"kernels.stream_order={str(stream_order).lower()}"])
    wl = compose([Member(JPEG), Member(SGEMM)], preset="tiny")
    return simulate(cfg, wl, memory="fixed", kernel_scheduler="ck_interleaved")["kernels"]


def test_launches_of_a_member_stay_in_order_under_ck_dispatch():
    # ck_dispatch takes every arrived kernel it has room for: without stream order JPEG's
    # dependent launches (DCT, then IDCT) would overlap; with it IDCT starts after DCT ended,
    # and the other member is not held back behind them
    free = {k["name"]: k for k in _ck_run(False)}
    assert free["jpeg_idct"]["start"] < free["jpeg_dct"]["end"]
    ordered = {k["name"]: k for k in _ck_run(True)}
    assert ordered["jpeg_idct"]["start"] > ordered["jpeg_dct"]["end"]
    assert ordered["sgemm_regtile"]["start"] < ordered["jpeg_dct"]["end"]


@pytest.mark.parametrize("name, says", [
    ("program:nosuch", "unknown program"), ("program:aes@0", "SCALE"),
    ("program:aes@x", "SCALE"), ("program:aes~nokernel", "aesEncrypt128"),
    ("program:aes~", "KERNEL"), ("ercb_sad@0.5", "unknown kernel/workload")])
def test_bad_member_names(name, says):
    from sim.multiprog.compose import check_member
    with pytest.raises(ConfigError) as e:
        check_member(name)
    assert e.value.where == "workload" and says in str(e.value)


@pytest.mark.parametrize("argv, field", [
    (["program:nosuch+program:sgemm@0.01", "--mode", "cycle"], "workload"),
    (["program:sgemm@zero+program:cutcp", "--mode", "cycle"], "workload"),
    (["program:sgemm@0.01+program:cutcp@0.02", "--mode", "block"], "mode"),
])
def test_bad_program_members_exit_2_with_one_line(argv, field, capsys, tmp_path):
    from sim.multiprog.__main__ import main
    code = main(argv + ["--cache", str(tmp_path)])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1
    assert err[0].startswith(f"sim.multiprog: error: {field} = ")
