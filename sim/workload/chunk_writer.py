"""The compiled trace's ``stream.bin`` writer (format in sim/workload/trace_compile.py's
docstring): per warp, chunks of at most ``CHUNK_INSTS`` instructions — static ids and masks as
uint32 arrays, per memory instruction a base address and a stride, or the listed addresses."""

from __future__ import annotations

from array import array
from typing import IO

from .trace_line import LISTED

CHUNK_INSTS = 4096


class ChunkWriter:
    """Chunked per-warp output: static ids, masks, base/stride pairs, listed addresses."""

    def __init__(self, f: IO[bytes]):
        self.f, self.offset = f, 0
        self.warp_insts = self.thread_insts = 0
        self.sids, self.masks = array("I"), array("I")
        self.bases, self.strides, self.listed = array("Q"), array("q"), array("Q")

    def add(self, sid: int, mask: int, mem: tuple | None) -> None:
        """One instruction (a warp's last lines; the rest come through ``extend``)."""
        self.extend([sid], [mask], [mem])

    def extend(self, sids: list[int], masks: list[int], mems: list) -> None:
        """Instructions in order (one warp's), split into chunks exactly as ``add`` would."""
        i, n = 0, len(sids)
        while i < n:
            j = min(n, i + CHUNK_INSTS - len(self.sids))
            self.sids.extend(sids[i:j])
            self.masks.extend(masks[i:j])
            part = mems[i:j]
            if part.count(None) != len(part):
                for mem in part:
                    if mem is not None:
                        base, stride = mem
                        if stride == LISTED:
                            self.bases.append(len(self.listed))
                            self.listed.extend(base)
                        else:
                            self.bases.append(base)
                        self.strides.append(stride)
            if len(self.sids) >= CHUNK_INSTS:
                self.flush()
            i = j

    def flush(self) -> None:
        if not self.sids:
            return
        self.warp_insts += len(self.sids)          # counted per chunk: one C loop, not per line
        self.thread_insts += sum(map(int.bit_count, self.masks))
        head = array("Q", (len(self.sids), len(self.bases), len(self.listed)))
        for a in (head, self.sids, self.masks, self.bases, self.strides, self.listed):
            a.tofile(self.f)
            self.offset += len(a) * a.itemsize
        for a in (self.sids, self.masks, self.bases, self.strides, self.listed):
            del a[:]
