"""Standalone runtimes T^SP (our choice where [SRTF] is silent): each member run alone, on the same
preset, in the same timing mode and with the same seed and scale as in its multiprogram workloads,
so T^SP and T^MP run the same blocks (sim/multiprog/compose.py).

``standalone_runtime`` caches each answer in ``cache_dir`` (one small JSON file per key, written
atomically, so parallel workers share it and an interrupted sweep keeps what it had). The key
covers the member, seed, scale, mode, memory, kernel scheduler, the full configuration and the
model-code fingerprint: a change to any of them is a new key, never a stale hit.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import tempfile
from pathlib import Path

from gpusched.config import GPUConfig
from sim.multiprog.compose import PROGRAM, Member, compose
from sim.multiprog.execute import member_turnaround, run_trace, scales

DEFAULT_CACHE = "results/standalone"


def _config_text(cfg: GPUConfig) -> str:
    return json.dumps(dataclasses.asdict(cfg), sort_keys=True, default=str)


def cache_key(member: str, cfg: GPUConfig, mode: str, seed: int, scale: float,
              kernel_scheduler: str, memory: str, timing: dict | None = None) -> str:
    from gpusched.experiment.fingerprint import whole_model_fingerprint
    parts = [member, _config_text(cfg), mode, seed, float(scale), kernel_scheduler, memory,
             whole_model_fingerprint(), timing or {}]
    if member.startswith(PROGRAM):          # and the program's own files
        from sim.workload.program import files_digest, program_path, split_options
        program = member.partition("@")[0].partition("~")[0]
        parts.append(files_digest(program_path(split_options(program)[0])))
    text = json.dumps(parts, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def standalone_trace(member: str, cfg: GPUConfig, mode: str = "block", seed: int = 0,
                     scale: float = 1.0, kernel_scheduler: str = "fifo",
                     memory: str = "fixed", timing: dict | None = None) -> dict:
    """Run ``member`` alone (arrival 0) and return its trace (sim/multiprog/execute.py)."""
    build, work = scales(mode, scale)
    wl = compose([Member(member)], seed, build, cfg.kernels.max_concurrent, timing, cfg.name)
    return run_trace(cfg, wl, mode, seed, kernel_scheduler, memory, work_scale=work)


def standalone_runtime(member: str, cfg: GPUConfig, mode: str = "block", seed: int = 0,
                       scale: float = 1.0, kernel_scheduler: str = "fifo", memory: str = "fixed",
                       cache_dir: str | Path | None = DEFAULT_CACHE,
                       timing: dict | None = None) -> int:
    """T^SP of ``member`` in cycles (cached in ``cache_dir``; None: no cache); ``timing`` as
    ``compose``."""
    path = None
    if cache_dir is not None:
        key = cache_key(member, cfg, mode, seed, scale, kernel_scheduler, memory, timing)
        path = Path(cache_dir) / f"{key}.json"
        try:
            return int(json.loads(path.read_text())["cycles"])
        except (OSError, ValueError, KeyError):
            pass
    trace = standalone_trace(member, cfg, mode, seed, scale, kernel_scheduler, memory, timing)
    cycles = member_turnaround(trace)[member]
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        record = {"member": member, "mode": mode, "seed": seed, "scale": scale,
                  "kernel_scheduler": kernel_scheduler, "memory": memory, "preset": cfg.name,
                  "cycles": cycles}
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(fd, "w") as f:
            json.dump(record, f)
        os.replace(tmp, path)
    return cycles
