"""Build configs from presets, TOML files and ``--set section.field=value`` overrides."""

from __future__ import annotations

import dataclasses
import tomllib
from pathlib import Path

import tomli_w

from .errors import ConfigError
from .schema import GPUConfig
from .validate import check_type, field_type, validate


def to_dict(cfg: GPUConfig) -> dict:
    """Nested plain dict (TOML-ready) of a config."""
    return dataclasses.asdict(cfg)


def _fields(obj) -> dict[str, dataclasses.Field]:
    return {f.name: f for f in dataclasses.fields(obj)}


def _apply(obj, data: dict, prefix: str):
    """Return ``obj`` with the values in ``data`` replaced; unknown keys and bad types raise."""
    known = _fields(obj)
    changes = {}
    for key, value in data.items():
        path = f"{prefix}{key}"
        if key not in known:
            raise ConfigError(path, value, "unknown field; known: " + ", ".join(known))
        current = getattr(obj, key)
        if dataclasses.is_dataclass(current):
            if not isinstance(value, dict):
                raise ConfigError(path, value, "expected a table of fields")
            changes[key] = _apply(current, value, path + ".")
        else:
            changes[key] = check_type(path, value, field_type(known[key]))
    return dataclasses.replace(obj, **changes)


def from_dict(data: dict, base: GPUConfig | None = None) -> GPUConfig:
    """Validated config from a nested dict, starting from ``base`` (defaults if None)."""
    return validate(_apply(base or GPUConfig(), data, ""))


def parse_override(text: str, cfg: GPUConfig) -> tuple[str, object]:
    """Parse ``section.field=value`` into (path, typed value) using the field's declared type."""
    if "=" not in text:
        raise ConfigError("--set", text, "expected section.field=value")
    path, raw = (s.strip() for s in text.split("=", 1))
    obj, f = cfg, None
    parts = path.split(".")
    for i, part in enumerate(parts):
        known = _fields(obj)
        if part not in known:
            where = ".".join(parts[: i + 1])
            raise ConfigError(where, raw, "unknown field; known: " + ", ".join(known))
        f = known[part]
        if i < len(parts) - 1:
            obj = getattr(obj, part)
            if not dataclasses.is_dataclass(obj):
                raise ConfigError(path, raw, f"{'.'.join(parts[:i + 1])} is not a section")
    if dataclasses.is_dataclass(getattr(obj, parts[-1])):
        raise ConfigError(path, raw, "is a section; name one of its fields")
    return path, _parse_scalar(path, raw, field_type(f))


def _parse_scalar(path: str, raw: str, typ: type) -> object:
    try:
        if typ is bool:
            if raw.lower() in ("true", "1", "yes", "on"):
                return True
            if raw.lower() in ("false", "0", "no", "off"):
                return False
            raise ValueError
        if typ is int:
            return int(raw, 0)
        if typ is float:
            return float(raw)
        return raw
    except ValueError:
        kind = {bool: "true or false", int: "an integer", float: "a number"}[typ]
        raise ConfigError(path, raw, f"expected {kind}") from None


def with_overrides(cfg: GPUConfig, overrides: list[str]) -> GPUConfig:
    """Apply ``--set`` strings in order and validate the result."""
    nested: dict = {}
    for text in overrides:
        path, value = parse_override(text, cfg)
        node = nested
        *heads, last = path.split(".")
        for h in heads:
            node = node.setdefault(h, {})
        node[last] = value
    return from_dict(nested, base=cfg)


def load_toml(path: str | Path) -> GPUConfig:
    """Load a config file; a ``preset = "name"`` key starts from that preset."""
    from .presets import get_preset
    p = Path(path)
    try:
        data = tomllib.loads(p.read_text())
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(str(p), "", f"malformed TOML: {e}") from None
    except OSError as e:
        raise ConfigError(str(p), "", f"cannot read: {e.strerror}") from None
    base = get_preset(data.pop("preset")) if "preset" in data else None
    return from_dict(data, base=base)


def save_toml(cfg: GPUConfig, path: str | Path) -> None:
    Path(path).write_text(dumps_toml(cfg))


def dumps_toml(cfg: GPUConfig) -> str:
    return tomli_w.dumps(to_dict(cfg))
