"""The sector split of ``icnt.sector_requests``: a store or atomic on k sectors of a line becomes
k one-sector requests, each its own packet, L2 access and reply.

Source: GPGPU-Sim's coalescer makes one 32-byte ``mem_fetch`` per sector for arch ≥ 40
(``warp_inst_t::memory_coalescing_arch`` for stores, ``memory_coalescing_arch_atomic`` for
atomics). Reads are not split: they keep one L2 access and send a packet per sector
(hierarchy.py, ``_send``).
"""

from __future__ import annotations

from .request import ATOM, MemRequest


def sector_parts(req: MemRequest) -> list[MemRequest]:
    """One request per sector of ``req.mask``, lowest sector first. An atomic's parts point at
    it (``parent``): it completes with the last part's reply. A store's parts share its record
    (``waiter``), which already counts one acknowledgement per sector (``l1.sector_acks``)."""
    parts: list[MemRequest] = []
    mask = req.mask
    while mask:
        low = mask & -mask
        mask ^= low
        if req.kind == ATOM:
            part = MemRequest(ATOM, req.sm, req.line, low, req.t_issue)
            part.parent = req
        else:
            part = MemRequest(req.kind, req.sm, req.line, low, req.t_issue, waiter=req.waiter)
        parts.append(part)
    return parts
