"""Where the compiled modules of the model are and whether a package uses them (the loader half
of ``sim.accel``, kept apart so that ``python -m sim.accel`` is not already imported by the
``sim`` package, whose ``__init__`` calls ``use_compiled``).

A build lives in ``.accel/<hash>/``; the hash covers the compiled sources, the files whose types
they rely on, the Python build and the mypy version. A package uses a build only while that hash
matches its current sources, so an edited file runs as plain Python until the next build.
"""

from __future__ import annotations

import hashlib
import os
import sys
import sysconfig
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("sim/memory",)                       # compiled: every module but __init__.py
CORE = ("sim/warp.py", "sim/subcore_state.py", "sim/subcore.py", "sim/sm_memory.py",   # SM core
        "sim/sm_cta.py", "sim/sm.py", "sim/blocks/port_block.py", "sim/blocks/warp_sched.py",
        "sim/issue/phase_port.py")
# the files whose types the compiled code relies on, and the build script
HASHED_TOO = ("sim/workload/kernel.py", "sim/cta.py", "sim/stats.py", "sim/accel.py",
              "sim/compiled.py")
ACCEL_ROOT = ROOT / ".accel"


def compiled_sources() -> list[Path]:
    pkgs = [p for pkg in PACKAGES for p in (ROOT / pkg).glob("*.py") if p.name != "__init__.py"]
    return sorted(pkgs + [ROOT / f for f in CORE])


def _mypy_version() -> str:
    """The installed mypy's version, from its dist-info folder's name (importlib.metadata would
    add a fortieth of a second to every start-up)."""
    import importlib.util
    try:
        spec = importlib.util.find_spec("mypy")
    except (ImportError, ValueError):
        spec = None
    if spec is None or not spec.submodule_search_locations:
        return "none"
    site = Path(list(spec.submodule_search_locations)[0]).parent
    found = sorted(p.name for p in site.glob("mypy-*.dist-info"))
    return found[-1][len("mypy-"):-len(".dist-info")] if found else "unknown"


def source_hash() -> str:
    h = hashlib.sha256()
    h.update(sysconfig.get_config_var("EXT_SUFFIX").encode())
    h.update(sys.version.encode())      # the interpreter build (two 3.11 builds, two builds)
    h.update(_mypy_version().encode())
    for p in compiled_sources() + [ROOT / f for f in HASHED_TOO]:
        h.update(str(p.relative_to(ROOT)).encode())
        h.update(p.read_bytes())
    return h.hexdigest()[:16]


def build_dir() -> Path:
    return ACCEL_ROOT / source_hash()


def use_compiled(package: str, path: list[str]) -> bool:
    """Called from a compiled package's ``__init__``: put the matching build first on its
    ``__path__`` (and the mypyc runtime library on ``sys.path``). False: plain Python."""
    if os.environ.get("GPUSCHED_PURE") or not (ROOT / package.replace(".", "/")).is_dir():
        return False
    d = build_dir()
    if not (d / "ok").is_file():
        return False
    # the project root before the build: a worker process started with this sys.path (a sweep's
    # forkserver pool) must find the ``sim`` package itself, not the build's ``sim/`` folder,
    # which holds only compiled modules and would make ``sim`` a namespace package there
    for entry in (str(ROOT), str(d)):
        if entry not in sys.path:
            sys.path.append(entry)
    path.insert(0, str(d / package.replace(".", "/")))
    return True


def active() -> bool:
    """True when the compiled modules (memory model and SM core) are in use in this process."""
    import sim.memory
    d = str(build_dir())
    return d in sim.memory.__path__[0] and d in sim.__path__[0]
