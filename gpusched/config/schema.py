"""Frozen dataclasses describing one GPU: SMs, functional units, memory hierarchy, energy, kernels.

Each field carries its own validation rule in ``metadata`` (see :func:`rule`); cross-field rules
live in :mod:`gpusched.config.validate`. Blocks never take a whole config: the model builder reads
the fields it needs and passes plain parameters.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .errors import ConfigError


def rule(default, *, lo=None, hi=None, choices=None, pow2=False, doc="", unit=""):
    """A dataclass field with a validation rule (bounds, allowed choices, power of two), its
    meaning (``doc``) and its unit; ``gpusched config show`` prints both as a TOML comment."""
    return field(default=default, metadata={"lo": lo, "hi": hi, "choices": choices, "pow2": pow2,
                                            "doc": doc, "unit": unit})


ISSUE_STAGES = ("inorder", "socgpu", "inorder_issue")
LOCAL_POLICIES = ("first", "oldest", "youngest", "most_ready", "least_ready", "random")
WRITE_POLICIES = ("write_through", "write_back")
DERIVED_SIZE = ("capacity = sets × ways × line_bytes; set one of the four and the config derives "
                "size or sets (a partial override keeps the other two)")


@dataclass(frozen=True)
class SMConfig:
    """One streaming multiprocessor (compute unit) and its occupancy limits."""
    count: int = rule(2, lo=1, doc="number of SMs", unit="SMs")
    sms_per_cluster: int = rule(1, lo=1, doc="SMs per cluster (CTA issue, "
                                             "[GPGPU-Sim issue_block2core()]); divides count", unit="SMs")
    subcores: int = rule(2, lo=1, doc="warp schedulers (sub-cores) per SM", unit="schedulers")
    warps_per_sm: int = rule(8, lo=1, hi=1024, doc="hardware warp slots per SM", unit="warps")
    warp_size: int = rule(32, lo=1, hi=64, doc="threads per warp", unit="threads")
    threads_per_sm: int = rule(256, lo=1, doc="max resident threads per SM", unit="threads")
    regs_per_sm: int = rule(8192, lo=1, doc="32-bit registers per SM", unit="registers")
    smem_per_sm: int = rule(16384, lo=0, doc="shared memory per SM", unit="bytes")
    max_ctas_per_sm: int = rule(4, lo=1, hi=64, doc="CTA slots per SM", unit="CTAs")
    warp_sched: str = rule("gto", doc="warp scheduler: a name of the registry in "
                                      "sim/policies/warp_sched.py, e.g. lrr, gto, old, "
                                      "two_level_active:<N> ([GPGPU-Sim shader.cc])")
    issue_interval: int = rule(1, lo=1, hi=16, doc="cycles between two issues of one scheduler",
                                unit="core cycles")
    dual_issue: bool = rule(False, doc="up to two instructions of one warp per cycle, different units")
    issue: str = rule("inorder", choices=ISSUE_STAGES,
                      doc="per-warp issue stage: inorder scoreboard ([GPGPU-Sim scoreboard.cc]), socgpu "
                          "(IB + dependence matrix, [SOCGPU instruction buffer, dependence matrix]; set "
                          "ib_entries, spec default 8) or inorder_issue ([SOCGPU baseline] block: "
                          "WAR held to write-back, "
                          "fetch and flush as for socgpu)")
    ib_entries: int = rule(2, lo=1, hi=64,
                           doc="instruction-buffer entries per warp: inorder decodes this many per "
                               "fetch into an empty buffer (2, GPGPU-Sim); socgpu: N, 2..64, the "
                               "spec's default is 8 (the field keeps the in-order default 2)",
                           unit="instructions")
    local_policy: str = rule("first", choices=LOCAL_POLICIES,
                             doc="socgpu: entry chosen among a warp's ready entries "
                                 "([SOCGPU local policy])")
    smart_dual: bool = rule(False, doc="socgpu with dual_issue: the second candidate only among "
                                       "entries of another, free unit ([SOCGPU dual issue])")
    fetch_per_cycle: int = rule(1, lo=1, hi=16, doc="fetch+decode slots per SM per cycle (2 instr each)",
                                 unit="slots per core cycle")
    blocking_atomics: bool = rule(False, doc="a warp with an atomic in flight issues nothing "
                                             "until it completes (GPGPU-Sim's shd_warp_t::waiting, "
                                             "n_atomic > 0)")
    blocking_loads: bool = rule(False, doc="a warp with a global load (or atomic) in flight issues "
                                           "nothing until its data returns ([OWL §2.1], GPGPU-Sim "
                                           "2.x); false: it stalls only at the first use (scoreboard)")

    def __post_init__(self):
        if self.issue == "socgpu" and isinstance(self.ib_entries, int) and self.ib_entries < 2:
            raise ConfigError("sm.ib_entries", self.ib_entries,
                              "must be >= 2 with sm.issue = socgpu")
        if self.blocking_loads is True and (self.issue != "inorder" or self.dual_issue is True):
            raise ConfigError("sm.blocking_loads", True,
                              "needs sm.issue = inorder and sm.dual_issue = false")


@dataclass(frozen=True)
class UnitsConfig:
    """Functional units per sub-core: latency (cycles to write-back) and initiation interval."""
    alu_latency: int = rule(4, lo=1, doc="int/fp32 add, mul, fma: issue to write-back",
                            unit="core cycles")
    alu_ii: int = rule(1, lo=1, doc="ALU initiation interval", unit="core cycles")
    sfu_latency: int = rule(20, lo=1, doc="special functions (rcp, sqrt, sin, ...): issue to "
                            "write-back", unit="core cycles")
    sfu_ii: int = rule(4, lo=1, doc="SFU initiation interval", unit="core cycles")
    fp64_latency: int = rule(8, lo=1, doc="double precision: issue to write-back",
                             unit="core cycles")
    fp64_ii: int = rule(8, lo=1, doc="FP64 initiation interval", unit="core cycles")
    div_latency: int = rule(39, lo=1, doc="fp32 divide; int divide uses idiv_latency",
                            unit="core cycles")
    idiv_latency: int = rule(145, lo=1, doc="integer divide / modulo", unit="core cycles")
    div_ii: int = rule(4, lo=1, doc="divide initiation interval", unit="core cycles")
    ldst_ii: int = rule(1, lo=1, doc="LD/ST unit initiation interval per warp instruction",
                        unit="core cycles")
    ldst_shared: bool = rule(False, doc="one LD/ST unit per SM instead of one per sub-core")
    smem_latency: int = rule(24, lo=1, doc="shared-memory access latency", unit="core cycles")
    smem_banks: int = rule(32, lo=1, pow2=True, doc="shared-memory banks (4 bytes wide)", unit="banks")
    operand_latency: int = rule(0, lo=0, doc="read-operands stage: cycles from issue until an "
                                             "ALU/SFU/FP64/DIV instruction starts executing "
                                             "(GPGPU-Sim's operand collector, dispatch and "
                                             "write-back); its result is ready operand_latency "
                                             "+ latency after issue", unit="core cycles")
    sync_slot: bool = rule(False, doc="BAR and EXIT go down the ALU pipe with a latency of 1 "
                                      "and wait for a write-back slot no earlier ALU op holds, "
                                      "holding the pipe meanwhile (GPGPU-Sim's pipelined unit "
                                      "reserves each op's write-back cycle; in trace mode barriers "
                                      "and exits issue to the SP pipe)")
    ldst_sector_cycles: int = rule(0, lo=0, doc="cycles a global load/store/atomic holds the LD/ST "
                                                "unit per 32-byte sector it touches (GPGPU-Sim's "
                                                "LD/ST unit sends one sector request per cycle), "
                                                "at least ldst_ii; 0: ldst_ii per instruction",
                                   unit="core cycles")


@dataclass(frozen=True)
class L1Config:
    """Per-SM L1 data cache (sim/memory/l1.py). size_bytes must equal sets × ways × line_bytes.

    Sectored (sector_bytes per valid/dirty bit), LRU; write_through = GPGPU-Sim Fermi default
    (no write-allocate), write_back = write-allocate without fetch, dirty data written back.
    """
    size_bytes: int = rule(4096, lo=0, doc=DERIVED_SIZE, unit="bytes")
    line_bytes: int = rule(128, lo=4, pow2=True, doc="cache line", unit="bytes")
    ways: int = rule(4, lo=1, doc="associativity", unit="ways")
    sets: int = rule(8, lo=1, pow2=True, doc="sets", unit="sets")
    sector_bytes: int = rule(32, lo=4, pow2=True, doc="sector (valid/dirty granule)", unit="bytes")
    hit_latency: int = rule(20, lo=1, doc="from issue to data for a load hit", unit="core cycles")
    mshrs: int = rule(32, lo=1, doc="outstanding missed lines (requests to a pending line merge)",
                      unit="lines")
    write_policy: str = rule("write_through", choices=WRITE_POLICIES,
                             doc="write_through: no write-allocate; write_back: allocate, no fetch")
    bypass_global_loads: bool = rule(False, doc="global loads skip L1 (Pascal-style)")
    keep_across_kernels: bool = rule(False, doc="False: invalidate at every kernel boundary")
    self_invalidate: bool = rule(False, doc="with keep_across_kernels: at a kernel launch drop "
                                            "clean sectors outside the kernel's readonly_regions "
                                            "(DeNovo acquire, [IKRA DeNovo])")
    perfect: bool = rule(False, doc="Perfect-L1 mode (PMEM, [OWL §3]): every global load "
                                    "and atomic hits (hit_latency), stores are accepted at once; "
                                    "nothing goes below the L1")
    store_ack: bool = rule(False, doc="write-through stores complete when the L2 acknowledges "
                                      "them (a header-only reply), so a warp's exit and fences "
                                      "wait for its stores (GPGPU-Sim's stores_done); False: "
                                      "a store completes once the L1 accepts it")
    bypass_unmerged: bool = rule(False, doc="with bypass_global_loads, every load sends its own "
                                            "request packets and waits for its own replies (no "
                                            "merging in the L1's MSHRs: GPGPU-Sim's L1 bypass "
                                            "pushes each access straight to the interconnect)")
    carveouts: str = rule("", doc="adaptive L1/shared split ([GPGPU-Sim] Volta unified cache): "
                                  "the shared-memory carve-outs in KB, e.g. '0,8,16,32,64,96'; "
                                  "size_bytes is then the unified capacity and each kernel's L1 "
                                  "keeps the ways the smallest carve-out holding its shared memory "
                                  "(per CTA × CTAs per SM) leaves; empty: a fixed L1")
    miss_after_lookup: bool = rule(False, doc="a load miss's or a write-through store's packets "
                                              "leave after hit_latency, the L1's tag pipeline "
                                              "(GPGPU-Sim's l1_latency queue sits before the tag "
                                              "lookup); False: at once. Not with "
                                              "bypass_global_loads")
    sector_acks: bool = rule(False, doc="with store_ack, the L2 acknowledges each 32-byte sector "
                                        "of a write with its own header-only packet (GPGPU-Sim 4 "
                                        "splits a write into sector requests, each acked); False: "
                                        "one ack per write packet")


@dataclass(frozen=True)
class L2Config:
    """Shared L2, address-interleaved over slices. size_per_slice = sets × ways × line_bytes.

    slices is a multiple of dram.channels: each channel has slices / channels slices in front of
    it, and a channel's lines are interleaved over them. line_bytes must equal l1.line_bytes.
    """
    slices: int = rule(2, lo=1, doc="L2 slices (a multiple of dram.channels)", unit="slices")
    size_per_slice: int = rule(16384, lo=0, doc=DERIVED_SIZE, unit="bytes")
    line_bytes: int = rule(128, lo=4, pow2=True, doc="cache line (= l1.line_bytes)", unit="bytes")
    ways: int = rule(8, lo=1, doc="associativity", unit="ways")
    sets: int = rule(16, lo=1, pow2=True, doc="sets per slice", unit="sets")
    hit_latency: int = rule(40, lo=1, doc="slice access latency", unit="core cycles")
    mshrs: int = rule(32, lo=1, doc="outstanding missed lines per slice", unit="lines")
    mshr_merge: int = rule(0, lo=0, doc="most requests one MSHR entry takes for a 32-byte sector "
                                        "(GPGPU-Sim's 'A:<entries>:<max merge>', its sectored MSHRs "
                                        "keyed by sector); a request beyond it holds the slice's "
                                        "input until the fill (a reservation fail); 0: unlimited",
                           unit="requests")
    input_queue: int = rule(0, lo=0, doc="32-byte sector requests the slice's input queue (from "
                                         "the interconnect) holds: while the slice holds back so "
                                         "many that a whole line's sectors would not fit, the "
                                         "interconnect delivers nothing to it (GPGPU-Sim's "
                                         "icnt-to-L2 queue, -gpgpu_dram_partition_queues); 0: "
                                         "unbounded", unit="sector requests")
    perfect: bool = rule(False, doc="Perfect-L2 mode (the upper bound of [OWL §5]): every L1 "
                                    "miss hits in its L2 slice; nothing goes to DRAM")


@dataclass(frozen=True)
class IcntConfig:
    """SM ↔ L2 interconnect: one-way latency and bytes per cycle per direction per port."""
    latency: int = rule(8, lo=0, doc="one-way latency", unit="core cycles")
    bytes_per_cycle: int = rule(32, lo=1, doc="bandwidth per direction per port",
                                unit="bytes per core cycle")
    header_bytes: int = rule(8, lo=0, doc="address/command per packet (choice)", unit="bytes")
    inject_queue: int = rule(16, lo=1, doc="packets an SM may have waiting to enter the "
                                          "network; an instruction needing more stalls (choice)",
                             unit="packets")
    fifo_inputs: bool = rule(False, doc="one in-order input queue per source: a packet waiting "
                                        "for a busy port holds back the source's later packets "
                                        "(head-of-line blocking, one virtual channel as in "
                                        "GPGPU-Sim's Booksim config); False: a queue per source "
                                        "and port")
    sector_requests: bool = rule(False, doc="a read request is one header-only packet per 32-byte "
                                            "sector it asks for (GPGPU-Sim's coalescer for "
                                            "Maxwell and later: all requests 32 bytes), so an L1 "
                                            "miss on k sectors puts k packets on the network; "
                                            "an atomic or a store on k sectors is k "
                                            "one-sector requests, each with its own L2 access "
                                            "and reply (per-sector store acknowledgements or "
                                            "none: l1.sector_acks), and a fill "
                                            "answers merged atomics sector by sector; "
                                            "False: one packet per line")


@dataclass(frozen=True)
class DRAMConfig:
    """DRAM channels × banks with open-row buffers; timing in DRAM command-clock cycles.

    Address fields: ``channel = (addr >> channel_bit) % channels`` and likewise for bank and row;
    the fields occupy ceil(log2(count)) bits each and must not overlap. queue_size is the FR-FCFS
    window per channel; as many again may wait behind it before the L2 slices stall.
    """
    channels: int = rule(2, lo=1, doc="memory channels (controllers)", unit="channels")
    banks: int = rule(4, lo=1, doc="banks per channel", unit="banks")
    row_bytes: int = rule(2048, lo=64, pow2=True, doc="row (page) per bank", unit="bytes")
    clock_mhz: float = rule(700.0, lo=1.0, doc="DRAM command clock", unit="MHz")
    bus_bytes: int = rule(4, lo=1, doc="data-bus width per channel", unit="bytes")
    data_rate: int = rule(2, lo=1, hi=16, doc="transfers per command clock (DDR = 2, GDDR5 = 4)",
                          unit="transfers per clock")
    burst_length: int = rule(8, lo=1, doc="transfers per column access", unit="transfers")
    tCL: int = rule(12, lo=1, doc="column access (CAS) latency", unit="DRAM cycles")
    tRCD: int = rule(12, lo=1, doc="activate to column command", unit="DRAM cycles")
    tRP: int = rule(12, lo=1, doc="precharge", unit="DRAM cycles")
    tRAS: int = rule(28, lo=1, doc="activate to precharge, minimum", unit="DRAM cycles")
    tRRD: int = rule(0, lo=0, doc="minimum command cycles between two row activations in a "
                                  "channel; 0 = not modelled", unit="DRAM cycles")
    tRC: int = rule(0, lo=0, doc="activate to activate in one bank (row cycle); 0 = not "
                                 "modelled (tRAS + tRP still hold)", unit="DRAM cycles")
    tCCD: int = rule(0, lo=0, doc="column command to column command in a channel; the data bus "
                                  "alone spaces them by one burst in any case", unit="DRAM cycles")
    bank_groups: int = rule(1, lo=1, hi=64, doc="bank groups per channel (GDDR5), a divisor of "
                                                "banks", unit="groups")
    bank_group_bits: str = rule("high", choices=("high", "low"),
                                doc="which bits of the bank index name its group: high (bank // "
                                    "(banks / bank_groups), GPGPU-Sim's default) or low (bank "
                                    "mod bank_groups, -dram_bnkgrp_indexing_policy 1)")
    tCCDL: int = rule(0, lo=0, doc="column to column in one bank group; 0 = not modelled",
                      unit="DRAM cycles")
    tRTP: int = rule(0, lo=0, doc="read command to precharge in one bank; at least one burst "
                                  "in any case (GPGPU-Sim's BL / data_command_freq_ratio)",
                     unit="DRAM cycles")
    tRTPL: int = rule(0, lo=0, doc="read command to precharge in one bank group; 0 = not "
                                   "modelled", unit="DRAM cycles")
    tWL: int = rule(0, lo=0, doc="write latency: write command to its data. 0 = writes time as "
                                 "reads (data tCL after the command) with no read/write "
                                 "turnaround and no write recovery", unit="DRAM cycles")
    tCDLR: int = rule(0, lo=0, doc="last write data to a read command (write-to-read turnaround "
                                   "= tWL + burst + tCDLR); needs tWL > 0", unit="DRAM cycles")
    tWR: int = rule(0, lo=0, doc="last write data to precharge (write recovery: write-to-"
                                 "precharge = tWL + burst + tWR); needs tWL > 0",
                    unit="DRAM cycles")
    queue_size: int = rule(16, lo=1, doc="FR-FCFS window per channel", unit="requests")
    scheduler: str = rule("frfcfs", choices=("frfcfs", "fifo"),
                          doc="frfcfs: row hits first, then oldest; fifo: oldest")
    channel_bit: int = rule(8, lo=0, hi=47, doc="lowest address bit of the channel field",
                            unit="bit")
    bank_bit: int = rule(11, lo=0, hi=47, doc="lowest address bit of the bank field", unit="bit")
    row_bit: int = rule(14, lo=0, hi=47, doc="lowest address bit of the row field; the bits below "
                                             "it minus channel/bank bits = row_bytes", unit="bit")
    controller_latency: int = rule(0, lo=0, doc="from an L2 miss to the DRAM queue "
                                                "(GPGPU-Sim -dram_latency; controller + PHY)",
                                   unit="core cycles")
    fixed_latency: int = rule(100, lo=1, doc="stand-in memory: time for a DRAM access",
                              unit="core cycles")
    prefetch: str = rule("off", choices=("off", "owl_a", "owl_b"),
                         doc="OWL opportunistic prefetcher in each channel ([OWL §4.4]): off, "
                             "owl_a (stop on a conflicting demand) or owl_b (at least C lines)")
    partition_map: str = rule("modulo", choices=("modulo", "random", "ipoly"),
                              doc="which L2 slice and channel hold a line: modulo (channel = "
                                  "(addr >> channel_bit) % channels, slices interleaved), random "
                                  "(each 128-byte line on a fixed pseudo-random slice, its channel "
                                  "the slice's; GPGPU-Sim -gpgpu_memory_partition_indexing 4) or "
                                  "ipoly (GPGPU-Sim's IPOLY hash of the address bits, indexing 2; "
                                  "16, 32 or 64 slices)")
    prefetch_priority: str = rule("lowest", choices=("lowest", "above_misses"),
                                  doc="OWL prefetches at the lowest priority, or above row-miss "
                                      "demands (our reproduction plan's order: row hit > prefetch > oldest)")
    partition_seed: int = rule(0, lo=0, doc="which draw of the random partition map: 0 the "
                                            "default, each other value another, independent one "
                                            "(as another rand() seed is in GPGPU-Sim); only with "
                                            "partition_map = random")


@dataclass(frozen=True)
class EnergyConfig:
    """Per-event dynamic energy (pJ) and static power (mW); see docs/energy.md for the sources."""
    warp_inst_pj: float = rule(150.0, lo=0.0, doc="per issued warp instruction", unit="pJ")
    l1_access_pj: float = rule(80.0, lo=0.0, doc="per 32-byte sector read/written in the L1", unit="pJ")
    smem_access_pj: float = rule(300.0, lo=0.0, doc="per shared-memory access cycle (32 banks)", unit="pJ")
    l2_access_pj: float = rule(200.0, lo=0.0, doc="per 32-byte sector read/written in an L2 slice", unit="pJ")
    icnt_flit_pj: float = rule(500.0, lo=0.0, doc="per 32 bytes carried across the interconnect", unit="pJ")
    dram_access_pj: float = rule(4000.0, lo=0.0, doc="per 32-byte sector moved to/from DRAM", unit="pJ")
    dram_activate_pj: float = rule(2000.0, lo=0.0, doc="per row activation (ACT + PRE)", unit="pJ")
    sm_static_mw: float = rule(1500.0, lo=0.0, doc="static power per un-gated SM", unit="mW")
    uncore_static_mw: float = rule(10000.0, lo=0.0, doc="static power of L2, interconnect and "
                                                        "memory controllers", unit="mW")


@dataclass(frozen=True)
class KernelConfig:
    """Kernel-level scheduling knobs ([GPGPU-Sim issue_block2core()])."""
    max_concurrent: int = rule(8, lo=1, hi=128, doc="kernels resident on the GPU at once",
                               unit="kernels")
    concurrent_sm: bool = rule(False, doc="SMs may hold CTAs of several kernels")
    launch_latency: int = rule(0, lo=0, doc="a kernel's launch cost: it may issue CTAs this "
                               "long after it takes a kernel slot (GPGPU-Sim kernel launch)",
                               unit="core cycles")
    tb_launch_latency: int = rule(0, lo=0, doc="per CTA of the kernel, added to the kernel's "
                                  "launch cost (GPGPU-Sim's per-block launch latency)",
                                  unit="core cycles")
    stream_order: bool = rule(True, doc="a kernel with a CUDA stream (a trace's 'cuda stream "
                                        "id', a CUDA program's launches) takes a kernel slot only "
                                        "when the earlier kernels of its stream have finished "
                                        "(CUDA's stream semantics; GPGPU-Sim's stream manager and "
                                        "Accel-Sim launch a kernel only into an idle stream); "
                                        "every kernel scheduler (the GPU's launch queue)")
    ikra_victim_first: str = rule("right", choices=("right", "left"),
                                  doc="IKRA Steal (cta_scheduler ikra_steal): the neighbour a "
                                      "thief tries first, right = CU i+1 (the paper's Fig 3: CU 0 "
                                      "steals from CU 1 first) or left = CU i-1; then the other "
                                      "neighbour, i+2, i+3, ... ([IKRA Steal])")


@dataclass(frozen=True)
class GPUConfig:
    """A whole GPU. ``name`` is the preset it came from; ``core_clock_mhz`` sets the time base."""
    name: str = "custom"
    core_clock_mhz: float = rule(700.0, lo=1.0, doc="SM clock: the time base of every cycle "
                                                   "count", unit="MHz")
    sm: SMConfig = field(default_factory=SMConfig)
    units: UnitsConfig = field(default_factory=UnitsConfig)
    l1: L1Config = field(default_factory=L1Config)
    l2: L2Config = field(default_factory=L2Config)
    icnt: IcntConfig = field(default_factory=IcntConfig)
    dram: DRAMConfig = field(default_factory=DRAMConfig)
    energy: EnergyConfig = field(default_factory=EnergyConfig)
    kernels: KernelConfig = field(default_factory=KernelConfig)
