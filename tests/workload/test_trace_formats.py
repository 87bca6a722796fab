"""Every trace NVBit's Accel-Sim tracer writes (issue 35 item 1): tracer versions 3–5, lineinfo,
the three address compressions, zero active masks, access widths from the opcode, MemcpyHtoD
lines; fixtures written by the project's writer (round trip) and golden lines checked byte by
byte against the format the tracer prints (util/tracer_nvbit/tracer_tool.cu)."""

from __future__ import annotations

import warnings

import pytest

from gpusched.config import resolve_config
from gpusched.config import ConfigError
from sim.run import simulate
from sim.workload.accelsim import TraceWarning, read_trace_dir
from sim.workload.kernel import Instr, Kernel, Op, Workload
from sim.workload.tracegen import format_line, write_trace_dir

from .helpers import key
from .test_accelsim import HEADER, tb, write_dir

LANES = tuple(range(32))


def mixed_kernel() -> Kernel:
    """One CTA of two warps with every address shape: contiguous (base + stride), scattered
    (base + deltas), a single lane, a partial mask, 16-byte and 1-byte accesses, and
    instructions with no active lane (an ALU op, a load and a store)."""
    def stream(cta: int, warp: int):
        base = 0x7F0000000000 + 4096 * warp
        code = [Instr(Op.ALU, (1,), (2,), mask=0xFFFFFFFF),
                Instr(Op.LDG, (3,), (1,), tuple(base + 4 * i for i in LANES)),
                Instr(Op.LDG, (4,), (1,), tuple(base + 128 * i * i for i in LANES)),
                Instr(Op.LDG, (5,), (1,), (base + 64,), mask=0x00000100),
                Instr(Op.STG, (), (1, 5), tuple(base + 8 * i for i in range(8)), mask=0x0000FF00),
                Instr(Op.LDG, (6,), (1,), tuple(base + 16 * i for i in LANES), size=16),
                Instr(Op.STG, (), (1, 6), tuple(base + i for i in LANES), size=1),
                Instr(Op.ALU, (7,), (6,), mask=0),
                Instr(Op.LDG, (8,), (7,), (), mask=0),
                Instr(Op.STG, (), (8, 7), (), mask=0),
                Instr(Op.EXIT, mask=0xFFFFFFFF)]
        for i, ins in enumerate(code):
            ins.pc, ins.next_pc = 8 * i, 8 * i + 8
            yield ins
    return Kernel("mixed", (1, 1, 1), (64, 1, 1), 16, 0, stream)


def normalised(ins: Instr) -> tuple:
    """What survives a trace: an instruction without active lanes has no address list."""
    k = key(ins)
    return k[:3] + (None if not ins.mask else ins.addrs,) + k[4:]


@pytest.mark.parametrize("version", [3, 4, 5])
@pytest.mark.parametrize("fmt", ["auto", 0, 1, 2])
@pytest.mark.parametrize("lineinfo", [False, True])
def test_round_trip_every_version_and_compression(tmp_path, version, fmt, lineinfo):
    k = mixed_kernel()
    d = write_trace_dir(tmp_path, [k], fmt, family="pascal", tracer_version=version,
                        lineinfo=lineinfo and version > 3)
    text = (d / "kernel-1.traceg").read_text()
    assert f"-accelsim tracer version = {version}\n" in text
    assert ("-enable lineinfo" in text) == (version > 3)
    with warnings.catch_warnings():
        warnings.simplefilter("error", TraceWarning)           # nothing odd about these traces
        wl = read_trace_dir(d, preset="titanx")
    (back,) = wl.kernels
    for w in range(2):
        assert [normalised(i) for i in back.stream(0, w)] == [normalised(i) for i in k.stream(0, w)]
    assert wl.meta["warp_insts"] == 22
    lanes = 32 + 32 + 32 + 1 + 8 + 32 + 32 + 0 + 0 + 0 + 32
    assert wl.meta["thread_insts"] == 2 * lanes                 # mask-0 lines count no thread


GOLDEN = {
    # (instruction, address format, tracer version, line number) → the line the tracer prints
    "v4 contiguous": (Instr(Op.LDG, (4,), (2,), tuple(0x7FD165500000 + 4 * i for i in LANES), pc=0x98),
                      "auto", 4, None, "0098 ffffffff 1 R4 LDG.E 1 R2 4 1 0x00007fd165500000 4"),
    "v5 contiguous": (Instr(Op.LDG, (4,), (2,), tuple(0x7FD165500000 + 4 * i for i in LANES), pc=0x98),
                      "auto", 5, None, "0098 ffffffff 1 R4 LDG.E 1 R2 4 1 0x00007fd165500000 4 0"),
    "v5 deltas": (Instr(Op.STG, (), (6, 0), (0x1000, 0x1010, 0x1008), mask=0x7, size=8, pc=0xD8),
                  "auto", 5, None, "00d8 00000007 0 STG.E.64 2 R6 R0 8 2 0x0000000000001000 16 -8 0"),
    "v4 listed": (Instr(Op.LDG, (1,), (), (0x20, 0x40), mask=0x3, pc=0x8), 0, 4, None,
                  "0008 00000003 1 R1 LDG.E 0 4 0 0x0000000000000020 0x0000000000000040"),
    "v4 lineinfo": (Instr(Op.ALU, (3,), (1, 2), pc=0x10), "auto", 4, 17,
                    "17 0010 ffffffff 1 R3 FFMA 2 R1 R2 0"),
    "v5 mask 0 load": (Instr(Op.LDG, (5,), (4,), (), mask=0, pc=0xB0), "auto", 5, None,
                       "00b0 00000000 1 R5 LDG.E 1 R4 4 1 0x0 0 0"),
    "v5 mask 0 exit": (Instr(Op.EXIT, mask=0, pc=0x58), "auto", 5, None, "0058 00000000 0 EXIT 0 0 0"),
}


@pytest.mark.parametrize("name", GOLDEN)
def test_golden_lines(name):
    ins, fmt, version, line_number, want = GOLDEN[name]
    assert format_line(ins, fmt, tracer_version=version, line_number=line_number) == want


def test_lines_as_the_nvbit_tracer_writes_them(tmp_path):
    """Hand-written lines in the real tracer's spelling: v5 immediates (DEPBAR's wait count),
    one active lane as base + no deltas, a mask-0 load, the width from the opcode (LDG.E.64 is
    8 bytes even where mem_width says 4; U8 is 1 byte), trailing spaces."""
    header = HEADER.replace("tracer version = 4", "tracer version = 5")
    warp0 = ["0000 ffffffff 1 R1 IMAD.MOV.U32 2 R255 R255 0 0 ",
             "0010 00000100 1 R2 LDG.E.64.SYS 1 R4 4 2 0x7f0000000040 0 ",
             "0020 00000000 1 R3 LDG.E.SYS 1 R4 4 1 0x0 0 0 ",
             "0030 0000000f 0 STG.E.U8 2 R4 R3 1 1 0x7f0000001000 1 0 ",
             "0040 ffffffff 0 DEPBAR.LE 0 0 1 ",
             "0050 ffffffff 0 EXIT 0 0 0 "]
    d = write_dir(tmp_path, tb(0, [warp0, warp0]) + tb(1, [warp0, warp0]), header)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TraceWarning)       # HEADER's made-up future header
        s = list(read_trace_dir(d).kernels[0].stream(1, 0))
    assert [i.op for i in s] == [Op.ALU, Op.LDG, Op.LDG, Op.STG, Op.ALU, Op.EXIT]
    assert (s[1].addrs, s[1].size, s[1].mask) == ((0x7F0000000040,), 8, 0x100)
    assert (s[2].addrs, s[2].mask) == (None, 0)
    assert (s[3].addrs, s[3].size) == (tuple(0x7F0000001000 + i for i in range(4)), 1)


@pytest.mark.parametrize("line, fragment", [
    ("0010 ffffffff 0 EXIT 0 0 0 0", "expected nothing after mem_width 0"),   # two immediates
    ("0010 ffffffff 0 EXIT 0 0 x", "expected 'pc mask"),                      # not an integer
    ("0010 00000003 1 R2 LDG.E 1 R4 4 1 0x10 4 0 0", "expected address info"),
])
def test_v5_lines_with_more_than_one_immediate_are_refused(tmp_path, line, fragment):
    header = HEADER.replace("tracer version = 4", "tracer version = 5")
    d = write_dir(tmp_path, tb(0, [["0000 ffffffff 0 NOP 0 0 0", line]]) + tb(1, [[line]]), header)
    with pytest.raises(ConfigError, match=fragment):
        read_trace_dir(d)


def test_memcpy_lines_are_kept_and_checked(tmp_path):
    d = write_trace_dir(tmp_path / "t", [mixed_kernel()], family="pascal")
    listing = d / "kernelslist.g"
    listing.write_text("MemcpyHtoD,0x00007f2b2d500000,400\nMemcpyDtoH,0x1,4\n"
                       + listing.read_text().split("\n", 1)[1])
    assert read_trace_dir(d).meta["memcpy_h2d"] == [(0x7F2B2D500000, 400)]
    listing.write_text("kernel-1.traceg\nMemcpyHtoD,0x00007f2b2d500000\n")
    with pytest.raises(ConfigError, match=r"kernelslist.g:2 = .*expected 'MemcpyHtoD,0xADDRESS,BYTES'"):
        read_trace_dir(d)


def run_one(stream_fn, preset: str = "titanx") -> dict:
    k = Kernel("k", (1, 1, 1), (32, 1, 1), 16, 0, stream_fn)
    return simulate(resolve_config(preset, []), Workload("w", [k]), memory="hierarchy")


def test_mask_zero_instructions_issue_and_time_like_others():
    """An ALU op with no active lane takes its issue slot and its unit's latency like any other
    (Accel-Sim issues it); a chain of them takes as long as a chain of full-mask ones."""
    def chain(mask):
        def stream(cta, warp):
            for i in range(50):
                yield Instr(Op.ALU, (1,), (1,), mask=mask, pc=8 * i)
            yield Instr(Op.EXIT, pc=8 * 50)
        return stream
    full, empty = run_one(chain(0xFFFFFFFF)), run_one(chain(0))
    assert empty["cycles"] == full["cycles"] and empty["warp_insts"] == full["warp_insts"] == 51


def test_mask_zero_memory_instructions_touch_no_memory():
    """A load, store and atomic with no active lane pass the LD/ST unit in one initiation
    interval: no request anywhere, and a consumer of the load waits only that long."""
    cfg = resolve_config("titanx", [])
    ii = cfg.units.ldst_ii

    def stream(cta, warp):
        yield Instr(Op.LDG, (2,), (1,), (), mask=0, pc=0)
        yield Instr(Op.STG, (), (1, 2), (), mask=0, pc=8)
        yield Instr(Op.ATOM, (3,), (1,), (), mask=0, pc=16)
        yield Instr(Op.ALU, (4,), (2, 3), pc=24)
        yield Instr(Op.EXIT, pc=32)
    r = run_one(stream)
    m = r["memory"]
    assert m["l1"]["hits"] + m["l1"]["misses"] == 0 and m["dram"]["bytes_read"] == 0
    assert m["icnt"]["up"]["flits"] == 0
    loaded = run_one(lambda c, w: iter([Instr(Op.LDG, (2,), (1,), tuple(4 * i for i in LANES), pc=0),
                                        Instr(Op.ALU, (4,), (2,), pc=8), Instr(Op.EXIT, pc=16)]))
    # the mask-0 version finishes in a few dozen cycles; a real load needs the DRAM round trip
    assert r["cycles"] < cfg.units.operand_latency + cfg.units.alu_latency + 3 * ii + 20
    assert loaded["cycles"] > 4 * r["cycles"]
