"""``gpusched config show PRESET [--set k=v ...] [--toml]``."""

from __future__ import annotations

from typing import List, Optional

import typer

from gpusched.config import dumps_toml, get_preset, load_toml, preset_names, with_overrides

config_app = typer.Typer(no_args_is_help=True, help="Inspect GPU presets and config files.")


def resolve_config(preset: str, overrides: list[str] | None):
    """A preset name or a path to a .toml file, with ``--set`` overrides applied and validated."""
    cfg = load_toml(preset) if preset.endswith(".toml") else get_preset(preset)
    return with_overrides(cfg, overrides or [])


@config_app.command("show")
def show(preset: str = typer.Argument(..., help="preset name or config .toml file"),
         set_: Optional[List[str]] = typer.Option(None, "--set", help="section.field=value")):
    """Print the full, validated config as TOML."""
    typer.echo(dumps_toml(resolve_config(preset, set_)), nl=False)


@config_app.command("list")
def list_presets():
    """List the preset names."""
    for name in preset_names():
        typer.echo(name)


def register(app: typer.Typer) -> None:
    app.add_typer(config_app, name="config")
