"""A block's RTL compiled by Verilator into a shared library and stepped in this process.

No cocotb and no VPI: ``verilator_library`` writes a small C harness for the block's ports (one
function per call: set every input, settle, read every output, clock edge) and links it with the
Verilated model into ``lib<top>.so``, cached under ``~/.cache/gpusched/verilator_lib`` by the
Verilog's content and the harness generator (``building …`` is said only on a real build).
``VerilatorBlock`` loads it through ``ctypes`` and has a twin's port interface:
``step(**inputs) -> outputs`` and ``peek()``. ``run(cycles, inputs)`` steps many cycles with
held inputs in one crossing, the way a caller skips a stretch it knows is quiet.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import re
import struct
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from gpusched.blocks import BlockSpec
from sim.blocks.port_block import PortBlock

from .build import cache_dir, verilog_for
from .runner import build_lock
from .simulators import prepare_env, verilator_bin_dir

HARNESS_VERSION = "4"        # bump when the generated harness changes


@dataclass(frozen=True)
class PortLayout:
    """Where each port sits in the harness's word buffers (32-bit words, little end first)."""
    inputs: tuple[tuple[str, int, int], ...]      # (name, first word, width in bits)
    outputs: tuple[tuple[str, int, int], ...]
    in_words: int
    out_words: int
    clocked: bool
    has_reset: bool


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
    """Ports of up to 32 bits first (one word each, packed by one struct call), wider ones after."""
    def place(names):
        rows, word = [], 0
        for n in sorted(names, key=lambda n: widths[n][1] > 32):
            w = widths[n][1]
            rows.append((n, word, w))
            word += (w + 31) // 32
        return tuple(rows), max(word, 1)
    ins, iw = place(spec.inputs)
    outs, ow = place(spec.outputs)
    return PortLayout(ins, outs, iw, ow, "clk" in widths, "rst" in widths)


def _copy(field: str, word: int, width: int, to_model: bool) -> list[str]:
    """C statements moving one port between the model and the word buffer."""
    n = (width + 31) // 32
    if width > 64:
        if to_model:
            return [f"  for (int i = 0; i < {n}; ++i) m->{field}[i] = in[{word} + i];"]
        return [f"  for (int i = 0; i < {n}; ++i) out[{word} + i] = m->{field}[i];"]
    if width > 32:
        if to_model:
            return [f"  m->{field} = (uint64_t)in[{word}] | ((uint64_t)in[{word + 1}] << 32);"]
        return [f"  out[{word}] = (uint32_t)m->{field};",
                f"  out[{word + 1}] = (uint32_t)(m->{field} >> 32);"]
    return [f"  m->{field} = in[{word}];" if to_model else f"  out[{word}] = m->{field};"]


def harness_source(top: str, lay: PortLayout) -> str:
    """The C++ harness: ``gs_new``, ``gs_free``, ``gs_run`` (n cycles), ``gs_peek``."""
    cls = f"V{top}"
    put = [s for n, w, b in lay.inputs for s in _copy(n, w, b, True)]
    get = [s for n, w, b in lay.outputs for s in _copy(n, w, b, False)]
    edge = ["  m->clk = 1;", "  m->eval();", "  m->clk = 0;"] if lay.clocked else []
    reset = ["  m->rst = 1;", "  m->eval();", *edge, "  m->rst = 0;", "  m->eval();"] \
        if lay.has_reset else ["  m->eval();"]
    return "\n".join([
        f'#include "{cls}.h"', '#include "verilated.h"', "#include <cstdint>", "",
        f"struct Handle {{ VerilatedContext* ctx; {cls}* m; const uint32_t* in; uint32_t* out; }};",
        "",
        f"static inline void put(const uint32_t* in, {cls}* m) {{", *put, "}",
        f"static inline void get({cls}* m, uint32_t* out) {{", *get, "}", "",
        'extern "C" {',
        "void* gs_new() {",
        "  Handle* h = new Handle;", "  h->ctx = new VerilatedContext;",
        f"  h->m = new {cls}{{h->ctx}};", f"  {cls}* m = h->m;",
        *(["  m->clk = 0;"] if lay.clocked else []), *reset,
        "  return h;", "}",
        "void gs_free(void* p) {",
        "  Handle* h = (Handle*)p;", "  h->m->final();", "  delete h->m;", "  delete h->ctx;",
        "  delete h;", "}",
        "// n cycles; inputs advance by in_stride words per cycle (0: held), outputs by out_stride",
        "void gs_run(void* p, int n, const uint32_t* in, int in_stride, uint32_t* out,"
        " int out_stride) {",
        f"  {cls}* m = ((Handle*)p)->m;",
        "  for (int c = 0; c < n; ++c, in += in_stride, out += out_stride) {",
        "    put(in, m);", "    m->eval();", "    get(m, out);", *("  " + s for s in edge),
        "  }", "}",
        "void gs_reset(void* p) {",
        f"  {cls}* m = ((Handle*)p)->m;", *reset, "}",
        "void gs_bind(void* p, const uint32_t* in, uint32_t* out) {",
        "  ((Handle*)p)->in = in;", "  ((Handle*)p)->out = out;", "}",
        "// one cycle on the bound buffers",
        "void gs_step(void* p) {",
        "  Handle* h = (Handle*)p;", f"  {cls}* m = h->m;",
        "  put(h->in, m);", "  m->eval();", "  get(m, h->out);", *edge, "}",
        "void gs_peek(void* p, uint32_t* out) {",
        f"  {cls}* m = ((Handle*)p)->m;", "  m->eval();", "  get(m, out);", "}",
        "}", ""])


def verilator_library(spec: BlockSpec, params: dict,
                      say: Callable[[str], None] = lambda text: None) -> tuple[Path, PortLayout]:
    """The block's shared library (built on a cache miss) and its port layout."""
    prepare_env("verilator")
    vpath, top = verilog_for(spec, params)
    text = vpath.read_text()
    lay = layout(spec, port_widths(text, top))
    src = harness_source(top, lay)
    key = hashlib.sha256((text + src + HARNESS_VERSION).encode()).hexdigest()[:16]
    build = cache_dir("verilator_lib") / f"{top}_{key}"
    lib = build / f"lib{top}.so"
    if lib.exists():
        return lib, lay
    with build_lock(build):
        if not lib.exists():
            say(f"building the Verilator library of {spec.name} {params} (cached afterwards)")
            _build(build, vpath, top, src, lib)
    return lib, lay


def _build(build: Path, vpath: Path, top: str, src: str, lib: Path) -> None:
    (build / "harness.cpp").write_text(src)
    tmp = lib.with_suffix(f".tmp{os.getpid()}")
    cmd = [str(verilator_bin_dir() / "verilator"), "--cc", "--exe", "--build", "-O2",
           "-Wno-fatal", "-Wno-lint", "-Wno-style", "--top-module", top, "--Mdir", str(build / "obj"),
           "-CFLAGS", "-fPIC -O2", "-LDFLAGS", "-shared", "-o", str(tmp),
           str(build / "harness.cpp"), str(vpath)]
    done = subprocess.run(cmd, capture_output=True, text=True)   # MAKEFLAGS: prepare_env
    if done.returncode != 0 or not tmp.exists():
        (build / "build.log").write_text(done.stdout + done.stderr)
        raise RuntimeError(f"verilator build of {top} failed; log: {build / 'build.log'}")
    os.replace(tmp, lib)


class VerilatorBlock(PortBlock):
    """One instance of a block's RTL in this process, with the twin's port interface."""

    def __init__(self, spec: BlockSpec, params: dict, say: Callable[[str], None] = lambda t: None):
        path, lay = verilator_library(spec, params, say)
        self.lib = lib = ctypes.CDLL(str(path))
        lib.gs_new.restype = ctypes.c_void_p
        lib.gs_free.argtypes = [ctypes.c_void_p]
        u32p = ctypes.POINTER(ctypes.c_uint32)
        lib.gs_run.argtypes = [ctypes.c_void_p, ctypes.c_int, u32p, ctypes.c_int, u32p,
                               ctypes.c_int]
        lib.gs_peek.argtypes = [ctypes.c_void_p, u32p]
        lib.gs_bind.argtypes = [ctypes.c_void_p, u32p, u32p]
        lib.gs_step.argtypes = [ctypes.c_void_p]
        lib.gs_reset.argtypes = [ctypes.c_void_p]
        self.layout = lay
        self.handle = lib.gs_new()
        # bytearrays for struct (a ctypes array's buffer export is slow), seen by C in place
        self.ins, self.outs = bytearray(4 * lay.in_words), bytearray(4 * lay.out_words)
        self.in_ptr = ctypes.cast((ctypes.c_uint32 * lay.in_words).from_buffer(self.ins), u32p)
        self.out_ptr = ctypes.cast((ctypes.c_uint32 * lay.out_words).from_buffer(self.outs), u32p)
        lib.gs_bind(self.handle, self.in_ptr, self.out_ptr)
        self._run, self._peek, self._step = lib.gs_run, lib.gs_peek, lib.gs_step
        self._handle = ctypes.c_void_p(self.handle)
        # every port as whole 32-bit words: one struct call packs or unpacks them all
        # narrow ports: one word each at the front, one struct call; wide ones as byte strings
        self.in_narrow = [(n, (1 << w) - 1) for n, _, w in lay.inputs if w <= 32]
        self.in_struct = struct.Struct(f"<{len(self.in_narrow)}I")
        self.in_wide = [(n, 4 * word, 4 * ((w + 31) // 32), (1 << w) - 1)
                        for n, word, w in lay.inputs if w > 32]
        self.out_names = [n for n, _, w in lay.outputs if w <= 32]
        self.out_struct = struct.Struct(f"<{len(self.out_names)}I")
        self.out_wide = [(n, 4 * word, 4 * (word + (w + 31) // 32))
                         for n, word, w in lay.outputs if w > 32]
        self.cycles = 0

    def _put(self, inputs: dict) -> None:
        get = inputs.get
        buf = self.ins
        self.in_struct.pack_into(buf, 0, *[get(n, 0) & m for n, m in self.in_narrow])
        for n, start, size, m in self.in_wide:
            buf[start:start + size] = (get(n, 0) & m).to_bytes(size, "little")

    def _get(self, buf, base: int = 0) -> dict:
        out = dict(zip(self.out_names, self.out_struct.unpack_from(buf, base * 4)))
        at = base * 4
        for name, start, end in self.out_wide:
            out[name] = int.from_bytes(buf[at + start:at + end], "little")
        return out

    def step(self, **inputs) -> dict:
        """One clock cycle: this cycle's outputs for ``inputs``, then the edge."""
        self._put(inputs)
        self._step(self._handle)
        self.cycles += 1
        return self._get(self.outs)

    def run(self, cycles: int, inputs: dict) -> list[dict]:
        """``cycles`` clock cycles with ``inputs`` held, in one call; every cycle's outputs."""
        if cycles <= 0:
            return []
        self._put(inputs)
        words = self.layout.out_words
        outs = bytearray(4 * words * cycles)
        ptr = ctypes.cast((ctypes.c_uint32 * (words * cycles)).from_buffer(outs),
                          ctypes.POINTER(ctypes.c_uint32))
        self._run(self.handle, cycles, self.in_ptr, 0, ptr, words)
        self.cycles += cycles
        return [self._get(outs, c * words) for c in range(cycles)]

    def reset(self) -> None:
        """The synchronous reset: ``rst`` high for one clock edge."""
        self.lib.gs_reset(self.handle)

    def quiet_cycles(self) -> int:
        """The skip hook: the RTL cannot tell which coming cycles are quiet (0: step each)."""
        return 0

    def skip(self, n: int, inputs: dict) -> None:
        """``n`` cycles with ``inputs`` held, in one call, their outputs not read back."""
        if n > 0:
            self._put(inputs)
            self._run(self.handle, n, self.in_ptr, 0, self.out_ptr, 0)
            self.cycles += n

    def peek(self) -> dict:
        """Outputs after the last edge with the last inputs held (no edge)."""
        self._peek(self.handle, self.out_ptr)
        return self._get(self.outs)

    def close(self) -> None:
        if getattr(self, "handle", None):
            self.lib.gs_free(self.handle)
            self.handle = None

    def __del__(self):
        self.close()
