"""``gpusched prove BLOCK``: bounded model checking of a block's invariants (formal/)."""

from __future__ import annotations

from typing import Optional

import typer

from gpusched.config import ConfigError


def prove_block(block: str, depth: Optional[int], mutant: bool = False,
                vcd: Optional[str] = None) -> bool:
    """Prove every case of ``block`` to ``depth`` (None: the case's own depth), or check that
    its mutant fails; print a line per case and each counterexample's trace. True when every
    outcome is the expected one."""
    from formal import build, cases_for
    from formal.bmc import format_trace, prove
    from synth.yosys import clear_progress, stderr_progress
    ok = True
    cases = cases_for(block)
    for i, case in enumerate(cases):
        case_vcd = vcd if not vcd or len(cases) == 1 else vcd.replace(".vcd", "") + f"-{i}.vcd"
        label = f"{block} {case.label}" + (" (mutant)" if mutant else "")
        case_depth = depth or case.depth
        try:
            res = prove(build(case, mutant), case_depth, vcd=case_vcd, progress=stderr_progress(label))
        finally:
            clear_progress()
        if res.status == "proved":
            typer.echo(f"{label}: {len(res.invariants)} invariants hold to depth {case_depth} "
                       f"({res.seconds:.1f} s): " + "; ".join(res.invariants))
        else:
            typer.echo(f"{label}: FAILED '{res.failed}' at step {res.step} "
                       f"({res.seconds:.1f} s); counterexample:")
            typer.echo(format_trace(res))
            if case_vcd:
                typer.echo(f"trace written to {case_vcd}")
        if mutant:
            typer.echo(f"  mutant: {case.mutant_doc}")
        ok &= (res.status == "failed") if mutant else (res.status == "proved")
    return ok


def prove_cmd(block: str = typer.Argument(..., help="block with invariants (see formal/)"),
              depth: Optional[int] = typer.Option(None, help="BMC depth (steps from reset); "
                                                  "default 20 (cta_sched 12)"),
              mutant: bool = typer.Option(False, help="prove the block's mutant: must FAIL"),
              vcd: Optional[str] = typer.Option(None, help="write a counterexample VCD here")):
    """Bounded model check BLOCK's invariants (yosys-smtbmc + z3). Exit 1 if an invariant fails
    (or, with --mutant, if the mutant is not caught)."""
    if depth is not None and depth < 1:
        raise ConfigError("--depth", depth, "must be >= 1")
    if not prove_block(block, depth, mutant, vcd):
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.command("prove")(prove_cmd)
