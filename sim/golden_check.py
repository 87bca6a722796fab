"""Golden-result check for model-speed work: run a fixed set of simulations, dump their full stats.

    python -m sim.golden_check save   [DIR]      # write DIR/<case>.json (default /tmp/golden)
    python -m sim.golden_check check  [DIR]      # re-run, compare byte for byte, list differences
    python -m sim.golden_check list

An optimisation of the model must leave every case identical (cycles, hits, DRAM stats, energy,
per-kernel times). ``--only a,b`` restricts the cases.
"""

from __future__ import annotations

import dataclasses
import json
import sys
import time
from pathlib import Path

DEFAULT_DIR = "/tmp/golden"

# name: (preset, workload, scale, memory, policies); workload "ref:X" = sim.bench.reference(X)
CASES: dict[str, tuple] = {
    "ref_compute_fixed": ("gtx480", "ref:compute", 1, "fixed", {}),
    "ref_compute_hier": ("gtx480", "ref:compute", 1, "hierarchy", {}),
    "ref_memory_fixed": ("gtx480", "ref:memory", 1, "fixed", {}),
    "ref_memory_hier": ("gtx480", "ref:memory", 1, "hierarchy", {}),
    "ref_mixed_fixed": ("gtx480", "ref:mixed", 1, "fixed", {}),
    "ref_mixed_hier": ("gtx480", "ref:mixed", 1, "hierarchy", {}),
    "ref_memory_fixed_cap": ("gtx480", "ref:memory", 0.3, "fixed_cap", {}),
    "cache_gto": ("gtx480", "cache_gto", 0.1, "hierarchy", {}),
    "mem_stream": ("gtx480", "mem_stream", 0.5, "hierarchy", {}),
    "stencil_like": ("gtx480", "stencil_like", 1, "hierarchy", {}),
    "gemm_like": ("gtx480", "gemm_like", 0.5, "hierarchy", {}),
    "mixed_like": ("gtx480", "mixed_like", 1, "hierarchy", {}),
    "mixed_like_fixed": ("gtx480", "mixed_like", 1, "fixed", {}),
    "graph_like_gp102": ("gp102", "graph_like", 0.2, "hierarchy", {}),
    "rnn_like_part": ("gtx480", "rnn_like", 1, "hierarchy", {"kernel_scheduler": "sm_partition"}),
    "perfsat_mem": ("gtx480", "perfsat_mem", 0.5, "hierarchy", {"cta_limit": "perf_sat"}),
    "ikra_gpu_small": ("ikra_15cu", "ikra_gpu_small", 1, "hierarchy", {"cta_scheduler": "ikra_steal"}),
    "ikra_hotspot": ("ikra_15cu", "ikra_hotspot", 0.5, "hierarchy", {"cta_scheduler": "ikra_steal"}),
    "ikra_graph_coloring": ("ikra_15cu", "ikra_graph_coloring", 0.1, "hierarchy",
                            {"cta_scheduler": "ikra_steal"}),
    "onac_tp": ("thesis", "onac_tp_like", 0.4, "hierarchy", {"sm_controller": "onac"}),
    "onac_bt_k2_fixed": ("thesis", "onac_bt_k2_like", 0.2, "fixed", {"sm_controller": "onac"}),
    "owl_t_irregular": ("gtx480", "owl_t_irregular", 0.5, "hierarchy", {}),
    # small MSHR files / injection queues: constant structural stalls and retries
    "tiny_stalls": ("tiny", "mixed_like", 0.3, "hierarchy", {},
                    {"l1": {"mshrs": 2}, "icnt": {"inject_queue": 2}}),
    "tiny_writeback_kernels": ("tiny", "rnn_like", 0.3, "hierarchy", {},
                               {"l1": {"mshrs": 2, "write_policy": "write_back"},
                                "dram": {"queue_size": 2}}),
    "gtx480_stalls_onac": ("gtx480", "stencil_like", 0.5, "hierarchy", {"sm_controller": "onac"},
                           {"l1": {"mshrs": 4}, "units": {"ldst_shared": True}}),
}


def run_case(name: str) -> dict:
    from gpusched.config import get_preset, validate
    from sim.bench import reference
    from sim.run import load_workload, simulate
    preset, wl_name, scale, memory, policies, *changes = CASES[name]
    cfg = get_preset(preset)
    if changes:                 # {section: {field: value}} replaced in the preset
        cfg = validate(dataclasses.replace(cfg, **{
            sec: dataclasses.replace(getattr(cfg, sec), **fields) for sec, fields in changes[0].items()}))
    if wl_name.startswith("ref:"):
        wl = reference(wl_name[4:])
        if scale != 1:          # fewer CTAs: same kernel, smaller grid
            k = wl.kernels[0]
            k.grid = (max(1, int(k.grid[0] * scale)), 1, 1)
    else:
        wl = load_workload(wl_name, seed=1, scale=scale)
    if memory == "fixed_cap":   # fixed memory with an in-flight line cap: exercises SM retries
        from sim.memory.fixed import FixedMemory
        memory = FixedMemory(cfg, max_lines=6)
    return simulate(cfg, wl, seed=1, memory=memory, **policies)


def dump(result: dict) -> str:
    return json.dumps(result, sort_keys=True, indent=0)


def main(argv: list[str]) -> int:
    cmd = argv[0] if argv else "check"
    args = [a for a in argv[1:] if not a.startswith("--")]
    only = None
    for a in argv[1:]:
        if a.startswith("--only="):
            only = a.split("=", 1)[1].split(",")
    folder = Path(args[0] if args else DEFAULT_DIR)
    names = [n for n in CASES if only is None or n in only]
    if cmd == "list":
        for n in names:
            print(n, *CASES[n][:4])
        return 0
    folder.mkdir(parents=True, exist_ok=True)
    bad = 0
    for n in names:
        t0 = time.process_time()
        text = dump(run_case(n))
        cpu = time.process_time() - t0
        path = folder / f"{n}.json"
        if cmd == "save":
            path.write_text(text)
            print(f"saved {n:24s} {cpu:6.2f} s")
            continue
        want = path.read_text()
        if want == text:
            print(f"same  {n:24s} {cpu:6.2f} s")
            continue
        a, b = _flat(_moved(json.loads(want))), _flat(json.loads(text))
        diffs = _diff(a, b, "")
        changed = [d for d in diffs if d[1] is not None]
        if not changed:         # only fields the golden run did not have (added since)
            new = sorted({d[0].split(".")[1] for d in diffs}) if diffs else ["none: same values, new shape"]
            print(f"same  {n:24s} {cpu:6.2f} s (+ new fields under {', '.join(new)})")
            continue
        bad += 1
        print(f"DIFF  {n:24s} {cpu:6.2f} s: {len(changed)} fields, e.g. {changed[:5]}")
    if cmd == "check":
        print("ALL IDENTICAL" if not bad else f"{bad} CASES DIFFER")
    return 1 if bad else 0


def _moved(old: dict) -> dict:
    """A golden file from before the energy counters moved from ``memory`` to the top-level
    ``energy`` object: move them, so they compare by value."""
    mem = old.get("memory", {})
    energy = {k.split(".", 1)[1]: mem.pop(k) for k in [k for k in mem if k.startswith("energy.")]}
    if energy:
        old["energy"] = {**energy, **old.get("energy", {})}
    return old


def _flat(value, prefix: str = ""):
    """Nested objects → dotted keys, so a golden file from before a JSON shape change (dotted
    keys → nested objects, docs/stats.md) compares by value."""
    if not isinstance(value, dict):
        return value
    out: dict = {}
    for k, v in value.items():
        if isinstance(v, dict):
            out.update(_flat(v, f"{prefix}{k}."))
        else:
            out[f"{prefix}{k}"] = [_flat(x) for x in v] if isinstance(v, list) else v
    return out


def _diff(a, b, path: str) -> list:
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for k in sorted(set(a) | set(b)):
            out += _diff(a.get(k), b.get(k), f"{path}.{k}")
        return out
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        out = []
        for i, (x, y) in enumerate(zip(a, b)):
            out += _diff(x, y, f"{path}[{i}]")
        return out
    return [] if a == b else [(path, a, b)]


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
