"""The host side, in the style of PyCUDA/CuPy: a ``Context`` with functional device memory
(deterministic addresses), modules loaded from PTX, ``launch`` with argument checks, and a
record of every launch (its instruction streams go to a sink: in memory by default, or the
timing model's trace cache when ``gpusched.cuda`` provides one).

    ctx = Context(); mod = ctx.load_ptx("k.ptx")
    x = ctx.to_device(a); y = ctx.empty(n, np.float32)
    mod.launch("saxpy", grid=(n // 256,), block=(256,), args=(np.int32(n), np.float32(2), x, y))
    y.get()
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .errors import LaunchError, PTXError
from .kernel import Program, Static
from .lower import flatten
from .memory import DeviceMemory
from .record import WarpStreams
from .simt import DEFAULT_BUDGET, Launch
from .syntax import Imm, Module, parse
from .values import DTYPE

def _source_digest() -> str:
    """The front end's own code: part of every launch key, so a changed executor never
    reuses streams recorded by an older one."""
    h = hashlib.sha256()
    for f in sorted(Path(__file__).parent.glob("*.py")):
        h.update(f.name.encode() + f.read_bytes())
    return h.hexdigest()


FRONT_END_DIGEST = _source_digest()
SHARED_LIMIT = 48 * 1024        # bytes per CTA without an opt-in (CUDA's default)
MAX_THREADS = 1024
FAMILY_VERSION = {"pascal": 61, "volta": 70, "turing": 75, "ampere": 86}


class DeviceArray:
    """An allocation in device memory viewed as an array (``int(a)`` is its address)."""

    def __init__(self, ctx: "Context", addr: int, shape, dtype):
        self.ctx, self.ptr = ctx, addr
        self.shape = tuple(np.atleast_1d(np.empty(shape, dtype)).shape) if shape != () else ()
        self.dtype = np.dtype(dtype)
        self.size = int(np.prod(self.shape)) if self.shape else 1
        self.nbytes = self.size * self.dtype.itemsize

    def __int__(self) -> int:
        return self.ptr

    def get(self) -> np.ndarray:
        return self.ctx.mem.read(self.ptr, self.nbytes).view(self.dtype).reshape(self.shape)

    def set(self, arr) -> None:
        a = np.ascontiguousarray(arr, self.dtype)
        if a.nbytes != self.nbytes:
            raise LaunchError(f"set: {a.nbytes} bytes into an array of {self.nbytes}")
        self.ctx.mem.write(self.ptr, a)

    def __repr__(self) -> str:
        return f"DeviceArray({self.ptr:#x}, shape={self.shape}, dtype={self.dtype})"


class ConstArray(DeviceArray):
    """A ``__constant__`` variable: its bytes live in the context's constant bank."""

    def get(self) -> np.ndarray:
        return self.ctx.const[self.ptr:self.ptr + self.nbytes].copy().view(self.dtype).reshape(self.shape)

    def set(self, arr) -> None:
        a = np.ascontiguousarray(arr, self.dtype)
        if a.nbytes != self.nbytes:
            raise LaunchError(f"set: {a.nbytes} bytes into a constant of {self.nbytes}")
        self.ctx.const[self.ptr:self.ptr + self.nbytes] = a.view(np.uint8).reshape(-1)


@dataclass
class LaunchInfo:
    """What the timing model needs of a launch besides its streams."""
    index: int
    kernel: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    shared: int                       # static + dynamic bytes per CTA
    registers: int                    # per thread (ptxas's count when known)
    statics: list[Static]
    family: str
    key: str                          # hash of PTX, launch and input data
    ptx_path: str


@dataclass
class LaunchRecord:
    info: LaunchInfo
    warp_insts: int
    handle: object = None             # what the sink returned (a trace folder, or streams)
    streams: list[WarpStreams] = field(default_factory=list)


class MemorySink:
    """Keeps a launch's streams in memory (tests, small programs)."""

    def __init__(self, info: LaunchInfo):
        self.info = info
        self.streams: list[WarpStreams] = []

    def chunk(self, s: WarpStreams) -> None:
        self.streams.append(s)

    def close(self, warp_insts: int):
        return self.streams


def _dim3(v, what: str) -> tuple[int, int, int]:
    t = tuple(int(x) for x in (v if isinstance(v, (tuple, list)) else (v,)))
    if not 1 <= len(t) <= 3 or min(t) < 1:
        raise LaunchError(f"{what} = {v!r}: expected 1 to 3 positive integers")
    return (t + (1, 1))[:3]  # type: ignore[return-value]


class PTXModule:
    """A loaded PTX file: its kernels compile on first launch."""

    def __init__(self, ctx: "Context", mod: Module, text: str, path: str):
        self.ctx, self.mod, self.path = ctx, mod, path
        self.digest = hashlib.sha256(text.encode()).hexdigest()
        self.programs: dict[str, Program] = {}
        self.symbols: dict[str, tuple[str, int]] = {}
        self.shared_vars = [v for v in mod.vars if v.space == "shared"]
        self.ptxas = self._ptxas_info(path)
        for v in mod.vars:
            if v.space == "global":
                addr = ctx.mem.alloc(v.size, v.name)
                if v.init:
                    ctx.mem.write(addr, self._init_bytes(v))
                self.symbols[v.name] = ("global", addr)
            elif v.space == "const":
                self.symbols[v.name] = ("const", ctx.const_alloc(v, self._init_bytes(v) if v.init else None))

    @staticmethod
    def _ptxas_info(path: str) -> dict:
        side = Path(path).with_suffix(".ptxas.json")
        try:
            return json.loads(side.read_text()) if side.is_file() else {}
        except (OSError, ValueError):
            return {}

    def _init_bytes(self, v) -> bytes:
        dt = DTYPE[v.type]
        vals = []
        for x in v.init:
            if not isinstance(x, Imm):
                raise PTXError(f"{self.path}:{v.line}: initialisers with addresses are not supported")
            vals.append(x.value)
        arr = np.zeros(v.count or 1, dt)
        arr[:len(vals)] = np.array(vals).astype(dt) if dt.kind == "f" else \
            np.array([int(x) & ((1 << (8 * dt.itemsize)) - 1) for x in vals], np.uint64).astype(dt)
        return arr.tobytes()

    def get_global(self, name: str, dtype=np.uint8) -> "DeviceArray":
        """A module variable (``__device__`` or ``__constant__``) as an array of ``dtype``,
        to read or set from the host (cudaMemcpyToSymbol)."""
        var = next((v for v in self.mod.vars if v.name == name), None)
        if var is None or name not in self.symbols:
            raise LaunchError(f"{self.path}: no __device__ or __constant__ variable '{name}'")
        space, addr = self.symbols[name]
        n = var.size // np.dtype(dtype).itemsize
        if space == "const":
            return ConstArray(self.ctx, addr, n, dtype)
        return DeviceArray(self.ctx, addr, n, dtype)

    def kernels(self) -> list[str]:
        return [n for n, f in self.mod.functions.items() if f.kind == "entry" and f.defined]

    def resolve(self, name: str) -> str:
        if name in self.mod.functions:
            return name
        mangled = [k for k in self.kernels() if f"{len(name)}{name}" in k and k.startswith("_Z")]
        if len(mangled) == 1:
            return mangled[0]
        raise LaunchError(f"{self.path}: no kernel '{name}' (kernels: {', '.join(self.kernels())})")

    def program(self, name: str) -> Program:
        name = self.resolve(name)
        if name not in self.programs:
            flat = flatten(self.mod, name)
            self.programs[name] = Program(flat, self.symbols, self.shared_vars, self.ctx.family)
        return self.programs[name]

    def launch(self, name: str, grid, block, args=(), shared: int = 0, budget: int = DEFAULT_BUDGET):
        return self.ctx.launch(self, name, grid, block, args, shared, budget)


class Context:
    """Functional device memory and the launches made so far."""

    def __init__(self, family: str = "volta", sink_factory=None, progress: bool = True):
        if family not in FAMILY_VERSION:
            raise LaunchError(f"family = {family!r}: expected one of {', '.join(FAMILY_VERSION)}")
        self.family = family
        self.mem = DeviceMemory()
        self.const = np.zeros(0, np.uint8)
        self.launches: list[LaunchRecord] = []
        self.sink_factory = sink_factory
        self.show_progress = progress

    # -- memory -------------------------------------------------------------------------------
    def empty(self, shape, dtype=np.float32) -> DeviceArray:
        n = int(np.prod(shape)) * np.dtype(dtype).itemsize
        return DeviceArray(self, self.mem.alloc(n), shape, dtype)

    zeros = empty            # device allocations start zeroed

    def to_device(self, arr) -> DeviceArray:
        a = np.ascontiguousarray(arr)
        d = DeviceArray(self, self.mem.alloc(a.nbytes), a.shape, a.dtype)
        self.mem.write(d.ptr, a)
        return d

    def const_alloc(self, v, init: bytes | None) -> int:
        off = -(-len(self.const) // max(v.align, 1)) * max(v.align, 1)
        grown = np.zeros(off + v.size, np.uint8)
        grown[:len(self.const)] = self.const
        if init:
            grown[off:off + len(init)] = np.frombuffer(init, np.uint8)
        self.const = grown
        return off

    # -- modules ------------------------------------------------------------------------------
    def load_ptx(self, source: str | Path) -> PTXModule:
        """A PTX file (path), or PTX text."""
        is_path = isinstance(source, Path) or ("\n" not in source and source.endswith(".ptx"))
        if is_path:
            p = Path(source)
            try:
                text = p.read_text()
            except OSError as e:
                raise PTXError(f"{p}: {e.strerror}") from None
            path = str(p)
        else:
            text, path = str(source), "<ptx>"
        return PTXModule(self, parse(text, path), text, path)

    def compile(self, cu: str | Path, arch: str = "compute_75", options: tuple = ()) -> PTXModule:
        """Compile a ``.cu`` with nvcc (``pip install nvidia-cuda-nvcc``) and load its PTX."""
        nvcc = shutil.which("nvcc")
        if nvcc is None:
            raise PTXError("nvcc not found: install it (pip install nvidia-cuda-nvcc) or load the PTX")
        out = Path(cu).with_suffix(".ptx")
        r = subprocess.run([nvcc, "-ptx", f"-arch={arch}", *options, str(cu), "-o", str(out)],
                           capture_output=True, text=True)
        if r.returncode != 0:
            first = (r.stderr.strip().splitlines() or ["nvcc failed"])[0]
            raise PTXError(f"{cu}: {first}")
        return self.load_ptx(out)

    # -- launches -----------------------------------------------------------------------------
    def launch(self, module: PTXModule, name: str, grid, block, args=(), shared: int = 0,
               budget: int = DEFAULT_BUDGET) -> LaunchRecord:
        prog = module.program(name)
        grid3, block3 = _dim3(grid, "grid"), _dim3(block, "block")
        threads = block3[0] * block3[1] * block3[2]
        if threads > MAX_THREADS:
            raise LaunchError(f"{prog.name}: block {block3} has {threads} threads; at most {MAX_THREADS}")
        if max(grid3[1:]) > 65535 or grid3[0] > 2**31 - 1:
            raise LaunchError(f"{prog.name}: grid {grid3} beyond CUDA's limits")
        if shared < 0 or prog.dynamic_offset() + shared > SHARED_LIMIT:
            raise LaunchError(f"{prog.name}: {prog.dynamic_offset()} bytes of static and {shared} of "
                              f"dynamic shared memory exceed {SHARED_LIMIT} bytes per CTA")
        if shared and prog.dynamic_shared is None:
            raise LaunchError(f"{prog.name}: shared={shared} but the kernel declares no extern "
                              "shared array")
        params = self._params(prog, args)
        key = hashlib.sha256(b"|".join([
            module.digest.encode(), prog.name.encode(),
            repr((grid3, block3, shared, self.family)).encode(), params.tobytes(),
            self.mem.digest(), hashlib.sha256(self.const.tobytes()).digest(),
            FRONT_END_DIGEST.encode()])).hexdigest()
        regs = module.ptxas.get(prog.name, {}).get("registers", prog.regs_used)
        info = LaunchInfo(len(self.launches), prog.name, grid3, block3, prog.dynamic_offset() + shared,
                          int(regs), prog.statics, self.family, key, module.path)
        sink = self.sink_factory(info) if self.sink_factory else MemorySink(info)
        progress = self._progress_bar(prog.name, grid3) if self.show_progress else None
        run = Launch(prog, grid3, block3, shared, params, self.mem, self.const, sink,
                     budget, progress, len(self.launches))
        with np.errstate(all="ignore"):
            try:
                insts = run.run()
            finally:
                if progress is not None:
                    progress.close()
        handle = sink.close(insts)
        rec = LaunchRecord(info, insts, handle, handle if isinstance(sink, MemorySink) else [])
        self.launches.append(rec)
        return rec

    def _params(self, prog: Program, args) -> np.ndarray:
        layout = prog.param_layout
        if len(args) != len(layout):
            raise LaunchError(f"{prog.name}: {len(args)} arguments given, the kernel takes "
                              f"{len(layout)} ({', '.join('.' + p.type + (f'[{p.count}]' if p.count else '') for p, _ in layout)})")
        buf = np.zeros(max(prog.param_size, 1), np.uint8)
        for i, ((p, off), a) in enumerate(zip(layout, args)):
            raw = _argument_bytes(prog.name, i, p, a)
            buf[off:off + len(raw)] = np.frombuffer(raw, np.uint8)
        return buf

    def _progress_bar(self, name: str, grid):
        if not sys.stderr.isatty():
            return None
        return _Progress(name)


def _argument_bytes(kernel: str, i: int, p, a) -> bytes:
    """The bytes of argument ``i`` for parameter ``p``, or a LaunchError saying why not."""
    t = p.type
    want = f".{t}" + (f"[{p.count}]" if p.count else "")
    bad = LaunchError(f"{kernel}: argument {i} ({p.name}, {want}): got {type(a).__name__} "
                      f"{a!r:.40}; expected {_expected(p)}")
    if p.count:                                        # a by-value struct or array
        raw = a.tobytes() if isinstance(a, (np.ndarray, np.void)) else a if isinstance(a, bytes) else None
        if raw is None or len(raw) != p.size:
            raise bad
        return raw
    dt = DTYPE[t]
    if isinstance(a, DeviceArray):
        if dt.itemsize != 8 or dt.kind == "f":
            raise bad
        return np.uint64(a.ptr).tobytes()
    if isinstance(a, np.generic):
        if a.dtype.itemsize != dt.itemsize or (a.dtype.kind == "f") != (dt.kind == "f") \
                or a.dtype.kind == "b":
            raise bad
        return a.tobytes()
    if isinstance(a, bool):
        raise bad
    if isinstance(a, int) and dt.kind in "iu":
        lo = -(1 << (8 * dt.itemsize - 1))
        if not lo <= a < 1 << (8 * dt.itemsize):
            raise bad
        return (a & ((1 << (8 * dt.itemsize)) - 1)).to_bytes(dt.itemsize, "little")
    if isinstance(a, float) and dt.kind == "f":
        return np.array(a, dt).tobytes()
    raise bad


def _expected(p) -> str:
    dt = DTYPE[p.type]
    if p.count:
        return f"{p.size} bytes (numpy record or bytes)"
    if dt.kind == "f":
        return f"np.float{8 * dt.itemsize} (or a Python float)"
    if dt.itemsize == 8:
        return "a DeviceArray, np.int64 or np.uint64"
    return f"np.int{8 * dt.itemsize} / np.uint{8 * dt.itemsize} (or a Python int)"


class _Progress:
    """A rich progress bar on stderr: CTAs executed of all, warp instructions."""

    def __init__(self, name: str):
        from rich.console import Console
        from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
        self.bar = Progress(TextColumn(f"[bold]executing {name}"), BarColumn(),
                            TextColumn("{task.completed}/{task.total} CTAs"),
                            TextColumn("{task.fields[insts]:,} warp-insts"), TimeElapsedColumn(),
                            console=Console(stderr=True), transient=True)
        self.task = None

    def __call__(self, done: int, total: int, insts: int) -> None:
        if self.task is None:
            self.bar.start()
            self.task = self.bar.add_task("run", total=total, insts=0)
        self.bar.update(self.task, completed=done, insts=insts)

    def close(self) -> None:
        if self.task is not None:
            self.bar.stop()
