"""``gpusched workloads --programs`` and ``--check NAME|all``: the program suite from the command
line (workloads/programs, docs/workloads.md)."""

from __future__ import annotations

import time

import typer

from gpusched import jsonout
from gpusched.config import ConfigError


def rows() -> list[dict]:
    from workloads import programs
    out = []
    for name in programs.names():
        info = programs.load(name).INFO
        out.append({"name": name, "title": info.get("title", ""), "suite": info.get("suite", ""),
                    "papers": info.get("papers", {}), "kernels": list(info.get("kernels", ())),
                    "default_scale": info.get("default_scale", 1.0),
                    "quick_scale": info.get("quick_scale"), "inputs": info.get("inputs", "")})
    return out


def show(as_json: bool) -> None:
    table = rows()
    if as_json:
        typer.echo(jsonout.dumps(table))
        return
    if not table:
        typer.echo("no programs installed")
        return
    width = max(len(r["name"]) for r in table)
    typer.echo(f"{'name':{width}}  {'suite':10}  {'papers (their names)':40}  kernels  scale")
    for r in table:
        papers = ", ".join(f"{k} {v}" for k, v in sorted(r["papers"].items()))
        typer.echo(f"{r['name']:{width}}  {r['suite'][:10]:10}  {papers[:40]:40}  "
                   f"{len(r['kernels']):>7}  {r['default_scale']:g}")


def check(target: str, seed: int, scale: float | None) -> int:
    """Run the programs functionally and compare with numpy; exit status 1 on a mismatch."""
    from workloads import programs
    names = programs.names() if target == "all" else [target]
    for n in names:
        if n not in programs.names():
            raise ConfigError("--check", n, "a suite program (" + ", ".join(programs.names()) + ") or all")
    failed = 0
    for n in names:
        t = time.time()
        bad = programs.check(n, seed=seed, scale=scale)
        status = "ok" if not bad else "MISMATCH: " + "; ".join(bad)
        typer.echo(f"{n}: {status} ({time.time() - t:.1f} s)")
        failed += bool(bad)
    if len(names) > 1:
        typer.echo(f"{len(names) - failed}/{len(names)} programs match numpy")
    return 1 if failed else 0


def _summaries(db: str, by_program: dict[str, list]) -> dict[str, dict | None]:
    """Program → its characterisation row from the stored runs of its points (None while a
    variant has no finished run)."""
    from experiments import characterize as ch
    from gpusched.experiment.store import ResultStore
    out: dict[str, dict | None] = {}
    with ResultStore(db) as store:
        for name, points in by_program.items():
            runs = {r.point.params["variant"]: r.stats
                    for r in store.runs([p.key for p in points]) if r.status == "done"}
            complete = set(runs) == {p.params["variant"] for p in points}
            out[name] = ch.summarise(runs) if complete else None
    return out


def characterize(name: str, preset: str | None, scale: float | None, seed: int,
                 jobs: int | None, as_json: bool, fill: bool = False) -> int:
    """Run the characterisation points of program ``name`` (stored and resumable, like a
    sweep) and print its row beside the paper's values where INFO gives them."""
    from experiments import characterize as ch
    from gpusched.commands.sweep_cmd import execute_points
    from gpusched.experiment.store import default_db
    from workloads import programs
    if name not in programs.names():
        raise ConfigError("--characterize", name, "a suite program (" + ", ".join(programs.names()) + ")")
    info = programs.load(name).INFO
    papers = list(info.get("papers", {}))
    preset = preset or next((ch.PAPER_PRESET[p] for p in papers if p in ch.PAPER_PRESET), "gtx480")
    if fill and scale is not None:
        raise ConfigError("--fill", "with --scale", "give one: --fill chooses the scale")
    scale, waves = _size(name, preset, None if fill else info["default_scale"] if scale is None
                         else scale, seed)
    points = ch.points(name, preset, scale, seed)
    db = default_db()
    summary = execute_points(f"characterize-{name}", points, db, jobs, None,
                             ("experiments.characterize",), show_progress=not as_json)
    if summary.failures:
        return 1
    row = _summaries(db, {name: points})[name]
    row.update(program=name, preset=preset, scale=scale, waves=waves)
    if as_json:
        typer.echo(jsonout.dumps(row))
        return 0
    for key, value in row.items():
        if key == "phases":
            for k, (n, lo, hi) in value.items():
                typer.echo(f"  phases {k}: {n} phases, longest {lo}, shortest {hi}")
        else:
            typer.echo(f"  {key}: {value:.4g}" if isinstance(value, float) else f"  {key}: {value}")
    for paper, values in info.get("paper_values", {}).items():
        typer.echo(f"  paper {paper}: " + ", ".join(f"{k} {v}" for k, v in values.items()))
    return 0


def _size(name: str, preset: str, scale: float | None, seed: int) -> tuple[float, float]:
    """(scale, waves of CTAs of the main kernel's largest launch there) on ``preset``; ``scale``
    None: the scale that fills the machine (experiments/program_scale.py), said on stderr."""
    from experiments.program_scale import fill, waves_of
    from gpusched.config import resolve_config
    from sim.run import load_workload
    if scale is None:
        typer.echo(f"{name}: choosing the scale that fills {preset} ...", err=True)
        chosen = fill(f"program:{name}", preset, seed)
        typer.echo(f"{name}: scale {chosen.scale:g}, {chosen.kernel} {chosen.ctas} CTAs on "
                   f"{chosen.slots} slots ({chosen.waves:.2f} waves)", err=True)
        return chosen.scale, chosen.waves
    cfg = resolve_config(preset, [])
    _, ctas, slots = waves_of(load_workload(f"program:{name}", seed=seed, scale=scale,
                                            preset=cfg.name), cfg)
    return scale, ctas / slots


def characterize_paper(paper: str, factor: float, seed: int, jobs: int | None,
                       out: str | None, fill: bool = False) -> int:
    """Characterise every program of ``paper`` on its preset at ``factor`` × its default scale
    (with ``fill``: at the scale that fills the machine, experiments/program_scale.py) and print
    (or write to ``out``) the Markdown table beside the paper's values."""
    from experiments import characterize as ch
    from experiments.characterize_table import markdown
    from gpusched.commands.sweep_cmd import execute_points
    from gpusched.experiment.store import default_db
    from workloads import programs
    if paper not in ch.PAPER_PRESET:
        raise ConfigError("--characterize", f"paper:{paper}",
                          "a paper of the suite (" + ", ".join(f"paper:{p}" for p in ch.PAPER_PRESET) + ")")
    from gpusched.paths import check_output_file
    check_output_file(out, "--out", make_parents=True)
    preset = ch.PAPER_PRESET[paper]
    infos = {n: programs.load(n).INFO for n in programs.names()}
    names = [n for n, info in infos.items() if paper in info.get("papers", {})]
    if fill and factor != 1.0:
        raise ConfigError("--fill", "with --scale", "give one: --fill chooses each program's scale")
    sizes = {n: _size(n, preset, None if fill else infos[n]["default_scale"] * factor, seed)
             for n in names}
    by_program = {n: ch.points(n, preset, sizes[n][0], seed, ch.PAPER_VARIANTS.get(paper))
                  for n in names}
    every = [p for pts in by_program.values() for p in pts]
    db = default_db()
    summary = execute_points(f"characterize-{paper}", every, db, jobs, None,
                             ("experiments.characterize",), show_progress=True)
    rows = [{**row, "program": n, "scale": sizes[n][0], "waves": sizes[n][1]}
            for n, row in _summaries(db, by_program).items() if row is not None]
    how = ("the smallest scale that fills the machine (one wave of CTAs), up to their default"
           if fill else f"{factor:g} × their default scale")
    text = (f"{len(rows)} of {len(names)} {paper} programs on `{preset}` at {how} (seed {seed})\n\n"
            + markdown(paper, rows, infos) + "\n")
    if out:
        from pathlib import Path
        Path(out).write_text(text)
        typer.echo(f"wrote {out}")
    else:
        typer.echo(text)
    return 1 if summary.failures else 0
