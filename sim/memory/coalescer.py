"""Coalescing of one warp memory instruction ([GPGPU-Sim gpu-cache.cc], GPGPU-Sim sector caches).

Global accesses: the active threads' byte addresses are grouped into line requests, each with a
mask of the 32-byte sectors it touches (bit i = sector i of the line). Shared memory: the number
of cycles the access needs on a banked scratchpad (bank = 4-byte word mod banks; threads reading
the same word are served by one broadcast).
"""

from __future__ import annotations

from typing import Any

from sim.workload.kernel import Instr


def coalesce(addrs: Any, size: int, line_bytes: int, sector_bytes: int) -> dict[int, int]:
    """Map line address → sector mask, lines in ascending address order.

    An access that straddles a sector or line boundary marks every sector it touches. Accesses
    no wider than a sector touch at most two sectors (first and last byte); when the first
    bytes alone fill a sector range within one line (a coalesced access) the mask follows from
    the range, without a second pass for the last bytes. ``addrs``: a tuple of ints (another
    sequence is copied into one; typed, the compiled build does integer arithmetic natively).
    """
    t: tuple[int, ...] = addrs if type(addrs) is tuple else tuple(addrs)
    if size > sector_bytes:
        return _coalesce_wide(t, size, line_bytes, sector_bytes)
    n = len(t)
    if n == 0:
        return {}
    shift = sector_bytes.bit_length() - 1
    lo, span = t[0], n * size
    if (lo ^ (lo + span - 1)) < line_bytes and t[n - 1] == lo + span - size and _consecutive(t, size):
        # the fully coalesced case: consecutive elements within one line
        s0, s1 = lo >> shift, (lo + span - 1) >> shift
        low = (line_bytes >> shift) - 1
        return {lo - (lo & (line_bytes - 1)): ((1 << (s1 - s0 + 1)) - 1) << (s0 & low)}
    sectors: set[int] = set()
    top = lo
    for a in t:
        sectors.add(a >> shift)
        if a > top:
            top = a
    s0, s1 = min(sectors), max(sectors)
    if len(sectors) == s1 - s0 + 1:
        # the first bytes cover [s0, s1]; last bytes reach at most one sector further, and
        # the highest address's last byte reaches the end: contiguous [s0, end]
        end = (top + size - 1) >> shift
        to_line = (line_bytes >> shift).bit_length() - 1
        if s0 >> to_line == end >> to_line:     # one line
            low = (line_bytes >> shift) - 1
            return {(s0 >> to_line) << (to_line + shift): ((1 << (end - s0 + 1)) - 1) << (s0 & low)}
    if size > 1:
        last = size - 1
        for a in t:
            sectors.add((a + last) >> shift)
    per_line = line_bytes >> shift
    to_line = per_line.bit_length() - 1
    low = per_line - 1
    out: dict[int, int] = {}
    for sec in sorted(sectors):
        base = (sec >> to_line) << (to_line + shift)
        out[base] = out.get(base, 0) | (1 << (sec & low))
    return out


def _consecutive(addrs: tuple[int, ...], size: int) -> bool:
    """``addrs`` step by exactly ``size`` (a typed loop: compiled, it allocates nothing)."""
    a = addrs[0]
    for i in range(1, len(addrs)):
        a += size
        if addrs[i] != a:
            return False
    return True


def _coalesce_wide(addrs: tuple[int, ...], size: int, line_bytes: int, sector_bytes: int) -> dict[int, int]:
    """General case (accesses wider than a sector), first-touch order."""
    lines: dict[int, int] = {}
    line_mask = ~(line_bytes - 1)
    shift = sector_bytes.bit_length() - 1
    last = size - 1
    for a in addrs:
        base = a & line_mask
        end = a + last
        if end - base < line_bytes:
            s0 = (a - base) >> shift
            s1 = (end - base) >> shift
            bits = (1 << s0) if s0 == s1 else ((1 << (s1 - s0 + 1)) - 1) << s0
            lines[base] = lines.get(base, 0) | bits
        else:
            while a <= end:
                base = a & line_mask
                stop = min(end, base + line_bytes - 1)
                s0, s1 = (a - base) >> shift, (stop - base) >> shift
                lines[base] = lines.get(base, 0) | (((1 << (s1 - s0 + 1)) - 1) << s0)
                a = base + line_bytes
    return lines


def smem_conflict_cycles(instr: Instr, banks: int = 32, bank_bytes: int = 4) -> int:
    """Cycles a shared-memory access needs: the largest number of distinct words mapped to one
    bank (identical words are broadcast). 1 = conflict-free; 0 active threads also costs 1.

    Wide accesses (8/16 B per thread) touch several consecutive words; we count all of them in
    one pass rather than splitting the warp into half/quarter-warp phases (choice).
    """
    words_per_bank: dict[int, set] = {}
    last = instr.size - 1
    for a in instr.addrs or ():
        w0, w1 = a // bank_bytes, (a + last) // bank_bytes
        for w in range(w0, w1 + 1):
            s = words_per_bank.get(w % banks)
            if s is None:
                words_per_bank[w % banks] = {w}
            else:
                s.add(w)
    return max((len(s) for s in words_per_bank.values()), default=1)
