"""The compiled-trace cache: each ``.traceg`` is compiled once (``trace_compile``) into a folder
named by the SHA-256 of its content and the format version, and reused by every later run,
sweep point and worker; ``CompiledKernel`` streams warps from it.

Location: ``$GPUSCHED_TRACE_CACHE``, else ``traces/`` of the gpusched cache
(``$GPUSCHED_CACHE``, else ``$XDG_CACHE_HOME/gpusched``, else ``~/.cache/gpusched``). A run
hashes a trace file only when its size, mtime or inode changed since the last run (a small
sealed stat record per path). Deleting the folder is always safe.

Sealed entries (``gpusched.cache``; the API every writer of a compiled folder uses — the
Accel-Sim compiler here, and any front end that caches its executions in this form):

- ``seal(folder, key)``: after writing ``meta.json``, ``index.bin`` and ``stream.bin`` into a
  temporary folder, write its ``SEAL`` (the key, each file's size and SHA-256);
- ``publish(tmp, entry, key)``: rename the sealed folder into place atomically (an unsound entry
  in the way is replaced; a sound one another process published first is kept);
- ``verified(folder, key)`` / ``problem(folder, key)``: whether an entry may be read, or why not.

``compiled`` reads an entry only when it is sealed for its key and every file matches its
checksum (hashed once per process, then checked by ``stat``); a damaged, truncated, foreign or
partial entry is reported in one stderr line and compiled again.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
from array import array
from itertools import chain
from pathlib import Path
from typing import Iterator

from gpusched.cache import cache_root as gpusched_cache_root
from gpusched.cache import (
    problem,
    publish,
    read_json,
    report,
    seal,
    verified,
    write_json,
)

from .kernel import Instr, Op
from .opcodes import LOCAL_OPCODES, base_opcode
from .trace_compile import FORMAT_VERSION, TraceCompiler
from .trace_line import LISTED

__all__ = ["cache_root", "compiled", "content_digest", "CompiledKernel", "seal", "publish",
           "verified", "problem"]

SHARED_LIMIT = 1 << 16          # shared (static id, mask) → Instr objects kept per kernel
TEMPLATE_LIMIT = 1 << 18        # instructions of the chunk templates kept per kernel (~4 MB)
BATCH = 64                      # instructions a warp's stream builds at a time (memory stays bounded)


def cache_root() -> Path:
    env = os.environ.get("GPUSCHED_TRACE_CACHE")
    return Path(env) if env else gpusched_cache_root() / "traces"


def content_digest(path: Path, root: Path) -> str:
    """SHA-256 of the file, remembered per (path, size, mtime, inode) in a sealed record."""
    st = path.stat()
    where = str(path.resolve())
    stamp = [st.st_size, st.st_mtime_ns, st.st_ino]
    record = root / "digests" / hashlib.sha1(where.encode()).hexdigest()
    saved = read_json(record, where)
    if isinstance(saved, dict) and saved.get("stamp") == stamp and isinstance(saved.get("sha256"), str):
        return saved["sha256"]
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(1 << 20):
            h.update(block)
    digest = h.hexdigest()
    try:
        write_json(record, where, {"stamp": stamp, "sha256": digest})
    except OSError:
        pass                         # a read-only cache only costs a re-hash next time
    return digest


def compiled(path: Path, root: Path | None = None) -> Path:
    """The compiled folder of trace file ``path``, compiling it first if needed."""
    root = cache_root() if root is None else root
    digest = content_digest(path, root)
    entry = root / f"{digest}-v{FORMAT_VERSION}"
    key = f"accelsim-trace sha256={digest} format={FORMAT_VERSION}"
    if entry.exists():
        why = problem(entry, key)
        if why is None:
            return entry
        report(entry, why)
    import shutil
    import tempfile
    root.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=root, prefix=".compiling-"))
    try:
        TraceCompiler(path, tmp).run()
        seal(tmp, key)
        return publish(tmp, entry, key)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _read(fd: int, n: int, pos: int, path: Path) -> bytes:
    """``n`` bytes at ``pos``. A shorter file was cut after it was verified (``compiled``):
    an OSError naming it (an EOFError would read as end of input to the command line)."""
    data = os.pread(fd, n, pos)
    if len(data) != n:
        raise OSError(errno.EIO, f"compiled trace changed while in use ({n} bytes expected at "
                      f"{pos}, {len(data)} read); run again to rebuild it", str(path))
    return data


def _array(code: str, data: memoryview) -> array:
    out = array(code)
    out.frombytes(data)
    return out


class CompiledKernel:
    """Streams of one compiled kernel. Non-memory instructions are shared ``Instr`` objects
    per (static id, mask); memory instructions are built per instance with their addresses.
    ``relocate`` = (lo, hi, shift): every address in [lo, hi) moves by ``shift`` (a multiprogram
    member's global memory in its own address lane, sim/multiprog/compose.py); others stay."""

    def __init__(self, folder: Path, relocate: tuple[int, int, int] | None = None):
        self.folder = folder
        self.relocate = relocate
        self.meta = json.loads((folder / "meta.json").read_text())
        self.stream_path = folder / "stream.bin"
        self.statics = [(Op(op), tuple(dst), tuple(src), width, pc, next_pc, has_mem)
                        for _, op, dst, src, width, pc, next_pc, has_mem in self.meta["statics"]]
        self.is_mem = [st[6] for st in self.statics]
        self.local_pcs = tuple(sorted({s[5] for s in self.meta["statics"]
                                       if s[7] and base_opcode(s[0]) in LOCAL_OPCODES}))
        self._index: dict[int, tuple[int, int]] | None = None
        self._shared: dict[int, Instr] = {}
        self._templates: dict[bytes, tuple[list, list[int]]] = {}
        self._template_insts = 0
        self.bytes_read = 0

    def index(self) -> dict[int, tuple[int, int]]:
        """(CTA << 32 | warp) → (byte offset, instruction count); loaded on first use."""
        if self._index is None:
            rows = array("Q")
            with open(self.folder / "index.bin", "rb") as f:
                rows.fromfile(f, 4 * self.meta["warps"])
            self._index = {rows[i] << 32 | rows[i + 1]: (rows[i + 2], rows[i + 3])
                           for i in range(0, len(rows), 4)}
        return self._index

    def stream(self, cta: int, warp: int) -> Iterator[Instr]:
        """The instructions of one warp. A C-level iterator over lists of instructions (``next``
        costs no Python frame): a chunk's non-memory instructions come from a template shared
        by every chunk with the same static ids and masks (warps of one kernel mostly run the
        same code), iterated as it is when the chunk has no memory instruction; otherwise in
        copies of at most ``BATCH`` with the memory instructions built per batch."""
        return chain.from_iterable(self._batches(cta, warp))

    def _batches(self, cta: int, warp: int) -> Iterator[list[Instr]]:
        entry = self.index().get(cta << 32 | warp)
        if entry is None:
            yield [Instr(Op.EXIT)]
            return
        pos, left = entry
        while left > 0:
            fd = os.open(self.stream_path, os.O_RDONLY)     # no buffered file object: one
            try:                                            # warp's chunk is read in two reads
                head = array("Q", _read(fd, 24, pos, self.stream_path))
                n, n_mem, n_listed = head
                size = 24 + 8 * n + 16 * n_mem + 8 * n_listed
                body = memoryview(_read(fd, size - 24, pos + 24, self.stream_path))
            finally:
                os.close(fd)
            sids, masks = _array("I", body[:4 * n]), _array("I", body[4 * n:8 * n])
            at = 8 * n + 8 * n_mem
            bases, strides = _array("Q", body[8 * n:at]), _array("q", body[at:at + 8 * n_mem])
            listed = _array("Q", body[at + 8 * n_mem:])
            pos += size
            self.bytes_read += size
            left -= n
            instrs, mem_pos = self._template(sids, masks)
            if not mem_pos:
                yield instrs            # shared and never changed: iterated as it is
                continue
            statics, relocate = self.statics, self.relocate
            k, n_pos = 0, len(mem_pos)
            for start in range(0, n, BATCH):
                batch = instrs[start:start + BATCH]
                end = start + BATCH
                while k < n_pos and mem_pos[k] < end:
                    p = mem_pos[k]
                    op, dst, src, width, pc, next_pc, _ = statics[sids[p]]
                    mask = masks[p]
                    lanes = mask.bit_count()
                    base, stride = bases[k], strides[k]
                    if stride == LISTED:
                        addrs = tuple(listed[base:base + lanes])
                    elif stride:
                        addrs = tuple(range(base, base + lanes * stride, stride))
                    else:
                        addrs = (base,) * lanes
                    if relocate is not None:
                        addrs = self._moved(addrs)
                    batch[p - start] = Instr(op, dst, src, addrs, width, mask, pc, next_pc)
                    k += 1
                yield batch

    def _moved(self, addrs: tuple[int, ...]) -> tuple[int, ...]:
        lo, hi, shift = self.relocate       # type: ignore[misc]
        return tuple(a + shift if lo <= a < hi else a for a in addrs)

    def _template(self, sids: array, masks: array) -> tuple[list, list[int]]:
        """The chunk's shared non-memory ``Instr`` objects (None where a memory instruction
        goes) and the positions of its memory instructions; kept per (static ids, masks)."""
        key = sids.tobytes() + masks.tobytes()
        found = self._templates.get(key)
        if found is not None:
            return found
        shared, is_mem = self._shared, self.is_mem
        instrs: list = []
        mem_pos: list[int] = []
        for i, (sid, mask) in enumerate(zip(sids, masks)):
            if is_mem[sid]:
                mem_pos.append(i)
                instrs.append(None)
            else:
                ins = shared.get(sid << 32 | mask)
                instrs.append(ins if ins is not None else self._shared_instr(sid, mask))
        self._template_insts += len(instrs)
        if self._template_insts > TEMPLATE_LIMIT:
            self._templates.clear()
            self._template_insts = len(instrs)
        found = self._templates[key] = (instrs, mem_pos)
        return found

    def _shared_instr(self, sid: int, mask: int) -> Instr:
        if len(self._shared) >= SHARED_LIMIT:
            self._shared.clear()
        op, dst, src, width, pc, next_pc, _ = self.statics[sid]
        ins = self._shared[sid << 32 | mask] = Instr(op, dst, src, None, width, mask, pc, next_pc)
        return ins
