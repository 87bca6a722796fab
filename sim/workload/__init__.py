"""Workloads: kernels with lazily generated per-warp instruction streams."""

from .kernel import Instr, Kernel, Op, Workload

__all__ = ["Instr", "Kernel", "Op", "Workload"]
