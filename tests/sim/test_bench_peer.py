"""``gpusched bench model --peer``: our whole-process CPU time on the traces Accel-Sim was timed
on, against its recorded figure; any other trace is refused."""

import pytest

from gpusched.config import ConfigError
from sim.bench_peer import RECORD, bench_peer, load_record, trace_sha256
from sim.workload.kernel import Instr, Kernel, Op, Workload
from sim.workload.tracegen import write_trace_dir

WARPS, CTAS, INSTS = 2, 4, 20


def _small_trace(folder):
    body = [Instr(Op.ALU, dst=(1 + i % 4,), src=(1 + i % 4,)) for i in range(INSTS)]
    k = Kernel("small", (CTAS, 1, 1), (32 * WARPS, 1, 1), 16, 0,
               lambda cta, warp: iter(body + [Instr(Op.EXIT)]))
    return write_trace_dir(folder, Workload("small", [k]))


def _record(trace, accelsim_cpu_s=30.0, warp_insts=CTAS * WARPS * (INSTS + 1)) -> dict:
    return {"cases": {"small": {"make_trace": "(a test trace)", "trace_sha256": trace_sha256(trace),
                                "warp_insts": warp_insts, "cycles": 100,
                                "accelsim_cpu_s": accelsim_cpu_s, "loop_10m_cpu_s": 1.0}}}


def test_the_ratio_is_accelsims_recorded_seconds_over_ours_cold_and_warm(tmp_path):
    trace = _small_trace(tmp_path / "small")
    (row,) = bench_peer(tmp_path, ["small"], repeat=2, record=_record(trace))
    assert row["warp_insts"] == CTAS * WARPS * (INSTS + 1)       # EXIT counts as an instruction
    assert len(row["warm_cpu_s_runs"]) == 2 and row["warm_cpu_s"] == min(row["warm_cpu_s_runs"])
    assert row["cold_ratio"] == pytest.approx(30.0 / row["cold_cpu_s"], abs=0.5)
    assert row["warm_ratio"] == pytest.approx(30.0 / row["warm_cpu_s"], abs=0.5)


def test_a_trace_other_than_the_recorded_one_is_refused(tmp_path):
    trace = _small_trace(tmp_path / "small")
    record = _record(trace)
    record["cases"]["small"]["trace_sha256"] = "0" * 64
    with pytest.raises(ConfigError, match="kernel-1.traceg.*SHA-256 differs"):
        bench_peer(tmp_path, ["small"], repeat=1, record=record)
    with pytest.raises(ConfigError, match="--only"):
        bench_peer(tmp_path, ["nosuch"], repeat=1, record=record)


def test_a_run_of_other_length_than_accelsims_is_refused(tmp_path):
    trace = _small_trace(tmp_path / "small")
    with pytest.raises(ConfigError, match="warp instructions simulated, Accel-Sim counted 7"):
        bench_peer(tmp_path, ["small"], repeat=1, record=_record(trace, warp_insts=7))


def test_the_record_covers_the_peer_kits_large_traces_on_titanx():
    cases = load_record(RECORD)["cases"]
    assert {"alu", "ld10", "scat"} <= set(cases)
    for case in cases.values():
        assert case["warp_insts"] >= 500_000 and case["accelsim_cpu_s"] > 0
        assert len(case["trace_sha256"]) == 64 and case["loop_10m_cpu_s"] > 0
