"""Amaranth → Verilog with a content-addressed cache (block, parameters, hdl sources, versions)."""

from __future__ import annotations

import hashlib
import os
import sys
from importlib.metadata import version
from pathlib import Path

from gpusched.blocks import BlockSpec

HDL_DIR = Path(__file__).resolve().parent.parent / "hdl"


def cache_dir(kind: str) -> Path:
    """Per-user cache (``$GPUSCHED_CACHE`` or ~/.cache/gpusched), one sub-folder per kind."""
    root = Path(os.environ.get("GPUSCHED_CACHE", Path.home() / ".cache" / "gpusched"))
    d = root / kind
    d.mkdir(parents=True, exist_ok=True)
    return d


def sim_build_dir(sim: str, name: str) -> Path:
    """Where a simulator build of ``name`` is cached. Keyed by this Python environment too:
    Verilator's makefiles keep absolute paths into cocotb's install, so a build made from another
    checkout's virtualenv (same sources, same cache) would not link here."""
    env = hashlib.sha256(sys.prefix.encode()).hexdigest()[:8]
    return cache_dir(f"{sim}_build") / f"{name}_{env}"


def hdl_fingerprint() -> str:
    """Hash of every hdl source file plus the Amaranth version: changes invalidate caches."""
    h = hashlib.sha256(version("amaranth").encode())
    for p in sorted(HDL_DIR.rglob("*.py")):
        h.update(p.name.encode())
        h.update(p.read_bytes())
    return h.hexdigest()[:16]


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_suffix(path.suffix + f".tmp{os.getpid()}")
    tmp.write_text(text)
    os.replace(tmp, path)


def verilog_for(spec: BlockSpec, params: dict) -> tuple[Path, str]:
    """Path of the Verilog for (block, params), generating it on a cache miss; and the top name."""
    from amaranth.back import verilog
    top = spec.top_name(params)
    path = cache_dir("verilog") / f"{top}_{hdl_fingerprint()}.v"
    if not path.exists():
        _write_atomic(path, verilog.convert(spec.make_rtl(params), name=top, emit_src=False))
    return path, top


def write_verilog(component_cls, top: str, *args) -> Path:
    """Verilog of ``component_cls(*args)`` (e.g. a multi-instance wrapper), cached by top name,
    the hdl fingerprint and the class's own source file; ``top`` must encode the arguments.
    The component is only built on a cache miss (an unused Amaranth design warns)."""
    import inspect

    from amaranth.back import verilog
    wrapper_src = Path(inspect.getsourcefile(component_cls)).read_bytes()
    key = hashlib.sha256(hdl_fingerprint().encode() + wrapper_src).hexdigest()[:16]
    path = cache_dir("verilog") / f"{top}_{key}.v"
    if not path.exists():
        _write_atomic(path, verilog.convert(component_cls(*args), name=top, emit_src=False))
    return path


def rtlil_for(spec: BlockSpec, params: dict) -> tuple[str, str]:
    """RTLIL text and top name for (block, params) (for the Yosys area flow)."""
    from amaranth.back import rtlil
    top = spec.top_name(params)
    return rtlil.convert(spec.make_rtl(params), name=top, emit_src=False), top
