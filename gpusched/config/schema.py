"""Frozen dataclasses describing one GPU: SMs, functional units, memory hierarchy, energy, kernels.

Each field carries its own validation rule in ``metadata`` (see :func:`rule`); cross-field rules
live in :mod:`gpusched.config.validate`. Blocks never take a whole config: the model builder reads
the fields it needs and passes plain parameters.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .errors import ConfigError


def rule(default, *, lo=None, hi=None, choices=None, pow2=False, doc=""):
    """A dataclass field with a validation rule: bounds, allowed choices, power of two."""
    return field(default=default, metadata={"lo": lo, "hi": hi, "choices": choices, "pow2": pow2, "doc": doc})


ISSUE_STAGES = ("inorder", "socgpu", "inorder_issue")
LOCAL_POLICIES = ("first", "oldest", "youngest", "most_ready", "least_ready", "random")
WRITE_POLICIES = ("write_through", "write_back")


@dataclass(frozen=True)
class SMConfig:
    """One streaming multiprocessor (compute unit) and its occupancy limits."""
    count: int = rule(2, lo=1, doc="number of SMs")
    sms_per_cluster: int = rule(1, lo=1, doc="SMs per cluster (CTA issue, baselines.md §1.5); divides count")
    subcores: int = rule(2, lo=1, doc="warp schedulers (sub-cores) per SM")
    warps_per_sm: int = rule(8, lo=1, hi=1024, doc="hardware warp slots per SM")
    warp_size: int = rule(32, lo=1, hi=64, doc="threads per warp")
    threads_per_sm: int = rule(256, lo=1, doc="max resident threads per SM")
    regs_per_sm: int = rule(8192, lo=1, doc="32-bit registers per SM")
    smem_per_sm: int = rule(16384, lo=0, doc="shared memory bytes per SM")
    max_ctas_per_sm: int = rule(4, lo=1, hi=64, doc="CTA slots per SM")
    warp_sched: str = rule("gto", doc="warp scheduler: a name of the registry in "
                                      "sim/policies/warp_sched.py, e.g. lrr, gto, old, "
                                      "two_level_active:<N> (baselines.md §1.1-§1.3)")
    issue_interval: int = rule(1, lo=1, hi=16, doc="cycles between two issues of one scheduler")
    dual_issue: bool = rule(False, doc="up to two instructions of one warp per cycle, different units")
    issue: str = rule("inorder", choices=ISSUE_STAGES,
                      doc="per-warp issue stage: inorder scoreboard (baselines.md §1.4), socgpu "
                          "(IB + dependence matrix, socgpu.md §2; set ib_entries, spec default 8) "
                          "or inorder_issue (socgpu.md §5 baseline block: WAR held to write-back, "
                          "fetch and flush as for socgpu)")
    ib_entries: int = rule(2, lo=1, hi=64,
                           doc="instruction-buffer entries per warp: inorder decodes this many per "
                               "fetch into an empty buffer (2, GPGPU-Sim); socgpu: N, 2..64, the "
                               "spec's default is 8 (the field keeps the in-order default 2)")
    local_policy: str = rule("first", choices=LOCAL_POLICIES,
                             doc="socgpu: entry chosen among a warp's ready entries "
                                 "(socgpu.md §2.4)")
    smart_dual: bool = rule(False, doc="socgpu with dual_issue: the second candidate only among "
                                       "entries of another, free unit (socgpu.md §2.6)")
    fetch_per_cycle: int = rule(1, lo=1, hi=16, doc="fetch+decode slots per SM per cycle (2 instr each)")

    def __post_init__(self):
        if self.issue == "socgpu" and isinstance(self.ib_entries, int) and self.ib_entries < 2:
            raise ConfigError("sm.ib_entries", self.ib_entries,
                              "must be >= 2 with sm.issue = socgpu")


@dataclass(frozen=True)
class UnitsConfig:
    """Functional units per sub-core: latency (cycles to write-back) and initiation interval."""
    alu_latency: int = rule(4, lo=1, doc="int/fp32 add, mul, fma")
    alu_ii: int = rule(1, lo=1)
    sfu_latency: int = rule(20, lo=1)
    sfu_ii: int = rule(4, lo=1)
    fp64_latency: int = rule(8, lo=1)
    fp64_ii: int = rule(8, lo=1)
    div_latency: int = rule(39, lo=1, doc="fp32 divide; int divide uses idiv_latency")
    idiv_latency: int = rule(145, lo=1)
    div_ii: int = rule(4, lo=1)
    ldst_ii: int = rule(1, lo=1, doc="LD/ST unit initiation interval per warp instruction")
    ldst_shared: bool = rule(False, doc="one LD/ST unit per SM instead of one per sub-core")
    smem_latency: int = rule(24, lo=1, doc="shared-memory access latency")
    smem_banks: int = rule(32, lo=1, pow2=True)


@dataclass(frozen=True)
class L1Config:
    """Per-SM L1 data cache (sim/memory/l1.py). size_bytes must equal sets × ways × line_bytes.

    Sectored (sector_bytes per valid/dirty bit), LRU; write_through = GPGPU-Sim Fermi default
    (no write-allocate), write_back = write-allocate without fetch, dirty data written back.
    """
    size_bytes: int = rule(4096, lo=0)
    line_bytes: int = rule(128, lo=4, pow2=True)
    ways: int = rule(4, lo=1)
    sets: int = rule(8, lo=1, pow2=True)
    sector_bytes: int = rule(32, lo=4, pow2=True)
    hit_latency: int = rule(20, lo=1, doc="core cycles from issue to data for a load hit")
    mshrs: int = rule(32, lo=1, doc="outstanding missed lines (requests to a pending line merge)")
    write_policy: str = rule("write_through", choices=WRITE_POLICIES)
    bypass_global_loads: bool = rule(False, doc="global loads skip L1 (Pascal-style)")
    keep_across_kernels: bool = rule(False, doc="False: invalidate at every kernel boundary")
    self_invalidate: bool = rule(False, doc="with keep_across_kernels: at a kernel launch drop "
                                            "clean sectors outside the kernel's readonly_regions "
                                            "(DeNovo acquire, ikra.md §2.8)")


@dataclass(frozen=True)
class L2Config:
    """Shared L2, address-interleaved over slices. size_per_slice = sets × ways × line_bytes.

    slices is a multiple of dram.channels: each channel has slices / channels slices in front of
    it, and a channel's lines are interleaved over them. line_bytes must equal l1.line_bytes.
    """
    slices: int = rule(2, lo=1)
    size_per_slice: int = rule(16384, lo=0)
    line_bytes: int = rule(128, lo=4, pow2=True)
    ways: int = rule(8, lo=1)
    sets: int = rule(16, lo=1, pow2=True)
    hit_latency: int = rule(40, lo=1, doc="slice access latency, core cycles")
    mshrs: int = rule(32, lo=1)


@dataclass(frozen=True)
class IcntConfig:
    """SM ↔ L2 interconnect: one-way latency and bytes per cycle per direction per port."""
    latency: int = rule(8, lo=0)
    bytes_per_cycle: int = rule(32, lo=1)
    header_bytes: int = rule(8, lo=0, doc="bytes of address/command per packet (choice)")
    inject_queue: int = rule(16, lo=1, doc="packets an SM may have waiting to enter the "
                                          "network; an instruction needing more stalls (choice)")


@dataclass(frozen=True)
class DRAMConfig:
    """DRAM channels × banks with open-row buffers; timing in DRAM command-clock cycles.

    Address fields: ``channel = (addr >> channel_bit) % channels`` and likewise for bank and row;
    the fields occupy ceil(log2(count)) bits each and must not overlap. queue_size is the FR-FCFS
    window per channel; as many again may wait behind it before the L2 slices stall.
    """
    channels: int = rule(2, lo=1)
    banks: int = rule(4, lo=1)
    row_bytes: int = rule(2048, lo=64, pow2=True)
    clock_mhz: float = rule(700.0, lo=1.0)
    bus_bytes: int = rule(4, lo=1, doc="data-bus width per channel in bytes")
    data_rate: int = rule(2, lo=1, hi=16, doc="transfers per command clock (DDR = 2, GDDR5 = 4)")
    burst_length: int = rule(8, lo=1)
    tCL: int = rule(12, lo=1)
    tRCD: int = rule(12, lo=1)
    tRP: int = rule(12, lo=1)
    tRAS: int = rule(28, lo=1)
    tRRD: int = rule(0, lo=0, doc="minimum command cycles between two row activations in a "
                                  "channel; 0 = not modelled")
    queue_size: int = rule(16, lo=1)
    scheduler: str = rule("frfcfs", choices=("frfcfs", "fifo"))
    channel_bit: int = rule(8, lo=0, hi=47)
    bank_bit: int = rule(11, lo=0, hi=47)
    row_bit: int = rule(14, lo=0, hi=47, doc="bits below it minus channel/bank bits = row_bytes")
    controller_latency: int = rule(0, lo=0, doc="core cycles from an L2 miss to the DRAM queue "
                                                "(GPGPU-Sim -dram_latency; controller + PHY)")
    fixed_latency: int = rule(100, lo=1, doc="stand-in memory: core cycles for a DRAM access")


@dataclass(frozen=True)
class EnergyConfig:
    """Per-event dynamic energy (pJ) and static power (mW); see docs/energy.md for the sources."""
    warp_inst_pj: float = rule(150.0, lo=0.0)
    l1_access_pj: float = rule(80.0, lo=0.0, doc="per 32-byte sector read/written in the L1")
    smem_access_pj: float = rule(300.0, lo=0.0, doc="per shared-memory access cycle (32 banks)")
    l2_access_pj: float = rule(200.0, lo=0.0, doc="per 32-byte sector read/written in an L2 slice")
    icnt_flit_pj: float = rule(500.0, lo=0.0, doc="per 32 bytes carried across the interconnect")
    dram_access_pj: float = rule(4000.0, lo=0.0, doc="per 32-byte sector moved to/from DRAM")
    dram_activate_pj: float = rule(2000.0, lo=0.0, doc="per row activation (ACT + PRE)")
    sm_static_mw: float = rule(1500.0, lo=0.0, doc="static power per un-gated SM")
    uncore_static_mw: float = rule(10000.0, lo=0.0)


@dataclass(frozen=True)
class KernelConfig:
    """Kernel-level scheduling knobs (baselines.md §1.5)."""
    max_concurrent: int = rule(8, lo=1, hi=128)
    concurrent_sm: bool = rule(False, doc="SMs may hold CTAs of several kernels")
    launch_latency: int = rule(0, lo=0)
    tb_launch_latency: int = rule(0, lo=0)


@dataclass(frozen=True)
class GPUConfig:
    """A whole GPU. ``name`` is the preset it came from; ``core_clock_mhz`` sets the time base."""
    name: str = "custom"
    core_clock_mhz: float = rule(700.0, lo=1.0)
    sm: SMConfig = field(default_factory=SMConfig)
    units: UnitsConfig = field(default_factory=UnitsConfig)
    l1: L1Config = field(default_factory=L1Config)
    l2: L2Config = field(default_factory=L2Config)
    icnt: IcntConfig = field(default_factory=IcntConfig)
    dram: DRAMConfig = field(default_factory=DRAMConfig)
    energy: EnergyConfig = field(default_factory=EnergyConfig)
    kernels: KernelConfig = field(default_factory=KernelConfig)
