"""Address → DRAM (channel, bank, row) and → L2 slice, per ``DRAMConfig`` ([GPGPU-Sim gpu-cache.cc]
address decoding; ``partition_map = random`` / ``ipoly`` as GPGPU-Sim's RANDOM / IPOLY partition indexing)."""

from __future__ import annotations

from gpusched.config.schema import DRAMConfig


class AddressMap:
    """Address → (channel, bank, row) per ``DRAMConfig`` (modulo, so channel and bank counts
    need not be powers of two), and → L2 slice: ``slices_per_channel`` slices sit behind each
    channel and lines of one channel are interleaved over them."""

    __slots__ = ("channels", "banks", "channel_bit", "bank_bit", "row_bit", "line_shift",
                 "spc", "low_mask", "low_bits", "random", "n_slices", "draw", "ipoly",
                 "ipoly_rows", "ipoly_bits", "ch_bits", "spc_mask")

    def __init__(self, d: DRAMConfig, line_bytes: int, slices: int):
        self.channels, self.banks = d.channels, d.banks
        self.channel_bit, self.bank_bit, self.row_bit = d.channel_bit, d.bank_bit, d.row_bit
        self.line_shift = line_bytes.bit_length() - 1
        self.spc = slices // d.channels
        self.low_mask = (1 << d.channel_bit) - 1
        self.low_bits = d.channel_bit - self.line_shift
        self.n_slices = self.spc * d.channels
        self.ipoly = d.partition_map == "ipoly"
        self.ch_bits = max(0, (d.channels - 1).bit_length())
        self.spc_mask = self.spc - 1
        self.ipoly_rows, self.ipoly_bits = (ipoly_matrix(self.n_slices) if self.ipoly else ((), 0))
        # both hashed maps go through random_slice (the name predates IPOLY)
        self.random = d.partition_map in ("random", "ipoly")
        # dram.partition_seed: a far-away start in the hash's sequence, so another draw (choice)
        self.draw = (0x9E3779B97F4A7C15 + d.partition_seed * 0xD1B54A32D192ED03) & 0xFFFFFFFFFFFFFFFF

    def random_slice(self, addr: int) -> int:
        """``partition_map = random``: the line's slice from a fixed hash of its line
        number (splitmix64's finaliser). GPGPU-Sim's RANDOM partition indexing draws rand() the
        first time a line is seen and keeps it; a hash gives the same uniform, address-blind
        spread without depending on the order lines are first touched (choice).
        ``partition_map = ipoly``: ``ipoly_slice``."""
        if self.ipoly:
            return self.ipoly_slice(addr)
        z = ((addr >> self.line_shift) + self.draw) & 0xFFFFFFFFFFFFFFFF
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
        return (z ^ (z >> 31)) % self.n_slices

    def ipoly_slice(self, addr: int) -> int:
        """GPGPU-Sim's IPOLY partition indexing (``addrdec.cc``, -gpgpu_memory_partition_indexing
        2): the sub-partition index (channel bits at ``channel_bit``, then the sub-partition bit
        just above them) XORed, bit by bit, with the address bits above both, through the
        H-matrix of x^(n+k) mod P(x) (``ipoly_matrix``)."""
        low = self.channel_bit + self.ch_bits
        index = (((addr >> self.channel_bit) % self.channels) * self.spc
                 + ((addr >> low) & self.spc_mask))
        high = (addr >> (low + (self.spc_mask.bit_length()))) & ((1 << self.ipoly_bits) - 1)
        for i, row in enumerate(self.ipoly_rows):
            if (high & row).bit_count() & 1:
                index ^= 1 << i
        return index % self.n_slices

    def locate(self, addr: int) -> tuple[int, int, int]:
        ch = (self.random_slice(addr) // self.spc if self.random
              else (addr >> self.channel_bit) % self.channels)
        return ch, (addr >> self.bank_bit) % self.banks, addr >> self.row_bit

    def line_in_channel(self, addr: int) -> int:
        """The line number with the channel field taken out (dense within one channel)."""
        hi = (addr >> self.channel_bit) // self.channels
        return (hi << self.low_bits) | ((addr & self.low_mask) >> self.line_shift)

    def line_in_slice(self, addr: int) -> int:
        """Dense line number among the lines of the address's own L2 slice (its set index)."""
        return self.line_in_channel(addr) // self.spc

    def slice_of(self, addr: int) -> int:
        if self.random:
            return self.random_slice(addr)
        hi = addr >> self.channel_bit
        line = ((hi // self.channels) << self.low_bits) | ((addr & self.low_mask) >> self.line_shift)
        return (hi % self.channels) * self.spc + line % self.spc


# IPOLY: per number of sub-partitions, the irreducible polynomial P(x) of degree n and how many
# address bits above the index take part (GPGPU-Sim's hashing.cc: IPOLY(5), IPOLY(37), IPOLY(67)
# after Rau, ISCA 1991, and Khairy et al., TPDS 2017; its equations are x^(n+k) mod P for k < bits)
IPOLY = {16: (0b10011, 13), 32: (0b100101, 15), 64: (0b1000011, 19)}


def ipoly_matrix(n_slices: int) -> tuple[tuple[int, ...], int]:
    """Rows of the H-matrix: row i has bit k set when x^(n+k) mod P(x) has the term x^i."""
    poly, bits = IPOLY[n_slices]
    n = poly.bit_length() - 1
    rows = [0] * n
    for k in range(bits):
        v = 1 << (n + k)
        for d in range(n + k, n - 1, -1):         # reduce modulo P over GF(2)
            if v >> d & 1:
                v ^= poly << (d - n)
        for i in range(n):
            if v >> i & 1:
                rows[i] |= 1 << k
    return tuple(rows), bits
