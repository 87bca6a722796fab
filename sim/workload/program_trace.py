"""A PTX launch's recorded streams → the compiled-trace folder that ``--trace`` runs read
(``trace_compile``'s form: meta.json, index.bin, stream.bin), in the trace cache under the
launch's key (hash of PTX, launch arguments and input data), so every later run, sweep point
and worker reads it instead of executing again.

Static ids follow the trace compiler: one per (PTX instruction, next pc, last in the warp), so
a branch's direction is in its static; a partial ``exit`` the warp continues after is a control
op. The op class of each static comes from its SASS-style opcode through the same table a trace
uses (``opcodes.classify``), so ``write_trace`` + ``--trace`` runs exactly what ``simulate`` does.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

import numpy as np

from .kernel import Op
from .opcodes import classify
from .trace_compile import CHUNK_INSTS, FORMAT_VERSION, LISTED
from .trace_store import cache_root


def launch_folder(key: str, root: Path | None = None) -> Path:
    return (cache_root() if root is None else root) / "ptx" / f"{key[:40]}-v{FORMAT_VERSION}"


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
        starts = np.concatenate(([0], np.cumsum(s.counts)[:-1]))
        mem_starts = np.concatenate(([0], np.cumsum(s.mem_counts)[:-1]))
        listed_starts = np.concatenate(([0], np.cumsum(s.listed_counts)[:-1]))
        rows = []
        for k in range(len(s.counts)):
            o, n = int(starts[k]), int(s.counts[k])
            iids = s.sids[o:o + n].astype(np.int64)
            masks = s.masks[o:o + n]
            mo, mn = int(mem_starts[k]), int(s.mem_counts[k])
            bases, strides = s.bases[mo:mo + mn], s.strides[mo:mo + mn]
            lo, ln = int(listed_starts[k]), int(s.listed_counts[k])
            listed = s.listed[lo:lo + ln]
            if not n or not self.is_exit[iids[-1]]:
                iids = np.append(iids, self.exit_iid)
                masks = np.append(masks, masks[-1] if n else np.uint32(0xFFFFFFFF))
            rows.append((int(s.ctas[k]), int(s.warps[k]), self.offset, len(iids)))
            self._warp(iids, masks.astype(np.uint32), bases, strides, listed)
        self.index.append(np.array(rows, np.uint64).reshape(-1, 4))

    def _warp(self, iids, masks, bases, strides, listed) -> None:
        n = len(iids)
        pcs = self.pc[iids]
        nxt = np.append(pcs[1:], pcs[-1] + 8)
        keys = (iids << 32) | nxt
        uniq, inv = np.unique(keys[:-1], return_inverse=True)
        sids = np.empty(n, np.uint32)
        if n > 1:
            table = np.array([self._sid(int(k >> 32), int(k & 0xFFFFFFFF), False) for k in uniq], np.uint32)
            sids[:-1] = table[inv]
        sids[-1] = self._sid(int(iids[-1]), int(nxt[-1]), True)
        self.warp_insts += n
        self.thread_insts += int(np.bitwise_count(masks).sum())
        is_mem = self.is_mem[iids]
        mem_before = np.concatenate(([0], np.cumsum(is_mem)))
        lanes = np.bitwise_count(masks[is_mem]).astype(np.int64)
        n_listed = np.where(strides == LISTED, lanes, 0)
        listed_before = np.concatenate(([0], np.cumsum(n_listed)))
        for a in range(0, n, CHUNK_INSTS):
            b = min(n, a + CHUNK_INSTS)
            m0, m1 = int(mem_before[a]), int(mem_before[b])
            l0, l1 = int(listed_before[m0]), int(listed_before[m1])
            cb = bases[m0:m1].astype(np.uint64)
            cs = strides[m0:m1].astype(np.int64)
            cb = np.where(cs == LISTED, listed_before[m0:m1] - l0, cb).astype(np.uint64)
            parts = (np.array([b - a, m1 - m0, l1 - l0], np.uint64), sids[a:b], masks[a:b], cb, cs,
                     listed[l0:l1].astype(np.uint64))
            for p in parts:
                self.out.write(p.tobytes())
                self.offset += p.nbytes

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
                "ptx_warp_insts": warp_insts}
        (self.tmp / "meta.json").write_text(json.dumps(meta))
        try:
            os.rename(self.tmp, self.folder)
        except OSError:              # written meanwhile by another process: theirs is the same
            if not (self.folder / "meta.json").is_file():
                raise
        finally:
            shutil.rmtree(self.tmp, ignore_errors=True)
        return self.folder


def sink_factory(root: Path | None = None):
    """For ``ptx.host.Context``: write each launch's folder unless it is cached already."""
    def make(info):
        folder = launch_folder(info.key, root)
        if (folder / "meta.json").is_file():
            return CachedSink(folder)
        return TraceSink(info, root)
    return make
