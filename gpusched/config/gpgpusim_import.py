"""``gpgpusim.config`` (+ ``trace.config``, + its Booksim ``.icnt``) → a validated ``GPUConfig``.

Every option is either *mapped* onto config fields, *approximated* (mapped, but the model
differs; the note says how) or *ignored* with the reason (``gpgpusim_options``); an option
GPGPU-Sim 4.x does not know, a malformed value or one the model cannot take exits 2 naming the
option and its file:line. ``import_config`` returns the config and one ``Row`` per option;
docs/config.md has the table. Options a file does not give take GPGPU-Sim's defaults.

Pipeline behaviour common to every GPGPU-Sim 4 config, measured on SM6_TITANX
(docs/validation.md) and set here for every import: the read-operands stage
(``units.operand_latency`` 5), one LD/ST unit per SM sending one request per cycle, stores
completing at the L2's per-sector acknowledgement, a stream's kernels in order.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

from .errors import ConfigError
from .gpgpusim_file import Options

# GPGPU-Sim's own defaults for the mapped options a file may leave out (gpu-sim.cc, shader.cc)
DEFAULTS = {
    "-gpgpu_n_clusters": "10", "-gpgpu_n_cores_per_cluster": "3", "-gpgpu_n_mem": "8",
    "-gpgpu_n_sub_partition_per_mchannel": "1", "-gpgpu_n_mem_per_ctrlr": "1",
    "-gpgpu_clock_domains": "500.0:2000.0:2000.0:2000.0", "-gpgpu_shader_core_pipeline": "1024:32",
    "-gpgpu_shader_cta": "8", "-gpgpu_shader_registers": "8192", "-gpgpu_num_sched_per_core": "1",
    "-gpgpu_scheduler": "gto", "-gpgpu_max_insn_issue_per_warp": "2",
    "-gpgpu_inst_fetch_throughput": "1", "-gpgpu_shmem_size": "16384",
    "-gpgpu_shmem_num_banks": "16", "-gpgpu_smem_latency": "3", "-gpgpu_l1_latency": "1",
    "-gpgpu_gmem_skip_L1D": "0", "-gpgpu_flush_l1_cache": "0", "-gpgpu_coalesce_arch": "13",
    "-gpgpu_l2_rop_latency": "85", "-dram_latency": "30", "-gpgpu_dram_buswidth": "4",
    "-gpgpu_dram_burst_length": "4", "-dram_data_command_freq_ratio": "2",
    "-gpgpu_frfcfs_dram_sched_queue_size": "0", "-gpgpu_dram_scheduler": "1",
    "-gpgpu_memory_partition_indexing": "0", "-icnt_flit_size": "32", "-network_mode": "1",
    "-icnt_in_buffer_limit": "64", "-gpgpu_kernel_launch_latency": "0",
    "-gpgpu_TB_launch_latency": "0", "-gpgpu_dram_partition_queues": "8:8:8:8", "-gpgpu_max_concurrent_kernel": "32",
    "-gpgpu_adaptive_cache_config": "0", "-gpgpu_unified_l1d_size": "0", "-gpgpu_num_int_units": "0",
    "-ptx_opcode_latency_int": "4,13,4,5,145,32", "-ptx_opcode_initiation_int": "1,2,2,1,8,4",
    "-ptx_opcode_latency_fp": "4,13,4,5,39", "-ptx_opcode_initiation_fp": "1,2,1,1,4",
    "-ptx_opcode_latency_dp": "8,19,8,8,330", "-ptx_opcode_initiation_dp": "8,16,8,8,130",
    "-ptx_opcode_latency_sfu": "8", "-ptx_opcode_initiation_sfu": "8",
}
# the read-operands stage of GPGPU-Sim's pipeline (docs/validation.md, lat_alu / lat_sfu)
OPERAND_LATENCY = 5
# our unloaded L2 hit and DRAM miss equal Accel-Sim's with these offsets from its ROP and DRAM
# latency options (measured on SM6_TITANX: l2.hit_latency 97 for rop 120, controller 102 for 100)
ROP_TO_L2_HIT = -23
DRAM_TO_CONTROLLER = 2


@dataclass(frozen=True)
class Row:
    """One option of the imported files and what became of it."""
    option: str
    value: str
    where: str
    status: str          # mapped | approximated | ignored | default
    fields: str          # the config fields it set ("" when ignored)
    note: str


class _Ctx:
    """The options (explicit and defaulted) and the config being built."""

    def __init__(self, opts: Options):
        self.opts = opts
        self.fields: dict[str, object] = {}

    def raw(self, name: str) -> str:
        return self.opts[name][0] if name in self.opts else DEFAULTS[name]

    def fail(self, name: str, allowed: str):
        value, where = self.opts.get(name, (DEFAULTS.get(name, ""), "GPGPU-Sim default"))
        raise ConfigError(f"{where} {name}", value, allowed)

    def int(self, name: str, lo: int = 0) -> int:
        try:
            v = int(self.raw(name), 0)
        except ValueError:
            self.fail(name, "expected an integer")
        if v < lo:
            self.fail(name, f"must be >= {lo}")
        return v

    def ints(self, name: str, n: int, sep: str = ",") -> list[int]:
        try:
            vals = [int(p) for p in self.raw(name).split(sep) if p.strip()]
        except ValueError:
            vals = []
        if len(vals) < n or min(vals) < 0:
            self.fail(name, f"expected at least {n} non-negative integers separated by '{sep}'")
        return vals

    def set(self, **fields: object) -> str:
        for k, v in fields.items():
            self.fields[k.replace("__", ".")] = v
        return ", ".join(k.replace("__", ".") for k in fields)


def _cache(ctx: _Ctx, name: str) -> dict:
    """A GPGPU-Sim cache string ``T:sets:line:ways,rp:wp:ap:wap:sif,mshr:N:merge,…``."""
    text = ctx.raw(name) if name in ctx.opts else ""
    parts = text.split(",")
    try:
        kind, sets, line, ways = parts[0].split(":")
        rp, wp, ap, wap, sif = parts[1].split(":")
        mshr_kind, mshrs, merge = parts[2].split(":")[:3]
        out = {"sector": kind == "S", "sets": int(sets), "line": int(line), "ways": int(ways),
               "write": wp, "alloc": ap, "write_alloc": wap, "index": sif, "mshrs": int(mshrs),
               "merge": int(merge)}
        if kind not in "NS" or min(out["sets"], out["line"], out["ways"], out["mshrs"]) < 1:
            raise ValueError
    except (ValueError, IndexError):
        ctx.fail(name, "expected a cache string like 'S:64:128:16,L:B:m:L:P,A:256:64,16:0,32'")
    return out


def _l1(ctx: _Ctx) -> str:
    if "-gpgpu_cache:dl1" not in ctx.opts:
        return "not given: the L1 fields keep their defaults"
    c = _cache(ctx, "-gpgpu_cache:dl1")
    ways = c["ways"]
    note = ""
    if ctx.int("-gpgpu_adaptive_cache_config") and ctx.int("-gpgpu_unified_l1d_size"):
        unified = ctx.int("-gpgpu_unified_l1d_size") * 1024
        ways = c["ways"] * unified // (c["sets"] * c["line"] * c["ways"])
        ctx.set(l1__carveouts=ctx.raw("-gpgpu_shmem_option").replace(" ", ""))
        note = (f"adaptive: {unified // 1024} KB unified with shared memory, the L1 gets what "
                "the kernel's shared memory leaves (l1.carveouts); ")
    sector = 32 if c["sector"] else c["line"]
    ctx.set(l1__sets=c["sets"], l1__ways=ways, l1__line_bytes=c["line"], l1__sector_bytes=sector,
            l1__size_bytes=c["sets"] * ways * c["line"], l1__mshrs=c["mshrs"],
            l1__write_policy="write_back" if c["write"] == "B" else "write_through")
    return note + ("write-through for global data" if c["write"] in "TL" else "")


def _l2(ctx: _Ctx) -> str:
    if "-gpgpu_cache:dl2" not in ctx.opts:
        return "not given: the L2 fields keep their defaults"
    c = _cache(ctx, "-gpgpu_cache:dl2")
    ctx.set(l2__sets=c["sets"], l2__ways=c["ways"], l2__line_bytes=c["line"],
            l2__size_per_slice=c["sets"] * c["ways"] * c["line"], l2__mshrs=c["mshrs"],
            l2__mshr_merge=c["merge"])
    return ("set index hashed there (IPOLY), linear here" if c["index"] == "P" else "") 


def _clocks(ctx: _Ctx) -> str:
    try:
        core, icnt, l2, dram = (float(x) for x in ctx.raw("-gpgpu_clock_domains").split(":"))
    except ValueError:
        ctx.fail("-gpgpu_clock_domains", "expected core:interconnect:L2:DRAM in MHz")
    ctx.set(core_clock_mhz=core, dram__clock_mhz=dram)
    return "" if icnt == l2 == core else "interconnect and L2 run at the core clock here"


def _pipeline(ctx: _Ctx) -> str:
    threads, warp = ctx.ints("-gpgpu_shader_core_pipeline", 2, ":")[:2]
    if warp != 32 or threads % 32:
        ctx.fail("-gpgpu_shader_core_pipeline", "expected THREADS:32 (traces have 32 lanes)")
    ctx.set(sm__threads_per_sm=threads, sm__warp_size=warp, sm__warps_per_sm=threads // warp)
    return ""


def _scheduler(ctx: _Ctx) -> str:
    name = ctx.raw("-gpgpu_scheduler")
    head, *args = name.split(":")
    if head in ("lrr", "gto", "old"):
        ctx.set(sm__warp_sched=head)
    elif head == "two_level_active" and args and args[0].isdigit():
        ctx.set(sm__warp_sched=f"two_level_active:{args[0]}")
    else:
        ctx.fail("-gpgpu_scheduler", "allowed here: lrr, gto, old, two_level_active:N[:…]")
    return ""


def _latencies(ctx: _Ctx, traced: bool) -> str:
    """Trace mode: ``trace_opcode_latency_initiation_*``; PTX-only configs (no trace.config):
    the ``ptx_opcode_*`` lists (ADD, MAX, MUL, MAD, DIV[, SHFL])."""
    if traced:
        sp = ctx.ints("-trace_opcode_latency_initiation_sp", 2)
        sfu = ctx.ints("-trace_opcode_latency_initiation_sfu", 2)
        dp = ctx.ints("-trace_opcode_latency_initiation_dp", 2)
        ctx.set(units__alu_latency=sp[0], units__alu_ii=sp[1], units__sfu_latency=sfu[0],
                units__sfu_ii=sfu[1], units__fp64_latency=dp[0], units__fp64_ii=dp[1])
        return "trace-mode latencies"
    li, ii = ctx.ints("-ptx_opcode_latency_int", 5), ctx.ints("-ptx_opcode_initiation_int", 5)
    lf, jf = ctx.ints("-ptx_opcode_latency_fp", 5), ctx.ints("-ptx_opcode_initiation_fp", 5)
    ld, jd = ctx.ints("-ptx_opcode_latency_dp", 1), ctx.ints("-ptx_opcode_initiation_dp", 1)
    ls, js = ctx.ints("-ptx_opcode_latency_sfu", 1), ctx.ints("-ptx_opcode_initiation_sfu", 1)
    ctx.set(units__alu_latency=li[0], units__alu_ii=ii[0], units__idiv_latency=li[4],
            units__div_latency=lf[4], units__div_ii=jf[4], units__fp64_latency=ld[0],
            units__fp64_ii=jd[0], units__sfu_latency=ls[0], units__sfu_ii=js[0])
    return "PTX-mode latencies (no trace.config)"


def _dram_timing(ctx: _Ctx) -> str:
    if "-gpgpu_dram_timing_opt" not in ctx.opts:
        return "not given: the DRAM timing keeps its defaults"
    raw = ctx.raw("-gpgpu_dram_timing_opt")
    t: dict[str, int] = {}
    for part in raw.replace(" ", "").split(":"):
        if "=" in part:
            k, _, v = part.partition("=")
            if not v.isdigit():
                ctx.fail("-gpgpu_dram_timing_opt", f"expected {k}=<integer>")
            t[k] = int(v)
    need = ("nbk", "RCD", "RAS", "RP", "CL")
    if any(k not in t for k in need):
        ctx.fail("-gpgpu_dram_timing_opt", "expected nbk, RCD, RAS, RP and CL (nbk=16:RCD=12:…)")
    ctx.set(dram__banks=t["nbk"], dram__tRCD=t["RCD"], dram__tRAS=t["RAS"], dram__tRP=t["RP"],
            dram__tCL=t["CL"], **{f"dram__{field}": t.get(key, 0) for key, field in DRAM_TIMING})
    if "nbkgrp" in t:
        ctx.set(dram__bank_groups=max(1, t["nbkgrp"]))
    rest = sorted(set(t) - set(need) - {key for key, _ in DRAM_TIMING} - {"nbkgrp"})
    return f"not modelled: {', '.join(rest)}" if rest else ""


# -gpgpu_dram_timing_opt keys beside nbk, RCD, RAS, RP and CL → DRAMConfig fields (0 when absent,
# as GPGPU-Sim's option parser leaves them)
DRAM_TIMING = (("RRD", "tRRD"), ("CCD", "tCCD"), ("RC", "tRC"), ("WL", "tWL"),
               ("CDLR", "tCDLR"), ("WR", "tWR"), ("CCDL", "tCCDL"), ("RTPL", "tRTPL"))


def _address_map(ctx: _Ctx) -> str:
    """``dramid@S;<64 mask chars>``: the channel field at bit S; the row starts at the lowest
    R bit (moved up by the channel bits GPGPU-Sim takes out); banks just below the row."""
    if "-gpgpu_mem_addr_mapping" not in ctx.opts:
        return "not given: the DRAM address fields keep their defaults"
    raw = ctx.raw("-gpgpu_mem_addr_mapping")
    head, _, mask = raw.partition(";")
    mask = mask.replace(".", "")
    if not head.startswith("dramid@") or not head[7:].isdigit() or len(mask) != 64 or "R" not in mask:
        ctx.fail("-gpgpu_mem_addr_mapping", "expected 'dramid@N;' and 64 mask characters "
                                            "(D, B, R, C, S, 0)")
    start = int(head[7:])
    channels = int(ctx.fields.get("dram.channels", 2))      # type: ignore[call-overload]
    banks = int(ctx.fields.get("dram.banks", 4))            # type: ignore[call-overload]
    ch_bits = max(1, math.ceil(math.log2(channels))) if channels > 1 else 0
    bank_bits = max(1, math.ceil(math.log2(banks))) if banks > 1 else 0
    row = 63 - mask.rfind("R") + (ch_bits if 63 - mask.rfind("R") >= start else 0)
    ctx.set(dram__channel_bit=start, dram__row_bit=row, dram__bank_bit=row - bank_bits,
            dram__row_bytes=1 << (row - ch_bits - bank_bits))
    return "bank bits contiguous below the row here"


Handler = Callable[[_Ctx], str]


def _put(ctx: _Ctx, note: str, **fields: object) -> str:
    ctx.set(**fields)
    return note


def _n(field: str, lo: int = 0, scale: int = 1) -> Callable[[str], Handler]:
    """A handler setting ``field`` from an integer option."""
    def make(name: str) -> Handler:
        return lambda ctx: (ctx.set(**{field.replace(".", "__"): ctx.int(name, lo) * scale}), "")[1]
    return make


def _flag(field: str, invert: bool = False) -> Callable[[str], Handler]:
    def make(name: str) -> Handler:
        return lambda ctx: (ctx.set(**{field.replace(".", "__"): bool(ctx.int(name)) != invert}),
                            "")[1]
    return make


def _sms(ctx: _Ctx) -> str:
    per = ctx.int("-gpgpu_n_cores_per_cluster", 1)
    ctx.set(sm__count=ctx.int("-gpgpu_n_clusters", 1) * per, sm__sms_per_cluster=per)
    return ""


def _channels(ctx: _Ctx) -> str:
    n = ctx.int("-gpgpu_n_mem", 1)
    ctx.set(dram__channels=n, l2__slices=n * ctx.int("-gpgpu_n_sub_partition_per_mchannel", 1))
    return ""


def _bus(ctx: _Ctx) -> str:
    ctx.set(dram__bus_bytes=ctx.int("-gpgpu_dram_buswidth", 1) * ctx.int("-gpgpu_n_mem_per_ctrlr", 1))
    return "chips per controller × bus width"


def _partition(ctx: _Ctx) -> str:
    v = ctx.int("-gpgpu_memory_partition_indexing")
    kinds = {0: "modulo", 2: "ipoly", 4: "random"}
    if v not in kinds:
        ctx.fail("-gpgpu_memory_partition_indexing", "allowed here: 0 (consecutive), 2 (IPOLY), "
                                                     "4 (random)")
    ctx.set(dram__partition_map=kinds[v])
    return ""


def _coalesce(ctx: _Ctx) -> str:
    sectored = ctx.int("-gpgpu_coalesce_arch") >= 40
    ctx.set(icnt__sector_requests=sectored, units__ldst_sector_cycles=int(sectored))
    return "32-byte sector requests (arch ≥ 40)" if sectored else "line requests (Fermi/Kepler)"


def _issue(ctx: _Ctx) -> str:
    ctx.set(sm__dual_issue=ctx.int("-gpgpu_max_insn_issue_per_warp", 1) >= 2)
    return "two instructions to different units" if ctx.int("-gpgpu_max_insn_issue_per_warp") >= 2 else ""


def _skip_l1(ctx: _Ctx) -> str:
    skip = bool(ctx.int("-gpgpu_gmem_skip_L1D"))
    ctx.set(l1__bypass_global_loads=skip, l1__bypass_unmerged=skip, l1__miss_after_lookup=not skip)
    return ("bypassing loads go straight to the interconnect" if skip else
            "loads and stores pass the L1's tag pipeline (l1_latency) before a miss leaves")


def _int_units(ctx: _Ctx) -> str:
    """Without an INT pipe (Pascal and older) barriers and exits go down the SP pipe with a
    latency of 1 behind the longer ALU ops (``units.sync_slot``); with one (Volta and later)
    they go to the INT pipe, which the ALU here shares with SP ops, so the slot is not kept."""
    sync = ctx.int("-gpgpu_num_int_units") == 0
    ctx.set(units__sync_slot=sync)
    return "no INT pipe: barriers and exits wait for an SP write-back slot" if sync else \
        "INT pipe: barriers and exits do not wait behind SP ops"


def _network(ctx: _Ctx) -> str:
    mode = ctx.int("-network_mode")
    if mode not in (1, 2):
        ctx.fail("-network_mode", "allowed: 1 (Booksim) or 2 (local crossbar)")
    ctx.set(icnt__fifo_inputs=True)
    if mode == 2:
        ctx.set(icnt__inject_queue=ctx.int("-icnt_in_buffer_limit", 1))
        return "local crossbar: in-order inputs, icnt_in_buffer_limit packets"
    return "Booksim: see the .icnt file's settings"


def _partition_queues(ctx: _Ctx) -> str:
    """``icnt-to-L2:L2-to-DRAM:DRAM-to-L2:L2-to-icnt`` (memory_sub_partition's four queues):
    the first bounds the slice's input (l2.input_queue); it must hold a line's 4 sector
    requests (SECTOR_CHUNCK_SIZE), or the sub-partition never takes a packet."""
    name = "-gpgpu_dram_partition_queues"
    first = ctx.ints(name, 4, ":")[0]
    if first < 4:
        ctx.fail(name, "the first queue (icnt to L2) must hold at least 4 sector requests")
    ctx.set(l2__input_queue=first)
    return ("the icnt-to-L2 queue; the other three are not modelled (the MSHRs and the DRAM "
            "channel's queue bound those paths here)")


MAPPED: dict[str, Handler] = {
    "-gpgpu_n_clusters": _sms, "-gpgpu_n_cores_per_cluster": _sms,
    "-gpgpu_clock_domains": _clocks, "-gpgpu_shader_core_pipeline": _pipeline,
    "-gpgpu_shader_cta": _n("sm.max_ctas_per_sm", 1)("-gpgpu_shader_cta"),
    "-gpgpu_shader_registers": _n("sm.regs_per_sm", 1)("-gpgpu_shader_registers"),
    "-gpgpu_num_sched_per_core": _n("sm.subcores", 1)("-gpgpu_num_sched_per_core"),
    "-gpgpu_scheduler": _scheduler, "-gpgpu_max_insn_issue_per_warp": _issue,
    "-gpgpu_num_int_units": _int_units,
    "-gpgpu_inst_fetch_throughput": _n("sm.fetch_per_cycle", 1)("-gpgpu_inst_fetch_throughput"),
    "-gpgpu_shmem_num_banks": _n("units.smem_banks", 1)("-gpgpu_shmem_num_banks"),
    "-gpgpu_smem_latency": _n("units.smem_latency", 1)("-gpgpu_smem_latency"),
    "-gpgpu_cache:dl1": _l1, "-gpgpu_l1_latency": _n("l1.hit_latency", 1)("-gpgpu_l1_latency"),
    "-gpgpu_gmem_skip_L1D": _skip_l1,
    "-gpgpu_flush_l1_cache": _flag("l1.keep_across_kernels", invert=True)("-gpgpu_flush_l1_cache"),
    "-gpgpu_cache:dl2": _l2, "-gpgpu_n_mem": _channels, "-gpgpu_n_sub_partition_per_mchannel": _channels,
    "-gpgpu_coalesce_arch": _coalesce, "-gpgpu_memory_partition_indexing": _partition,
    "-gpgpu_dram_buswidth": _bus, "-gpgpu_n_mem_per_ctrlr": _bus,
    "-gpgpu_dram_burst_length": _n("dram.burst_length", 1)("-gpgpu_dram_burst_length"),
    "-dram_data_command_freq_ratio": _n("dram.data_rate", 1)("-dram_data_command_freq_ratio"),
    "-gpgpu_frfcfs_dram_sched_queue_size": lambda ctx: _put(ctx, "", dram__queue_size=max(
        1, ctx.int("-gpgpu_frfcfs_dram_sched_queue_size"))),
    "-gpgpu_dram_scheduler": lambda ctx: _put(ctx, "", dram__scheduler=(
        "fifo", "frfcfs")[min(1, ctx.int("-gpgpu_dram_scheduler"))]),
    "-gpgpu_dram_timing_opt": _dram_timing, "-gpgpu_mem_addr_mapping": _address_map,
    "-dram_bnkgrp_indexing_policy": lambda ctx: _put(ctx, "", dram__bank_group_bits=(
        "high", "low")[min(1, ctx.int("-dram_bnkgrp_indexing_policy"))]),
    "-gpgpu_l2_rop_latency": lambda ctx: _put(
        ctx, f"ROP latency {ROP_TO_L2_HIT:+} (our L2 hit path, measured)",
        l2__hit_latency=max(1, ctx.int("-gpgpu_l2_rop_latency") + ROP_TO_L2_HIT)),
    "-dram_latency": lambda ctx: _put(
        ctx, f"DRAM latency {DRAM_TO_CONTROLLER:+} (our miss path, measured)",
        dram__controller_latency=ctx.int("-dram_latency") + DRAM_TO_CONTROLLER),
    "-gpgpu_dram_partition_queues": _partition_queues,
    "-icnt_flit_size": _n("icnt.bytes_per_cycle", 1)("-icnt_flit_size"),
    "-network_mode": _network, "-icnt_in_buffer_limit": _network,
    "-gpgpu_kernel_launch_latency": _n("kernels.launch_latency")("-gpgpu_kernel_launch_latency"),
    "-gpgpu_TB_launch_latency": _n("kernels.tb_launch_latency")("-gpgpu_TB_launch_latency"),
    "-gpgpu_max_concurrent_kernel": lambda ctx: _put(
        ctx, "at most 128 here", kernels__max_concurrent=min(
            128, ctx.int("-gpgpu_max_concurrent_kernel", 1))),
}
SHMEM = ("-gpgpu_shmem_size", "-gpgpu_shmem_sizeDefault", "-gpgpu_adaptive_cache_config",
         "-gpgpu_unified_l1d_size", "-gpgpu_shmem_option")
LATENCIES = ("-trace_opcode_latency_initiation_sp", "-trace_opcode_latency_initiation_sfu",
             "-trace_opcode_latency_initiation_dp", "-ptx_opcode_latency_int",
             "-ptx_opcode_initiation_int", "-ptx_opcode_latency_fp", "-ptx_opcode_initiation_fp",
             "-ptx_opcode_latency_dp", "-ptx_opcode_initiation_dp", "-ptx_opcode_latency_sfu",
             "-ptx_opcode_initiation_sfu")
# mapped with the model differing (the note in docs/config.md says how)
APPROXIMATED = {"-gpgpu_clock_domains", "-gpgpu_cache:dl2", "-gpgpu_dram_timing_opt",
                "-gpgpu_mem_addr_mapping", "-gpgpu_l2_rop_latency", "-dram_latency",
                "-gpgpu_max_concurrent_kernel", "-gpgpu_inst_fetch_throughput"}
