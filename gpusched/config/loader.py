"""Build configs from presets, TOML files and ``--set section.field=value`` overrides."""

from __future__ import annotations

import dataclasses
import math
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
            value = float(raw)
            if not math.isfinite(value):
                raise ConfigError(path, raw, "expected a finite number")
            return value
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
    """Load a config file; a ``preset = "name"`` key starts from that preset. Every error is one
    ConfigError naming ``file:line`` (not UTF-8, malformed TOML, empty file, a bad field)."""
    from .presets import get_preset
    p = Path(path)
    try:
        raw = p.read_bytes()
    except OSError as e:
        raise ConfigError(str(p), "", f"cannot read: {e.strerror}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        line = raw[:e.start].count(b"\n") + 1
        raise ConfigError(f"{p}:{line}", raw[e.start:e.start + 1],
                          "not UTF-8 text: a config file is TOML, UTF-8 encoded") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(str(p), "", f"malformed TOML: {e}") from None
    if not data:
        raise ConfigError(str(p), "", "empty config file: give preset = \"NAME\" and/or "
                                      "[section] tables (see gpusched config show tiny)")
    try:
        base = None
        if "preset" in data:
            name = data.pop("preset")
            if not isinstance(name, str):
                raise ConfigError("preset", name, "expected a preset name (a string)")
            base = get_preset(name)
        return from_dict(data, base=base)
    except ConfigError as e:
        raise ConfigError(f"{p}:{_line_of(text, e.where)} {e.where}", e.value, e.allowed) from None


def _line_of(text: str, dotted: str) -> int:
    """Line of ``section.field`` in a TOML text (its key inside ``[section]``, or a dotted key);
    1 when it is not found (a rule across fields may name one the file does not set)."""
    *sections, key = dotted.split(".")
    section = ".".join(sections)
    current = ""
    for i, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if stripped.startswith("[") and not stripped.startswith("[["):
            current = stripped.strip("[] ")
            continue
        name = stripped.split("=", 1)[0].strip().strip('"\'') if "=" in stripped else None
        if name is not None and (name == dotted or (current == section and name == key)
                                 or (current == "" and name == f"{section}.{key}")):
            return i
    return 1


def save_toml(cfg: GPUConfig, path: str | Path) -> None:
    Path(path).write_text(dumps_toml(cfg))


def dumps_toml(cfg: GPUConfig) -> str:
    return tomli_w.dumps(to_dict(cfg))
