"""Bad input to the PTX front end ends in one line naming where and what — never a traceback,
never a silently wrong result: malformed PTX, unsupported instructions, accesses outside every
allocation or misaligned, wrong launch arguments, shared-memory overflow (exit 2), and a barrier
some threads never reach (exit 3, naming the CTA)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from ptx.errors import LaunchError, MemoryFault, PTXDeadlock, PTXError, UnsupportedError
from ptx.host import Context

FEATURES = Path(__file__).parent / "kernels" / "features.ptx"
HEAD = ".version 8.0\n.target sm_75\n.address_size 64\n"


def test_malformed_ptx_names_file_and_line():
    with pytest.raises(PTXError, match=r"^<ptx>:6: expected an operand"):
        Context(progress=False).load_ptx(HEAD + ".visible .entry k(.param .u64 a)\n{\n  add.s32 %r1, ,;\n}")


def test_unknown_instruction_is_one_line_naming_file_line_and_instruction(tmp_path):
    f = tmp_path / "k.ptx"
    f.write_text(HEAD + ".visible .entry k()\n{\n    .reg .b32 %r<3>;\n"
                 "    frobnicate.b32 %r1, %r2;\n    ret;\n}\n")
    ctx = Context(progress=False)
    m = ctx.load_ptx(f)
    with pytest.raises(UnsupportedError) as e:
        m.launch("k", grid=(1,), block=(32,))
    assert str(e.value) == (f"{f}:7: 'frobnicate.b32 %r1, %r2': not supported "
                            "(supported: see docs/ptx.md)")


def _oob_launch(ctx, n):
    m = ctx.load_ptx(FEATURES)
    a = ctx.to_device(np.arange(100, dtype=np.int32))
    out = ctx.zeros(200, np.int32)
    m.launch("reads_past", grid=(2,), block=(128,), args=(a, out, np.int32(n)))
    return a, out


def test_out_of_bounds_global_access_names_kernel_pc_thread_and_address():
    ctx = Context(progress=False)
    with pytest.raises(MemoryFault) as e:
        _oob_launch(ctx, 200)
    a = ctx.mem.find(ctx.mem.allocs[-2].start)            # the 100-int input array
    msg = str(e.value)
    assert "\n" not in msg
    assert "kernel reads_past" in msg and "PC 0x" in msg
    assert "CTA (0,0,0) thread (100,0,0)" in msg      # the first thread past the array
    assert a.size == 400
    assert f"at address {a.start + 400:#x}" in msg and "outside every allocation" in msg
    assert len(ctx.mem.data) >= ctx.mem.top           # memory was not extended


def test_in_bounds_run_of_the_same_kernel_is_fine():
    _, out = _oob_launch(Context(progress=False), 100)
    assert np.array_equal(out.get()[:100], np.arange(100))


def test_misaligned_access_is_a_fault():
    ctx = Context(progress=False)
    m = ctx.load_ptx(HEAD + """.visible .entry k(.param .u64 p)
{
    .reg .b64 %rd<3>;
    .reg .b32 %r1;
    ld.param.u64 %rd1, [p];
    add.s64 %rd2, %rd1, 2;
    ld.global.u32 %r1, [%rd2];
    ret;
}""")
    with pytest.raises(MemoryFault, match="misaligned 4-byte access"):
        m.launch("k", grid=(1,), block=(32,), args=(ctx.zeros(64, np.int32),))


def test_wrong_argument_count_and_types():
    ctx = Context(progress=False)
    m = ctx.load_ptx(FEATURES)
    a, out = ctx.zeros(4, np.int32), ctx.zeros(4, np.int32)
    with pytest.raises(LaunchError, match="2 arguments given, the kernel takes 3"):
        m.launch("reads_past", grid=(1,), block=(32,), args=(a, out))
    with pytest.raises(LaunchError, match=r"argument 2 \(reads_past_param_2, \.u32\): got float32"):
        m.launch("reads_past", grid=(1,), block=(32,), args=(a, out, np.float32(1)))
    with pytest.raises(LaunchError, match=r"argument 0 .*got int32"):
        m.launch("reads_past", grid=(1,), block=(32,), args=(np.int32(1), out, np.int32(1)))
    with pytest.raises(LaunchError, match="1025 threads"):
        m.launch("reads_past", grid=(1,), block=(1025,), args=(a, out, np.int32(1)))


def test_shared_memory_overflow():
    ctx = Context(progress=False)
    m = ctx.load_ptx(FEATURES)
    a = ctx.zeros(64, np.float32)
    with pytest.raises(LaunchError, match="shared memory exceed 49152 bytes"):
        m.launch("memory_mix", grid=(1,), block=(32,), shared=60000,
                 args=(a, a, ctx.zeros(32, np.int64), np.int32(32)))


def test_barrier_that_some_threads_never_reach_is_a_deadlock_naming_the_cta():
    ctx = Context(progress=False)
    m = ctx.load_ptx(FEATURES)
    with pytest.raises(PTXDeadlock, match=r"deadlock at barrier 0 in CTA \(0,0,0\): 16 of 32 threads"):
        m.launch("bad_barrier", grid=(3,), block=(32,), args=(ctx.zeros(32, np.int32),))


def _cli(tmp_path, body: str):
    (tmp_path / "k.ptx").write_bytes(FEATURES.read_bytes())
    host = tmp_path / "host.py"
    host.write_text("import numpy as np\nfrom pathlib import Path\n"
                    "def main(ctx, seed=0, scale=1.0):\n"
                    "    m = ctx.load_ptx(Path(__file__).with_name('k.ptx'))\n" + body)
    gpusched = str(Path(sys.executable).with_name("gpusched"))
    return subprocess.run([gpusched, "run", "--program", str(host),
                           "--preset", "tiny"], capture_output=True, text=True,
                          env={"GPUSCHED_TRACE_CACHE": str(tmp_path / "cache"), "PATH": ""})


def test_cli_exit_codes_fault_2_and_deadlock_3(tmp_path):
    r = _cli(tmp_path, "    a = ctx.zeros(10, np.int32)\n"
                       "    m.launch('reads_past', grid=(1,), block=(32,), args=(a, a, np.int32(32)))\n")
    assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
    assert "outside every allocation" in r.stderr and "Traceback" not in r.stderr
    r = _cli(tmp_path, "    m.launch('bad_barrier', grid=(1,), block=(32,), args=(ctx.zeros(32, np.int32),))\n")
    assert r.returncode == 3 and "deadlock at barrier 0 in CTA (0,0,0)" in r.stderr, r.stderr
