"""Accel-Sim trace import: round trip with tracegen, address forms, errors, lazy streaming."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpusched.config import ConfigError
from sim.workload.accelsim import TraceKernel, parse_line, read_trace_dir
from sim.workload.kernel import Op
from sim.workload.opcodes import op_of
from sim.workload.synthetic import build_kernel
from sim.workload.tracegen import format_line, write_trace_dir

from .helpers import check_stream, key
from .test_synthetic import rich_spec

pytestmark = pytest.mark.filterwarnings("ignore::sim.workload.accelsim.TraceWarning")

HEADER = """-kernel name = _Z6kernelPf
-kernel id = 1
-grid dim = (2,1,1)
-block dim = (64,1,1)
-shmem = 0
-nregs = 16
-binary version = 70
-cuda stream id = 0
-shmem base_addr = 0x00007f0000000000
-local mem base_addr = 0x00007f1000000000
-nvbit version = 1.5.5
-accelsim tracer version = 4
-some future header = 3
-enable lineinfo = 0

#traces format = [line_num] PC mask dest_num [reg_dests] opcode src_num [reg_srcs] \
mem_width [adrrescompress?] [mem_addresses]

"""


def write_dir(tmp: Path, body: str, header: str = HEADER) -> Path:
    (tmp / "kernelslist.g").write_text("MemcpyHtoD,0x00007f2000000000,4096\nkernel-1.traceg\n")
    (tmp / "kernel-1.traceg").write_text(header + body)
    return tmp


def tb(x: int, warps: list[list[str]]) -> str:
    out = f"#BEGIN_TB\n\nthread block = {x},0,0\n\n"
    for w, lines in enumerate(warps):
        out += f"warp = {w}\ninsts = {len(lines)}\n" + "".join(l + "\n" for l in lines) + "\n"
    return out + "#END_TB\n\n"


@pytest.mark.parametrize("fmt", ["auto", 0, 1, 2])
def test_round_trip_identical_streams(tmp_path, fmt):
    k = build_kernel(rich_spec(), seed=11)
    wl = read_trace_dir(write_trace_dir(tmp_path, [k], fmt))
    (t,) = wl.kernels
    assert (t.grid, t.block, t.regs_per_thread) == (k.grid, k.block, k.regs_per_thread)
    for c in range(k.n_ctas):
        for w in range(k.warps_per_cta()):
            want = [key(i) for i in k.stream(c, w)]
            want = [(Op.SFU, *i[1:]) if i[0] == Op.DIV else i for i in want]  # no SASS divide
            assert [key(i) for i in t.stream(c, w)] == want
    assert wl.meta["warp_insts"] == sum(len(list(k.stream(c, w))) for c in range(k.n_ctas)
                                        for w in range(k.warps_per_cta()))


def test_three_address_forms_decode_like_accelsim(tmp_path):
    a = "0x0000000010000000"
    warp0 = ["0000 ffffffff 1 R1 S2R 0 0",
             "0010 0000000f 1 R2 LDG.E.SYS 1 R4 4 0 0x100 0x104 0x180 0x2000",
             "0020 000000f0 0 STG.E.SYS 2 R4 R2 4 1 " + a + " 8",
             "0030 00000015 1 R5 LDG.E.64 2 R4 UR4 8 2 " + a + " 128 -64",
             "0040 ffffffff 0 EXIT 0 0"]
    d = write_dir(tmp_path, tb(0, [warp0, warp0]) + tb(1, [warp0, warp0]))
    s = list(read_trace_dir(d).kernels[0].stream(1, 1))
    base = 0x10000000
    assert s[1].addrs == (0x100, 0x104, 0x180, 0x2000) and s[1].op == Op.LDG
    assert s[2].addrs == tuple(base + 8 * i for i in range(4)) and s[2].op == Op.STG
    assert s[3].addrs == (base, base + 128, base + 64) and s[3].size == 8
    assert s[3].src == (4,)                                  # UR4 dropped
    assert [i.next_pc for i in s] == [0x10, 0x20, 0x30, 0x40, 0x48]
    check_stream(s, "hand-written")


def test_opcode_table_and_registers():
    assert op_of("LDG.E.64.SYS") == Op.LDG and op_of("BAR.SYNC") == Op.BAR
    assert op_of("MUFU.RSQ") == Op.SFU and op_of("DFMA") == Op.FP64
    assert op_of("ATOMG.ADD") == Op.ATOM and op_of("ATOMS.ADD") == Op.LDS
    assert op_of("IMAD.WIDE") == Op.ALU and op_of("SOMETHINGNEW") == Op.ALU
    ins = parse_line("00a0 0000ffff 2 R3 P1 ISETP.GE.AND 3 RZ PT R9 0", "f:1")
    assert (ins.pc, ins.mask, ins.dst, ins.src, ins.addrs) == (0xA0, 0xFFFF, (3, 257), (9,), None)
    assert format_line(ins).split()[:4] == ["00a0", "0000ffff", "2", "R3"]


def test_lineinfo_column_is_skipped(tmp_path):
    header = HEADER.replace("-enable lineinfo = 0", "-enable lineinfo = 1")
    warp0 = ["17 0000 ffffffff 1 R1 IADD3 2 R1 R2 0", "18 0010 ffffffff 0 EXIT 0 0"]
    d = write_dir(tmp_path, tb(0, [warp0]) + tb(1, [warp0]), header)
    s = list(read_trace_dir(d).kernels[0].stream(0, 0))
    assert [(i.op, i.pc) for i in s] == [(Op.ALU, 0), (Op.EXIT, 0x10)]
    assert list(read_trace_dir(d).kernels[0].stream(0, 1))[0].op == Op.EXIT   # absent warp


def test_writer_can_omit_predicate_registers_as_a_real_tracer_does(tmp_path):
    from sim.workload.kernel import Instr
    ins = Instr(Op.ALU, dst=(256 + 1,), src=(10,))          # P1 <- R10
    br = Instr(Op.BRA, dst=(), src=(256 + 1, 3))            # branch on P1 (and R3)
    assert format_line(ins).split()[2:6] == ["1", "P1", "FFMA", "1"]
    assert format_line(ins, predicates=False).split()[2:5] == ["0", "FFMA", "1"]
    assert format_line(br, predicates=False).split()[2:6] == ["0", "BRA", "1", "R3"]
    k = build_kernel(rich_spec(), seed=11)
    kept, dropped = write_trace_dir(tmp_path / "p", [k]), write_trace_dir(tmp_path / "n", [k], predicates=False)
    assert "P" in "".join(l.split()[3] for l in (kept / "kernel-1.traceg").read_text().splitlines()
                          if l[:1].isdigit() and l.split()[2] != "0")
    text = (dropped / "kernel-1.traceg").read_text()
    assert not any(t.startswith("P") and t[1:].isdigit() for t in text.split())
    a, b = read_trace_dir(kept), read_trace_dir(dropped)            # same work, fewer registers
    assert a.meta["warp_insts"] == b.meta["warp_insts"]
