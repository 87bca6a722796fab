"""``gpusched verify``: the registry of long checks that stay out of the default test suite.

Each check is a named function returning True on success; ``gpusched verify`` runs them all (or
those named), prints a line each and exits 1 if any failed. Today: the formal proofs of every
block (unbounded by PDR; BMC to the block's depth where PDR times out) and each block's mutant
caught, and random lockstep soaks of
the warp schedulers (100 000 cycles per configuration under Verilator, twin as scoreboard), and
the long slices of the input fuzzing suite (tests/reliability/test_fuzz.py: inputs, cache files,
output paths) and of the fault-injection suite (tests/reliability/test_faults.py: signals at random
phases, injected filesystem errors), 400 random cases per property or ``$GPUSCHED_FUZZ_EXAMPLES``.
"""

from __future__ import annotations

from typing import Callable, List, Optional

import typer

from gpusched.config import ConfigError


# (block, parameters) soaked in lockstep: every warp-scheduler policy, two-level at three sizes
SOAKS = [("warp_sched", {"policy": p, "W": 32}) for p in ("lrr", "gto", "old")] + \
    [("warp_sched", {"policy": "two_level", "W": w, "N": n}) for w, n in ((8, 4), (16, 6), (32, 8))]
SOAKS += [("warp_sched", {"policy": p, "W": 32}) for p in
          ("owl_cta", "owl_locality", "owl_blp", "tl_narasiman")]     # OWL (hdl/params/owl.py)
SOAKS += [("warp_sched", {"policy": p, "W": 32}) for p in
          ("owl_locality_rot", "owl_blp_rot")]     # rotating head, [OWL §4.2, Fig. 4B]
SOAKS += [("warp_sched", {"policy": "phase", "W": 24})] + \
    [("warp_sched", {"policy": p, "W": 24, "N": 6}) for p in ("tlrr", "tlgto", "tlphase")]
SOAKS += [("warp_sched", {"policy": "tlphase_rr", "W": 24, "N": 6})]
# other blocks' soaks (SOAKS stays the warp-scheduler set its test expects)
# OWL's prefetch engine: both stop schemes at the paper's size, and a small odd-sized one
BLOCK_SOAKS = [("owl_prefetch", {"SCHEME": s}) for s in ("a", "b")] + \
    [("owl_prefetch", {"BANKS": 3, "LINES": 8, "LOWER": 2, "HIGHER": 5})]
# the concurrent-kernel dispatcher's three policies ([THESIS §5.4])
CK_SOAKS = [("ck_dispatch", {"policy": p, "K": 4, "NC": 4, "BW": 8, "MW": 3})
            for p in ("baseline", "sequential", "interleaved")]
# SRTF (our test plan for [SRTF]): the controller's four RTL policies at K = 4, NSM = 2 (MPMax with
# 8-bit footprints and small limits, so caps of 1 and reservations occur) and at the defaults, and
# the predictor at its defaults
SRTF_SOAKS = [("kernel_sched", {"policy": p, "K": 4, "NSM": 2, "CW": 10, "BW": 10, "RW": 3})
              for p in ("fifo", "srtf", "srtf_zero")] + \
    [("kernel_sched", {"policy": "mpmax", "K": 4, "NSM": 2, "CW": 10, "BW": 10, "RW": 3, "FW": 8,
                       "LIMITS": "96,255,200,8,12"}),
     ("kernel_sched", {"policy": "srtf"}), ("srtf_pred", {"K": 8})]
SOAK_CYCLES = 100_000


def _soak(block: str, params: dict, seed: int) -> bool:
    """Random lockstep of ``block`` for SOAK_CYCLES cycles under Verilator; False on a mismatch."""
    from cosim.lockstep import LockstepMismatch
    from cosim.runner import run_cosim
    from gpusched.blocks import get_block, parse_params
    spec = get_block(block)
    try:
        report = run_cosim(spec, parse_params(spec, params), SOAK_CYCLES, seed=seed)
    except LockstepMismatch as e:
        typer.echo(str(e))
        return False
    typer.echo(f"{block} {params}: {report.cycles:,} cycles, {report.mismatches} mismatches")
    return report.cycles == SOAK_CYCLES and report.mismatches == 0


def _long_slices(module: str) -> bool:
    """The long slices of a property suite in tests/reliability (pytest from the repository's
    tests/)."""
    import subprocess
    import sys
    from pathlib import Path
    root = Path(__file__).resolve().parents[2]
    suite = root / "tests" / "reliability" / module
    if not suite.exists():
        typer.echo(f"no {suite}: the property suites run from a clone of the repository")
        return False
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           str(suite), "--runslow", "-k", "long", "-s"], cwd=root)
    return done.returncode == 0


def _program_check(name: str) -> bool:
    """A suite program at its default scale against its numpy reference (the test suite checks
    the quick scales only)."""
    from workloads import programs
    bad = programs.check(name, seed=0, scale=None)
    typer.echo(f"program {name}: " + ("matches numpy" if not bad else "MISMATCH: " + "; ".join(bad)))
    return not bad


def _checks() -> dict[str, Callable[[], bool]]:
    from formal import proof_blocks
    from gpusched.commands.prove_cmd import prove_block
    checks: dict[str, Callable[[], bool]] = {}
    for block in proof_blocks():
        checks[f"prove-{block}"] = lambda b=block: prove_block(b, None)
        checks[f"mutant-{block}"] = lambda b=block: prove_block(b, None, mutant=True)
    for i, (block, params) in enumerate(SOAKS):
        name = f"lockstep-{block}-" + "-".join(str(v) for v in params.values())
        checks[name] = lambda b=block, p=params, i=i: _soak(b, p, seed=9000 + i)
    for i, (block, params) in enumerate(BLOCK_SOAKS):
        name = f"lockstep-{block}-" + "-".join(str(v) for v in params.values())
        checks[name] = lambda b=block, p=params, i=i: _soak(b, p, seed=9200 + i)
    for i, (block, params) in enumerate(CK_SOAKS):
        name = f"lockstep-{block}-" + "-".join(str(v) for v in params.values())
        checks[name] = lambda b=block, p=params, i=i: _soak(b, p, seed=9100 + i)
    for i, (block, params) in enumerate(SRTF_SOAKS):
        name = f"lockstep-{block}-" + "-".join(str(v) for v in params.values())
        checks[name] = lambda b=block, p=params, i=i: _soak(b, p, seed=9300 + i)
    from workloads import programs
    for name in programs.names():
        checks[f"program-{name}"] = lambda n=name: _program_check(n)
    checks["fuzz-inputs"] = lambda: _long_slices("test_fuzz.py")
    checks["faults"] = lambda: _long_slices("test_faults.py")
    return checks


def verify_cmd(names: Optional[List[str]] = typer.Argument(None, help="checks to run (default all)"),
               list_only: bool = typer.Option(False, "--list", help="list the checks and exit")):
    """Run the long checks (formal proofs, unbounded where PDR finishes; mutants caught; lockstep soaks)."""
    checks = _checks()
    if list_only:
        for name in checks:
            typer.echo(name)
        return
    for name in names or []:
        if name not in checks:
            raise ConfigError("NAMES", name, "known checks: " + ", ".join(checks))
    failed = []
    for name in names or list(checks):
        typer.echo(f"== {name}")
        try:
            ok = checks[name]()
        except Exception as err:  # a check that cannot run is a failed check, not a traceback
            first = str(err).strip().splitlines()[0] if str(err).strip() else ""
            typer.echo(f"{name}: could not run: {type(err).__name__}: {first}", err=True)
            ok = False
        if not ok:
            failed.append(name)
    typer.echo(f"verify: {len(names or checks) - len(failed)} passed, {len(failed)} failed"
               + (": " + ", ".join(failed) if failed else ""))
    if failed:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.command("verify")(verify_cmd)
