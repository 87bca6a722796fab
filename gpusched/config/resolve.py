"""One config from what a user names: a preset, a TOML file or an Accel-Sim/GPGPU-Sim config."""

from __future__ import annotations

from .loader import load_toml, with_overrides
from .presets import get_preset
from .schema import GPUConfig


def resolve_config(preset: str, overrides: list[str] | None) -> GPUConfig:
    """A preset name, a .toml file or an Accel-Sim/GPGPU-Sim ``.config`` (with the
    ``trace.config`` beside it, if any), with ``--set`` overrides applied and validated."""
    if preset.endswith(".toml"):
        cfg = load_toml(preset)
    elif preset.endswith(".config"):
        from .gpgpusim_config import import_config
        cfg = import_config(preset)[0]
    else:
        cfg = get_preset(preset)
    return with_overrides(cfg, overrides or [])
