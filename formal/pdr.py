"""Unbounded proofs of a properties wrapper by property-directed reachability (IC3/PDR): Yosys
lowers the wrapper to an AIGER model (assertions as bad-state outputs, assumptions as invariant
constraints), and ABC's ``pdr`` (the ``yosys-abc`` binary shipped with pyosys) either finds an
inductive invariant that implies every assertion in every reachable state — a proof for all
depths — or a counterexample. A counterexample is replayed with the BMC engine
(:func:`formal.bmc.prove`) to the frame PDR reported, which names the failing invariant and
prints its trace.

PDR needs no helper assertions (it strengthens the invariants itself) and runs on the bit-level
model, which is why it reaches an unbounded proof where bounded model checking with a word-level
SMT solver stops at depth 12; see docs/formal.md.
"""

from __future__ import annotations

import re
import shutil
import tempfile
import time
from pathlib import Path
from typing import Optional

from cosim.build import cache_dir
from formal.bmc import ProofResult, prove as bmc_prove, run_streaming
from formal.props import PropsTop
from synth.yosys import Progress, run_yosys

AIGER_SCRIPT = """read_rtlil design.il
hierarchy -top top
proc
flatten
chformal -lower
async2sync
chformal -assume -early
setundef -undriven -anyseq
opt -fast
delete -output
techmap
opt -fast
dffunmap
abc -g AND
opt_clean
write_aiger -zinit design.aig
"""
_PROVED = "Property proved"
_CEX = re.compile(r"Output (\d+) of miter \S+ was asserted in frame (\d+)")
_INVARIANT = re.compile(r"Invariant F\[(\d+)\]")
_FRAME = re.compile(r"^\s*(\d+)\s*:", re.M)


def abc_available() -> bool:
    try:
        abc_binary()
        return True
    except RuntimeError:
        return False


def abc_binary() -> str:
    """The ``yosys-abc`` of the pyosys wheel (or one on PATH)."""
    try:
        import pyosys
        exe = Path(pyosys.__file__).parent / "yosys-abc"
        if exe.exists():
            return str(exe)
    except ImportError:
        pass
    found = shutil.which("yosys-abc")
    if not found:
        raise RuntimeError("yosys-abc not found (pip install pyosys)")
    return found


def prove_unbounded(top: PropsTop, timeout: float = 600, bmc_depth: int = 20,
                    progress: Optional[Progress] = None,
                    vcd: Optional[str] = None) -> ProofResult:
    """PDR on ``top``: ``proved`` (every depth, ``depth`` = 0 marks unbounded), ``failed`` (with
    the invariant and trace from BMC at the reported frame) or ``unknown`` (PDR ran out of
    ``timeout`` seconds). ``bmc_depth`` bounds the replay of a counterexample."""
    from amaranth.back import rtlil
    start = time.monotonic()
    with tempfile.TemporaryDirectory(dir=cache_dir("formal")) as tmp:
        work = Path(tmp)
        (work / "design.il").write_text(rtlil.convert(top, name="top"))
        run_yosys({"aiger": AIGER_SCRIPT}, work, progress, start)
        log = _abc(work, f"pdr -T {max(1, int(timeout))}", start, progress)
        if "network is combinational" in log:      # the invariants need no state at all
            log = _abc(work, "iprove", start, progress)
            if "UNSATISFIABLE" in log:
                log += _PROVED
            elif "SATISFIABLE" in log:
                log += "Output 0 of miter design was asserted in frame 0"
    seconds = time.monotonic() - start
    if _PROVED in log:
        inv = _INVARIANT.search(log)
        return ProofResult("proved", 0, seconds, top.invariant_names(), engine="pdr",
                           frames=int(inv.group(1)) if inv else None)
    cex = _CEX.search(log)
    if cex is None:
        if "Status = -1" not in log:
            raise RuntimeError(f"yosys-abc pdr gave no verdict:\n{log[-3000:]}")
        return ProofResult("unknown", 0, seconds, top.invariant_names(), engine="pdr")
    frame = int(cex.group(2))
    for depth in range(frame + 1, max(frame + 2, bmc_depth + 1)):
        res = bmc_prove(top, depth, vcd=vcd, progress=progress)
        if res.status == "failed":
            res.seconds = time.monotonic() - start
            res.engine = "pdr"
            return res
    raise RuntimeError(f"pdr reported a counterexample at frame {frame} that BMC to depth "
                       f"{max(frame + 1, bmc_depth)} did not reproduce")


def _abc(work: Path, engine: str, start: float, progress: Optional[Progress]) -> str:
    """Run ``engine`` on the folded AIG (constraints folded into the bad-state outputs)."""
    cmd = [abc_binary(), "-c", f"read_aiger design.aig; fold; strash; {engine}; print_status"]
    log, status = run_streaming(cmd, work, _FRAME.match, lambda frame: progress and progress(
        f"abc {engine.split()[0]}", time.monotonic() - start, f"frame {frame}"))
    if status != 0:
        raise RuntimeError(f"yosys-abc {engine} failed ({status}):\n{log[-3000:]}")
    return log
