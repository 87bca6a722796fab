"""Malformed traces stop before the run with the right file:line (issue 20 item 4), odd but
runnable ones warn, and the CLI turns both into one line (exit 2 / a warning)."""

from __future__ import annotations

import subprocess
import sys
import warnings

import pytest

from gpusched.config import ConfigError
from sim.workload.accelsim import TraceWarning, read_trace_dir

from .test_accelsim import HEADER, tb, write_dir

EXIT = "0020 ffffffff 0 EXIT 0 0"
GOOD = ["0000 ffffffff 1 R1 IADD3 2 R1 R2 0", "0010 ffffffff 1 R2 LDG.E 1 R4 4 1 0x1000 4", EXIT]
TWO = tb(0, [GOOD, GOOD]) + tb(1, [GOOD, GOOD])          # grid (2,1,1), block 64: complete


def line_of(text: str, needle: str) -> int:
    return next(i for i, l in enumerate(text.splitlines(), 1) if needle in l)


def bad_line(bad: str) -> str:
    """A complete trace whose CTA 1 warp 1 has ``bad`` as its second instruction line."""
    return tb(0, [GOOD, GOOD]) + tb(1, [GOOD, [GOOD[0], bad, EXIT]])


# (trace body or header edit, marker of the offending line, expected message fragment)
CASES = {
    "tb outside grid": (TWO.replace("thread block = 1,0,0", "thread block = 2,0,0"),
                        "thread block = 2,0,0", "inside the grid"),
    "tb negative": (TWO.replace("thread block = 1,0,0", "thread block = -1,0,0"),
                    "thread block = -1", "expected 'thread block = x,y,z'"),
    "tb huge": (TWO.replace("thread block = 1,0,0", "thread block = 99999999999,0,0"),
                "thread block = 9999", "expected 'thread block = x,y,z'"),
    "tb duplicated": (TWO.replace("thread block = 1,0,0", "thread block = 0,0,0"),
                      "#END_TB", "each thread block once"),
    "warp id too big": (tb(0, [GOOD, GOOD]) + tb(1, [GOOD, GOOD]).replace("warp = 1", "warp = 2"),
                        "warp = 2", "below 2"),
    "warp duplicated": (tb(0, [GOOD, GOOD]) + tb(1, [GOOD, GOOD]).replace("warp = 1", "warp = 0"),
                        "#END_TB", "each warp once"),
    "mask wider than 32 lanes": (bad_line("0010 1ffffffff 0 NOP 0 0"), "1ffffffff", "32-lane mask"),
    "address beyond 64 bits": (bad_line("0010 00000001 1 R2 LDG.E 1 R4 4 0 0x1ffffffffffffffff"),
                               "0x1ffffffffffffffff", "0..2^64-1"),
    "address negative by stride": (bad_line("0010 00000003 1 R2 LDG.E 1 R4 4 1 0x10 -64"),
                                   "0x10 -64", "0..2^64-1"),
    "absurd mem_width": (bad_line("0010 ffffffff 1 R2 LDG.E 1 R4 1000000000000 1 0x1000 4"),
                         "1000000000000", "mem_width 0..32"),
    "negative pc": (bad_line("-010 ffffffff 0 NOP 0 0"), "-010", "expected 'pc mask"),
    "garbage line": (bad_line("this is not an instruction"), "this is not", "expected 'pc mask"),
    "fewer lines than insts": (tb(0, [GOOD, GOOD]) + tb(1, [GOOD, GOOD]).replace("insts = 3", "insts = 4", 2)
                               .replace("insts = 4", "insts = 3", 1), "warp = 1",
                               "expected 4 instruction lines for warp 1"),
    "more lines than insts": (tb(0, [GOOD, GOOD]) + tb(1, [GOOD, GOOD]).replace("insts = 3", "insts = 2", 2)
                              .replace("insts = 2", "insts = 3", 1), EXIT,
                              "more instruction lines than 'insts = 2'"),
    "missing END_TB": (TWO.rsplit("#END_TB", 1)[0], None, "expected '#END_TB'"),
    "nested BEGIN_TB": (TWO.replace("#END_TB", "", 1), "#BEGIN_TB", "expected '#END_TB' first"),
    "no thread blocks": ("", None, "at least one '#BEGIN_TB'"),
}


@pytest.mark.parametrize("name", list(CASES))
def test_malformed_trace_names_file_and_line(tmp_path, name):
    body, marker, fragment = CASES[name]
    header = HEADER if body else HEADER.rstrip() + "\n"
    d = write_dir(tmp_path, body, header)
    text = (d / "kernel-1.traceg").read_text()
    with pytest.raises(ConfigError) as e:
        read_trace_dir(d)
    where, _, line = e.value.where.rpartition(":")
    assert where == str(d / "kernel-1.traceg")
    lines = text.splitlines()
    if marker is None:
        expected = len(lines)
    elif marker in ("#END_TB", "#BEGIN_TB", EXIT, "warp = 1"):
        expected = _expected_structure_line(name, lines)
    else:
        expected = line_of(text, marker)
    assert int(line) == expected, (name, str(e.value))
    assert fragment in str(e.value) and "\n" not in str(e.value)


def _expected_structure_line(name: str, lines: list[str]) -> int:
    second_tb = [i for i, l in enumerate(lines, 1) if l == "#BEGIN_TB"][1]
    if name == "tb duplicated":
        return next(i for i, l in enumerate(lines, 1) if i > second_tb and l.startswith("thread block"))
    if name == "warp duplicated":
        return [i for i, l in enumerate(lines, 1) if l == "warp = 0"][2]
    if name == "nested BEGIN_TB":
        return second_tb
    if name == "fewer lines than insts":     # the structure line where the 4th instruction was due
        return [i for i, l in enumerate(lines, 1) if l == "#END_TB"][1]
    return [i for i, l in enumerate(lines, 1) if l == EXIT][3]   # "more lines than insts"


def test_header_errors_name_their_line(tmp_path):
    for edit, fragment in [(("(64,1,1)", "(64,1)"), "'(x,y,z)'"), (("(64,1,1)", "(2048,1,1)"), "1..1024"),
                           (("-nregs = 16", "-nregs = many"), "'-nregs'"),
                           (("-shmem = 0", "-shmem = 1000000000000"), "'-shmem'")]:
        header = HEADER.replace(*edit)
        d = write_dir(tmp_path, TWO, header)
        with pytest.raises(ConfigError) as e:
            read_trace_dir(d)
        assert e.value.where.endswith(f":{line_of(header, edit[1])}") and fragment in str(e.value)


def test_grid_far_larger_than_the_file_fails_at_once(tmp_path):
    d = write_dir(tmp_path, TWO, HEADER.replace("(2,1,1)", "(1000000000,1,1)"))
    with pytest.raises(ConfigError, match=r"traceg:3 = .*all 1000000000 thread blocks.*found 2"):
        read_trace_dir(d)


def test_non_utf8_bytes_name_the_line(tmp_path):
    d = write_dir(tmp_path, TWO)
    path = d / "kernel-1.traceg"
    lines = path.read_bytes().split(b"\n")
    n = next(i for i, l in enumerate(lines) if l.startswith(b"0010")) + 1
    lines[n - 1] = lines[n - 1].replace(b"LDG.E", b"LDG.\xff\xfe")
    path.write_bytes(b"\n".join(lines))
    with pytest.raises(ConfigError, match=rf"traceg:{n} = .*expected UTF-8 text"):
        read_trace_dir(d)


def test_odd_traces_warn_once_and_still_run(tmp_path):
    foo = ["0000 ffffffff 1 R1 FOOBAR.X 0 0", "0008 ffffffff 1 R1 FOOBAR 0 0", "0010 ffffffff 1 R3 HMMA 2 R1 R2 0", EXIT]
    header = HEADER.replace("tracer version = 4", "tracer version = 9")
    d = write_dir(tmp_path, tb(0, [foo, foo]) + tb(1, [foo]), header)
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        wl = read_trace_dir(d, preset="gp102")
    msgs = [str(w.message) for w in got if w.category is TraceWarning]
    assert sum("FOOBAR" in m for m in msgs) == 1
    assert any("opcode FOOBAR (6 instructions) is not in the volta SASS table; it runs on the alu unit" in m
               for m in msgs)
    assert any("HMMA" in m and "no such unit" in m for m in msgs)
    assert any("unknown header '-some future header'" in m for m in msgs)
    assert any("tracer version 9" in m for m in msgs)
    assert any("1 of 4 warps are absent" in m for m in msgs)
    assert any("Volta SASS but preset gp102 is a Pascal GPU" in m for m in msgs)
    assert len(list(wl.kernels[0].stream(1, 1))) == 1                  # absent warp: EXIT


def gpusched(*args):
    return subprocess.run([sys.executable, "-c", "from gpusched.cli import main; main()", *args],
                          capture_output=True, text=True)


def test_cli_exit_2_one_line_and_warnings(tmp_path):
    d = write_dir(tmp_path, bad_line("0010 1ffffffff 0 NOP 0 0"))
    r = gpusched("run", "--preset", "tiny", "--trace", str(d))
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1
    assert f"kernel-1.traceg:{line_of((d / 'kernel-1.traceg').read_text(), '1ffffffff')} = " in r.stderr
    d = write_dir(tmp_path, TWO)
    r = gpusched("run", "--preset", "tiny", "--trace", str(d), "--json")
    assert r.returncode == 0, r.stderr
    assert r.stderr.strip() == ("gpusched: warning: " + str(d / "kernel-1.traceg")
                                + ":13: unknown header '-some future header'")
