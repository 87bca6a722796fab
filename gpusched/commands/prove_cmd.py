"""``gpusched prove BLOCK [--param k=v ...]``: proofs of a block's invariants (formal/):
unbounded by PDR or by k-induction with helper invariants (the default), or bounded model
checking to ``--depth``. Proofs run at each case's fixed small sizes (the invariants do not depend
on them; docs/formal.md), named before the proofs start; ``--param`` picks cases by them."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from gpusched.config import ConfigError

ENGINES = ("auto", "pdr", "bmc")


def label_params(label: str) -> dict[str, str]:
    """``"W=4 policy=gto"`` → ``{"W": "4", "policy": "gto"}``."""
    return dict(part.split("=", 1) for part in label.split() if "=" in part)


def select_cases(block: str, params: list[str]):
    """The proof cases of ``block`` whose parameters include every ``k=v`` of ``params``; a
    parameter or value no case has is a ConfigError naming the sizes that are proved."""
    from formal import cases_for
    cases = cases_for(block)
    for text in params:
        key, sep, value = text.partition("=")
        if not sep or not key:
            raise ConfigError("--param", text, "expected name=value, e.g. policy=gto")
        known = sorted({label_params(c.label).get(key) for c in cases} - {None})
        if not known:
            raise ConfigError("--param", text, f"{block}'s proofs have no parameter {key!r}: "
                              "they run at " + "; ".join(c.label for c in cases))
        if value not in known:
            raise ConfigError("--param", text, f"{block} is proved at {key} = {', '.join(known)} "
                              "(fixed small sizes: the invariants do not depend on them; "
                              "docs/formal.md)")
    want = dict(p.split("=", 1) for p in params)
    chosen = [c for c in cases if want.items() <= label_params(c.label).items()]
    if not chosen:
        raise ConfigError("--param", " ".join(params), f"no {block} proof has all of these; "
                          "they run at " + "; ".join(c.label for c in cases))
    return chosen


def vcd_names(vcd: Optional[str], n: int) -> list[Optional[str]]:
    """The counterexample file of each of ``n`` cases: ``vcd`` itself for one case, else
    ``STEM-<i>.vcd`` beside it (said before the proofs start)."""
    if not vcd or n == 1:
        return [vcd] * n
    path = Path(vcd)
    stem, suffix = (path.stem, path.suffix) if path.suffix else (path.name, ".vcd")
    return [str(path.with_name(f"{stem}-{i}{suffix}")) for i in range(n)]


def prove_block(block: str, depth: Optional[int], mutant: bool = False,
                vcd: Optional[str] = None, engine: str = "auto",
                timeout: float = 900, params: Optional[list[str]] = None) -> bool:
    """Prove every case of ``block``, or check that its mutant fails; print a line per case and
    each counterexample's trace. ``engine``: ``pdr`` an unbounded proof (a counterexample is
    replayed by BMC for its trace), ``bmc`` to ``depth`` (None: the case's own depth), ``auto``
    unbounded unless ``depth`` is given — k-induction with helper invariants for cases that
    have them (``Case.induction``; their mutants by PDR), else PDR unless the case is marked
    BMC-only (``Case.pdr``) — and BMC to the case's depth when PDR runs out of ``timeout``
    seconds or the induction step fails. True when every outcome is the expected one."""
    from formal import build, cases_for
    from formal.bmc import format_trace, prove, prove_inductive
    from formal.pdr import abc_available, prove_unbounded
    from synth.yosys import clear_progress, stderr_progress
    if engine not in ENGINES:
        raise ConfigError("--engine", engine, "allowed: " + ", ".join(ENGINES))
    if engine == "pdr" and depth is not None:
        raise ConfigError("--depth", depth, "PDR proves every depth; --depth is for --engine bmc")
    if engine == "pdr" and not abc_available():
        raise ConfigError("--engine", engine, "PDR needs yosys-abc (pip install pyosys)")
    if engine == "auto" and not abc_available():
        typer.echo("no yosys-abc (pyosys wheel): bounded model checking only", err=True)
        engine = "bmc"
    ok, good = True, 0
    cases = select_cases(block, list(params or [])) if params else cases_for(block)
    typer.echo(f"{block}: {len(cases)} {'mutant' if mutant else 'proof'} case(s) at fixed small "
               "sizes (--param picks; docs/formal.md): " + "; ".join(c.label for c in cases))
    vcds = vcd_names(vcd, len(cases))
    if vcd and len(cases) > 1:
        typer.echo(f"counterexamples, if any, go to one file per case: {vcds[0]} … {vcds[-1]} "
                   "(in the order above)")
    for case, case_vcd in zip(cases, vcds):
        label = f"{block} {case.label}" + (" (mutant)" if mutant else "")
        case_depth = depth or case.depth
        show = stderr_progress(label)
        try:
            res = None
            if engine == "auto" and depth is None and case.induction and not mutant:
                res = prove_inductive(build(case, helpers=True), case.induction, case_vcd, show)
                if res.status == "unknown":
                    clear_progress()
                    typer.echo(f"{label}: not inductive ('{res.failed}' broke in the step); "
                               f"BMC to depth {case_depth}")
                    res = None
            elif engine == "pdr" or (engine == "auto" and depth is None
                                     and (case.pdr or case.induction)):
                res = prove_unbounded(build(case, mutant), timeout, case_depth, show, vcd=case_vcd)
                if res.status == "unknown":
                    clear_progress()
                    typer.echo(f"{label}: PDR undecided after {res.seconds:.0f} s"
                               + ("" if engine == "pdr" else f"; BMC to depth {case_depth}"))
                    res = None if engine == "auto" else res
            if res is None:
                res = prove(build(case, mutant), case_depth, vcd=case_vcd, progress=show)
        finally:
            clear_progress()
        if res.status == "proved":
            how = ("at every depth (unbounded, PDR" + (f", invariant F[{res.frames}]"
                                                       if res.frames is not None else "")
                   if res.engine == "pdr" else
                   f"at every depth (unbounded, {res.frames}-induction" + (
                       " with helper invariants" if any(n.startswith("helper:")
                                                        for n in res.invariants) else "")
                   if res.engine == "induction" else f"to depth {res.depth} (BMC")
            typer.echo(f"{label}: {len(res.invariants)} invariants hold {how}, "
                       f"{res.seconds:.1f} s): " + "; ".join(res.invariants))
        elif res.status == "failed":
            typer.echo(f"{label}: FAILED '{res.failed}' at step {res.step} "
                       f"({res.engine}, {res.seconds:.1f} s); counterexample:")
            typer.echo(format_trace(res))
            if case_vcd:
                typer.echo(f"trace written to {case_vcd}")
        if mutant:
            typer.echo(f"  mutant: {case.mutant_doc}")
        expected = (res.status == "failed") if mutant else (res.status == "proved")
        ok &= expected
        good += expected
    what = "mutants caught" if mutant else "cases proved"
    typer.echo(f"{block}: {good}/{len(cases)} {what}")
    return ok


def prove_cmd(block: str = typer.Argument(..., help="block with invariants (see formal/)"),
              depth: Optional[int] = typer.Option(None, help="bounded model check to this "
                                                  "depth (steps from reset) instead of PDR"),
              engine: str = typer.Option("auto", help="pdr (unbounded), bmc (to --depth or "
                                         "the block's depth), auto (k-induction where the "
                                         "block has helper invariants, else pdr; bmc on "
                                         "--depth or when pdr times out)"),
              timeout: float = typer.Option(900, help="seconds PDR may take per case"),
              mutant: bool = typer.Option(False, help="prove the block's mutant: must FAIL"),
              vcd: Optional[str] = typer.Option(None, help="write a counterexample VCD here "
                                                "(several cases: FILE-0.vcd, FILE-1.vcd, …, "
                                                "named before the proofs)"),
              param: Optional[List[str]] = typer.Option(
                  None, "--param", help="name=value: only the cases at this size or policy "
                  "(repeatable; e.g. policy=gto). Proofs run at fixed small sizes, printed "
                  "first; another size is an error naming them")):
    """Prove BLOCK's invariants (unbounded: ABC's PDR or k-induction; or BMC to --depth) at
    each case's fixed small sizes (named first; the invariants do not depend on them). Exit 1
    if an invariant fails (or, with --mutant, if a mutant is not caught); ends with N/M cases
    proved (mutants caught)."""
    from gpusched.limits import MAX_BMC_DEPTH, check_count, check_seconds
    if depth is not None:
        check_count("--depth", depth, 1, MAX_BMC_DEPTH, "BMC to depth 40 takes minutes per case")
    check_seconds("--timeout", timeout)
    from gpusched.paths import check_output_file
    check_output_file(vcd, "--vcd")
    if not prove_block(block, depth, mutant, vcd, engine, timeout, list(param or [])):
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.command("prove")(prove_cmd)
