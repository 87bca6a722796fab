"""GPU presets with the values the specs give ([doc]/[P]) or the public configs they cite ([ext]).

Where a spec is silent we pick a value and say so here ("choice"). Values are in core cycles
unless a field says otherwise (DRAM timing is in DRAM command-clock cycles).
"""

from __future__ import annotations

from dataclasses import replace

from .errors import ConfigError
from .schema import (DRAMConfig, GPUConfig, IcntConfig, KernelConfig, L1Config,
                     L2Config, SMConfig, UnitsConfig)
from .validate import validate

# Small and fast, for tests: 2 SMs × 2 sub-cores × 4 warps each.
TINY = GPUConfig(name="tiny")

# [SRTF] "gtx480" (GPGPU-Sim 3.2.0 GTX 480) — also the Fermi-class config [OWL] compares to.
GTX480 = GPUConfig(
    name="gtx480",
    core_clock_mhz=700.0,
    sm=SMConfig(count=15, subcores=2, warps_per_sm=48, threads_per_sm=1536, regs_per_sm=32768,
                smem_per_sm=49152, max_ctas_per_sm=8, warp_sched="lrr"),
    # 2 SP groups of 16 lanes (a warp holds its group 2 cycles), 4 SFUs, 16 LD/ST lanes [ext].
    units=UnitsConfig(alu_latency=4, alu_ii=2, sfu_latency=20, sfu_ii=8, ldst_ii=2,
                      div_latency=39, idiv_latency=145, smem_latency=24),
    l1=L1Config(size_bytes=16384, line_bytes=128, ways=4, sets=32, hit_latency=20, mshrs=32),
    # 6 partitions × 2 slices × 64 sets × 128 B × 8-way = 768 KB [doc]; ROP latency 120 [ext]
    # ≈ icnt 8 + slice 104 + icnt 8.
    l2=L2Config(slices=12, size_per_slice=65536, line_bytes=128, ways=8, sets=64,
                hit_latency=104, mshrs=32),
    icnt=IcntConfig(latency=8, bytes_per_cycle=32),
    # 6 GDDR5 channels × 2 × 32-bit chips at 924 MHz, 4 transfers/clock = 177 GB/s [ext].
    # controller_latency = GPGPU-Sim "DRAM latency 100" [ext]: unloaded closed-row miss ≈ 245.
    # -gpgpu_dram_timing_opt of GPGPU-Sim's GTX480 config [ext]: nbk=16:CCD=2:RRD=6:RCD=12:
    # RAS=28:RP=12:RC=40:CL=12:WL=4:CDLR=5:WR=12:nbkgrp=4:CCDL=3:RTPL=2; bank groups from the
    # bank index's high bits (3.x's bkgrpindex = bank / (nbk / nbkgrp)); no refresh there.
    dram=DRAMConfig(channels=6, banks=16, row_bytes=2048, clock_mhz=924.0, bus_bytes=8,
                    data_rate=4, burst_length=8, tCL=12, tRCD=12, tRP=12, tRAS=28, tRRD=6,
                    tRC=40, tCCD=2, tWL=4, tCDLR=5, tWR=12, bank_groups=4, tCCDL=3, tRTPL=2,
                    queue_size=16, channel_bit=8, bank_bit=14, row_bit=18, fixed_latency=100,
                    controller_latency=100),
    kernels=KernelConfig(max_concurrent=8),
)

# [SOCGPU] "gp102" (GTX 1080 Ti-like, Accel-Sim SASS-trace mode). What the paper's machine
# table ([SOCGPU]) gives is its own; everything else follows Accel-Sim's
# SM6_TITANX as `titanx` does [ext], so that gp102 is SM6_TITANX with the table's changes (its
# Accel-Sim counterpart, data/accelsim/configs/gp102.json; parity in docs/validation.md).
GP102 = GPUConfig(
    name="gp102",
    core_clock_mhz=1480.0,
    # a warp with an atomic in flight issues nothing until it completes (GPGPU-Sim's
    # shd_warp_t::waiting, n_atomic) [ext, SM6_TITANX]
    sm=SMConfig(count=28, subcores=4, warps_per_sm=64, threads_per_sm=2048, regs_per_sm=65536,
                smem_per_sm=98304, max_ctas_per_sm=32, warp_sched="gto", dual_issue=True,
                fetch_per_cycle=4, blocking_atomics=True),
    # Accel-Sim behaviour measured on its SM6_TITANX (docs/validation.md): a dependent op issues 5
    # cycles after the execute latency (operand_latency), the LD/ST unit sends one sector request
    # per cycle (ldst_sector_cycles), stores complete at the L2's ack, a stream's kernels in order;
    # its interconnect (config_pascal_islip.icnt): one virtual channel per input (fifo_inputs),
    # 40-byte flits, 256-flit input buffers (= 64 packets of 4 flits); L1-bypassing loads do not
    # merge in the L1 (bypass_unmerged); each written sector is acked (sector_acks).
    # FP64 8 (8) is the table's (SM6_TITANX's trace.config says 20,8); BAR and EXIT wait for a
    # write-back slot behind the ALU ops (sync_slot) as in SM6_TITANX [ext].
    units=UnitsConfig(alu_latency=4, alu_ii=1, sfu_latency=20, sfu_ii=4, fp64_latency=8, fp64_ii=8,
                      div_latency=39, idiv_latency=145, div_ii=4, ldst_shared=True, smem_latency=24,
                      operand_latency=5, ldst_sector_cycles=1, sync_slot=True),
    # 48 KB, 128 B lines, sectored, latency 82, global loads bypass L1 [ext]; SM6_TITANX's
    # geometry, -gpgpu_cache:dl1 S:4:128:96 (4 sets × 96 ways) [ext], which spreads the local
    # loads' one-stride-apart words over its ways (see titanx).
    l1=L1Config(size_bytes=49152, line_bytes=128, ways=96, sets=4, hit_latency=82, mshrs=64,
                bypass_global_loads=True, store_ack=True, bypass_unmerged=True, sector_acks=True),
    # 11 partitions × 2 slices × 128 KB, 16-way [doc/ext]; L2 hit ≈ 220 = 20 + 180 + 20 (choice).
    # SM6_TITANX's L2 [ext]: -gpgpu_cache:dl2 S:64:128:16,…,A:256:64 (256 MSHRs, 64 requests
    # merged in one) and -gpgpu_dram_partition_queues 32:32:32:32 (icnt-to-L2 queue of 32).
    l2=L2Config(slices=22, size_per_slice=131072, line_bytes=128, ways=16, sets=64,
                hit_latency=180, mshrs=256, mshr_merge=64, input_queue=32),
    # one 8-byte request packet per 32-byte sector read (-gpgpu_coalesce_arch 61) [ext, SM6_TITANX]
    icnt=IcntConfig(latency=20, bytes_per_cycle=40, inject_queue=64, fifo_inputs=True,
                    sector_requests=True),
    # GDDR5X, 11 × 32-bit channels, ≈ 484 GB/s, FR-FCFS queue 64 [ext]: SM6_TITANX's channel
    # (QDR, burst 8, 16 banks, CL/RCD/RP/RAS/RRD 16/16/16/37/8, CCD 2, RC 52, WL 6, CDLR 7, WR 16,
    # 4 bank groups on the low bits, CCDL 4, RTPL 3; the random partition map,
    # -gpgpu_memory_partition_indexing 4) [ext] at 2750 MHz: 11 × 4 B × 4 × 2750 = 484 GB/s.
    # controller_latency 146 (choice): unloaded closed-row miss ≈ 400, [SOCGPU] target.
    dram=DRAMConfig(channels=11, banks=16, row_bytes=2048, clock_mhz=2750.0, bus_bytes=4,
                    data_rate=4, burst_length=8, tCL=16, tRCD=16, tRP=16, tRAS=37, tRRD=8,
                    tRC=52, tCCD=2, tWL=6, tCDLR=7, tWR=16, bank_groups=4, bank_group_bits="low",
                    tCCDL=4, tRTPL=3, queue_size=64,
                    channel_bit=8, bank_bit=15, row_bit=19, fixed_latency=180,
                    controller_latency=146, partition_map="random"),
    kernels=KernelConfig(max_concurrent=128, stream_order=True),
)

# Accel-Sim's SM6_TITANX (GPGPU-Sim 4.x tested config + trace.config; data/accelsim/ names the
# commits): gp102's SM with the TITAN X Pascal's clock and memory system [ext], and latencies
# calibrated on Accel-Sim itself with the parity suite's one-warp probes (docs/validation.md):
# a dependent ALU/SFU op issues 9/25 cycles after its producer there (4/20 execute +
# 5 pipeline cycles: operand collector, dispatch, write-back = units.operand_latency); an L2 hit
# returns in 176 cycles and a DRAM miss in 283 (lat_l2, lat_dram), set by l2.hit_latency and
# dram.controller_latency; stores complete at the L2's ack (l1.store_ack).
TITANX = GPUConfig(
    name="titanx",
    core_clock_mhz=1417.0,
    # gp102's SM, units, L1 and interconnect are SM6_TITANX's (see gp102): a warp with an atomic
    # in flight issues nothing until it completes (shd_warp_t::waiting, n_atomic); sp/int 4,1,
    # sfu 20,4 (trace_opcode_latency_initiation) and a dependent op 5 cycles later (operand
    # collector, dispatch, write-back: lat_alu/lat_sfu probes); BAR and EXIT go down the SP pipe
    # with latency 1 and wait for a write-back slot behind the 4-cycle ALU ops (no INT pipe on
    # Pascal; GPGPU-Sim's `occupied` reservation); the L1 in -gpgpu_cache:dl1 S:4:128:96 (4 sets
    # × 96 ways of 128 B = 48 KB), which holds what bypass_global_loads lets in, the local loads,
    # whose per-thread words lie one all-threads stride apart (sim/memory/local_map.py) and would
    # crowd a few sets of a 64-set cache; icnt_flit_size 40, num_vcs 1, input_buffer_size 256
    # flits; one 8-byte request packet per 32-byte sector read: -gpgpu_coalesce_arch 61 makes
    # every access one sector (abstract_hardware_model.cc memory_coalescing_arch) [ext].
    sm=GP102.sm,
    # FP64 dp 20,8 [ext] (gp102 keeps its paper's 8)
    units=replace(GP102.units, fp64_latency=20),
    l1=GP102.l1,
    # 12 channels × 2 sub-partitions, 64 sets × 128 B × 16 ways = 128 KB each [ext]; 64 L2 MSHRs
    # (gp102 takes SM6_TITANX's 256); its icnt-to-L2 queue holds 32 sector requests:
    # -gpgpu_dram_partition_queues 32:32:32:32 [ext]
    l2=replace(GP102.l2, slices=24, hit_latency=97, mshrs=64),
    icnt=GP102.icnt,
    # GDDR5X: 12 × 32-bit channels, 2500 MHz command clock, QDR, burst 8, 16 banks,
    # CL/RCD/RP/RAS/RRD = 16/16/16/37/8, FR-FCFS queue 64 [ext] = 480 GB/s; CCD 2, RC 52,
    # WL 6, CDLR 7, WR 16, 4 bank groups on the bank index's low bits, CCDL 4, RTPL 3 [ext]. Each
    # 128-byte line on a pseudo-random sub-partition: -gpgpu_memory_partition_indexing 4 [ext].
    dram=replace(GP102.dram, channels=12, clock_mhz=2500.0, controller_latency=102),
    # Accel-Sim starts a kernel only when its CUDA stream is idle (accel-sim.cc busy_streams)
    kernels=GP102.kernels,
)

# Accel-Sim's SM7_QV100 (Quadro GV100, Volta; gpgpu-sim configs/tested-cfgs/SM7_QV100 +
# Accel-Sim's trace.config; data/accelsim/configs/SM7_QV100.json records the options) as
# `gpusched config import` maps it (docs/config.md), with kernel launch latency 0 as the parity
# runs use: 80 SMs at 1132 MHz, 4 LRR sub-cores without dual issue, SP 2/2 (latency/initiation),
# SFU 20/8, DP 8/4; a 128 KB unified L1/shared (adaptive carve-outs, 4 sets, sectored, 20 cycles,
# global loads cached, misses after the tag pipeline); 64 L2 sub-partitions of 96 KB (24-way,
# ROP 160 → hit 137, at most 4 requests per sector's MSHR, an input queue of 64), IPOLY partition indexing; 32 HBM
# channels at 850 MHz, 16 B × 2 per clock, burst 2, CL/RCD/RP/RAS/RRD 12/12/12/28/3, CCD 1, RC 40,
# WL 2, CDLR 3, WR 10, 4 bank groups on the low bits, CCDL 2, RTPL 3 (its dual command bus,
# -dram_dual_bus_interface 1, is not modelled: one row and one column command per cycle from one
# scan); the local crossbar's 512-packet inputs.
QV100 = GPUConfig(
    name="qv100",
    core_clock_mhz=1132.0,
    sm=SMConfig(count=80, subcores=4, warps_per_sm=64, threads_per_sm=2048, regs_per_sm=65536,
                smem_per_sm=98304, max_ctas_per_sm=32, warp_sched="lrr", dual_issue=False,
                fetch_per_cycle=4, blocking_atomics=True),
    units=UnitsConfig(alu_latency=2, alu_ii=2, sfu_latency=20, sfu_ii=8, fp64_latency=8, fp64_ii=4,
                      div_latency=39, idiv_latency=145, div_ii=4, ldst_shared=True, smem_latency=20,
                      operand_latency=5, ldst_sector_cycles=1),
    l1=L1Config(size_bytes=131072, line_bytes=128, ways=256, sets=4, hit_latency=20, mshrs=512,
                carveouts="0,8,16,32,64,96", miss_after_lookup=True, store_ack=True,
                sector_acks=True),
    l2=L2Config(slices=64, size_per_slice=98304, line_bytes=128, ways=24, sets=32,
                hit_latency=137, mshrs=192, mshr_merge=4, input_queue=64),
    icnt=IcntConfig(latency=20, bytes_per_cycle=40, inject_queue=512, fifo_inputs=True,
                    sector_requests=True),
    dram=DRAMConfig(channels=32, banks=16, row_bytes=2048, clock_mhz=850.0, bus_bytes=16,
                    data_rate=2, burst_length=2, tCL=12, tRCD=12, tRP=12, tRAS=28, tRRD=3,
                    tRC=40, tCCD=1, tWL=2, tCDLR=3, tWR=10, bank_groups=4, bank_group_bits="low",
                    tCCDL=2, tRTPL=3, queue_size=64, channel_bit=8, bank_bit=16, row_bit=20, fixed_latency=100,
                    controller_latency=102, partition_map="ipoly"),
    kernels=KernelConfig(max_concurrent=128, stream_order=True),
)

# [IKRA] "ikra_15cu": 15 CUs at 700 MHz, 128 KB L1 (hit 1), 4 MB L2 in 16 banks, 64 B lines.
IKRA_15CU = GPUConfig(
    name="ikra_15cu",
    core_clock_mhz=700.0,
    # 32 K registers and 16 KB scratchpad per CU [derived]; 2 schedulers (choice).
    sm=SMConfig(count=15, subcores=2, warps_per_sm=48, threads_per_sm=1536, regs_per_sm=32768,
                smem_per_sm=16384, max_ctas_per_sm=8, warp_sched="gto"),
    units=UnitsConfig(),
    # L1 128 KB 8-way, hit 1, write-back [doc]; coherence=denovo (default): owned (dirty) data
    # and declared read-only regions survive a launch, other clean data self-invalidates [doc/choice].
    l1=L1Config(size_bytes=131072, line_bytes=64, ways=8, sets=256, hit_latency=1, mshrs=64,
                write_policy="write_back", keep_across_kernels=True, self_invalidate=True),
    # L2 hit 29–61 and memory 197–261 come from mesh hops ([IKRA]). Each icnt leg (8) stands
    # for ≈ 3 hops × 8/3; slice latency 25 (choice) makes the unloaded L2 hit 8 + 25 + 12 = 45,
    # the middle of 29–61.
    l2=L2Config(slices=16, size_per_slice=262144, line_bytes=64, ways=16, sets=256,
                hit_latency=25, mshrs=64),
    icnt=IcntConfig(latency=8, bytes_per_cycle=16),
    # 4 memory controllers, 16 B per GPU cycle each (choice per [IKRA]). controller_latency
    # 156 (choice): unloaded closed-row miss = 229 = 197 + 4 legs × 8, the middle of 197–261.
    dram=DRAMConfig(channels=4, banks=8, row_bytes=2048, clock_mhz=700.0, bus_bytes=8, data_rate=2,
                    burst_length=8, channel_bit=6, bank_bit=13, row_bit=16, fixed_latency=197,
                    controller_latency=156),
    kernels=KernelConfig(max_concurrent=1),
)

# [THESIS Table 4.3] (the ONAC platform): 32 Fermi-class cores at 1300 MHz, 12 partitions.
THESIS = GPUConfig(
    name="thesis",
    core_clock_mhz=1300.0,
    # 2 GTO schedulers, each dispatching one warp instruction every 2 cycles [P, Table 3.1].
    sm=SMConfig(count=32, subcores=2, warps_per_sm=48, threads_per_sm=1536, regs_per_sm=32768,
                smem_per_sm=49152, max_ctas_per_sm=8, warp_sched="gto", issue_interval=2),
    # 32 ALUs, 4 SFUs, 16 LD/ST per core [P]; latencies from GPGPU-Sim Fermi [X].
    units=UnitsConfig(alu_latency=4, alu_ii=1, sfu_latency=20, sfu_ii=8, ldst_ii=2,
                      div_latency=39, idiv_latency=145, smem_latency=24),
    l1=L1Config(size_bytes=16384, line_bytes=128, ways=4, sets=32, hit_latency=20, mshrs=32),
    l2=L2Config(slices=12, size_per_slice=65536, line_bytes=128, ways=8, sets=64,
                hit_latency=104, mshrs=32),
    icnt=IcntConfig(latency=8, bytes_per_cycle=32),
    # 12 partitions × 32-bit × 2 × 1848 MHz = 177.4 GB/s, 6 banks per partition [P];
    # controller_latency 100 = GPGPU-Sim 3.x Fermi "DRAM latency" [X] ([THESIS Table 3.1]); the
    # timing of GPGPU-Sim 3.x's Fermi configs (GTX480, TeslaC2050) [X] in command cycles as the
    # fields above take them, without bank groups (6 banks do not split into its 4: choice).
    dram=DRAMConfig(channels=12, banks=6, row_bytes=2048, clock_mhz=1848.0, bus_bytes=4,
                    data_rate=2, burst_length=8, tCL=12, tRCD=12, tRP=12, tRAS=28, tRRD=6,
                    tRC=40, tCCD=2, tWL=4, tCDLR=5, tWR=12, queue_size=16,
                    channel_bit=8, bank_bit=15, row_bit=18, fixed_latency=100,
                    controller_latency=100),
    kernels=KernelConfig(max_concurrent=16),
)

# [OWL Table 1] "owl": GPGPU-Sim 2.1.2b, 28 cores at 1300 MHz, 8 MCs × 4 banks, GDDR3.
OWL = GPUConfig(
    name="owl",
    core_clock_mhz=1300.0,
    # 1024 threads = 32 warps, 32 KB smem, 32 K regs (Table 1's "32684" read as 32768) [P/S];
    # 8 CTA slots (ours, [OWL §2.1] gives none); SIMT width 8: one warp every 4 cycles ([OWL §2.1]);
    # one scheduler per core, RR baseline [P].
    sm=SMConfig(count=28, subcores=1, warps_per_sm=32, threads_per_sm=1024, regs_per_sm=32768,
                smem_per_sm=32768, max_ctas_per_sm=8, warp_sched="lrr", issue_interval=4),
    # a warp holds an 8-lane unit 4 cycles (ii 4); latencies: 5-stage pipeline (choice)
    units=UnitsConfig(alu_latency=5, alu_ii=4, sfu_latency=20, sfu_ii=16, ldst_ii=4,
                      div_latency=39, idiv_latency=145, smem_latency=5),
    # 32 KB, 8-way, 64 B lines (64 sets), write-back, 32 MSHRs [P]; hit = one pipeline stage of a
    # warp, 4 core cycles (our choice where [OWL Table 1] is silent: "about 1 pipeline stage")
    l1=L1Config(size_bytes=32768, line_bytes=64, ways=8, sets=64, hit_latency=4, mshrs=32,
                write_policy="write_back"),
    # 512 KB per MC, 16-way, 64 B lines (512 sets), one slice per MC [P]; 20-cycle access (A10)
    l2=L2Config(slices=8, size_per_slice=524288, line_bytes=64, ways=16, sets=512,
                hit_latency=20, mshrs=64),
    # 32 B channels at 650 MHz = 16 B per core cycle [P/D]; 6x6 mesh ≈ 4 hops × 2 icnt cycles
    # = 16 core cycles one way (A9 choice)
    icnt=IcntConfig(latency=16, bytes_per_cycle=16),
    # 8 MCs × 4 banks, 2 KB rows, FR-FCFS, 128 requests per MC, GDDR3 800 MHz with tCL 10,
    # tRP 10, tRAS 25, tRCD 12, tRRD 8 [P]; 16 B per DRAM clock (8 B DDR), 64 B = one burst of
    # 8 (A7); row-contiguous map: column [10:6], channel [13:11], bank [15:14], row [..16] (A6).
    # tRC 35, tCDLR 6, tWR 11 [P]; tCCD 2 and WL 7 from GPGPU-Sim 2.x's GDDR3 config
    # (QuadroFX5800: nbk=8:CCD=2:RRD=8:RCD=12:RAS=25:RP=10:RC=35:CL=10:WL=7:CDLR=6:WR=11, the
    # Table 1 values) [X]; no bank groups and no refresh there.
    # controller_latency 22 (choice): unloaded closed-row miss = 16 + 20 + 22 + 26 DRAM cycles
    # (42.25) + 4 + 16 ≈ 120 core cycles, the paper's minimum L2 miss latency ([OWL Table 1]).
    dram=DRAMConfig(channels=8, banks=4, row_bytes=2048, clock_mhz=800.0, bus_bytes=8,
                    data_rate=2, burst_length=8, tCL=10, tRCD=12, tRP=10, tRAS=25, tRRD=8,
                    tRC=35, tCCD=2, tWL=7, tCDLR=6, tWR=11, queue_size=128, channel_bit=11, bank_bit=14, row_bit=16,
                    fixed_latency=120, controller_latency=22),
    kernels=KernelConfig(max_concurrent=1),         # kernels run one after another ([OWL §2.1])
)

# [THESIS Table 3.1] (the ch.3 "Tesla M2090"): the ONAC platform's Fermi core with 16
# cores and a 1850 MHz DRAM clock (12 × 32-bit × 2 × 1850 MHz = 177.6 GB/s [P: 177]); 2
# schedulers per core dispatching every 2 cycles, 48 warps, 8 CTAs per core [P]. The ready-queue
# size (6, Table 3.1) is the two-level schedulers' N (``tlrr``/``tlgto``/``tlphase`` default).
THESIS_CH3 = replace(THESIS, name="thesis_ch3", sm=replace(THESIS.sm, count=16),
                     dram=replace(THESIS.dram, clock_mhz=1850.0))

# [THESIS Table 5.1] (ch.5, concurrent kernels): the ch.3 machine (thesis_ch3) plus 16
# LD/ST units per core: one LD/ST unit shared by the SM, a warp instruction every 2 cycles (the
# ch.3 preset has one per scheduler). A 16-row KSB (Fermi's concurrent-kernel limit, our choice)
# with kernels sharing SMs (the ck_* kernel schedulers). The Table 5.2 warp policy is not stated:
# gto as thesis_ch3. Fig 5.3's 64 warps per core (8 CTAs × 8 warps) exceed Table 5.1's 48 (an
# inconsistency in [THESIS]): --set sm.warps_per_sm=64 --set sm.threads_per_sm=2048.
THESIS_CH5 = replace(THESIS_CH3, name="thesis_ch5",
                     units=replace(THESIS_CH3.units, ldst_shared=True, ldst_ii=2),
                     kernels=replace(THESIS_CH3.kernels, max_concurrent=16, concurrent_sm=True))

PRESETS: dict[str, GPUConfig] = {c.name: c for c in (TINY, GTX480, GP102, TITANX, QV100, IKRA_15CU,
                                                      THESIS, OWL, THESIS_CH3, THESIS_CH5)}


def get_preset(name: str) -> GPUConfig:
    """Validated preset by name; unknown names raise ConfigError listing the known ones."""
    if name not in PRESETS:
        raise ConfigError("preset", name, "known presets: " + ", ".join(PRESETS)
                          + "; or give a path to a .toml config file")
    return validate(PRESETS[name])


def preset_names() -> list[str]:
    return list(PRESETS)



