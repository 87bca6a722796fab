"""Coalescing of one warp memory instruction (baselines.md §1.6, GPGPU-Sim sector caches).

Global accesses: the active threads' byte addresses are grouped into line requests, each with a
mask of the 32-byte sectors it touches (bit i = sector i of the line). Shared memory: the number
of cycles the access needs on a banked scratchpad (bank = 4-byte word mod banks; threads reading
the same word are served by one broadcast).
"""

from __future__ import annotations

from sim.workload.kernel import Instr


def coalesce(addrs, size: int, line_bytes: int, sector_bytes: int) -> dict[int, int]:
    """Map line address → sector mask, lines in ascending address order.

    An access that straddles a sector or line boundary marks every sector it touches. Accesses
    no wider than a sector touch at most two sectors (first and last byte); when the first
    bytes alone fill a sector range within one line (a coalesced access) the mask follows from
    the range, without a second pass for the last bytes.
    """
    if size <= sector_bytes:
        if not addrs:
            return {}
        shift = sector_bytes.bit_length() - 1
        lo, span = addrs[0], len(addrs) * size
        if ((lo ^ (lo + span - 1)) < line_bytes and addrs[-1] == lo + span - size
                and addrs == tuple(range(lo, lo + span, size))):
            # the fully coalesced case: consecutive elements within one line
            s0, s1 = lo >> shift, (lo + span - 1) >> shift
            low = (line_bytes >> shift) - 1
            return {lo - (lo & (line_bytes - 1)): ((1 << (s1 - s0 + 1)) - 1) << (s0 & low)}
        sectors = {a >> shift for a in addrs}
        s0, s1 = min(sectors), max(sectors)
        if len(sectors) == s1 - s0 + 1:
            # the first bytes cover [s0, s1]; last bytes reach at most one sector further, and
            # the highest address's last byte reaches the end: contiguous [s0, end]
            end = (max(addrs) + size - 1) >> shift
            to_line = (line_bytes >> shift).bit_length() - 1
            if s0 >> to_line == end >> to_line:     # one line
                low = (line_bytes >> shift) - 1
                return {(s0 >> to_line) << (to_line + shift): ((1 << (end - s0 + 1)) - 1) << (s0 & low)}
        if size > 1:
            last = size - 1
            sectors.update({(a + last) >> shift for a in addrs})
        per_line = line_bytes >> shift
        to_line = per_line.bit_length() - 1
        low = per_line - 1
        out: dict[int, int] = {}
        get = out.get
        for sec in sorted(sectors):
            base = (sec >> to_line) << (to_line + shift)
            out[base] = get(base, 0) | (1 << (sec & low))
        return out
    return _coalesce_wide(addrs, size, line_bytes, sector_bytes)


def _coalesce_wide(addrs, size: int, line_bytes: int, sector_bytes: int) -> dict[int, int]:
    """General case (accesses wider than a sector), first-touch order."""
    lines: dict[int, int] = {}
    get = lines.get
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
            lines[base] = get(base, 0) | bits
        else:
            while a <= end:
                base = a & line_mask
                stop = min(end, base + line_bytes - 1)
                s0, s1 = (a - base) >> shift, (stop - base) >> shift
                lines[base] = get(base, 0) | (((1 << (s1 - s0 + 1)) - 1) << s0)
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
