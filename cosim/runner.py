"""Run a block's cocotb lockstep bench on Verilator or Icarus through ``cocotb_tools.runner``.

The bench (``cosim.benches.lockstep_bench``) drives the Verilog DUT and the twin with the same
stimulus and writes a JSON summary that this module reads back.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import tempfile
from pathlib import Path

from gpusched.blocks import BlockSpec

from .build import sim_build_dir, verilog_for
from .lockstep import LockstepMismatch, LockstepReport
from .simulators import prepare_env

BENCH_MODULE = "cosim.benches.lockstep_bench"


@contextlib.contextmanager
def build_lock(build_dir: Path):
    """Hold an exclusive file lock beside ``build_dir`` while building: tests in parallel
    workers may build the same top at once (a half-written build made both fail)."""
    import fcntl
    build_dir.mkdir(parents=True, exist_ok=True)
    with open(build_dir.parent / f"{build_dir.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def run_cosim(spec: BlockSpec, params: dict, cycles: int, seed: int, sim: str = "verilator",
              waves: str | None = None, twin: str | None = None, internal: bool = False,
              progress=None) -> LockstepReport:
    """Build (cached) and run the lockstep bench; raise LockstepMismatch on the first difference.

    ``waves``: write a dump there, FST or VCD by its suffix (``cosim.waves``); ``internal``: keep
    the Verilog's internal ``$N`` nets in it. ``progress(text)`` is told before each long step.

    ``twin`` ("module:factory", importable from this process's sys.path; called with the params
    dict) replaces the block's own twin as the scoreboard, e.g. to show that a deliberately
    broken twin is caught.
    """
    from cocotb_tools.runner import get_runner

    from .waves import hide_internal_nets, wave_format
    say = progress or (lambda text: None)
    fmt = wave_format(waves, sim) if waves else None
    prepare_env(sim)
    vpath, top = verilog_for(spec, params)
    build_dir = sim_build_dir(sim, vpath.stem + (f"_waves_{fmt}" + ("_all" if internal else "")
                                                 if waves else ""))
    if waves and sim == "verilator" and not internal:
        build_dir.mkdir(parents=True, exist_ok=True)
        traced = build_dir / vpath.name
        text = hide_internal_nets(vpath.read_text())
        if not traced.exists() or traced.read_text() != text:
            traced.write_text(text)
        vpath = traced
    runner = get_runner(sim)
    build_args = ["-O2", "-Wno-fatal"] if sim == "verilator" else []
    if fmt == "fst":
        from .waves import fst_build_args
        build_args += fst_build_args(build_dir)
    say(f"building the {sim} model of {top} (cached after the first time; a minute or two)")
    with build_lock(build_dir):
        runner.build(sources=[vpath], hdl_toplevel=top, build_dir=build_dir, waves=bool(waves),
                     timescale=("1ns", "1ps"), build_args=build_args,
                     log_file=build_dir / "build.log")
    say(f"simulating {cycles:,} cycles in lockstep with the twin")
    with tempfile.TemporaryDirectory(prefix="gpusched_cosim_") as tmp:
        result = Path(tmp) / "result.json"
        env = {"GPUSCHED_COSIM": json.dumps({"block": spec.name, "params": params, "cycles": cycles,
                                             "seed": seed, "result": str(result),
                                             "twin": twin}),
               "COCOTB_LOG_LEVEL": "WARNING"}
        try:
            runner.test(test_module=BENCH_MODULE, hdl_toplevel=top, build_dir=build_dir,
                        test_dir=tmp, extra_env=env, waves=bool(waves), seed=seed,
                        timescale=("1ns", "1ps"), log_file=Path(tmp) / "sim.log")
        except SystemExit:
            pass  # cocotb's runner exits on a failed test; the result file says why
        if not result.exists():
            log = (Path(tmp) / "sim.log").read_text()[-3000:]
            raise RuntimeError(f"cocotb bench wrote no result; simulator log tail:\n{log}")
        summary = json.loads(result.read_text())
        if waves:
            _copy_waves(build_dir, Path(tmp), Path(waves), fmt, internal)
    if summary.get("mismatch"):
        raise LockstepMismatch(summary["mismatch"])
    return LockstepReport(spec.name, params, seed, summary["cycles"], 0, summary["seconds"])


def _copy_waves(build_dir: Path, test_dir: Path, dest: Path, fmt: str, internal: bool) -> None:
    """Verilator writes dump.vcd/fst in the test dir, Icarus in the build dir; copy it out (a
    VCD through ``clean_vcd`` so that pyvcd reads it)."""
    from .waves import clean_vcd
    for d in (test_dir, build_dir):
        src = d / f"dump.{fmt}"
        if src.exists():
            if fmt == "vcd":
                clean_vcd(src, dest, internal)
            else:
                shutil.copy(src, dest)
            return
    raise RuntimeError(f"the simulator wrote no wave dump in {test_dir} or {build_dir}")


def run_in_loop(spec: BlockSpec, params_list: list[dict], scenario: str, kwargs: dict,
                lockstep: bool = True, seed: int = 0, sim: str = "verilator") -> dict:
    """Run ``scenario`` ("module:function", called as f(blocks=[...], **kwargs)) with one RTL
    instance per entry of ``params_list`` in the loop (each in lockstep with its twin unless
    ``lockstep`` is False); ``spec`` may be a list, one block per entry. Returns {"result",
    "steps", "seconds"}; raises LockstepMismatch."""
    from cocotb_tools.runner import get_runner

    from .bridge import MultiTop
    from .build import write_verilog

    prepare_env(sim)
    names = [s.name for s in spec] if isinstance(spec, list) else spec.name
    label = "_".join(names) if isinstance(names, list) else names
    top = f"loop_{label}_{len(params_list)}x_" + hashlib_short(json.dumps(params_list, sort_keys=True))
    vpath = write_verilog(MultiTop, top, spec, params_list)
    build_dir = sim_build_dir(sim, vpath.stem)
    runner = get_runner(sim)
    build_args = ["-O2", "-Wno-fatal"] if sim == "verilator" else []
    with build_lock(build_dir):
        runner.build(sources=[vpath], hdl_toplevel=top, build_dir=build_dir,
                     timescale=("1ns", "1ps"), build_args=build_args,
                     log_file=build_dir / "build.log")
    with tempfile.TemporaryDirectory(prefix="gpusched_loop_") as tmp:
        result = Path(tmp) / "result.json"
        env = {"GPUSCHED_LOOP": json.dumps({"block": names, "params_list": params_list,
                                            "scenario": scenario, "kwargs": kwargs,
                                            "lockstep": lockstep, "seed": seed,
                                            "result": str(result)}),
               "COCOTB_LOG_LEVEL": "WARNING"}
        try:
            runner.test(test_module="cosim.benches.model_bench", hdl_toplevel=top,
                        build_dir=build_dir, test_dir=tmp, extra_env=env, seed=seed,
                        timescale=("1ns", "1ps"), log_file=Path(tmp) / "sim.log")
        except SystemExit:
            pass
        if not result.exists():
            log = (Path(tmp) / "sim.log").read_text()[-3000:]
            raise RuntimeError(f"cocotb bench wrote no result; simulator log tail:\n{log}")
        summary = json.loads(result.read_text())
    if summary.get("mismatch"):
        raise LockstepMismatch(summary["mismatch"])
    return summary


def hashlib_short(text: str) -> str:
    import hashlib
    return hashlib.sha256(text.encode()).hexdigest()[:10]
