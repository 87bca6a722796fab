"""Real CUDA kernels through both simulators: the PTX front end's Accel-Sim traces (Pascal,
binary version 61) of the example kernels and of suite programs, their Accel-Sim cycles recorded
in ``data/accelsim/programs_sm6_titanx.json``; ``tests/validation/test_program_parity.py``
regenerates each trace (byte-identical to the one Accel-Sim ran) and compares our cycles on
``titanx``. docs/validation.md shows the table.

    python -m experiments.program_parity list
    python -m experiments.program_parity write DIR [CASE ...]
    python -m experiments.program_parity table [CASE ...]    # docs/validation.md's tables
    python -m experiments.program_parity record [CASE ...]   # needs the peer kit's Accel-Sim
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

from sim.workload.program_trace import sink_factory, write_accelsim
from sim.workload.trace_parity import trace_digest

FAMILY = "pascal"
DATA = Path(__file__).parents[1] / "data" / "accelsim" / "programs_sm6_titanx.json"
PEERS = Path(__file__).parents[2] / "shared" / "peers"

# case → (kind, name, size or scale, seed): "example" = workloads/kernels/examples.py,
# "program" = a suite program at that scale
CASES: dict[str, tuple[str, str, float, int]] = {
    "matmul_tiled": ("example", "matmul_tiled", 128, 1),
    "reduce_shfl": ("example", "reduce_shfl", 2000, 1),
    "histogram256": ("example", "histogram256", 2000, 1),
    "bfs_level": ("example", "bfs_level", 1000, 1),
    "collatz_steps": ("example", "collatz_steps", 1000, 1),
    "stencil5": ("example", "stencil5", 256, 1),
    "black_scholes": ("example", "black_scholes", 2000, 1),
    "local_window": ("example", "local_window", 1000, 1),
    "divide64": ("example", "divide64", 1000, 1),
    "compact_positive": ("example", "compact_positive", 2000, 1),
    # suite programs at their quick scales (INFO["quick_scale"])
    "hotspot": ("program", "hotspot", 0.0625, 0),
    "kmeans": ("program", "kmeans", 0.02, 0),
    "backprop": ("program", "backprop", 0.004, 0),
    "bfs": ("program", "bfs", 0.001, 0),
    "pathfinder": ("program", "pathfinder", 0.01, 0),
    "gaussian": ("program", "gaussian", 0.01, 0),
    "srad_v1": ("program", "srad_v1", 0.0625, 0),
    "nn": ("program", "nn", 0.01, 0),
    "lud": ("program", "lud", 0.0044, 0),
}
# not recorded: spmv (scale 0.02) stops Accel-Sim in its third launch at its deadlock detector
# (no instruction issued in 50 000 cycles, 32 threads of core 4 waiting, memory partition 7
# busy); ours runs it (docs/validation.md)


def folders_of(case: str, root: Path) -> list[Path]:
    """Execute ``case`` (recording into the trace cache ``root``); its launches' folders."""
    kind, name, size, seed = CASES[case]
    if kind == "program":
        from sim.workload.program import run_program
        run = run_program(f"program:{name}", seed=seed, scale=size, family=FAMILY, root=root,
                          progress=False)
        return [Path(k.meta["trace"]) for k in run.workload.kernels]
    from ptx.host import Context
    from workloads.kernels import examples
    ctx = Context(family=FAMILY, sink_factory=sink_factory(root), progress=False)
    examples.run(name, ctx, seed=seed, size=int(size))
    return [Path(r.handle) for r in ctx.launches]


def write_case(case: str, folder: Path, root: Path | None = None) -> Path:
    """Case ``case`` as an Accel-Sim trace folder ``folder``/``case``."""
    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tmp) if root is None else root
        return write_accelsim(folders_of(case, cache), Path(folder) / case, FAMILY)


def record(cases: list[str]) -> None:
    """Run Accel-Sim (SM6_TITANX, launch latency 0, the peer kit's parity.py) on each case and
    store its cycles and the trace's digest."""
    sys.path.insert(0, str(PEERS))
    from parity import run_accelsim          # the peer kit (development only)
    work = PEERS.parents[1] / "peers" / "accelsim"
    data = json.loads(DATA.read_text()) if DATA.is_file() else {"cases": {}}
    data["source"] = {"simulator": "Accel-Sim (trace-driven, accel-sim.out) with GPGPU-Sim 4.x",
                      "config": "SM6_TITANX tested config + -gpgpu_kernel_launch_latency 0 "
                                "(the peer kit's parity.py run_accelsim)",
                      "traces": "python -m experiments.program_parity write DIR (binary version 61)"}
    with tempfile.TemporaryDirectory() as tmp:
        for case in cases:
            d = write_case(case, Path(tmp) / "traces")
            run = Path(tmp) / "run" / case
            try:
                r = run_accelsim(str(work), str(d), str(run))
            except subprocess.CalledProcessError as e:
                err = (run / "sim.err").read_text(errors="replace").strip().splitlines()
                print(f"{case}: Accel-Sim failed (exit {e.returncode}): {err[-1] if err else ''}",
                      flush=True)
                continue
            kind, name, size, seed = CASES[case]
            data["cases"][case] = {"kind": kind, "name": name, "size": size, "seed": seed,
                                   "cycles": r["cycles"], "warp_insts": r["warp_insts"],
                                   "trace_sha256": trace_digest(d), "wall_s": round(r["wall"], 2)}
            DATA.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")    # case by case
            print(f"{case}: {r['cycles']} cycles, {r['warp_insts']} warp instructions", flush=True)


def table(cases: list[str]) -> str:
    """Our cycles on ``titanx`` beside Accel-Sim's recorded ones, as Markdown rows (a trace that
    is no longer the one Accel-Sim ran is marked, its ratio meaningless)."""
    from gpusched.config import resolve_config
    from sim.run import simulate
    from sim.workload.accelsim import read_trace_dir
    from workloads.kernels.examples import KIND       # what each example kernel exercises
    ref = json.loads(DATA.read_text())["cases"]
    cfg = resolve_config("titanx", [])
    lines = ["| case | kind | launches | warp instructions | Accel-Sim cycles | ours | "
             "ours / Accel-Sim |", "|---|---|---|---|---|---|---|"]
    with tempfile.TemporaryDirectory() as tmp:
        for case in cases:
            d = write_case(case, Path(tmp) / "traces", root=Path(tmp) / "cache")
            wl = read_trace_dir(d, preset="titanx", cache=Path(tmp) / "compiled")
            r = simulate(cfg, wl, memory="hierarchy")
            a = ref[case]
            ratio = r["cycles"] / a["cycles"]
            mark = "" if trace_digest(d) == a["trace_sha256"] else " (trace differs)"
            bold = f"**{ratio:.3f}**" if abs(ratio - 1) > 0.10 else f"{ratio:.3f}"
            kind = KIND.get(case, f"scale {CASES[case][2]}")   # suite programs: their scale
            lines.append(f"| `{case}`{mark} | {kind} | {len(wl.kernels)} | {r['warp_insts']:,} | "
                         f"{a['cycles']:,} | {r['cycles']:,} | {bold} |")
            print(lines[-1], file=sys.stderr, flush=True)
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    if argv[:1] == ["list"]:
        for case, (kind, name, size, seed) in CASES.items():
            print(f"{case:18} {kind} {name} size/scale {size} seed {seed}")
        return 0
    if argv[:1] == ["write"] and len(argv) >= 2:
        for case in argv[2:] or list(CASES):
            d = write_case(case, Path(argv[1]))
            print(d, trace_digest(d))
        return 0
    if argv[:1] == ["table"]:
        unknown = [c for c in argv[1:] if c not in CASES]
        if unknown:
            print(f"program_parity table: unknown case {unknown[0]!r} (see: list)", file=sys.stderr)
            return 2
        print(table(argv[1:] or list(CASES)))
        return 0
    if argv[:1] == ["record"]:
        record(argv[1:] or list(CASES))
        return 0
    print(__doc__.strip().splitlines()[-4].strip(), file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
