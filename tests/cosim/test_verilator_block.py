"""The Verilator backend's one-call-per-cycle harness (cosim/verilator_block.py,
cosim/verilator_harness.py): every way in (a dict, a port record, held cycles) gives the twin's
outputs, inputs are masked to their port widths as the RTL sees them, the library is built once.

The block is the warp scheduler of the ``tiny`` preset's sub-core, the library the GPU-run test
in test_rtl_in_run.py uses (cached: built once per machine)."""

from __future__ import annotations

import copy

import pytest

from cosim.simulators import available
from cosim.stimuli.warp_sched import WarpSchedStimulus
from gpusched.blocks import get_block, parse_params
from gpusched.config import get_preset
from sim.blocks.port_block import PortRecord
from sim.blocks.warp_sched import WarpSchedPort
from sim.policies.warp_sched import rtl_params

pytestmark = [pytest.mark.cosim,
              pytest.mark.skipif(not available("verilator"), reason="verilator not installed")]

SM = get_preset("tiny").sm
SLOTS = SM.warps_per_sm // SM.subcores
PARAMS = rtl_params(SLOTS, SM.warp_sched)
SPEC = get_block("warp_sched")


def rtl():
    from cosim.verilator_block import VerilatorBlock
    return VerilatorBlock(SPEC, parse_params(SPEC, PARAMS))


class NamedPort(PortRecord):
    """A record whose fields are not named as the ports: only ``inputs``/``set_outputs``."""

    def __init__(self):
        self.ins: dict = {}
        self.outs: dict = {}

    def inputs(self) -> dict:
        return self.ins

    def set_outputs(self, out: dict) -> None:
        self.outs = out


def test_every_way_in_gives_the_twin_outputs():
    """Per cycle of a random stream: ``step`` (dict), ``step_port`` on a ``WarpSchedPort`` (one
    call reading and writing its fields), ``step_port`` on a record without port fields, all
    equal to the twin's ``step``; ``peek`` equals a copy of the twin stepped with held inputs."""
    by_dict, by_port, by_record = rtl(), rtl(), rtl()
    twin = SPEC.make_twin(parse_params(SPEC, PARAMS))
    stim = WarpSchedStimulus(SLOTS, seed=11)
    port, record = WarpSchedPort(stim.sm_id), NamedPort()
    prev = None
    for cycle in range(3000):
        ins = {k: v for k, v in stim.next(prev).items() if k in SPEC.inputs}
        want = twin.step(**ins)
        for name, value in ins.items():
            setattr(port, name, value)
        record.ins = ins
        by_port.step_port(port)
        by_record.step_port(record)
        got = by_dict.step(**ins)
        assert got == want, (cycle, ins)
        assert (port.grant, port.grant_valid, port.grant_idx) == \
            (want["grant"], want["grant_valid"], want["grant_idx"]), cycle
        assert record.outs == want, cycle
        if cycle % 97 == 0:
            assert by_dict.peek() == copy.deepcopy(twin).step(**ins), cycle
        prev = want
    assert by_dict.cycles == by_port.cycles == by_record.cycles == 3000


def test_held_cycles_in_one_call_equal_single_steps():
    """``run(n, inputs)`` returns every cycle's outputs as n ``step``s would; ``skip`` moves the
    state as far (later outputs equal) and counts its cycles."""
    a, b, c = rtl(), rtl(), rtl()
    held = {"ready": 0b1011, "valid": (1 << SLOTS) - 1, "launch": 0b0110}
    assert a.run(5, held) == [b.step(**held) for _ in range(5)]
    c.skip(5, held)
    probe = {"ready": 0b1100, "valid": (1 << SLOTS) - 1}
    assert a.step(**probe) == b.step(**probe) == c.step(**probe)
    assert a.cycles == b.cycles == c.cycles == 6


def test_inputs_are_masked_to_their_port_width():
    """Bits above a port's width (and a missing input, 0) do not reach the RTL; a negative value
    is its two's complement masked, as the twin's ``& mask`` packing had it."""
    a, b = rtl(), rtl()
    full = (1 << SLOTS) - 1
    for ready in (0b101, full, 1 << (SLOTS - 1)):
        wide = {"ready": ready | (0b1011 << SLOTS), "valid": -1}
        narrow = {"ready": ready, "valid": full}
        assert a.step(**wide) == b.step(**narrow)


def test_the_library_is_built_once():
    said: list[str] = []
    from cosim.verilator_block import VerilatorBlock
    VerilatorBlock(SPEC, parse_params(SPEC, PARAMS))                    # built here or before
    VerilatorBlock(SPEC, parse_params(SPEC, PARAMS), say=said.append)
    assert said == []


@pytest.mark.slow       # two Verilator builds
def test_a_build_left_by_another_checkout_is_not_resumed(tmp_path, monkeypatch):
    """An object folder whose dependency files name another virtualenv's Verilator headers (a
    checkout since removed) is cleared before building, not resumed (make: "No rule to make
    target …/verilated.h")."""
    from cosim.verilator_block import verilator_library
    monkeypatch.setenv("GPUSCHED_CACHE", str(tmp_path))
    params = parse_params(SPEC, PARAMS)
    lib, _, _ = verilator_library(SPEC, params)
    lib.unlink()
    for dep in (lib.parent / "obj").glob("*.d"):
        dep.write_text(dep.read_text() + "\nharness.o: /gone/.venv/verilator/include/verilated.h\n")
    said: list[str] = []
    rebuilt, _, _ = verilator_library(SPEC, params, say=said.append)
    assert rebuilt.exists() and len(said) == 1


def test_two_libraries_of_one_top_name_are_two_modules(tmp_path):
    """A library is loaded by its path: a second one with the same top name (a mutant's Verilog
    gives one) is its own module with its own model, not the first one again."""
    import shutil

    from cosim.verilator_block import load_module, verilator_library
    lib, name, _ = verilator_library(SPEC, parse_params(SPEC, PARAMS))
    other = tmp_path / lib.name
    shutil.copy(lib, other)
    first, second = load_module(lib, name), load_module(other, name)
    assert first is not second and first is load_module(lib, name)
    assert second.__file__ == str(other)
