"""GPGPU-Sim 4.x / Accel-Sim options the import does not map, with the reason (docs/config.md),
and ``known_option``: every option name GPGPU-Sim 4.x (gpgpu-sim_distribution@667834cf) and
Accel-Sim's trace-driven front end (accel-sim-framework@73f9fac6) register."""

from __future__ import annotations

import re

_REASONS: dict[str, str] = {
    "PTX mode only (trace mode takes the -trace_opcode_latency_initiation_* latencies)":
        "-gpgpu_ptx_sim_mode -gpgpu_ptx_force_max_capability -gpgpu_ptx_convert_to_ptxplus "
        "-gpgpu_ptx_save_converted_ptxplus -gpgpu_ptx_instruction_classification "
        "-gpgpu_ptx_use_cuobjdump -gpgpu_ptx_inst_debug_file -gpgpu_ptx_inst_debug_thread_uid "
        "-gpgpu_ptx_inst_debug_to_file -ptx_opcode_latency_tesnor -ptx_opcode_initiation_tensor "
        "-gpgpu_experimental_lib_support -save_embedded_ptx -keep "
        "-gpgpu_cdp_enabled -cdp_latency -gpgpu_runtime_pending_launch_count_limit "
        "-gpgpu_runtime_sync_depth_limit -gpgpu_stack_size_limit -gpgpu_heap_size_limit "
        "-gpgpu_compute_capability_major -gpgpu_compute_capability_minor -coption",
    "local memory is always placed as with GPGPU-Sim's default, 1 (by CTA slot and SM; "
    "sim/memory/local_map.py)":
        "-gpgpu_local_mem_map",
    "statistics, tracing, checkpoints and output only":
        "-gpgpu_memlatency_stat -gpgpu_runtime_stat -enable_ptx_file_line_stats "
        "-ptx_line_stats_filename -visualizer_enabled -visualizer_outputfile -visualizer_zlevel "
        "-gpgpu_cflog_interval -gpgpu_warpdistro_shader -gpgpu_warp_issue_shader -icnt_verbose "
        "-trace -trace_enabled -trace_components -trace_sampling_core "
        "-trace_sampling_memory_partition -liveness_message_freq -gpgpu_deadlock_detect "
        "-gpgpu_max_cycle -gpgpu_max_insn -gpgpu_max_cta -gpgpu_max_completed_cta "
        "-checkpoint_option -checkpoint_kernel -checkpoint_CTA -checkpoint_CTA_t "
        "-checkpoint_insn_Y -resume_option -resume_kernel -resume_CTA -hw_perf_file_name "
        "-hw_perf_bench_name -gpgpu_mem_addr_test",
    "power model (AccelWattch / GPUWattch); energy comes from the energy section":
        "-power_simulation_enabled -power_simulation_mode -power_per_cycle_dump "
        "-power_trace_enabled -power_trace_zlevel -steady_power_levels_enabled "
        "-steady_state_definition -aggregate_power_stats -dvfs_enabled -gpuwattch_xml_file "
        "-accelwattch_xml_file -gpgpu_clock_gated_lanes -gpgpu_clock_gated_reg_file "
        "-n_regfile_gating_group",
    "the instruction, constant and texture caches: instruction fetch and constants always hit "
    "here, texture is not modelled":
        "-gpgpu_cache:il1 -gpgpu_const_cache:l1 -gpgpu_tex_cache:l1 -gpgpu_perfect_inst_const_cache "
        "-gpgpu_cache:dl2_texture_only",
    "operand collectors and register-file banks: their effect is the read-operands stage "
    "(units.operand_latency); collector count barely moves Accel-Sim (docs/validation.md)":
        "-gpgpu_num_reg_banks -gpgpu_reg_file_port_throughput -gpgpu_reg_bank_use_warp_id "
        "-gpgpu_enable_specialized_operand_collector",
    "unit counts and pipeline widths: one SP/ALU, SFU, FP64 unit per sub-core and one LD/ST "
    "unit per SM here (the SP, INT and ALU pipes of Volta and later share the ALU)":
        "-gpgpu_num_sp_units -gpgpu_num_sfu_units -gpgpu_num_dp_units "
        "-gpgpu_num_tensor_core_units -gpgpu_num_mem_units -gpgpu_pipeline_widths "
        "-gpgpu_tensor_core_avail -gpgpu_sub_core_model -gpgpu_simd_model "
        "-gpgpu_dual_issue_diff_exec_units -gpgpu_mem_unit_ports "
        "-trace_opcode_latency_initiation_int -trace_opcode_latency_initiation_tensor",
    "per-block limits and the occupancy report: a kernel that fits the SM's limits fits":
        "-gpgpu_registers_per_block -gpgpu_shmem_per_block -gpgpu_occupancy_sm_number "
        "-gpgpu_ignore_resources_limitation -gpgpu_num_cta_barriers -gpgpu_concurrent_kernel_sm "
        "-gpgpu_simt_core_sim_order",
    "cudaFuncCachePreference variants: a trace does not carry the preference":
        "-gpgpu_cache:dl1PrefL1 -gpgpu_cache:dl1PrefShared -gpgpu_shmem_size_PrefL1 "
        "-gpgpu_shmem_size_PrefShared",
    "shared-memory bank details beyond the bank count (conflicts: units.smem_banks)":
        "-gpgpu_shmem_limited_broadcast -gpgpu_shmem_warp_parts",
    "L1 banking and its write ratio: the L1 takes one access per cycle here":
        "-gpgpu_l1_banks -gpgpu_l1_banks_byte_interleaving -gpgpu_l1_banks_hashing_function "
        "-gpgpu_l1_cache_write_ratio",
    "memory-system queues and modes not modelled (the L2 MSHRs and the DRAM queue bound the "
    "requests in flight here)":
        "-gpgpu_dram_return_queue_size -dram_seperate_write_queue_enable "
        "-dram_write_queue_size -dram_elimnate_rw_turnaround -dram_dual_bus_interface "
        "-dram_bnk_indexing_policy -gpgpu_mem_address_mask "
        "-gpgpu_simple_dram_model -gpgpu_n_cluster_ejection_buffer_size "
        "-gpgpu_n_ldst_response_buffer_size -icnt_out_buffer_limit -icnt_subnets "
        "-icnt_arbiter_algo -icnt_grant_cycles",
    "MemcpyHtoD fills the L2 there with 32-bit truncated addresses "
    "(gpgpu_sim::perf_memcpy_to_gpu): no effect on traces above 4 GB; not modelled":
        "-gpgpu_perf_sim_memcpy",
    "flushes and ideal modes: the L2 keeps its contents across kernels here":
        "-gpgpu_flush_l2_cache -gpgpu_perfect_mem -l2_ideal",
    "the trace list: given to gpusched run --trace instead": "-trace",
}
IGNORED_REASON = {name: reason for reason, names in _REASONS.items() for name in names.split()}
# the options the import maps (gpgpusim_import): GPGPU-Sim knows them too
MAPPED_NAMES = frozenset((
    "-gpgpu_n_clusters -gpgpu_n_cores_per_cluster -gpgpu_clock_domains -gpgpu_shader_core_pipeline "
    "-gpgpu_num_int_units "
    "-gpgpu_shader_cta -gpgpu_shader_registers -gpgpu_num_sched_per_core -gpgpu_scheduler "
    "-gpgpu_max_insn_issue_per_warp -gpgpu_inst_fetch_throughput -gpgpu_shmem_num_banks "
    "-gpgpu_smem_latency -gpgpu_cache:dl1 -gpgpu_l1_latency -gpgpu_gmem_skip_L1D "
    "-gpgpu_flush_l1_cache -gpgpu_cache:dl2 -gpgpu_n_mem -gpgpu_n_sub_partition_per_mchannel "
    "-gpgpu_coalesce_arch -gpgpu_memory_partition_indexing -gpgpu_dram_buswidth "
    "-gpgpu_n_mem_per_ctrlr -gpgpu_dram_burst_length -dram_data_command_freq_ratio "
    "-gpgpu_frfcfs_dram_sched_queue_size -gpgpu_dram_scheduler -gpgpu_dram_timing_opt "
    "-gpgpu_mem_addr_mapping -dram_bnkgrp_indexing_policy -gpgpu_l2_rop_latency -dram_latency "
    "-icnt_flit_size -network_mode -gpgpu_dram_partition_queues "
    "-icnt_in_buffer_limit -gpgpu_kernel_launch_latency -gpgpu_TB_launch_latency "
    "-gpgpu_max_concurrent_kernel -gpgpu_shmem_size -gpgpu_shmem_sizeDefault "
    "-gpgpu_adaptive_cache_config -gpgpu_unified_l1d_size -gpgpu_shmem_option "
    "-trace_opcode_latency_initiation_sp -trace_opcode_latency_initiation_sfu "
    "-trace_opcode_latency_initiation_dp -ptx_opcode_latency_int -ptx_opcode_initiation_int "
    "-ptx_opcode_latency_fp -ptx_opcode_initiation_fp -ptx_opcode_latency_dp "
    "-ptx_opcode_initiation_dp -ptx_opcode_latency_sfu -ptx_opcode_initiation_sfu "
    "-inter_config_file").split())
# options registered in loops or per unit kind
_PATTERNS = {
    r"-specialized_unit_\d+|-trace_opcode_latency_initiation_spec_op_\d+":
        "specialized units (Volta's branch unit, texture, tensor, uniform datapath): branches "
        "run on the ALU here, texture and tensor ops are warned about",
    r"-gpgpu_operand_collector_num_(units|in_ports|out_ports)_\w+":
        "operand collectors: their effect is the read-operands stage (units.operand_latency)",
    r"-accelwattch_\w+": "power model (AccelWattch)",
}


def known_option(name: str) -> bool:
    """Whether GPGPU-Sim 4.x / Accel-Sim registers option ``name``."""
    return (name in MAPPED_NAMES or name in IGNORED_REASON
            or any(re.fullmatch(p, name) for p in _PATTERNS))


def ignored_reason(name: str) -> str:
    """Why an option is not mapped."""
    if name in IGNORED_REASON:
        return IGNORED_REASON[name]
    for pattern, reason in _PATTERNS.items():
        if re.fullmatch(pattern, name):
            return reason
    return "not mapped"
