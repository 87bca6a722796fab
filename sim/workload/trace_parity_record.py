"""Record Accel-Sim's numbers for a parity configuration whose Accel-Sim config is not one it
ships: gp102's counterpart (SM6_TITANX with [SOCGPU]'s changes, data/accelsim/configs/gp102.json).
Development only: it needs the peer kit's Accel-Sim build; CI reads the recorded data.

    python -m sim.workload.trace_parity_record write-config gp102 DIR
    python -m sim.workload.trace_parity_record record gp102 [CASE ...] [--work PEER_DIR]

``write-config`` writes the config as option files (gpgpusim.config, trace.config and the
interconnect file) from the recorded options of its base config plus the changes, each changed
option preceded by a comment with its source. ``record`` writes the parity suite's traces, runs
``accel-sim.out`` on each with those files (one at a time, niced) and stores the statistics the
titanx data keeps, case by case, in data/accelsim/parity_<config>.json.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DATA = Path(__file__).parents[2] / "data" / "accelsim"
WORK = Path(__file__).parents[3] / "peers" / "accelsim"     # the peer kit's default build folder
STATS = {                           # recorded key → sim.out key (the last value printed)
    "cycles": "gpu_tot_sim_cycle", "warp_insts": "gpgpu_n_tot_w_icount",
    "thread_insts": "gpu_tot_sim_insn", "l1d_accesses": "L1D_total_cache_accesses",
    "l1d_misses": "L1D_total_cache_misses", "l2_accesses": "L2_total_cache_accesses",
    "l2_misses": "L2_total_cache_misses", "dram_reads": "total dram reads",
    "dram_writes": "total dram writes", "avg_icnt2mem_latency": "avg_icnt2mem_latency",
    "avg_icnt2sh_latency": "avg_icnt2sh_latency", "gpu_stall_dramfull": "gpu_stall_dramfull",
}


def config_options(name: str) -> tuple[dict, dict[str, str], dict[str, str]]:
    """(recorded changes, gpgpusim.config options, trace.config options) of config ``name``."""
    spec = json.loads((DATA / "configs" / f"{name}.json").read_text())
    base = json.loads((DATA / "configs" / f"{spec['base']}.json").read_text())
    return spec, base, {**base["gpgpusim.config"], **{k: c["value"] for k, c in
                                                      spec["changes"].items()}}


def write_config(name: str, folder: Path) -> Path:
    """Config ``name`` as Accel-Sim option files in ``folder``; returns its gpgpusim.config."""
    spec, base, opts = config_options(name)
    folder.mkdir(parents=True, exist_ok=True)
    lines = [f"# {name}: Accel-Sim's {spec['base']} with the changes below "
             f"(written from data/accelsim/configs/{name}.json)\n"]
    for k, v in opts.items():
        change = spec["changes"].get(k)
        if change is not None:
            lines.append(f"# {name}: {change['source']} ({spec['base']}: {change[spec['base']]})\n")
        lines.append(f'{k} "{v}"\n' if " " in v else f"{k} {v}\n")
    (folder / "gpgpusim.config").write_text("".join(lines))
    (folder / "trace.config").write_text("".join(f"{k} {v}\n" for k, v in base["trace.config"].items()))
    icnt = base["icnt"]
    (folder / icnt["file"]).write_text("".join(f"{k} = {v};\n" for k, v in icnt["settings"].items()))
    return folder / "gpgpusim.config"


def parse_stats(text: str) -> dict[str, int]:
    """The recorded statistics from an Accel-Sim ``sim.out`` (absent ones left out)."""
    out = {}
    for key, name in STATS.items():
        found = re.findall(rf"^\s*{re.escape(name)} = (\d+)", text, re.M)
        if found:
            out[key] = int(found[-1])
    out_kernels = [int(x) for x in re.findall(r"^gpu_sim_cycle = (\d+)", text, re.M)]
    return {**out, "kernel_cycles": out_kernels}


def run_accelsim(work: Path, config: Path, trace: Path, run: Path) -> tuple[dict, float]:
    """Run ``accel-sim.out`` on trace folder ``trace`` with the option files of folder
    ``config``, in folder ``run``; (statistics, wall seconds)."""
    run.mkdir(parents=True, exist_ok=True)
    for f in config.iterdir():
        (run / f.name).write_bytes(f.read_bytes())
    binary = work / "accel-sim-framework" / "gpu-simulator" / "bin" / "release" / "accel-sim.out"
    cmd = (f"source {work / 'env.sh'} >/dev/null 2>&1; cd {run}; nice {binary} "
           f"-trace {trace}/kernelslist.g -config gpgpusim.config -config trace.config "
           "> sim.out 2> sim.err")
    t0 = time.perf_counter()
    subprocess.run(["bash", "-c", cmd], check=True)
    return parse_stats((run / "sim.out").read_text(errors="replace")), time.perf_counter() - t0


def record(name: str, cases: list[str], work: Path) -> None:
    from .trace_parity import CASES, PARITY, trace_digest, write_case
    p = PARITY[name]
    path = DATA / p.data
    data = json.loads(path.read_text()) if path.is_file() else {"cases": {}}
    spec = json.loads((DATA / "configs" / f"{name}.json").read_text())
    data["source"] = {
        "simulator": "Accel-Sim (trace-driven, accel-sim.out) with GPGPU-Sim 4.x",
        "accel-sim-framework": "73f9fac68a1a717750da54d2d867c7524b47b4c3",
        "gpgpu-sim_distribution": "667834cfe5214523edd7769aeab77f91b7137686",
        "config": f"{spec['base']} with data/accelsim/configs/{name}.json's changes "
                  f"(python -m sim.workload.trace_parity_record write-config {name} DIR)",
        "command": "accel-sim.out -trace DIR/kernelslist.g -config gpgpusim.config -config trace.config",
        "traces": f"python -m sim.workload.trace_parity write DIR --family {p.family}; "
                  "trace_sha256 = trace_parity.trace_digest",
        "statistics": "the last value printed in sim.out of: " + ", ".join(
            f"{k} ({v})" for k, v in STATS.items()) + "; kernel_cycles: each kernel's gpu_sim_cycle",
        "recorded": time.strftime("%Y-%m-%d") + " on a shared 2-core machine (wall_s informative only)",
    }
    with tempfile.TemporaryDirectory() as tmp:
        config = Path(tmp) / "config"
        write_config(name, config)
        for case in cases or list(CASES):
            d = write_case(case, Path(tmp) / "traces", p.family)
            try:
                stats, wall = run_accelsim(work, config, d, Path(tmp) / "run" / case)
            except subprocess.CalledProcessError as e:
                print(f"{case}: Accel-Sim failed (exit {e.returncode})", flush=True)
                continue
            data["cases"][case] = {**stats, "trace_sha256": trace_digest(d), "wall_s": round(wall, 2)}
            path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")    # case by case
            print(f"{case}: {stats.get('cycles')} cycles ({wall:.0f} s)", flush=True)


def main(argv: list[str]) -> int:
    work = WORK
    if "--work" in argv:
        i = argv.index("--work")
        work, argv = Path(argv[i + 1]), argv[:i] + argv[i + 2:]
    if len(argv) == 3 and argv[0] == "write-config":
        print(write_config(argv[1], Path(argv[2])))
        return 0
    if len(argv) >= 2 and argv[0] == "record":
        record(argv[1], argv[2:], work)
        return 0
    print(__doc__.strip().splitlines()[3].strip(), file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
