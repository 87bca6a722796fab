"""``gpusched workloads [--json] [--scale S] [--seed N] [--trace DIR] [--export NAME --out DIR
[--arch FAMILY]]``.

One row per catalogue entry: name, benchmark mimicked, kernels, CTAs and approximate warp
instructions (all warps of a few CTAs per kernel, extrapolated). ``--trace DIR`` instead lists
the kernels of an Accel-Sim trace directory; ``--export NAME --out DIR`` writes catalogue entry
NAME (at ``--scale``/``--seed``) as an Accel-Sim trace directory of real SASS opcodes, with the
binary version of ``--arch`` (pascal 61, volta 70, turing 75, ampere 86). ``--phases NAME``
prints the phase table of each kernel of catalogue entry NAME (or, with ``--trace DIR``, of the
trace's kernels): total phases, longest, shortest ([THESIS §3.4.2.1], Tables 3.2/3.3) and the
static code-size overhead of the phase hints ([THESIS ch. 3]).
"""

from __future__ import annotations

from typing import Optional

import typer

from gpusched import jsonout


def _rows(scale: float, seed: int) -> list[dict]:
    from sim.workload.catalogue import ENTRIES, estimate_warp_instructions, get_workload
    rows = []
    for name, entry in ENTRIES.items():
        wl = get_workload(name, seed=seed, scale=scale)
        rows.append({"name": name, "mimics": entry.mimics, "traits": entry.traits,
                     "kernels": len(wl.kernels), "ctas": sum(k.n_ctas for k in wl.kernels),
                     "warp_instructions": sum(estimate_warp_instructions(k) for k in wl.kernels)})
    return rows


def _trace_rows(path: str) -> list[dict]:
    from sim.workload.accelsim import read_trace_dir, trace_warnings_to_stderr
    with trace_warnings_to_stderr():
        wl = read_trace_dir(path)
    return [{"name": k.name, "grid": list(k.grid), "block": list(k.block), "ctas": k.n_ctas,
             "regs_per_thread": k.regs_per_thread, "smem_per_cta": k.smem_per_cta}
            for k in wl.kernels]


def _phase_rows(kernels) -> list[dict]:
    from sim.workload.phases import code_size_overhead, kernel_phases
    rows = []
    for k in kernels:
        info = kernel_phases(k)
        rows.append({"kernel": k.name, **info.table(), "lengths": list(info.lengths),
                     "overhead_pct": {key: round(v, 3) for key, v in
                                      code_size_overhead(info).items() if key != "over_511"},
                     "distances_over_511": int(code_size_overhead(info).get("over_511", 0))})
    return rows


def _print_phases(rows: list[dict]) -> None:
    width = max([len("kernel")] + [len(r["kernel"]) for r in rows])
    typer.echo(f"{'kernel':{width}}  {'phases':>6}  {'longest':>7}  {'shortest':>8}  "
               f"{'instr':>6}  {'1-level hints':>13}  {'2-level hints':>13}")
    for r in rows:
        o = r["overhead_pct"]
        typer.echo(f"{r['kernel']:{width}}  {r['phases']:>6}  {r['longest']:>7}  "
                   f"{r['shortest']:>8}  {r['instructions']:>6}  {o['single_9bit']:>12.2f}%  "
                   f"{o['two_level_9bit']:>12.2f}%")
    typer.echo("phase lengths are summed instruction costs in cycles (sim/workload/phases.py); "
               "hints: 9-bit distance per instruction (plus one per distance > 511) / 9-bit "
               "length per phase, vs 8-byte instructions ([THESIS ch. 3]: 12.5 % / < 1 %)")


def workloads_cmd(as_json: bool = typer.Option(False, "--json", help="print a JSON list"),
                  scale: float = typer.Option(1.0, help="grid/loop scale factor (> 0)"),
                  seed: int = typer.Option(0, help="workload seed"),
                  trace: Optional[str] = typer.Option(None, "--trace",
                                                      help="list an Accel-Sim trace directory"),
                  export: Optional[str] = typer.Option(None, "--export",
                                                       help="write this entry as a trace dir"),
                  out: Optional[str] = typer.Option(None, "--out", help="directory for --export"),
                  arch: str = typer.Option("volta", "--arch",
                                           help="SASS family of --export: pascal | volta | turing | ampere"),
                  predicates: bool = typer.Option(True, "--predicates/--no-predicates",
                                                  help="--export: list predicate registers (a real "
                                                       "tracer does not)"),
                  phases: Optional[str] = typer.Option(
                      None, "--phases", help="phase table of this catalogue entry's kernels "
                      "([THESIS §3.4.2.1]); program:NAME for a CUDA program's kernels (their PTX "
                      "code); "
                      "with --trace DIR give any value, e.g. --phases all"),
                  programs: bool = typer.Option(False, "--programs",
                                                help="list the program suite (real CUDA programs)"),
                  check: Optional[str] = typer.Option(
                      None, "--check", metavar="NAME|all", help="run suite programs functionally "
                      "and compare their outputs with numpy (exit 1 on a mismatch); --scale "
                      "defaults to each program's own"),
                  characterize: Optional[str] = typer.Option(
                      None, "--characterize", metavar="NAME|paper:P", help="model runs of a suite program "
                      "(RR with OWL's profile, GTO, Perfect-L1/L2, CTA limits 1-8; stored and "
                      "resumable) → IPC, occupancy, PMEM, Perfect-L2, CINV, misses, row sharing, "
                      "phases, GTO/RR class, ch.4 type; paper:P: every program of paper P on its "
                      "preset at --scale × its default scale, as a Markdown table beside the "
                      "paper's values (--out FILE.md)"),
                  preset: Optional[str] = typer.Option(None, "--preset", help="--characterize: "
                                                       "the GPU (default: its first paper's)"),
                  jobs: Optional[int] = typer.Option(None, "--jobs", "-j",
                                                     help="--characterize: parallel runs"),
                  fill: bool = typer.Option(False, "--fill", help="--characterize: each program at "
                                            "the smallest scale (its quick scale doubled) whose "
                                            "main kernel's largest launch fills the machine's CTA slots")):
    """List the synthetic workload catalogue (or the kernels of an Accel-Sim trace dir)."""
    from gpusched.limits import check_seed
    check_seed("--seed", seed)
    if programs or check is not None or characterize is not None:
        from gpusched import programs_cli
        if characterize is not None and characterize.startswith("paper:"):
            code = programs_cli.characterize_paper(characterize[6:], scale, seed, jobs, out, fill)
            raise typer.Exit(code)
        if characterize is not None:
            return programs_cli.characterize(characterize, preset, None if scale == 1.0 else scale,
                                             seed, jobs, as_json, fill)
        if check is not None:
            return programs_cli.check(check, seed, None if scale == 1.0 else scale)
        programs_cli.show(as_json)
        return
    if phases is not None:
        if trace is not None:
            from sim.workload.accelsim import read_trace_dir, trace_warnings_to_stderr
            with trace_warnings_to_stderr():
                kernels = read_trace_dir(trace).kernels
        elif phases.startswith("program:"):           # a CUDA program: each kernel once
            from sim.workload.program import run_program
            run = run_program(phases, seed=seed, scale=scale)
            kernels = list({k.name: k for k in run.workload.kernels}.values())
        else:
            from sim.workload.catalogue import get_workload
            kernels = get_workload(phases, seed=seed, scale=scale).kernels
        rows = _phase_rows(kernels)
        if as_json:
            typer.echo(jsonout.dumps(rows))
        else:
            _print_phases(rows)
        return
    if export is not None:
        from gpusched.config import ConfigError
        from sim.workload.catalogue import get_workload
        from sim.workload.opcodes import FAMILIES
        from sim.workload.tracegen import write_trace_dir
        if not out:
            raise ConfigError("--out", out, "a directory to write the trace into")
        from gpusched.paths import check_output_dir
        check_output_dir(out, "--out")
        if arch not in FAMILIES:
            raise ConfigError("--arch", arch, "allowed: " + ", ".join(FAMILIES))
        d = write_trace_dir(out, get_workload(export, seed=seed, scale=scale), family=arch,
                            predicates=predicates)
        typer.echo(f"wrote {d}")
        return
    if trace is not None:
        rows = _trace_rows(trace)
        if as_json:
            typer.echo(jsonout.dumps(rows))
            return
        for r in rows:
            typer.echo(f"{r['name']}  grid={tuple(r['grid'])} block={tuple(r['block'])} "
                       f"regs={r['regs_per_thread']} smem={r['smem_per_cta']}")
        return
    rows = _rows(scale, seed)
    if as_json:
        typer.echo(jsonout.dumps(rows))
        return
    width = max(len(r["name"]) for r in rows)
    mim = min(48, max(len(r["mimics"]) for r in rows))
    typer.echo(f"{'name':{width}}  {'mimics':{mim}}  {'kernels':>7}  {'CTAs':>6}  "
               f"{'~warp instr':>11}")
    for r in rows:
        typer.echo(f"{r['name']:{width}}  {r['mimics'][:mim]:{mim}}  {r['kernels']:>7}  "
                   f"{r['ctas']:>6}  {r['warp_instructions']:>11,}")


def register(app: typer.Typer) -> None:
    app.command("workloads")(workloads_cmd)
