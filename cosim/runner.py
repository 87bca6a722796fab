"""Run a block's cocotb lockstep bench on Verilator or Icarus through ``cocotb_tools.runner``.

The bench (``cosim.benches.lockstep_bench``) drives the Verilog DUT and the twin with the same
stimulus and writes a JSON summary that this module reads back.

A simulator build is a sealed cache entry (``gpusched.cache``), built in place under a lock and
sealed after the build: a sealed, sound build is run without calling the build at all; an
unsealed (interrupted) or damaged one is reported, wiped and built again.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import tempfile
from pathlib import Path

from gpusched.blocks import BlockSpec

from gpusched import signals
from gpusched.cache import problem, report, seal, verified

from .build import cache_dir, python_env, verilog_for
from .lockstep import LockstepMismatch, LockstepReport
from .simulators import prepare_env

BENCH_MODULE = "cosim.benches.lockstep_bench"


def grouped_runner(sim: str):
    """cocotb's runner for ``sim`` whose commands (make → Verilator → the C++ compiler, the
    simulator) each run in a process group of their own, ended with all its processes when the
    command stops early (``gpusched.signals``); cocotb runs them with plain ``subprocess.run``."""
    import subprocess

    from cocotb_tools.runner import get_runner
    runner = get_runner(sim)

    def execute_cmds(cmds, cwd, stdout=None) -> None:
        for cmd in cmds:
            done = signals.run(cmd, cwd=cwd, env=runner.env, stdout=stdout,
                               stderr=None if stdout is None else subprocess.STDOUT)
            if done.returncode != 0:
                raise RuntimeError(f"Command failed with return code: {done.returncode}")
    assert hasattr(runner, "_execute_cmds"), "cocotb_tools.runner changed: see grouped_runner"
    runner._execute_cmds = execute_cmds
    return runner


def build_dir_for(sim: str, vpath: Path, top: str, options: str) -> tuple[Path, str]:
    """The build folder and seal key of ``vpath`` built by ``sim`` with ``options`` (arguments,
    waves): named by the top and a hash of the Verilog text, the options and this Python
    environment (Verilator's makefiles keep absolute paths into cocotb's install)."""
    import hashlib
    digest = hashlib.sha256(vpath.read_bytes() + b"\0" + options.encode()).hexdigest()
    key = f"{sim} build of {top} verilog+options sha256={digest} python={python_env()}"
    return cache_dir(f"{sim}_build") / f"{top}_{digest[:16]}_{python_env()}", key


def build_once(runner, build_dir: Path, key: str, kwargs: dict, prepare=None,
               announce=None) -> bool:
    """``runner.build(**kwargs)`` into ``build_dir`` unless a sound build sealed for ``key`` is
    there; True when it built. Under the build lock an unsealed or damaged folder is reported
    and wiped first, ``prepare()`` may then write inputs into the folder and return arguments
    that replace ``kwargs``'s, ``announce()`` is called, and the build is sealed when it
    succeeded. A sealed build is not
    rebuilt: ``runner.build`` only records its settings (cocotb's ``test`` reads them) and runs
    no command."""
    import shutil
    if not verified(build_dir, key):
        with build_lock(build_dir):
            why = problem(build_dir, key)
            if why is not None:
                if any(build_dir.iterdir()):
                    report(build_dir, why)
                    shutil.rmtree(build_dir)
                    build_dir.mkdir()
                args = kwargs | (prepare() if prepare else {})
                if announce:
                    announce()
                runner.build(**args, build_dir=build_dir, log_file=build_dir / "build.log")
                seal(build_dir, key)
                return True
    runner._execute = lambda cmds, cwd: None
    try:
        runner.build(**kwargs, build_dir=build_dir, log_file=None)
    finally:
        del runner._execute
    return False


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
    from .waves import hide_internal_nets, wave_format
    say = progress or (lambda text: None)
    fmt = wave_format(waves, sim) if waves else None
    prepare_env(sim)
    vpath, top = verilog_for(spec, params)
    build_args = ["-O2", "-Wno-fatal"] if sim == "verilator" else []
    build_dir, key = build_dir_for(sim, vpath, top, f"{build_args} waves={fmt} internal={internal}")
    runner = grouped_runner(sim)

    def prepare() -> dict:
        """Inputs written into the build folder: the Verilog with internal nets hidden from
        the waves, FST's LZ4 declarations."""
        source, args = vpath, list(build_args)
        if waves and sim == "verilator" and not internal:
            source = build_dir / vpath.name
            source.write_text(hide_internal_nets(vpath.read_text()))
        if fmt == "fst":
            from .waves import fst_build_args
            args += fst_build_args(build_dir)
        return {"sources": [source], "build_args": args}
    build_once(runner, build_dir, key, dict(sources=[vpath], hdl_toplevel=top, waves=bool(waves),
                                            timescale=("1ns", "1ps"), build_args=build_args),
               prepare, lambda: say(f"building the {sim} model of {top} (a minute or two; "
                                    "cached afterwards)"))
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
    from .bridge import MultiTop
    from .build import write_verilog

    prepare_env(sim)
    names = [s.name for s in spec] if isinstance(spec, list) else spec.name
    label = "_".join(names) if isinstance(names, list) else names
    top = f"loop_{label}_{len(params_list)}x_" + hashlib_short(json.dumps(params_list, sort_keys=True))
    vpath = write_verilog(MultiTop, top, spec, params_list)
    build_args = ["-O2", "-Wno-fatal"] if sim == "verilator" else []
    build_dir, key = build_dir_for(sim, vpath, top, str(build_args))
    runner = grouped_runner(sim)
    build_once(runner, build_dir, key, dict(sources=[vpath], hdl_toplevel=top,
                                            timescale=("1ns", "1ps"), build_args=build_args))
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
