"""Speed reference set of the GPU model: fixed kernels on gtx480 with fixed instruction counts.

Each reference runs with both memory kinds (``fixed`` stand-in and the full ``hierarchy``), each
in a fresh Python process (``python -m sim.bench NAME MEMORY``) so that its peak RSS is its own. Rates are per CPU-second of that process (``time.process_time``), so a machine
shared with other jobs does not distort them; wall seconds are reported beside, and
``loop_10m_cpu_s`` (CPU seconds of a 10M-iteration ``x += i`` loop, ~0.4 s on an idle 2020s
desktop core) calibrates the machine. Targets (reported beside the figures, never asserted):
≥300k warp-instructions/s compute-bound, ≥100k memory-bound (with either memory kind), ≤1 GiB for
10M warp-instructions (``compute_10m``, not in the default set).

- ``compute``: 120 CTAs × 8 warps × 500 ALU/SFU instructions, four interleaved dependence chains.
- ``memory``: 120 CTAs × 8 warps × 64 iterations of coalesced load → use → store, every line
  touched once (DRAM-bandwidth bound).
- ``mixed``: 120 CTAs × 8 warps × 40 iterations of load, shared-memory store/load, barrier,
  ALU/SFU work.
- ``trace``: ``mixed`` written as an Accel-Sim trace (``tracegen``) and run from it, with the trace
  compiled beforehand into a fresh cache (``trace_compile_s`` reports that one-time cost; the rate
  is of the run, as every later run and sweep point reuses the compiled form).
- ``trace_compute``: ``compute`` the same way: the compute-bound trace path (the peer kit's
  ``alu`` class, where Accel-Sim is fastest per instruction; docs/validation.md "Speed").
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from sim.workload.kernel import Instr, Kernel, Op, Workload

WARPS_PER_CTA = 8
N_CTAS = 120


def _compute_stream(n_insts: int):
    """Four independent chains r1..r4 interleaved, every 8th op on the SFU."""
    body = [Instr(Op.SFU if i % 8 == 7 else Op.ALU, dst=(1 + i % 4,), src=(1 + i % 4, 10))
            for i in range(8)]
    exit_ = Instr(Op.EXIT)

    def stream(cta: int, warp: int):
        for i in range(n_insts):
            yield body[i & 7]
        yield exit_
    return stream


def _memory_stream(iters: int):
    use = Instr(Op.ALU, dst=(3,), src=(2,))
    exit_ = Instr(Op.EXIT)
    ldg, stg, r1, r2, r13 = Op.LDG, Op.STG, (1,), (2,), (1, 3)    # hoisted: the stream is timed too

    def stream(cta: int, warp: int):
        base = ((cta * WARPS_PER_CTA + warp) * iters) << 8
        for i in range(iters):
            a = base + (i << 8)
            yield Instr(ldg, r2, r1, tuple(range(a, a + 128, 4)))
            yield use
            yield Instr(stg, (), r13, tuple(range(a + 128, a + 256, 4)))
        yield exit_
    return stream


def _mixed_stream(iters: int):
    alu = [Instr(Op.ALU, dst=(4 + i % 3,), src=(2, 4 + i % 3)) for i in range(6)]
    sfu = Instr(Op.SFU, dst=(8,), src=(4,))
    bar = Instr(Op.BAR)
    exit_ = Instr(Op.EXIT)

    def stream(cta: int, warp: int):
        base = (cta * WARPS_PER_CTA + warp) * iters * 128
        smem = tuple(range(warp * 128, warp * 128 + 128, 4))
        for i in range(iters):
            a = base + i * 128
            yield Instr(Op.LDG, dst=(2,), src=(1,), addrs=tuple(range(a, a + 128, 4)))
            yield Instr(Op.STS, src=(1, 2), addrs=smem)
            yield bar
            yield Instr(Op.LDS, dst=(3,), src=(1,), addrs=smem)
            yield from alu
            yield sfu
        yield exit_
    return stream


def reference(name: str) -> Workload:
    """The reference workload ``name`` (see the module docstring)."""
    geometry = dict(grid=(N_CTAS, 1, 1), block=(32 * WARPS_PER_CTA, 1, 1), regs_per_thread=16)
    if name == "compute":
        k = Kernel("compute", smem_per_cta=0, stream=_compute_stream(500), **geometry)
    elif name == "compute_10m":
        k = Kernel("compute_10m", smem_per_cta=0, stream=_compute_stream(10_000_000 // (N_CTAS * WARPS_PER_CTA)),
                   **geometry)
    elif name == "memory":
        k = Kernel("memory", smem_per_cta=0, stream=_memory_stream(64), **geometry)
    elif name == "mixed":
        k = Kernel("mixed", smem_per_cta=WARPS_PER_CTA * 128, stream=_mixed_stream(40), **geometry)
    else:
        raise KeyError(name)
    return Workload(name, [k], description=f"model speed reference '{name}'")


REFERENCES = ("compute", "memory", "mixed", "trace", "trace_compute")
TRACED = {"trace": "mixed", "trace_compute": "compute"}     # trace entry → the kernel it writes
EXTRA = ("compute_10m",)
MEMORY_KINDS = ("fixed", "hierarchy")
TARGETS = {"compute": 300_000, "compute_10m": 300_000, "memory": 100_000}   # warp-insts/CPU-s


def trace_reference(folder: Path, base: str = "mixed") -> tuple[Workload, float]:
    """A trace reference: ``base`` written under ``folder`` and read back (compiled into
    ``folder``/cache); returns the workload and the CPU seconds the compilation took."""
    from sim.workload.accelsim import read_trace_dir
    from sim.workload.tracegen import write_trace_dir
    d = write_trace_dir(folder / base, reference(base))
    c0 = time.process_time()
    wl = read_trace_dir(d, cache=folder / "cache")
    return wl, time.process_time() - c0


def peak_rss_mb() -> float:
    """Peak resident set of this process image. ``VmHWM`` restarts at exec; ``ru_maxrss`` (the
    fallback off Linux) would carry over the parent's peak into a forked-and-exec'd child."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def loop_10m_cpu_s() -> float:
    """CPU seconds of a 10M-iteration ``x += i`` loop: this machine's speed for plain Python
    right now (a shared machine's speed drifts several-fold with its load)."""
    c0 = time.process_time()
    x = 0
    for i in range(10_000_000):
        x += i
    return time.process_time() - c0


def run_one(name: str, memory: str = "fixed") -> dict:
    """Simulate one reference with memory kind ``memory`` in this process; time it and read
    the peak RSS."""
    with tempfile.TemporaryDirectory() as tmp:
        if name in TRACED:
            wl, compile_s = trace_reference(Path(tmp), TRACED[name])
        else:
            wl, compile_s = reference(name), None
        row = _timed(name, memory, wl)
    row["trace_compile_s"] = None if compile_s is None else round(compile_s, 3)
    return row


def _timed(name: str, memory: str, wl: Workload) -> dict:
    from gpusched.config import get_preset
    from sim import accel
    from sim.run import simulate
    t0, c0 = time.perf_counter(), time.process_time()
    r = simulate(get_preset("gtx480"), wl, memory=memory)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    rss_mb = peak_rss_mb()
    calibration = loop_10m_cpu_s()
    return {"workload": name, "memory": memory, "target_warp_insts_per_s": TARGETS.get(name),
            "warp_insts": r["warp_insts"], "cycles": r["cycles"],
            "seconds": round(wall, 3), "cpu_seconds": round(cpu, 3),
            "warp_insts_per_s": round(r["warp_insts"] / cpu), "cycles_per_s": round(r["cycles"] / cpu),
            "peak_rss_mb": round(rss_mb, 1), "loop_10m_cpu_s": round(calibration, 3),
            "compiled": accel.active()}


def bench_model(names: list[str], memories: list[str] | tuple = MEMORY_KINDS,
                repeat: int = 1) -> list[dict]:
    """Run each (reference, memory kind) in its own process (isolated peak RSS), in order.

    With ``repeat`` > 1 each runs that many times and the row is its fastest run (least CPU
    time), as ``timeit`` does: on a shared machine other jobs only ever add time.
    ``cpu_seconds_runs`` lists every run's CPU time."""
    from gpusched.config import ConfigError
    if repeat < 1:
        raise ConfigError("--repeat", repeat, "must be >= 1")
    for name in names:
        if name not in REFERENCES + EXTRA:
            raise ConfigError("--only", name, "known: " + ", ".join(REFERENCES + EXTRA))
    for memory in memories:
        if memory not in MEMORY_KINDS:
            raise ConfigError("--memory", memory, "known: " + ", ".join(MEMORY_KINDS))
    rows = []
    for name in names:
        for memory in memories:
            runs = [json.loads(subprocess.run([sys.executable, "-m", "sim.bench", name, memory],
                                              capture_output=True, text=True, check=True).stdout)
                    for _ in range(repeat)]
            best = min(runs, key=lambda r: r["cpu_seconds"])
            best["cpu_seconds_runs"] = [r["cpu_seconds"] for r in runs]
            rows.append(best)
    return rows


if __name__ == "__main__":
    print(json.dumps(run_one(sys.argv[1], *sys.argv[2:3]), sort_keys=True))
