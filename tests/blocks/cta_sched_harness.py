"""Drivers for cta_sched checks: RTL-in-the-loop (Amaranth simulator) and twin-only runs, both with
the property checker of our test plan (used by tests/blocks/test_cta_sched*.py and debugging
sessions)."""

from __future__ import annotations

from amaranth.sim import Simulator

from cosim.lockstep import compare
from cosim.stimuli.cta_sched import CtaSchedStimulus
from hdl.cta_sched import CtaSched
from hdl.ikra.params import IkraShape
from sim.blocks.cta_sched import CtaSchedTwin
from sim.blocks.ikra.checker import CtaSchedChecker


def run_rtl_checked(p: int, id_w: int, qdepth: int, policy: str, cycles: int, seed: int,
                    twin: CtaSchedTwin | None = None, max_n: int = 3000,
                    victim_first: str = "right") -> CtaSchedTwin:
    """Amaranth-simulator lockstep (RTL vs twin) with the checker of our test plan run on the RTL's
    outputs."""
    sh = IkraShape(p, id_w, qdepth, policy, victim_first)
    dut = CtaSched(p, id_w, qdepth, policy, victim_first)
    twin = twin if twin is not None else CtaSchedTwin(p, id_w, qdepth, policy,
                                                      victim_first=victim_first)
    stim = CtaSchedStimulus(p, id_w, seed, max_n=max_n)
    checker = CtaSchedChecker(p, id_w, qdepth, policy, victim_first)
    ins = [(n, getattr(dut, n)) for n in sh.inputs()]
    outs = [(n, getattr(dut, n)) for n in sh.outputs()]
    params = {"P": p, "ID_W": id_w, "QDEPTH": qdepth, "policy": policy,
              "victim_first": victim_first}

    async def bench(ctx):
        prev = None
        for cycle in range(cycles):
            inputs = stim.next(prev)
            for name, sig in ins:
                ctx.set(sig, inputs[name])
            expected = twin.step(**inputs)
            got = {name: ctx.get(sig) for name, sig in outs}
            checker.check(inputs, got)
            compare("cta_sched", params, seed, cycle, inputs, expected, got)
            prev = expected
            await ctx.tick()

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
    twin.checker = checker
    return twin


def run_twin_checked(twin: CtaSchedTwin, cycles: int, seed: int, max_n: int = 3000,
                     on_cycle=None) -> CtaSchedChecker:
    """Closed-loop twin-only run with the checker; ``on_cycle(twin, inputs, outputs)`` optional."""
    stim = CtaSchedStimulus(twin.p, twin.id_w, seed, max_n=max_n)
    checker = CtaSchedChecker(twin.p, twin.id_w, twin.qdepth, twin.policy, twin.sh.victim_first)
    prev = None
    for _ in range(cycles):
        inputs = stim.next(prev)
        prev = twin.step(**inputs)
        checker.check(inputs, prev)
        if on_cycle:
            on_cycle(twin, inputs, prev)
    return checker
