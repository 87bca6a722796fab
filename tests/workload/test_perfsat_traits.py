"""The Perf-Sat kernels show their [THESIS §4.3.1.2] category's trait on a quarter chip (4 SMs, 3
memory partitions: the M2090-like experiment's bandwidth per SM): MEM's performance falls past
its optimum, C-strong's keeps rising up to N_max. Steady IPC of short fixed-limit runs."""

from experiments.perfsat import QUARTER_CHIP as QUARTER
from experiments.thesis_runs import run_thesis_model, steady_of
from gpusched.experiment.point import Point


def _ipc(workload: str, limit: str, waves: int = 16) -> float:
    stats = run_thesis_model(Point("thesis", workload, 0, QUARTER,
                                   {"scale": 0.25, "waves": waves, "cta_limit": limit}))
    return steady_of(stats)


def test_mem_kernel_falls_past_its_optimum():
    """[THESIS §4.3.1.2] MEM: "Performance drops beyond N_opt" (L1D contention); the 5 KB tiles of more
    than 3 CTAs overflow the 16 KB L1 (paper_kernels.perfsat_mem)."""
    ipc = {n: _ipc("perfsat_mem", f"ctas_{n}") for n in (2, 3, 4)}
    ipc[6] = _ipc("perfsat_mem", "max_occupancy")
    peak = max(ipc, key=ipc.get)
    assert 3 <= peak <= 4
    assert ipc[6] < 0.97 * ipc[peak]


def test_c_strong_kernel_keeps_rising_to_n_max():
    """[THESIS §4.3.1.2] C-strong: "performance keeps rising with the CTA count"; optimal = N_max (6)."""
    ipc = [_ipc("perfsat_c_strong", f"ctas_{n}") for n in (2, 4, 5)]
    ipc.append(_ipc("perfsat_c_strong", "max_occupancy"))
    assert ipc[0] < ipc[1] < ipc[2] < ipc[3]
    assert ipc[1] > 1.1 * ipc[0]
