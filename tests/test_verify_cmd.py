"""``gpusched verify``: a check that cannot run fails with one line; soak tops are identifiers."""

import re

import pytest
import typer

from gpusched.blocks import get_block
from gpusched.commands import verify_cmd


def test_a_check_that_raises_is_reported_as_failed_in_one_line(monkeypatch, capsys):
    def broken():
        raise RuntimeError("cocotb bench wrote no result; simulator log tail:\nmore\nlines")
    monkeypatch.setattr(verify_cmd, "_checks", lambda: {"good": lambda: True, "bad": broken})
    with pytest.raises(typer.Exit) as stop:
        verify_cmd.verify_cmd(["good", "bad"], False)
    assert stop.value.exit_code == 1
    out, err = capsys.readouterr()
    assert "verify: 1 passed, 1 failed: bad" in out
    assert err.strip() == "bad: could not run: RuntimeError: cocotb bench wrote no result; simulator log tail:"
    assert "Traceback" not in out + err


def test_top_names_with_list_parameters_are_plain_verilog_identifiers():
    # kernel_sched's LIMITS is a comma-separated list; an escaped Verilog name made the soak's
    # simulator miss its root handle.
    top = get_block("kernel_sched").top_name({"K": 4, "LIMITS": "1536,32768,8", "policy": "srtf_zero"})
    assert re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", top)
    assert top == "kernel_sched_K4_LIMITS1536_32768_8_policysrtf_zero"
    assert get_block("kernel_sched").top_name({"K": -1}) == "kernel_sched_Km1"


def test_every_program_has_a_default_scale_check_that_fails_on_a_mismatch(monkeypatch, capsys):
    from workloads import programs
    checks = verify_cmd._checks()
    assert {f"program-{n}" for n in programs.names()} <= set(checks)
    seen = {}

    def fake_check(name, seed=0, scale=None):
        seen[name] = scale                       # None: the program's default scale
        return ["output: 3 of 64 values differ"]
    monkeypatch.setattr(programs, "check", fake_check)
    assert checks["program-kmeans"]() is False
    assert seen == {"kmeans": None}
    assert "program kmeans: MISMATCH: output: 3 of 64 values differ" in capsys.readouterr().out
