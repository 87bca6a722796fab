"""Local-memory addresses: from each thread's own local address to the GPU's physical space.

A trace records a local access (``LDL``/``STL``) at the address the thread sees in its own local
memory, so every thread of a warp reading element i of its local array records the same address.
The timing model places the threads' local memories side by side, as GPGPU-Sim does in
``shader_core_ctx::translate_local_memaddr`` with ``-gpgpu_local_mem_map 1`` (its default, used
by Accel-Sim's trace mode too): for one local word, the threads of a CTA are adjacent 4-byte
words, then the CTA slots of every SM, SM by SM; the next word follows after all of them. An
access of 4 bytes or more becomes one 4-byte access per word; a narrower one stays one access
within its word.
"""

from __future__ import annotations

from typing import Final

# GPGPU-Sim's LOCAL_GENERIC_START (abstract_hardware_model.h): 0xC0000000 less room for 80 SMs'
# shared memory (96 KiB each) and local memory (2 048 threads × 16 KiB per SM)
LOCAL_GENERIC_START: Final = 0xC0000000 - 80 * 96 * 1024 - 80 * 2048 * 16 * 1024


def local_addresses(addrs: tuple[int, ...], mask: int, size: int, warp_slot: int,
                    warp_size: int, sm_id: int, n_sms: int, padded_threads: int,
                    max_ctas: int) -> tuple[int, ...]:
    """The physical addresses of one warp's local access. ``addrs``: the active lanes' local
    addresses in lane order of ``mask``; ``warp_slot``: the warp's slot in its SM (thread slot
    = warp slot × warp size + lane); ``padded_threads``: the CTA size in whole warps;
    ``max_ctas``: the kernel's CTAs per SM. Accesses of ``size`` ≥ 4 come out as 4-byte
    words, word by word for each lane."""
    threads = padded_threads * max_ctas * n_sms       # one word of every concurrent thread
    words = size // 4 if size >= 4 else 1
    out: list[int] = []
    lane = 0
    m = mask
    first_tid = warp_slot * warp_size
    for a in addrs:
        while not m & 1:
            m >>= 1
            lane += 1
        tid = first_tid + lane
        base = 4 * (padded_threads * (sm_id + n_sms * (tid // padded_threads)) + tid % padded_threads)
        word = a >> 2
        if size >= 4:
            for i in range(words):
                out.append((word + i) * threads * 4 + base + LOCAL_GENERIC_START)
        else:
            out.append(word * threads * 4 + base + (a & 3) + LOCAL_GENERIC_START)
        m >>= 1
        lane += 1
    return tuple(out)
