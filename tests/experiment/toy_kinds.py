"""Fast deterministic runner kinds for the experiment-infrastructure tests (a plugin module).

``toy``: stats are drawn from a generator seeded by the point's inputs only, so any executor
must reproduce them bit for bit. ``params.delay`` sleeps (to kill a sweep midway); workload
``boom`` always raises; workload ``flaky`` raises while ``$TOY_FLAKY_FAILS`` is set; workload
``crash`` kills its worker process (as a segfault would; it only raises in the main process).
With ``$TOY_RUN_LOG`` set, every run appends the point's key to that file (to count how often a
point was computed).
"""

from __future__ import annotations

import multiprocessing
import os
import time
import zlib

import numpy as np

from gpusched.config import ConfigError
from gpusched.experiment.point import Point, canonical_json, override_strings
from gpusched.experiment.runners import register_kind

TOY_WORKLOADS = ("alpha", "beta", "gamma", "delta", "boom", "flaky", "crash")


def check_toy(point: Point) -> None:
    from gpusched.config import resolve_config
    from sim.policies.warp_sched import check_config
    check_config(resolve_config(point.preset, override_strings(point.overrides)))  # as ``model``
    if point.workload not in TOY_WORKLOADS:
        raise ConfigError("workload", point.workload, "known: " + ", ".join(TOY_WORKLOADS))


def run_toy(point: Point) -> dict:
    if os.environ.get("TOY_RUN_LOG"):
        with open(os.environ["TOY_RUN_LOG"], "a") as log:   # one short append: atomic
            log.write(point.key + "\n")
    time.sleep(float(point.params.get("delay", 0.0)))
    if point.workload == "crash":
        if multiprocessing.parent_process() is not None:
            os._exit(3)
        raise RuntimeError("toy workload crash would kill this process")
    flaky = point.workload == "flaky" and os.environ.get("TOY_FLAKY_FAILS")
    if point.workload == "boom" or flaky:
        raise RuntimeError(f"toy workload {point.workload} exploded")
    material = canonical_json([point.preset, point.workload, point.overrides]).encode()
    rng = np.random.default_rng([point.seed, zlib.crc32(material)])
    cycles = int(rng.integers(10_000, 100_000))
    warp_insts = int(rng.integers(5_000, 400_000))
    return {"cycles": cycles, "warp_insts": warp_insts, "ipc": warp_insts / cycles,
            "l1": {"hit_rate": float(rng.random())}, "samples": rng.normal(size=3),
            "kernels": [{"name": point.workload, "start": 0, "end": cycles}]}


register_kind("toy", run_toy, check_toy)
