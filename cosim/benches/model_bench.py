"""cocotb bench that runs a Python scenario (e.g. the GPU model) with RTL instances in the loop.

Configured by ``GPUSCHED_LOOP`` (JSON): block (a name, or one per instance), params_list,
scenario ("module:function"), kwargs, lockstep (compare every step with a twin), seed, result
path. The scenario runs in a bridged thread and receives ``blocks``: one twin-shaped object per
instance; whatever JSON-ready value it returns is written to the result file with the
per-instance step counts.
"""

from __future__ import annotations

import json
import os
import time

import cocotb
from cocotb.task import bridge

from cosim.benches import load_ref
from cosim.bridge import LockstepProxy, RtlProxy
from cosim.lockstep import LockstepMismatch
from gpusched.blocks import get_block


@cocotb.test()
async def scenario_in_loop(dut):
    cfg = json.loads(os.environ["GPUSCHED_LOOP"])
    n = len(cfg["params_list"])
    names = cfg["block"] if isinstance(cfg["block"], list) else [cfg["block"]] * n
    specs = [get_block(name) for name in names]
    rtl = [RtlProxy(dut, k, spec) for k, spec in enumerate(specs)]
    for proxy in rtl:
        await proxy.reset()
    blocks = rtl
    if cfg["lockstep"]:
        blocks = [LockstepProxy(spec.make_twin(p), r, f"{spec.name}[u{k}]", p, cfg["seed"])
                  for k, (spec, p, r) in enumerate(zip(specs, cfg["params_list"], rtl))]
    summary = {"result": None, "steps": [], "mismatch": None, "seconds": 0.0}
    t0 = time.perf_counter()
    try:
        summary["result"] = await bridge(load_ref(cfg["scenario"]))(blocks=blocks, **cfg["kwargs"])
    except LockstepMismatch as e:
        summary["mismatch"] = str(e)
    summary["seconds"] = time.perf_counter() - t0
    summary["steps"] = [p.cycles for p in rtl]
    with open(cfg["result"], "w") as f:
        json.dump(summary, f)
    assert summary["mismatch"] is None, summary["mismatch"]
