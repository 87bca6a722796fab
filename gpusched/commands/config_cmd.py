"""``gpusched config show PRESET [--set k=v ...]``, ``config list`` and ``config import
gpgpusim.config [trace.config] [--out FILE.toml]`` (docs/config.md)."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from gpusched.config import dumps_toml, preset_names, resolve_config

config_app = typer.Typer(no_args_is_help=True, help="Inspect GPU presets and config files.")


@config_app.command("show")
def show(preset: str = typer.Argument(..., help="preset name, config .toml or gpgpusim .config"),
         set_: Optional[List[str]] = typer.Option(None, "--set", help="section.field=value")):
    """Print the full, validated config as TOML."""
    from sim.policies.warp_sched import check_config
    cfg = resolve_config(preset, set_)
    check_config(cfg)
    typer.echo(dumps_toml(cfg), nl=False)


@config_app.command("list")
def list_presets():
    """List the preset names."""
    for name in preset_names():
        typer.echo(name)


@config_app.command("import")
def import_(gpgpusim: str = typer.Argument(..., help="gpgpusim.config (Accel-Sim / GPGPU-Sim)"),
            trace: Optional[str] = typer.Argument(None, help="trace.config (default: the one "
                                                             "beside gpgpusim.config, if any)"),
            out: Optional[str] = typer.Option(None, "--out", help="write the TOML here"),
            name: Optional[str] = typer.Option(None, "--name", help="config name (default: "
                                                                    "the folder's name)")):
    """Turn an Accel-Sim/GPGPU-Sim config into a validated preset TOML; its header lists what
    became of every option (mapped, approximated, ignored and why)."""
    from gpusched.config.gpgpusim_config import import_config, imported_toml
    cfg, rows = import_config(gpgpusim, trace, name)
    sources = [gpgpusim] + sorted({r.where.rsplit(":", 1)[0] for r in rows
                                   if r.where.endswith(tuple("0123456789"))} - {gpgpusim})
    text = imported_toml(cfg, rows, sources)
    if out:
        Path(out).write_text(text)
        n = {s: sum(r.status == s for r in rows) for s in ("mapped", "approximated", "ignored")}
        typer.echo(f"{out}: {n['mapped']} options mapped, {n['approximated']} approximated, "
                   f"{n['ignored']} ignored (listed at the top of the file)")
    else:
        typer.echo(text, nl=False)


def register(app: typer.Typer) -> None:
    app.add_typer(config_app, name="config")
