"""A PTX launch's recorded streams → the compiled-trace folder that ``--trace`` runs read
(``trace_compile``'s form: meta.json, index.bin, stream.bin), in the trace cache under the
launch's key (hash of PTX, launch arguments and input data), so every later run, sweep point
and worker reads it instead of executing again. A folder is sealed for its key and published
atomically (``trace_store.seal``/``publish``); a damaged one is reported and written again.

Static ids follow the trace compiler: one per (PTX instruction, next pc, last in the warp), so
a branch's direction is in its static; a partial ``exit`` the warp continues after is a control
op. The op class of each static comes from its SASS-style opcode through the same table a trace
uses (``opcodes.classify``), so ``write_trace`` + ``--trace`` runs exactly what ``simulate`` does.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

import numpy as np

from .chunk_writer import CHUNK_INSTS
from .kernel import Op
from .opcodes import classify
from .trace_compile import FORMAT_VERSION
from .trace_line import LISTED
from .trace_store import cache_root, problem, publish, report, seal

# what the front end records, beside the compiled form; 2: local loads and stores at the
# threads' own local addresses (the tracer's form), placed by the timing model
RECORD_VERSION = 2


def launch_folder(key: str, root: Path | None = None) -> Path:
    return (cache_root() if root is None else root) / "ptx" / f"{key[:40]}-v{FORMAT_VERSION}.{RECORD_VERSION}"


def launch_seal(key: str) -> str:
    """The key a launch's folder is sealed for."""
    return f"ptx-launch sha256={key} format={FORMAT_VERSION} record={RECORD_VERSION}"


class CachedSink:
    """The launch's folder already exists: nothing to write."""

    def __init__(self, folder: Path):
        self.folder = folder

    def chunk(self, streams) -> None:
        pass

    def close(self, warp_insts: int) -> Path:
        return self.folder


class TraceSink:
    """Writes one launch's compiled-trace folder from the executor's per-chunk streams."""

    def __init__(self, info, root: Path | None = None):
        self.info = info
        self.folder = launch_folder(info.key, root)
        self.folder.parent.mkdir(parents=True, exist_ok=True)
        self.tmp = Path(tempfile.mkdtemp(dir=self.folder.parent, prefix=".writing-"))
        self.out = open(self.tmp / "stream.bin", "wb")
        self.offset = 0
        self.index: list[np.ndarray] = []
        st = info.statics
        self.pc = np.array([s.pc for s in st] + [st[-1].pc + 8 if st else 0], np.int64)
        self.exit_iid = len(st)                         # a synthetic final EXIT when needed
        ops = [classify(s.opcode)[0] for s in st] + [Op.EXIT]
        self.op = ops
        self.is_exit = np.array([o == Op.EXIT for o in ops])
        self.is_mem = np.array([s.width > 0 for s in st] + [False])
        self.sid_of: dict[tuple[int, int, bool], int] = {}
        self.statics: list[list] = []
        self.warp_insts = self.thread_insts = 0
        self.iid_counts = np.zeros(len(st) + 1, np.int64)     # dynamic count per instruction
        self.lines: list[np.ndarray] = []                     # 128-byte lines touched

    def _sid(self, iid: int, next_pc: int, last: bool) -> int:
        key = (iid, next_pc, last)
        sid = self.sid_of.get(key)
        if sid is None:
            if iid == self.exit_iid:
                opcode, dst, src, width, pc = "EXIT", (), (), 4, int(self.pc[iid])
            else:
                s = self.info.statics[iid]
                opcode, dst, src, width, pc = s.opcode, s.dst, s.src, s.width or 4, s.pc
            op = self.op[iid]
            if op == Op.EXIT and not last:
                op = Op.BRA
            sid = self.sid_of[key] = len(self.statics)
            self.statics.append([opcode, int(op), list(dst), list(src), width, pc, next_pc,
                                 bool(self.is_mem[iid])])
        return sid

    def chunk(self, s) -> None:
        """Write one chunk's warps: static ids for the whole chunk at once (keys of PTX
        instruction, next pc and last-in-warp, mapped through the few distinct ones), then
        each warp's pieces."""
        counts = s.counts.astype(np.int64)
        iids = s.sids.astype(np.int64)
        masks = s.masks.astype(np.uint32)
        ends = np.cumsum(counts)
        last_iid = iids[ends - 1] if len(iids) else np.zeros(0, np.int64)
        need = ~self.is_exit[last_iid] if len(iids) else np.zeros(0, bool)
        if need.any():                       # the model needs every warp to end in EXIT
            at = ends[need]
            iids = np.insert(iids, at, self.exit_iid)
            masks = np.insert(masks, at, masks[at - 1])
            counts = counts + need
            ends = np.cumsum(counts)
        pcs = self.pc[iids]
        nxt = np.empty_like(pcs)
        nxt[:-1] = pcs[1:]
        last = np.zeros(len(iids), bool)
        last[ends - 1] = True
        nxt[last] = pcs[last] + 8
        keys = (iids << 33) | (nxt << 1) | last
        uniq, inv = np.unique(keys, return_inverse=True)
        table = np.array([self._sid(int(k >> 33), int((k >> 1) & 0xFFFFFFFF), bool(k & 1))
                          for k in uniq], np.uint32)
        sids = table[inv]
        self.iid_counts += np.bincount(iids, minlength=len(self.iid_counts))
        self._footprint(s, masks[self.is_mem[iids]])
        self.warp_insts += len(sids)
        self.thread_insts += int(np.bitwise_count(masks).sum())
        starts = ends - counts
        mem_starts = np.concatenate(([0], np.cumsum(s.mem_counts)[:-1]))
        listed_starts = np.concatenate(([0], np.cumsum(s.listed_counts)[:-1]))
        rows = []
        for k in range(len(counts)):
            o, n = int(starts[k]), int(counts[k])
            mo, mn = int(mem_starts[k]), int(s.mem_counts[k])
            lo, ln = int(listed_starts[k]), int(s.listed_counts[k])
            rows.append((int(s.ctas[k]), int(s.warps[k]), self.offset, n))
            self._warp(iids[o:o + n], sids[o:o + n], masks[o:o + n], s.bases[mo:mo + mn],
                       s.strides[mo:mo + mn], s.listed[lo:lo + ln])
        self.index.append(np.array(rows, np.uint64).reshape(-1, 4))

    def _footprint(self, s, mem_masks) -> None:
        """The 128-byte lines the chunk's memory instructions touch: each strided access by its
        first and last lane's line, listed addresses each."""
        if len(s.bases) == len(mem_masks) and len(mem_masks):
            lanes = np.bitwise_count(mem_masks).astype(np.int64)
            strided = s.strides != LISTED
            first = s.bases[strided].astype(np.uint64)
            last = (first.astype(np.int64) + (np.maximum(lanes[strided], 1) - 1)
                    * s.strides[strided]).astype(np.uint64)
            self.lines.append(np.unique(np.concatenate([first, last, s.listed]) >> np.uint64(7)))
        if len(self.lines) > 64:
            self.lines = [np.unique(np.concatenate(self.lines))]

    def profile(self) -> dict:
        """The launch's functional profile (kernel sampling's signature): dynamic instructions
        per op class and the distinct 128-byte lines its memory instructions touch."""
        by_op: dict[str, int] = {}
        for iid, n in enumerate(self.iid_counts.tolist()):
            if n:
                name = Op(self.op[iid]).name
                by_op[name] = by_op.get(name, 0) + n
        lines = np.unique(np.concatenate(self.lines)) if self.lines else np.zeros(0)
        return {"op_counts": by_op, "lines": int(len(lines))}

    def _warp(self, iids, sids, masks, bases, strides, listed) -> None:
        n = len(iids)
        if n <= CHUNK_INSTS:                 # the common case: one piece
            cb = bases.astype(np.uint64)
            if len(strides) and (strides == LISTED).any():
                lanes = np.bitwise_count(masks[self.is_mem[iids]]).astype(np.int64)
                k = np.where(strides == LISTED, lanes, 0)
                cb = np.where(strides == LISTED, np.cumsum(k) - k, cb).astype(np.uint64)
            self._write(n, sids, masks, cb, strides, listed)
            return
        is_mem = self.is_mem[iids]
        mem_before = np.concatenate(([0], np.cumsum(is_mem)))
        lanes = np.bitwise_count(masks[is_mem]).astype(np.int64)
        n_listed = np.where(strides == LISTED, lanes, 0)
        listed_before = np.concatenate(([0], np.cumsum(n_listed)))
        for a in range(0, n, CHUNK_INSTS):
            b = min(n, a + CHUNK_INSTS)
            m0, m1 = int(mem_before[a]), int(mem_before[b])
            l0, l1 = int(listed_before[m0]), int(listed_before[m1])
            cs = strides[m0:m1]
            cb = np.where(cs == LISTED, listed_before[m0:m1] - l0, bases[m0:m1]).astype(np.uint64)
            self._write(b - a, sids[a:b], masks[a:b], cb, cs, listed[l0:l1])

    def _write(self, n, sids, masks, bases, strides, listed) -> None:
        head = np.array([n, len(bases), len(listed)], np.uint64)
        data = b"".join((head.tobytes(), sids.tobytes(), masks.tobytes(), bases.tobytes(),
                         strides.astype(np.int64).tobytes(), listed.astype(np.uint64).tobytes()))
        self.out.write(data)
        self.offset += len(data)

    def close(self, warp_insts: int) -> Path:
        self.out.close()
        info = self.info
        index = np.concatenate(self.index) if self.index else np.zeros((0, 4), np.uint64)
        (self.tmp / "index.bin").write_bytes(index.astype(np.uint64).tobytes())
        gx, gy, gz = info.grid
        meta = {"format": FORMAT_VERSION, "source": f"ptx:{info.ptx_path}:{info.kernel}",
                "headers": {"kernel name": info.kernel, "kernel id": str(info.index + 1)},
                "grid": list(info.grid), "block": list(info.block), "nregs": info.registers,
                "shmem": info.shared, "binary_version": 0, "family": None,
                "statics": self.statics, "unknown_opcodes": {}, "no_unit_opcodes": {}, "notes": [],
                "thread_blocks": gx * gy * gz, "warps": len(index), "warp_insts": self.warp_insts,
                "thread_insts": self.thread_insts, "ptx_family": info.family,
                "ptx_warp_insts": warp_insts, "profile": self.profile(),
                # every instruction of the kernel's code, executed or not (the phase pass)
                "ptx_statics": [[st.pc, st.opcode, list(st.dst), list(st.src), st.width,
                                 st.target, st.line] for st in info.statics]}
        (self.tmp / "meta.json").write_text(json.dumps(meta))
        try:
            seal(self.tmp, launch_seal(info.key))
            return publish(self.tmp, self.folder, launch_seal(info.key))
        finally:
            shutil.rmtree(self.tmp, ignore_errors=True)


def sink_factory(root: Path | None = None):
    """For ``ptx.host.Context``: write each launch's folder unless it is cached already."""
    def make(info):
        folder = launch_folder(info.key, root)
        if folder.exists():
            why = problem(folder, launch_seal(info.key))
            if why is None:
                return CachedSink(folder)
            report(folder, why)
        return TraceSink(info, root)
    return make


def write_accelsim(folders: list[Path], directory: str | Path, family: str,
                   predicates: bool = False, address_format: str | int = "auto") -> Path:
    """Accel-Sim traces (tracer version 4) of launches' compiled folders: ``kernelslist.g`` and
    one ``kernel-N.traceg`` each, with their SASS opcodes and the front end's shared and local
    window bases (``predicates=False``: no P registers, as the NVBit tracer writes)."""
    from ptx.memory import LOCAL_WINDOW, SHARED_WINDOW

    from .program import kernel_of
    from .tracegen import write_kernel
    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    listing = []
    for i, folder in enumerate(folders, 1):
        k = kernel_of(Path(folder))
        opcodes = {s[5]: s[0] for s in json.loads((Path(folder) / "meta.json").read_text())["statics"]}
        write_kernel(d / f"kernel-{i}.traceg", k, i, address_format, family=family,
                     predicates=predicates, opcodes=opcodes, windows=(SHARED_WINDOW, LOCAL_WINDOW))
        listing.append(f"kernel-{i}.traceg")
    (d / "kernelslist.g").write_text("\n".join(listing) + "\n")
    return d
