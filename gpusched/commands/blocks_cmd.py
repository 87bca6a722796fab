"""``gpusched area BLOCK`` and ``gpusched cosim BLOCK``: price and co-simulate one RTL block."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from gpusched import jsonout
from gpusched.blocks import block_names, get_block, parse_params
from gpusched.config import ConfigError

SIMS = ("verilator", "icarus", "amaranth")
# lockstep speed with the Python twin as scoreboard, small blocks on this machine's cores
# (warp_sched W=8: 4.6 k cycles/s under Verilator, 1.1 k in Amaranth's simulator)
LOCKSTEP_CYCLES_PER_S = 5_000
AMARANTH_CYCLES_PER_S = 1_000


def area_cmd(block: str = typer.Argument(..., help="block name: " + ", ".join(block_names())),
             param: Optional[List[str]] = typer.Option(None, "--param", help="name=value"),
             liberty: str = typer.Option("auto", help="auto (sky130hd if a liberty file is "
                                         "found, else ge) | sky130hd | ge | FILE.lib[.gz]"),
             abc: str = typer.Option("auto", help="auto (Yosys' default ABC script, the fast one "
                                     "above 60 k generic cells) | fast | yosys"),
             flat: bool = typer.Option(False, "--flat", help="flatten identical submodules too "
                                       "(default with the fast script: price one, count copies)"),
             as_json: bool = typer.Option(False, "--json", help="print one JSON object")):
    """Synthesise BLOCK with Yosys: cells, NAND2 equivalents, µm² (sky130hd), flops, depth.

    A status line on stderr while Yosys runs; results are cached (warm answers < 1 s)."""
    from synth.area import NO_LIBERTY_NOTE, area, resolve_liberty
    from synth.yosys import clear_progress, stderr_progress
    spec = get_block(block)
    liberty = resolve_liberty(liberty)
    params = parse_params(spec, param)
    label = " ".join([block] + [f"{k}={v}" for k, v in params.items()])
    try:
        res = area(spec, params, liberty, progress=_progress, abc=abc,
                   status=stderr_progress(label), hier=not flat)
    finally:
        clear_progress()
    if as_json:
        typer.echo(jsonout.dumps({k: res[k] for k in ("cells", "ge", "um2", "flops", "depth")}
                                 | {"block": block, "params": res["params"], "liberty": liberty,
                                    "abc": res.get("abc", abc), "hier": res.get("hier", 0)}))
        return
    p = " ".join(f"{k}={v}" for k, v in res["params"].items())
    um2 = f"{res['um2']:,.1f} µm²" if res["um2"] is not None else "µm² n/a"
    lib = liberty if res.get("abc") == "yosys" else f"{liberty}, abc {res.get('abc', abc)}"
    if res.get("hier"):
        lib += f", hierarchical: {res['hier']} copies merged"
    typer.echo(f"{block} {p} [{lib}]: {res['cells']:,} cells, {res['ge']:,.1f} GE, {um2}, "
               f"{res['flops']:,} flops, depth {res['depth']}")
    if res["um2"] is None:
        typer.echo(NO_LIBERTY_NOTE)


def _progress(text: str) -> None:
    """A progress line on stderr for a step that can take more than a few seconds."""
    typer.echo(f"… {text}", err=True)


def run_one(spec, params: dict, cycles: int, seed: int, sim: str, waves: str | None,
            internal: bool = False):
    """Lockstep run on one backend; returns a LockstepReport (raises LockstepMismatch)."""
    if sim == "amaranth":
        from cosim.amaranth_backend import run_lockstep_amaranth
        from gpusched.limits import duration
        from cosim.waves import clean_vcd, wave_format
        if waves:
            wave_format(waves, sim)
        _progress(f"simulating {cycles:,} cycles in Amaranth's simulator (about "
                  f"{AMARANTH_CYCLES_PER_S:,} cycles/s for a small block, slower for a large "
                  f"one: {duration(cycles / AMARANTH_CYCLES_PER_S)} or more)")
        report = run_lockstep_amaranth(spec, params, cycles, seed, vcd=waves)
        if waves:
            clean_vcd(Path(waves), Path(waves), internal)
        return report
    from cosim.runner import run_cosim
    try:
        return run_cosim(spec, params, cycles, seed, sim=sim, waves=waves, internal=internal,
                         progress=_progress)
    except RuntimeError as e:
        if "not found" in str(e) or "not on PATH" in str(e):
            raise ConfigError("--sim", sim, str(e)) from None
        raise


def cosim_cmd(block: str = typer.Argument(..., help="block name: " + ", ".join(block_names())),
              param: Optional[List[str]] = typer.Option(None, "--param", help="name=value"),
              cycles: int = typer.Option(200_000, help="cycles to simulate"),
              sim: str = typer.Option("verilator", help="verilator | icarus | amaranth"),
              vs: Optional[str] = typer.Option(None, help="also run this simulator; print the ratio"),
              waves: Optional[str] = typer.Option(None, help="write waves to this .fst (Verilator) "
                                                              "or .vcd file"),
              waves_internal: bool = typer.Option(False, "--waves-internal",
                                                  help="keep the internal $N nets in the waves"),
              seed: int = typer.Option(1, help="stimulus seed")):
    """RTL vs twin lockstep under random stimulus; prints cycles/s (and the ratio with --vs)."""
    for name, value in (("--sim", sim), ("--vs", vs)):
        if value is not None and value not in SIMS:
            raise ConfigError(name, value, "allowed: " + ", ".join(SIMS))
    from gpusched.limits import MAX_COSIM_CYCLES, check_count, check_seed, duration
    hours = duration(MAX_COSIM_CYCLES / LOCKSTEP_CYCLES_PER_S)
    check_count("--cycles", cycles, 1, MAX_COSIM_CYCLES, f"about {hours} in lockstep with the "
                "Python twin")
    check_seed("--seed", seed)
    from gpusched.paths import check_output_file
    check_output_file(waves, "--waves")
    spec = get_block(block)
    params = parse_params(spec, param)
    from cosim.lockstep import LockstepMismatch
    reports = []
    for s in [sim] + ([vs] if vs else []):
        try:
            r = run_one(spec, params, cycles, seed, s, waves if s == sim else None, waves_internal)
        except LockstepMismatch as e:
            typer.echo(str(e), err=True)
            raise typer.Exit(1)
        reports.append((s, r))
        p = " ".join(f"{k}={v}" for k, v in params.items())
        typer.echo(f"{block} {p} seed={seed}: {r.cycles:,} cycles in lockstep with the twin, "
                   f"0 mismatches, {s}: {r.cycles_per_s:,.0f} cycles/s")
    if vs:
        (a, ra), (b, rb) = reports
        typer.echo(f"ratio {a}/{b}: {ra.cycles_per_s / rb.cycles_per_s:.1f}x")


def register(app: typer.Typer) -> None:
    app.command("area")(area_cmd)
    app.command("cosim")(cosim_cmd)
