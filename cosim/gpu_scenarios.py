"""GPU-model scenarios for ``run_in_loop``: whole GPU runs with RTL blocks in a policy's place.

Each scenario builds the GPU model exactly as ``sim.run.simulate`` does and puts one block per
run at its policy's instance through the block provider (``GivenBlocks``): the IKRA CTA scheduler (``gpu_cta_sched``, one run per
``cta_sched`` instance, e.g. steal and rr side by side) or the ONAC / Seq-Det detector of the
active-SM controller (``gpu_swm``); the SOCGPU issue blocks of one SM live in
``cosim.gpu_socgpu``. The policy drives the block through its ports only, so the
same scenario runs on RTL proxies, lockstep proxies or, with ``blocks=None``, the stock twins
(the reference). Results are JSON-ready: per run the full stats of ``simulate``, the GPU cycles
and the number of block steps.

``twin="module:factory"`` (called with the instance's params) replaces the scoreboard twin of
every lockstep proxy, e.g. a deliberately broken twin that the lockstep must catch.

Command line (prints cycles, steps, mismatch and wall time; ``--mode twin|rtl|lockstep``)::

    python -m cosim.gpu_scenarios cta_sched --preset tiny --workload ikra_work_stealing \\
        --scale 0.05 --policies steal rr --mode lockstep
    python -m cosim.gpu_scenarios onac --preset thesis --workload onac_tp_like --scale 1
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from gpusched.blocks import get_block, parse_params
from gpusched.config import get_preset, with_overrides


def _config(preset: str, overrides: list[str] | tuple[str, ...] = ()):
    cfg = get_preset(preset)
    return with_overrides(cfg, list(overrides)) if overrides else cfg


def cta_sched_params(preset: str, policy: str, overrides=(), id_w: int = 32,
                     qdepth: int = 32) -> dict:
    """``cta_sched`` RTL params matching ``IkraCtaScheduler`` on that config (C = SMs)."""
    cfg = _config(preset, overrides)
    return parse_params(get_block("cta_sched"), {"C": cfg.sm.count, "ID_W": id_w,
                                                 "QDEPTH": qdepth, "policy": policy,
                                                 "victim_first": cfg.kernels.ikra_victim_first})


def swm_params(block: str, preset: str, overrides=(), count_bits: int = 24) -> dict:
    """``onac`` / ``seq_det`` RTL params matching ``OnacController`` (M = SMs, default IPC)."""
    cfg = _config(preset, overrides)
    return parse_params(get_block(block), {"M": cfg.sm.count, "count_bits": count_bits})


def _with_twin(blocks, params_list: list[dict], twin: str | None):
    """Lockstep proxies re-made around ``twin(params)`` as scoreboard (mutation checks)."""
    if twin is None or blocks is None:
        return blocks
    from cosim.benches import load_ref
    from cosim.bridge import LockstepProxy
    factory = load_ref(twin)
    return [LockstepProxy(factory(p), b.rtl, b.label, b.params, b.seed)
            if isinstance(b, LockstepProxy) else b for b, p in zip(blocks, params_list)]


def _simulate(cfg, workload: str, scale: float, seed: int, memory: str, **policies) -> dict:
    from sim.run import load_workload, simulate
    return simulate(cfg, load_workload(workload, seed=seed, scale=scale), seed=seed,
                    memory=memory, **policies)


def _given(**at):
    """The provider putting ``at[instance] = (block name, object)`` in place (None: skipped)."""
    from sim.blocks.provider import GivenBlocks
    return GivenBlocks({(name, inst): obj for inst, (name, obj) in at.items() if obj is not None})


def gpu_cta_sched(blocks, params_list: list[dict], preset: str, workload: str,
                  scale: float = 1.0, overrides: list[str] = (), memory: str = "fixed",
                  seed: int = 0, twin: str | None = None) -> dict:
    """One GPU run per ``cta_sched`` instance, its IKRA policy/ID_W/QDEPTH from the params;
    ``blocks=None``: the stock twins. {"runs": [{"policy", "cycles", "block_steps", "stats"}]}."""
    from sim.policies.ikra_cta import IkraCtaScheduler
    cfg = _config(preset, overrides)
    blocks = _with_twin(blocks, params_list, twin) or [None] * len(params_list)
    runs = []
    for blk, p in zip(blocks, params_list):
        if p["C"] != cfg.sm.count:
            raise ValueError(f"cta_sched C={p['C']} but {preset} has {cfg.sm.count} SMs")
        first = p.get("victim_first", "right")
        if first != cfg.kernels.ikra_victim_first:
            raise ValueError(f"cta_sched victim_first={first} but the config has "
                             f"kernels.ikra_victim_first={cfg.kernels.ikra_victim_first}")
        sched = IkraCtaScheduler(cfg, p["policy"], qdepth=p["QDEPTH"], id_w=p["ID_W"])
        stats = _simulate(cfg, workload, scale, seed, memory, cta_scheduler=sched,
                          blocks=_given(gpu=("cta_sched", blk)))
        runs.append({"policy": p["policy"], "cycles": stats["cycles"],
                     "block_steps": sched.steps, "stats": stats})
    return {"runs": runs}


def gpu_swm(blocks, params_list: list[dict], mode: str, preset: str, workload: str,
            scale: float = 1.0, overrides: list[str] = (), waves: int = 1, skip_waves: int = 0,
            memory: str = "fixed", seed: int = 0, twin: str | None = None) -> dict:
    """One GPU run per ONAC (``mode="onac"``) or Seq-Det detector instance in the active-SM
    controller; ``blocks=None``: the stock twin. Same result shape as ``gpu_cta_sched``."""
    from sim.policies.onac_ctrl import OnacController
    cfg = _config(preset, overrides)
    blocks = _with_twin(blocks, params_list, twin) or [None] * len(params_list)
    runs = []
    for blk, p in zip(blocks, params_list):
        if p["M"] != cfg.sm.count or (p["ipc_bits"], p["ipc_frac"]) != (16, 10):
            raise ValueError(f"{mode} params {p} do not match the controller on {preset}")
        ctl = OnacController(cfg, mode=mode, waves=waves, skip_waves=skip_waves,
                             count_bits=p["count_bits"])
        stats = _simulate(cfg, workload, scale, seed, memory, sm_controller=ctl,
                          blocks=_given(gpu=(mode, blk)))
        runs.append({"mode": mode, "cycles": stats["cycles"], "block_steps": ctl.steps,
                     "stats": stats})
    return {"runs": runs}


def canonical(result) -> object:
    """``result`` as it comes back through the bench's JSON file (tuples become lists)."""
    return json.loads(json.dumps(result))


def run(block: str, kwargs: dict, mode: str = "rtl") -> dict:
    """Run the scenario of ``block`` (cta_sched, onac, seq_det, socgpu_issue) with ``kwargs`` (params_list
    included) on the twins (``mode="twin"``), the RTL alone or RTL + twin in lockstep: see
    :func:`run_scenario`."""
    from cosim.gpu_socgpu import gpu_socgpu
    fn = {"cta_sched": gpu_cta_sched, "socgpu_issue": gpu_socgpu}.get(block, gpu_swm)
    return run_scenario(block, fn, kwargs, mode)


def run_scenario(block: str, fn, kwargs: dict, mode: str = "rtl") -> dict:
    """GPU scenario ``fn(ports, **kwargs)`` with ``block``'s twins (``mode="twin"``: ports None),
    its RTL alone or RTL + twin in lockstep (``block``: a name, or a list with one name per entry
    of ``params_list``). Returns {"result", "steps" (per RTL instance, []
    for twins), "mismatch", "seconds" (wall, build included), "loop_seconds" (the scenario
    alone, inside the simulator for RTL modes)}."""
    from cosim.lockstep import LockstepMismatch
    from cosim.runner import run_in_loop
    module = fn.__module__
    if module == "__main__":        # run as ``python -m cosim.X``: the simulator imports it by name
        module = sys.modules["__main__"].__spec__.name
    scenario = f"{module}:{fn.__name__}"
    t0 = time.perf_counter()
    if mode == "twin":
        out = {"result": canonical(fn(None, **kwargs)), "steps": [], "mismatch": None,
               "seconds": time.perf_counter() - t0}
    else:
        try:
            many = isinstance(block, (list, tuple))
            spec = [get_block(b) for b in block] if many else get_block(block)
            out = run_in_loop(spec, kwargs["params_list"], scenario, kwargs,
                              lockstep=mode == "lockstep")
            out["mismatch"] = None
        except LockstepMismatch as e:
            out = {"result": None, "steps": None, "mismatch": str(e), "seconds": None}
    out["loop_seconds"], out["seconds"] = out["seconds"], time.perf_counter() - t0
    return out


def print_against_twins(run_fn, kwargs: dict, mode: str) -> None:
    """The command-line summary of a GPU-in-the-loop scenario: one JSON line with its cycles,
    RTL steps, lockstep mismatch, wall seconds and whether its statistics equal a twins-only run."""
    ref = run_fn(kwargs, "twin")
    out = run_fn(kwargs, mode)
    r = (out["result"] or {"runs": [{}]})["runs"][0]
    same = r.get("stats") == ref["result"]["runs"][0]["stats"] if out["result"] else None
    print(json.dumps({"mode": mode, "cycles": r.get("cycles"), "block_steps": r.get("block_steps"),
                      "equal_to_twins": same, "mismatch": out["mismatch"],
                      "seconds": round(out["seconds"], 1)}))


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description="GPU run with an RTL block in the loop")
    ap.add_argument("block", choices=("cta_sched", "onac", "seq_det"))
    ap.add_argument("--preset", default=None)
    ap.add_argument("--workload", default=None)
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--override", action="append", default=[])
    ap.add_argument("--memory", default="fixed")
    ap.add_argument("--policies", nargs="+", default=["steal", "rr"], help="cta_sched only")
    ap.add_argument("--waves", type=int, default=1, help="onac / seq_det only")
    ap.add_argument("--skip-waves", type=int, default=0, help="onac / seq_det only")
    ap.add_argument("--mode", choices=("twin", "rtl", "lockstep"), default="rtl")
    ap.add_argument("--twin", default=None, help="module:factory scoreboard twin (lockstep)")
    a = ap.parse_args(argv)
    cta = a.block == "cta_sched"
    preset = a.preset or ("tiny" if cta else "thesis")
    workload = a.workload or ("ikra_work_stealing" if cta else "onac_tp_like")
    common = {"preset": preset, "workload": workload, "scale": a.scale,
              "overrides": a.override, "memory": a.memory, "twin": a.twin}
    if cta:
        params = [cta_sched_params(preset, p, a.override) for p in a.policies]
        kwargs = {"params_list": params, **common}
    else:
        params = [swm_params(a.block, preset, a.override)]
        kwargs = {"params_list": params, "mode": a.block, "waves": a.waves,
                  "skip_waves": a.skip_waves, **common}
    out = run(a.block, kwargs, a.mode)
    if out["mismatch"]:
        print(f"MISMATCH after {out['seconds']:.1f} s:\n{out['mismatch']}")
        raise SystemExit(1)
    for k, r in enumerate(out["result"]["runs"]):
        rtl = out["steps"][k] if out["steps"] else "-"
        print(f"{a.block} {r.get('policy') or r.get('mode')} on {preset}/{workload}@{a.scale} "
              f"[{a.mode}]: {r['cycles']} GPU cycles, {r['block_steps']} block steps "
              f"(RTL instance: {rtl})")
    print(f"mismatches: 0; wall time {out['seconds']:.1f} s (GPU runs {out['loop_seconds']:.1f} s)")


if __name__ == "__main__":
    main()
