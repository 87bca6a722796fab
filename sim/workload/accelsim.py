"""Accel-Sim trace import: ``read_trace_dir(path) -> Workload``.

A trace directory holds ``kernelslist.g`` (one ``kernel-N.traceg`` or ``.traceg.xz`` per line;
``MemcpyHtoD,address,bytes`` lines are checked and kept in the workload's meta, other Memcpy
lines skipped, as Accel-Sim does) and one file per kernel: ``-key = value`` headers (grid dim, block
dim, shmem, nregs, …), ``#`` comments, then per thread block ``#BEGIN_TB``, ``thread block =
x,y,z``, per warp ``warp = N``, ``insts = K`` and K instruction lines (``trace_line``),
``#END_TB``.

Each kernel file is compiled once into the trace cache (``trace_store``: keyed by content hash,
reused across runs and sweep points), validating every line on the way, so malformed input
fails before the run starts with ``ConfigError("file:line", text, "expected …")``. A warp missing
from the trace yields just EXIT, and a warp whose trace does not end in EXIT gets one appended
(the GPU model needs it). What the model cannot honour exactly — opcodes outside the trace's
SASS family, texture/tensor opcodes, unknown headers, tracer versions, binary versions not of
the preset's family — is reported as ``TraceWarning``, once per kind and opcode.
"""

from __future__ import annotations

import contextlib
import sys
import warnings
from pathlib import Path
from typing import Iterator

from gpusched.config import ConfigError

from .kernel import Instr, Kernel, Op, Workload
from .opcodes import FAMILY_OF_PRESET, FAMILY_OF_VERSION, classify, unit_name
from .trace_line import LISTED, LINE_FORMAT, parse_instruction  # noqa: F401 (re-exported)
from .trace_store import CompiledKernel, compiled


class TraceWarning(UserWarning):
    """Something in a trace that the model runs, but not exactly as written."""


def read_trace_dir(path: str | Path, preset: str | None = None,
                   cache: str | Path | None = None) -> Workload:
    """Read (compiling as needed) an Accel-Sim trace directory; kernels in ``kernelslist.g``
    order. ``preset``: the GPU preset's name, to warn when the trace's SASS family differs."""
    d = Path(path)
    listing = d / "kernelslist.g"
    if not listing.is_file():
        raise ConfigError(str(d), "no kernelslist.g", "expected an Accel-Sim trace directory")
    try:
        text = listing.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        raise ConfigError(str(listing), "non-UTF-8 bytes", "expected UTF-8 text") from None
    kernels, copies = [], []
    for lineno, raw in enumerate(text.splitlines(), 1):
        s = raw.strip()
        if not s or s.startswith("#"):
            continue
        if s.lower().startswith("memcpy"):
            if s.startswith("MemcpyHtoD"):
                copies.append(memcpy_line(s, f"{listing}:{lineno}"))
            continue
        if not s.endswith((".traceg", ".traceg.xz")):
            raise ConfigError(f"{listing}:{lineno}", s,
                              "expected 'kernel-N.traceg' or a Memcpy line")
        f = Path(s) if Path(s).is_absolute() else d / s
        if not f.is_file():
            raise ConfigError(f"{listing}:{lineno}", s, "expected an existing .traceg file")
        kernels.append(TraceKernel(f, None if cache is None else Path(cache)))
    if not kernels:
        raise ConfigError(str(listing), "no kernels", "expected at least one kernel-N.traceg line")
    warn_about(kernels, preset)
    return Workload(name=d.name, kernels=[k.kernel() for k in kernels],
                    description=f"Accel-Sim traces from {d}",
                    meta={"thread_insts": sum(k.meta["thread_insts"] for k in kernels),
                          "warp_insts": sum(k.meta["warp_insts"] for k in kernels),
                          "memcpy_h2d": copies})


def memcpy_line(s: str, where: str) -> tuple[int, int]:
    """``MemcpyHtoD,0xADDRESS,BYTES`` → (address, bytes), as Accel-Sim's trace parser reads it."""
    parts = [p.strip() for p in s.split(",")]
    try:
        if len(parts) != 3 or parts[0] != "MemcpyHtoD":
            raise ValueError
        address, count = int(parts[1], 16), int(parts[2])
        if not (0 <= address < 1 << 64 and count >= 0):
            raise ValueError
    except ValueError:
        raise ConfigError(where, s, "expected 'MemcpyHtoD,0xADDRESS,BYTES'") from None
    return address, count


def warn_about(kernels: list[TraceKernel], preset: str | None) -> None:
    """One ``TraceWarning`` per unknown opcode, texture/tensor opcode, note kind and binary
    version over all kernels (counts summed)."""
    unknown: dict[tuple[str, str], int] = {}
    no_unit: dict[str, int] = {}
    versions: dict[int, str] = {}
    for k in kernels:
        m = k.meta
        for name, n in m["unknown_opcodes"].items():
            unknown[(name, m["family"] or "any")] = unknown.get((name, m["family"] or "any"), 0) + n
        for name, n in m["no_unit_opcodes"].items():
            no_unit[name] = no_unit.get(name, 0) + n
        versions.setdefault(m["binary_version"], str(k.path))
        for kind, where, text in m["notes"]:
            warnings.warn(f"{where}: {text}", TraceWarning, stacklevel=3)
    for (name, family), n in sorted(unknown.items()):
        op = classify(name, None if family == "any" else family)[0]
        where = f"the {family} SASS table" if family != "any" else "any SASS table"
        warnings.warn(f"opcode {name} ({n:,} instructions) is not in {where}; it runs on the "
                      f"{unit_name(op)} unit", TraceWarning, stacklevel=3)
    for name, n in sorted(no_unit.items()):
        warnings.warn(f"opcode {name} ({n:,} instructions) is a texture or tensor-core "
                      "instruction; the model has no such unit and runs it on the alu unit",
                      TraceWarning, stacklevel=3)
    want = FAMILY_OF_PRESET.get(preset or "")
    for version, where in sorted(versions.items()):
        have = FAMILY_OF_VERSION.get(version)
        if have is None:
            warnings.warn(f"{where}: binary version {version} is not a Kepler, Maxwell, Pascal, "
                          "Volta, Turing, Ampere or Hopper SASS version", TraceWarning, stacklevel=3)
        elif want is not None and have != want:
            warnings.warn(f"{where}: binary version {version} is {have.title()} SASS but preset "
                          f"{preset} is a {want.title()} GPU", TraceWarning, stacklevel=3)


@contextlib.contextmanager
def trace_warnings_to_stderr():
    """Show each ``TraceWarning`` as one line ``gpusched: warning: …`` on stderr (CLI use)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", TraceWarning)
        try:
            yield
        finally:
            for w in caught:
                if issubclass(w.category, TraceWarning):
                    print(f"gpusched: warning: {w.message}", file=sys.stderr)
                else:
                    warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)


def parse_line(line: str, where: str, lineinfo: bool = False) -> Instr:
    """One instruction line → ``Instr`` (``next_pc`` = pc + 8; the reader sets the real one)."""
    opcode, dst, src, width, pc, mask, mem = parse_instruction(line.strip(), where, int(lineinfo))
    op = classify(opcode)[0]
    if mem is None:
        return Instr(op, dst, src, None, width, mask, pc)
    base, stride = mem
    n = mask.bit_count()
    addrs = base if stride == LISTED else tuple(base + i * stride for i in range(n))
    return Instr(op, dst, src, addrs, width, mask, pc)


class TraceKernel:
    """One kernel file: compiled (or found in the cache) at construction, streamed lazily."""

    def __init__(self, path: Path, cache: Path | None = None):
        self.path = path
        self.compiled = CompiledKernel(compiled(path, cache))
        self.meta = self.compiled.meta
        self.headers: dict[str, str] = self.meta["headers"]
        self.grid = tuple(self.meta["grid"])
        self.block = tuple(self.meta["block"])

    def kernel(self) -> Kernel:
        m = self.meta
        return Kernel(name=self.headers.get("kernel name", self.path.stem), grid=self.grid,
                      block=self.block, regs_per_thread=m["nregs"], smem_per_cta=m["shmem"],
                      stream=self.stream,
                      meta={"trace": str(self.path), "kernel id": self.headers.get("kernel id", ""),
                            "binary version": m["binary_version"], "warp_insts": m["warp_insts"],
                            "thread_insts": m["thread_insts"],
                            "cuda stream": self.headers.get("cuda stream id", "0"),
                            "local_pcs": self.compiled.local_pcs})

    def stream(self, cta: int, warp: int) -> Iterator[Instr]:
        return self.compiled.stream(cta, warp)

    @property
    def bytes_read(self) -> int:
        return self.compiled.bytes_read


__all__ = ["read_trace_dir", "TraceKernel", "TraceWarning", "parse_line", "Op",
           "trace_warnings_to_stderr"]
