"""Calibrating the block-level timing mode on the cycle-level model, and checking it there
(our choice where [SRTF] is silent).

``measure(name)``: cycle-level runs of an ERCBench-like kernel alone — one block per SM (t(1)),
one full wave of R blocks per SM (t(R) and the per-block spread) and the whole grid — at a
per-block work scale that gives blocks of about ``TARGET_BLOCK`` cycles. The knee of t(r) = t_R ·
max(r, knee) / max(R, knee) follows from t(1)/t(R) = max(1, knee)/max(R, knee): knee = R ·
t(1)/t(R), within [1, R]; t_R is then fitted so the block-level standalone runtime equals the
cycle-level one (a single wave underestimates it for spread-out kernels: its short blocks leave
early and the long ones speed up). Interference between kernels is not fitted: co-runners count
by their warps (our choice), and ``check_pair`` measures how well that holds.

``check_pair(pair, policy)``: the same pair (full grids, per-block work × ``CHECK_SCALE``) in the
cycle-level model and in block mode with the records measured at that scale; returns both
turnarounds, NTTs and STPs. Cached like the standalone runs (sim/multiprog/standalone.py).
"""

from __future__ import annotations

import json
import os
import statistics
import tempfile
from pathlib import Path

from gpusched.config import GPUConfig
from sim.multiprog import metrics
from sim.multiprog.compose import MemberCtx
from sim.multiprog.execute import member_turnaround, run_trace
from sim.multiprog.standalone import DEFAULT_CACHE, cache_key
from sim.workload import ercbench
from sim.workload.kernel import Workload

TARGET_BLOCK = 3000        # cycles per block in the calibration runs (about 10 loop trips)
CHECK_SCALE = 0.1          # per-block work of the check pairs (SHA1 is left out: 2 M cycles)


def cal_scale(name: str) -> float:
    """Per-block work scale of ``name``'s calibration runs."""
    return min(1.0, TARGET_BLOCK / ercbench.ERCB[name].block_time)


def ercb_workload(names: list[str], arrivals: list[int], seed: int, scale: float,
                  blocks: int | None = None, timing: dict | None = None) -> Workload:
    """ERCBench-like members with the table's grids (or ``blocks`` each) and per-block work ×
    ``scale``, built as the composer builds them (own seed and address lane); ``timing``: name
    → block-timing record replacing theirs."""
    kernels = []
    for name, at in zip(names, arrivals):
        for k in ercbench.build(name, MemberCtx(seed, scale, name), full_grid=True, blocks=blocks):
            k.arrival += at
            k.meta["member"] = name
            if timing and name in timing:
                k.meta["block_timing"] = timing[name]
            kernels.append(k)
    return Workload("+".join(names), kernels)


def _cached(cache_dir, key: str, compute):
    path = Path(cache_dir) / f"{key}.json" if cache_dir is not None else None
    if path is not None:
        try:
            return json.loads(path.read_text())
        except (OSError, ValueError):
            pass
    value = compute()
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(fd, "w") as f:
            json.dump(value, f)
        os.replace(tmp, path)
    return value


def _block_times(trace: dict) -> list[int]:
    return [e - s for _sm, s, e in trace["kernels"][0]["blocks"]]


def measure(name: str, cfg: GPUConfig, seed: int = 0, scale: float | None = None,
            cache_dir=DEFAULT_CACHE) -> dict:
    """t(1), t(R), spread and knee of ``name`` in the cycle-level model (module doc)."""
    scale = cal_scale(name) if scale is None else scale
    key = "cal-" + cache_key(name, cfg, "cycle", seed, scale, "srtf_fifo", "fixed")

    def compute() -> dict:
        r = ercbench.ERCB[name]
        n_sm = cfg.sm.count
        one = run_trace(cfg, ercb_workload([name], [0], seed, scale, blocks=n_sm), "cycle", seed,
                        "srtf_fifo")
        wave = run_trace(cfg, ercb_workload([name], [0], seed, scale, blocks=n_sm * r.R), "cycle",
                         seed, "srtf_fifo")
        t1, bt = statistics.mean(_block_times(one)), _block_times(wave)
        t_r = statistics.mean(bt)
        rsd = statistics.pstdev(bt) / t_r
        knee = round(min(float(r.R), max(1.0, r.R * t1 / t_r)), 3)
        # t_R fitted so block mode's standalone runtime equals the cycle-level one
        full = run_trace(cfg, ercb_workload([name], [0], seed, scale), "cycle", seed, "srtf_fifo")
        t_cycle = member_turnaround(full)[name]
        probe = {"t_R": t_r, "R": r.R, "knee": knee, "sigma": r.sigma, "cap": r.cap,
                 "first": [0.0, 0.0]}
        blk = run_trace(cfg, ercb_workload([name], [0], seed, scale, timing={name: probe}),
                        "block", seed, "srtf_fifo")
        t_fit = t_r * t_cycle / member_turnaround(blk)[name]
        return {"name": name, "scale": scale, "R": r.R, "t1": t1, "t_wave": t_r, "rsd": rsd,
                "knee": knee, "t_R": t_fit, "standalone": t_cycle,
                "table_t_R": r.block_time * scale}
    return _cached(cache_dir, key, compute)


def calibrated_knees(names, cfg: GPUConfig, seed: int = 0, cache_dir=DEFAULT_CACHE) -> dict:
    """name → {"knee": …}: the block-timing fields the reproduction takes from the calibration."""
    return {n: {"knee": measure(n, cfg, seed, cache_dir=cache_dir)["knee"]} for n in names}


def _record(m: dict) -> dict:
    """Block-timing record of a measurement at its own scale: measured t_R and knee; the
    per-block factor is the cycle-level kernel's own (same σ and cap, same draw)."""
    r = ercbench.ERCB[m["name"]]
    return {"t_R": m["t_R"], "R": m["R"], "knee": m["knee"], "sigma": r.sigma, "cap": r.cap,
            "first": [0.0, 0.0]}


def check_pair(pair: str, policy: str, cfg: GPUConfig, offset: int = 100, seed: int = 0,
               scale: float = CHECK_SCALE, cache_dir=DEFAULT_CACHE) -> dict:
    """Cycle-level vs block-level on one pair under one kernel scheduler (module doc)."""
    names = pair.split("+")
    records = {n: _record(measure(n, cfg, seed, scale, cache_dir)) for n in names}
    out: dict = {"pair": pair, "policy": policy, "scale": scale, "offset": offset}
    for mode in ("cycle", "block"):
        timing = records if mode == "block" else None

        def alone(n: str, mode=mode, timing=timing) -> int:
            key = f"chk-{mode}-" + cache_key(n, cfg, mode, seed, scale, "srtf_fifo", "fixed",
                                             timing and timing[n])
            return _cached(cache_dir, key, lambda: member_turnaround(run_trace(
                cfg, ercb_workload([n], [0], seed, scale, timing=timing), mode, seed,
                "srtf_fifo"))[n])
        t_sp = [alone(n) for n in names]
        trace = run_trace(cfg, ercb_workload(names, [0, offset], seed, scale, timing=timing),
                          mode, seed, policy)
        t_mp = member_turnaround(trace)
        ntts = [metrics.ntt(t_mp[n], t) for n, t in zip(names, t_sp)]
        out[mode] = {"t_sp": t_sp, "t_mp": [t_mp[n] for n in names], "ntt": ntts,
                     "stp": metrics.stp(ntts), "antt": metrics.antt(ntts)}
    return out
