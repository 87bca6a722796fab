"""Lockstep of a block's RTL against its twin in Amaranth's own simulator (no Verilog needed)."""

from __future__ import annotations

import time

from amaranth.sim import Simulator

from gpusched.blocks import BlockSpec

from .lockstep import LockstepReport, compare


def run_lockstep_amaranth(spec: BlockSpec, params: dict, cycles: int, seed: int,
                          vcd: str | None = None, twin=None) -> LockstepReport:
    """Drive the RTL and the twin with the same random stimulus for ``cycles`` cycles.

    Raises LockstepMismatch at the first differing output. ``twin`` may be passed in to inject a
    (deliberately broken) twin in tests.
    """
    dut = spec.make_rtl(params)
    twin = twin if twin is not None else spec.make_twin(params)
    stim = spec.make_stimulus(params, seed)
    ins = [getattr(dut, n) for n in spec.inputs]
    outs = [getattr(dut, n) for n in spec.outputs]

    async def bench(ctx):
        prev = None
        for cycle in range(cycles):
            inputs = stim.next(prev)
            for name, sig in zip(spec.inputs, ins):
                ctx.set(sig, inputs[name])
            expected = twin.step(**inputs)
            got = {name: ctx.get(sig) for name, sig in zip(spec.outputs, outs)}
            compare(spec.name, params, seed, cycle, inputs, expected, got)
            prev = expected
            await ctx.tick()

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    t0 = time.perf_counter()
    if vcd:
        with sim.write_vcd(vcd):
            sim.run()
    else:
        sim.run()
    return LockstepReport(spec.name, params, seed, cycles, 0, time.perf_counter() - t0)


def run_sequence(spec: BlockSpec, params: dict, inputs: list[dict]) -> list[dict]:
    """Outputs of the RTL, cycle by cycle, for a fixed list of input dicts (directed tests)."""
    dut = spec.make_rtl(params)
    results: list[dict] = []

    async def bench(ctx):
        for inp in inputs:
            for name in spec.inputs:
                ctx.set(getattr(dut, name), inp.get(name, 0))
            results.append({name: ctx.get(getattr(dut, name)) for name in spec.outputs})
            await ctx.tick()

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
    return results
