"""The compiled-trace cache: compiled once per content, reused, bounded memory while compiling."""

from __future__ import annotations

import shutil
from dataclasses import replace
import subprocess
import sys

import sim.workload.trace_store as trace_store
from sim.workload.accelsim import read_trace_dir
from sim.workload.kernel import Instr, Op, Workload
from sim.workload.synthetic import build_kernel
from sim.workload.trace_compile import TraceCompiler
from sim.workload.tracegen import write_trace_dir

from .helpers import key
from .test_synthetic import rich_spec


def count_compiles(monkeypatch) -> list:
    calls = []
    real = TraceCompiler.run

    def run(self):
        calls.append(self.path)
        return real(self)
    monkeypatch.setattr(TraceCompiler, "run", run)
    return calls


def test_compiled_once_then_reused_by_content(tmp_path, monkeypatch, trace_cache):
    calls = count_compiles(monkeypatch)
    k = build_kernel(rich_spec(), seed=3)
    d = write_trace_dir(tmp_path / "a", [k])
    first = [key(i) for i in read_trace_dir(d).kernels[0].stream(2, 1)]
    read_trace_dir(d)
    assert len(calls) == 1
    shutil.copytree(d, tmp_path / "b")                       # same content elsewhere: same entry
    assert [key(i) for i in read_trace_dir(tmp_path / "b").kernels[0].stream(2, 1)] == first
    assert len(calls) == 1
    entries = [p for p in trace_cache.iterdir() if p.name != "digests"]
    assert len(entries) == 1
    f = tmp_path / "b" / "kernel-1.traceg"                   # changed content: compiled again
    f.write_text(f.read_text().replace("-nregs = ", "-nregs = 1"))
    assert read_trace_dir(tmp_path / "b").kernels[0].regs_per_thread != k.regs_per_thread
    assert len(calls) == 2


def test_unchanged_file_is_not_rehashed(tmp_path, monkeypatch, trace_cache):
    d = write_trace_dir(tmp_path, [build_kernel(rich_spec(), seed=3)])
    read_trace_dir(d)
    hashed = []
    real_open = open

    def spy(path, *a, **kw):
        if str(path).endswith(".traceg"):
            hashed.append(path)
        return real_open(path, *a, **kw)
    monkeypatch.setattr("builtins.open", spy)
    read_trace_dir(d)
    assert hashed == []


def write_long_warp(path, n: int) -> None:
    """One warp of ``n`` instructions, every other one a strided load."""
    with open(path, "w") as f:
        f.write("-grid dim = (1,1,1)\n-block dim = (32,1,1)\n#BEGIN_TB\nthread block = 0,0,0\n"
                f"warp = 0\ninsts = {n}\n")
        for i in range(n - 1):
            f.write(f"{16 * (i % 64):04x} ffffffff 1 R2 LDG.E 1 R4 4 1 0x{i * 4096:016x} 4\n" if i % 2
                    else f"{16 * (i % 64):04x} ffffffff 1 R2 FFMA 2 R2 R3 0\n")
        f.write(f"{16 * 64:04x} ffffffff 0 EXIT 0 0\n#END_TB\n")


COMPILE_AND_REPORT = ("import sys; from pathlib import Path; from sim.bench import peak_rss_mb; "
                      "from sim.workload.trace_compile import TraceCompiler; "
                      "TraceCompiler(Path(sys.argv[1]), Path(sys.argv[2])).run(); print(peak_rss_mb())")


def test_compile_memory_does_not_grow_with_the_trace(tmp_path):
    peaks = []
    for n in (10_000, 200_000):
        write_long_warp(tmp_path / f"k{n}.traceg", n)
        out = subprocess.run([sys.executable, "-c", COMPILE_AND_REPORT, str(tmp_path / f"k{n}.traceg"),
                              str(tmp_path / f"out{n}")], capture_output=True, text=True, check=True)
        peaks.append(float(out.stdout))
    size = (tmp_path / "k200000.traceg").stat().st_size / 2**20
    assert size > 7 and peaks[1] - peaks[0] < 2, (size, peaks)   # 20× the trace, same peak RSS


def test_streams_share_static_instructions(tmp_path):
    k = build_kernel(rich_spec(), seed=5)
    t = read_trace_dir(write_trace_dir(tmp_path, [k])).kernels[0]
    a = [i for i in t.stream(0, 0) if i.addrs is None]
    b = [i for i in t.stream(1, 0) if i.addrs is None]
    assert len({id(i) for i in a + b}) < len(a + b) / 2      # one object per static + mask
    assert trace_store.SHARED_LIMIT >= 1 << 10


def test_a_trace_run_equals_the_run_of_the_kernel_it_was_written_from(tmp_path):
    from gpusched.config import get_preset
    from sim.run import simulate
    k = build_kernel(rich_spec(grid=(6, 4)), seed=9)

    def as_written(cta, warp):                 # a trace has no divide op: it reads back as SFU
        for i in k.stream(cta, warp):
            yield Instr(Op.SFU, i.dst, i.src, i.addrs, i.size, i.mask, i.pc, i.next_pc) if i.op == Op.DIV else i
    direct = simulate(get_preset("tiny"), Workload("w", [replace(k, stream=as_written)]), memory="hierarchy")
    traced = simulate(get_preset("tiny"), read_trace_dir(write_trace_dir(tmp_path, [k])), memory="hierarchy")
    assert traced["warp_insts"] == direct["warp_insts"] > 0
    assert (traced["cycles"], traced["memory"], traced["issue"]) == (direct["cycles"], direct["memory"], direct["issue"])


def test_bench_has_a_trace_entry(tmp_path, monkeypatch):
    import sim.bench as bench
    assert "trace" in bench.REFERENCES
    small = Workload("mixed", [build_kernel(rich_spec(grid=(2, 2)), seed=1)])
    monkeypatch.setattr(bench, "reference", lambda name: small)
    wl, compile_s = bench.trace_reference(tmp_path)
    k = small.kernels[0]
    assert compile_s > 0 and wl.meta["warp_insts"] == sum(
        len(list(k.stream(c, w))) for c in range(k.n_ctas) for w in range(k.warps_per_cta()))
    assert [p.name for p in (tmp_path / "cache").iterdir() if p.name != "stat"] != []
