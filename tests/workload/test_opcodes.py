"""SASS opcode tables per family, and the writer emitting only real opcodes (issue 19 item 6)."""

from __future__ import annotations

import warnings

import pytest

from sim.workload.accelsim import TraceWarning, read_trace_dir
from sim.workload.catalogue import get_workload
from sim.workload.kernel import Instr, Kernel, Op
from sim.workload.opcodes import (FAMILIES, NO_UNIT, OP_TO_SASS, SASS_TABLES, VERSION_OF_FAMILY,
                                  classify)
from sim.workload.tracegen import format_line, write_trace_dir


def test_family_tables_differ_where_the_isas_do():
    assert classify("XMAD", "pascal") == (Op.ALU, True)            # Pascal-only 16-bit multiply
    assert classify("XMAD", "volta") == (Op.ALU, False)
    assert classify("SSY", "pascal")[0] == Op.BRA and not classify("SSY", "volta")[1]
    assert classify("BSSY", "volta")[0] == Op.BRA
    assert classify("UIADD3", "turing") == (Op.ALU, True) and not classify("UIADD3", "volta")[1]
    assert classify("LDGSTS.E.128", "ampere") == (Op.LDG, True) and not classify("LDGSTS", "turing")[1]
    assert classify("LDSM.16.M88.4", "turing")[0] == Op.LDS
    assert classify("ATOMS.ADD", "volta")[0] == Op.LDS            # a shared-memory atomic
    assert classify("RED.E.ADD.F32", "pascal")[0] == Op.ATOM
    assert classify("DMUL", "ampere")[0] == Op.FP64 and classify("MUFU.RSQ", "pascal")[0] == Op.SFU
    assert classify("FOOBAR", None) == (Op.ALU, False) and classify("DIV", "pascal") == (Op.ALU, False)
    assert {"HMMA", "TEX"} <= NO_UNIT and "FFMA" not in NO_UNIT
    assert all(len(SASS_TABLES[f]) > 120 for f in FAMILIES)


def test_writer_opcodes_are_real_in_every_family():
    for op, name in OP_TO_SASS.items():
        for family in FAMILIES:
            got, known = classify(name, family)
            assert known, (name, family)
            assert got == {Op.DIV: Op.SFU, Op.NOP: Op.ALU}.get(op, op)   # as Accel-Sim runs them
    wide = Instr(Op.LDG, (2,), (1,), tuple(range(0, 256, 8)), size=8)
    assert format_line(wide).split()[4] == "LDG.E.64"


def every_opcode(d) -> set[str]:
    out = set()
    for f in d.glob("kernel-*.traceg"):
        for line in f.read_text().splitlines():
            t = line.split()
            if t and t[0][0] in "0123456789abcdef" and len(t) > 3:
                out.add(t[3 + int(t[2])])
    return out


@pytest.mark.parametrize("family", FAMILIES)
def test_exported_srad_is_real_sass_and_reads_back_silently(tmp_path, family):
    wl = get_workload("sg_srad", scale=0.05)
    assert any(i.op == Op.DIV for k in wl.kernels for i in k.stream(0, 0))    # it does divide
    d = write_trace_dir(tmp_path, wl, family=family)
    ops = every_opcode(d)
    assert "DIV" not in ops and "MUFU.RCP" in ops
    assert all(classify(o, family)[1] for o in ops), ops
    text = (d / "kernel-1.traceg").read_text()
    assert f"-binary version = {VERSION_OF_FAMILY[family]}\n" in text
    with warnings.catch_warnings():
        warnings.simplefilter("error", TraceWarning)
        back = read_trace_dir(d, preset="gp102" if family == "pascal" else None)
    assert len(back.kernels) == len(wl.kernels)


def test_arch_mismatch_and_width_round_trip(tmp_path):
    def stream(cta, warp):
        yield Instr(Op.LDG, (2,), (1,), tuple(range(0, 512, 16)), size=16, pc=0)
        yield Instr(Op.EXIT, pc=8)
    d = write_trace_dir(tmp_path, [Kernel("w", (1, 1, 1), (32, 1, 1), 8, 0, stream)], family="ampere")
    with pytest.warns(TraceWarning, match="binary version 86 is Ampere SASS but preset gp102 is a Pascal GPU"):
        wl = read_trace_dir(d, preset="gp102")
    first = next(wl.kernels[0].stream(0, 0))
    assert first.size == 16 and first.addrs == tuple(range(0, 512, 16))


def test_export_cli_rejects_unknown_arch(tmp_path):
    import subprocess
    import sys
    r = subprocess.run([sys.executable, "-c", "from gpusched.cli import main; main()", "workloads",
                        "--export", "sg_srad", "--out", str(tmp_path), "--arch", "kepler"],
                       capture_output=True, text=True)
    assert r.returncode == 2 and r.stderr.strip() == ("gpusched: error: --arch = 'kepler': "
                                                      "allowed: pascal, volta, turing, ampere")


# opcodes per family in Accel-Sim's ISA_Def tables (accel-sim-framework@73f9fac6)
ACCELSIM_TABLE_SIZES = {"kepler": 102, "pascal": 152, "volta": 127, "turing": 165, "ampere": 174}


def test_every_accelsim_table_is_there_with_its_pipes():
    from sim.workload.opcodes import PIPE_OF, TABLE_FAMILIES
    assert set(ACCELSIM_TABLE_SIZES) <= set(TABLE_FAMILIES)
    for family, n in ACCELSIM_TABLE_SIZES.items():
        assert len(SASS_TABLES[family]) == n, family
    # where Accel-Sim puts an instruction (SP vs INT pipe, branch unit, uniform datapath)
    assert PIPE_OF["volta"]["FFMA"] == "sp" and PIPE_OF["volta"]["IMAD"] == "int"
    assert PIPE_OF["volta"]["MOV"] == "alu" and PIPE_OF["volta"]["BRA"] == "bra"
    assert PIPE_OF["turing"]["UIADD3"] == "udp" and PIPE_OF["ampere"]["LDGSTS"] == "load"
    assert PIPE_OF["pascal"]["TEX"] == "tex" and PIPE_OF["kepler"]["ISUB"] == "int"


@pytest.mark.parametrize("version, family", [(35, "kepler"), (37, "kepler"), (50, "maxwell"),
                                             (52, "maxwell"), (60, "pascal"), (61, "pascal"),
                                             (70, "volta"), (75, "turing"), (80, "ampere"),
                                             (86, "ampere"), (90, "hopper")])
def test_binary_versions_choose_their_family(version, family):
    from sim.workload.opcodes import FAMILY_OF_VERSION
    assert FAMILY_OF_VERSION[version] == family


def test_predicated_uniform_async_copy_and_newer_opcodes():
    assert classify("ST.E.64", "kepler") == (Op.STG, True)          # Kepler has no STG
    assert classify("STG.E", "kepler") == (Op.ALU, False)
    assert classify("XMAD.MRG", "maxwell") == (Op.ALU, True)         # Maxwell reads as Pascal
    assert classify("ULDC.64", "ampere") == (Op.ALU, True) and not classify("ULDC", "volta")[1]
    assert classify("LDGDEPBAR", "ampere") == (Op.ALU, True)
    assert classify("DEPBAR.LE", "ampere") == (Op.ALU, True)
    assert classify("LDGSTS.E.BYPASS.128", "ampere") == (Op.LDG, True)
    assert classify("NOP", "volta") == (Op.ALU, True)                # Accel-Sim: an ALU op
    assert classify("UTMALDG.2D", "hopper") == (Op.ALU, True) and "UTMALDG" in NO_UNIT
    assert classify("HGMMA.64x128x16.F32", "hopper")[1] and "HGMMA" in NO_UNIT
    assert classify("STSM.16.M88.4", "hopper") == (Op.STS, True)


def test_opcodes_of_a_real_pascal_trace_are_known(tmp_path):
    """The instruction lines of a real NVBit trace (vectoradd of romnn/microgpusim's test data,
    binary version 61), mask-0 lines included, read without a warning."""
    from .test_accelsim import HEADER, tb, write_dir
    warp = ["0008 ffffffff 1 R1 MOV 0 0", "0028 ffffffff 1 R3 XMAD.MRG 2 R0 R255 0",
            "0038 ffffffff 1 R0 XMAD.PSL.CBCC 3 R0 R3 R2 0", "0048 ffffffff 0 ISETP.GE.AND 1 R0 0",
            "0050 ffffffff 0 NOP 0 0", "0058 00000000 0 EXIT 0 0", "0068 ffffffff 1 R6 SHL 1 R0 0",
            "0098 ffffffff 1 R4 LDG.E.CG 1 R4 4 1 0x7fd165500000 4", "00a8 ffffffff 1 R3 IADD.X 1 R0 0",
            "00d8 ffffffff 0 STG.E 2 R6 R0 4 1 0x7fd165500400 4", "00f0 ffffffff 0 EXIT 0 0"]
    header = HEADER.replace("binary version = 70", "binary version = 61").replace(
        "-some future header = 3\n", "")
    d = write_dir(tmp_path, tb(0, [warp, warp]) + tb(1, [warp, warp]), header)
    with warnings.catch_warnings():
        warnings.simplefilter("error", TraceWarning)
        wl = read_trace_dir(d, preset="titanx")
    ops = [i.op for i in wl.kernels[0].stream(0, 0)]
    assert ops[5] == Op.BRA and ops[-1] == Op.EXIT          # the mask-0 EXIT the warp runs past
