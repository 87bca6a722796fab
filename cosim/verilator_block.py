"""A block's RTL compiled by Verilator into a Python extension module and stepped in this process.

No cocotb and no VPI: ``verilator_library`` writes a C++ harness for the block's ports
(cosim/verilator_harness.py: every input read from the caller's dict or port record, every
output written back, the clock edge, all in one call) and links it with the Verilated model
into an extension module, cached under ``~/.cache/gpusched/verilator_lib`` by the Verilog, the
harness and the Python ABI (``building …`` is said only on a real build). ``VerilatorBlock``
has a twin's port interface: ``step(**inputs) -> outputs``, ``step_port(record)``, ``peek()``;
``run(cycles, inputs)`` and ``skip`` step many cycles with held inputs in one call.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import re
import shutil
import subprocess
import sysconfig
from pathlib import Path
from typing import Callable

from gpusched.blocks import BlockSpec
from sim.blocks.port_block import PortBlock, PortRecord

from .build import cache_dir, verilog_for
from .runner import build_lock
from .simulators import prepare_env, verilator_bin_dir
from .verilator_harness import Port, PortLayout, harness_source

HARNESS_VERSION = "5"        # bump when the generated harness changes


def port_widths(verilog: str, top: str) -> dict[str, tuple[str, int]]:
    """``{port: (direction, width)}`` of module ``top`` in ``verilog``."""
    start = verilog.index(f"module {top}(")
    body = verilog[start:verilog.index("endmodule", start)]
    out = {}
    for m in re.finditer(r"^\s*(input|output)\s+(?:\[(\d+):(\d+)\]\s+)?\\?(\S+)\s*;", body, re.M):
        width = int(m.group(2)) - int(m.group(3)) + 1 if m.group(2) else 1
        out[m.group(4)] = (m.group(1), width)
    return out


def layout(spec: BlockSpec, widths: dict[str, tuple[str, int]]) -> PortLayout:
    """The spec's ports with the widths the Verilog gives them."""
    return PortLayout(tuple(Port(n, widths[n][1]) for n in spec.inputs),
                      tuple(Port(n, widths[n][1]) for n in spec.outputs),
                      "clk" in widths, "rst" in widths)


def module_name(top: str) -> str:
    """The extension module's name (its ``PyInit_`` symbol) for the Verilog top ``top``."""
    return f"gs_{top}"


def verilator_library(spec: BlockSpec, params: dict,
                      say: Callable[[str], None] = lambda text: None) -> tuple[Path, str, PortLayout]:
    """The block's extension module (built on a cache miss), its module name and port layout."""
    prepare_env("verilator")
    vpath, top = verilog_for(spec, params)
    text = vpath.read_text()
    lay = layout(spec, port_widths(text, top))
    module = module_name(top)
    src = harness_source(top, module, lay)
    abi = sysconfig.get_config_var("EXT_SUFFIX") + sysconfig.get_paths()["include"]
    key = hashlib.sha256((text + src + HARNESS_VERSION + abi).encode()).hexdigest()[:16]
    build = cache_dir("verilator_lib") / f"{top}_{key}"
    lib = build / (module + sysconfig.get_config_var("EXT_SUFFIX"))
    if lib.exists():
        return lib, module, lay
    with build_lock(build):
        if not lib.exists():
            say(f"building the Verilator library of {spec.name} {params} (cached afterwards)")
            _build(build, vpath, top, src, lib)
    return lib, module, lay


def _build(build: Path, vpath: Path, top: str, src: str, lib: Path) -> None:
    # a build left half-done (or made from another checkout's virtualenv, whose include paths
    # its dependency files name) must not be resumed: start from an empty object folder
    shutil.rmtree(build / "obj", ignore_errors=True)
    (build / "harness.cpp").write_text(src)
    tmp = lib.with_name(f"{lib.name}.tmp{os.getpid()}")
    cflags = f"-fPIC -O2 -I{sysconfig.get_paths()['include']}"
    cmd = [str(verilator_bin_dir() / "verilator"), "--cc", "--exe", "--build", "-O2",
           "-Wno-fatal", "-Wno-lint", "-Wno-style", "--top-module", top, "--Mdir", str(build / "obj"),
           "-CFLAGS", cflags, "-LDFLAGS", "-shared", "-o", str(tmp),
           str(build / "harness.cpp"), str(vpath)]
    done = subprocess.run(cmd, capture_output=True, text=True)   # MAKEFLAGS: prepare_env
    if done.returncode != 0 or not tmp.exists():
        (build / "build.log").write_text(done.stdout + done.stderr)
        raise RuntimeError(f"verilator build of {top} failed; log: {build / 'build.log'}")
    os.replace(tmp, lib)


_LOADED: dict[Path, object] = {}     # library path -> its loaded module


def load_module(path: Path, name: str):
    """The extension module at ``path``, loaded once per process. Keyed by the path, not the
    name: two Verilogs with one top name (a block and a mutant of it) are two libraries."""
    mod = _LOADED.get(path)
    if mod is None:
        spec = importlib.util.spec_from_file_location(name, path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        _LOADED[path] = mod
    return mod


class VerilatorBlock(PortBlock):
    """One instance of a block's RTL in this process, with the twin's port interface."""

    def __init__(self, spec: BlockSpec, params: dict, say: Callable[[str], None] = lambda t: None):
        path, name, lay = verilator_library(spec, params, say)
        self.mod = load_module(path, name)
        self.layout = lay
        self.handle = self.mod.new()
        self.closed_cycles = 0
        self.ports = tuple(p.name for p in lay.inputs + lay.outputs)
        self.record_types: dict[type, bool] = {}   # record type -> has every port as a field

    @property
    def cycles(self) -> int:
        """Clock edges so far (resets not counted), also after ``close``."""
        return self.mod.cycles(self.handle) if self.handle is not None else self.closed_cycles

    def step(self, **inputs) -> dict:
        """One clock cycle: this cycle's outputs for ``inputs``, then the edge."""
        return self.mod.step(self.handle, inputs)

    def step_port(self, port: PortRecord) -> None:
        """One clock cycle on ``port``'s fields, in one call when the record names every port
        (``WarpSchedPort``); through ``inputs()``/``set_outputs`` otherwise."""
        direct = self.record_types.get(type(port))
        if direct is None:
            direct = self.record_types[type(port)] = all(hasattr(port, n) for n in self.ports)
        if direct:
            self.mod.step_port(self.handle, port)
        else:
            port.set_outputs(self.mod.step(self.handle, port.inputs()))

    def run(self, cycles: int, inputs: dict) -> list[dict]:
        """``cycles`` clock cycles with ``inputs`` held, in one call; every cycle's outputs."""
        return self.mod.run(self.handle, cycles, inputs, True) if cycles > 0 else []

    def reset(self) -> None:
        """The synchronous reset: ``rst`` high for one clock edge."""
        self.mod.reset(self.handle)

    def quiet_cycles(self) -> int:
        """The skip hook: the RTL cannot tell which coming cycles are quiet (0: step each)."""
        return 0

    def skip(self, n: int, inputs: dict) -> None:
        """``n`` cycles with ``inputs`` held, in one call, their outputs not read back."""
        if n > 0:
            self.mod.run(self.handle, n, inputs, False)

    def peek(self) -> dict:
        """Outputs after the last edge with the last inputs held (no edge)."""
        return self.mod.peek(self.handle)

    def close(self) -> None:
        """Free the model now (it is freed with the block otherwise)."""
        if self.handle is not None:
            self.closed_cycles = self.mod.cycles(self.handle)
            self.handle = None
