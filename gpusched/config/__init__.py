"""GPU configuration: frozen dataclasses, presets, TOML load/save, overrides and validation."""

from .errors import ConfigError
from .loader import dumps_toml, from_dict, load_toml, save_toml, to_dict, with_overrides
from .presets import PRESETS, get_preset, preset_names
from .resolve import resolve_config
from .schema import (DRAMConfig, EnergyConfig, GPUConfig, IcntConfig, KernelConfig, L1Config,
                     L2Config, SMConfig, UnitsConfig)
from .validate import validate

__all__ = [
    "ConfigError", "GPUConfig", "SMConfig", "UnitsConfig", "L1Config", "L2Config", "IcntConfig",
    "DRAMConfig", "EnergyConfig", "KernelConfig", "PRESETS", "get_preset", "preset_names",
    "from_dict", "to_dict", "load_toml", "save_toml", "dumps_toml", "with_overrides", "validate",
    "resolve_config",
]
