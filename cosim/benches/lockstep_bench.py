"""Generic cocotb lockstep bench: random stimulus into the Verilog DUT and the twin, compare.

Configured through the ``GPUSCHED_COSIM`` environment variable (JSON: block, params, cycles,
seed, result path). Inputs are applied after the falling edge; outputs are sampled in the
read-only phase of the same cycle (they may depend combinationally on inputs), then the rising
edge updates the state in both the DUT and, via ``step``, the twin.
"""

from __future__ import annotations

import json
import os
import time

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import FallingEdge, ReadOnly, RisingEdge

from cosim.benches import load_ref
from cosim.lockstep import LockstepMismatch, compare
from gpusched.blocks import get_block


@cocotb.test()
async def lockstep(dut):
    cfg = json.loads(os.environ["GPUSCHED_COSIM"])
    spec = get_block(cfg["block"])
    params, cycles, seed = cfg["params"], cfg["cycles"], cfg["seed"]
    twin = load_ref(cfg["twin"])(params) if cfg.get("twin") else spec.make_twin(params)
    stim = spec.make_stimulus(params, seed)
    ins = [(n, getattr(dut, n)) for n in spec.inputs]
    outs = [(n, getattr(dut, n)) for n in spec.outputs]

    Clock(dut.clk, 10, unit="ns").start()
    dut.rst.value = 1
    for _, h in ins:
        h.value = 0
    await RisingEdge(dut.clk)
    await RisingEdge(dut.clk)
    dut.rst.value = 0

    summary = {"cycles": 0, "seconds": 0.0, "mismatch": None}
    t0 = time.perf_counter()
    prev = None
    try:
        for cycle in range(cycles):
            await FallingEdge(dut.clk)
            inputs = stim.next(prev)
            for n, h in ins:
                h.value = inputs[n]
            expected = twin.step(**inputs)
            await ReadOnly()
            got = {n: int(h.value) for n, h in outs}
            compare(spec.name, params, seed, cycle, inputs, expected, got)
            prev = expected
            summary["cycles"] = cycle + 1
    except LockstepMismatch as e:
        summary["mismatch"] = str(e)
    summary["seconds"] = time.perf_counter() - t0
    with open(cfg["result"], "w") as f:
        json.dump(summary, f)
    assert summary["mismatch"] is None, summary["mismatch"]
