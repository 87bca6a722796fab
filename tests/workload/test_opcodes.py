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
            assert got == (Op.SFU if op == Op.DIV else op)
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
