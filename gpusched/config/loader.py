"""Build configs from presets, TOML files and ``--set section.field=value`` overrides."""

from __future__ import annotations

import dataclasses
import math
import textwrap
from pathlib import Path

import tomli_w

from .errors import ConfigError
from .toml_file import read_toml
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


# cache capacity fields derived from sets × ways × line_bytes
SIZE_FIELDS = {"l1": "size_bytes", "l2": "size_per_slice"}


def from_dict(data: dict, base: GPUConfig | None = None) -> GPUConfig:
    """Validated config from a nested dict, starting from ``base`` (defaults if None). A cache
    given only some of capacity, sets, ways and line_bytes gets the rest derived (see
    :func:`_derive_cache_sizes`), so a grid can sweep one of them."""
    start = base or GPUConfig()
    return validate(_derive_cache_sizes(_apply(start, data, ""), data))


def _derive_cache_sizes(cfg: GPUConfig, data: dict) -> GPUConfig:
    """Capacity = sets × ways × line_bytes. Changing the shape (sets, ways or line) without the
    capacity recomputes the capacity; changing the capacity without sets recomputes sets (it must
    then divide evenly: the validator names the field if it does not). Both given: checked."""
    changes = {}
    for section, size_field in SIZE_FIELDS.items():
        given = data.get(section)
        if not isinstance(given, dict):
            continue
        cache = getattr(cfg, section)
        shape = cache.ways * cache.line_bytes
        if size_field in given and "sets" not in given:
            size = getattr(cache, size_field)
            if shape and size % shape == 0 and size // shape > 0:
                changes[section] = dataclasses.replace(cache, sets=size // shape)
        elif size_field not in given and any(k in given for k in ("sets", "ways", "line_bytes")):
            changes[section] = dataclasses.replace(cache, **{size_field: cache.sets * shape})
    return dataclasses.replace(cfg, **changes) if changes else cfg


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
    """Load a config file: ``base = "name"`` (or the older ``preset = "name"``) starts from that
    preset; a file without it must give every field (as ``config show`` writes them). Every error
    is one ConfigError naming ``file:line`` (not UTF-8, malformed TOML, empty file, a bad field,
    a partial file without a base)."""
    from .presets import get_preset, preset_names
    p = Path(path)
    data, text = read_toml(p, "config file")
    if not data:
        raise ConfigError(str(p), "", "empty config file: give base = \"NAME\" and/or "
                                      "[section] tables (see gpusched config show tiny)")
    try:
        base = None
        for key in BASE_KEYS:
            if key in data:
                name = data.pop(key)
                if not isinstance(name, str):
                    raise ConfigError(key, name, "expected a preset name (a string)")
                if name not in preset_names():
                    raise ConfigError(key, name, "known presets: " + ", ".join(preset_names())
                                      + f" ({key} takes a preset name" + (
                                          ", not a file: copy that file's fields into this one)"
                                          if name.endswith(".toml") else ")"))
                base = get_preset(name)
        cfg = from_dict(data, base=base)
        if base is None and (missing := _missing_fields(data, GPUConfig())):
            raise ConfigError("base", "", f"a partial config starts from a named preset: add "
                                          f'base = "NAME" (one of {", ".join(preset_names())}); '
                                          f"{len(missing)} fields are not given, e.g. "
                                          f"{missing[0]}")
        return cfg
    except ConfigError as e:
        raise ConfigError(f"{p}:{_line_of(text, e.where)} {e.where}", e.value, e.allowed) from None


def _line_of(text: str, dotted: str) -> int:
    """Line of ``section.field`` in a TOML text (its key inside ``[section]``, a dotted key, or
    the ``[section.field]`` header of a table); 1 when it is not found (a rule across fields may
    name one the file does not set)."""
    *sections, key = dotted.split(".")
    section = ".".join(sections)
    current = ""
    for i, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if stripped.startswith("[") and not stripped.startswith("[["):
            current = stripped.split("]", 1)[0].strip("[ ")
            if current == dotted:
                return i
            continue
        name = stripped.split("=", 1)[0].strip().strip('"\'') if "=" in stripped else None
        if name is not None and (name == dotted or (current == section and name == key)
                                 or (current == "" and name == f"{section}.{key}")):
            return i
    return 1


BASE_KEYS = ("base", "preset")


def _missing_fields(data: dict, obj, prefix: str = "") -> list[str]:
    """Dotted names of the leaf fields of ``obj`` that ``data`` does not give."""
    out = []
    for f in dataclasses.fields(obj):
        value = getattr(obj, f.name)
        path = prefix + f.name
        if dataclasses.is_dataclass(value):
            sub = data.get(f.name)
            out += _missing_fields(sub if isinstance(sub, dict) else {}, value, path + ".")
        elif f.name not in data and path != "name":
            out.append(path)
    return out


def save_toml(cfg: GPUConfig, path: str | Path) -> None:
    Path(path).write_text(dumps_toml(cfg))


def dumps_toml(cfg: GPUConfig) -> str:
    """The whole config as TOML that loads back to the same config, each field preceded by a
    comment with its meaning and unit (from the schema)."""
    lines = [f"# gpusched config (gpusched config show); every field given, so it needs no base",
             f"name = {_toml_value(cfg.name)}", f"core_clock_mhz = {_toml_value(cfg.core_clock_mhz)}"]
    lines.insert(2, _comment(_fields(cfg)["core_clock_mhz"]))
    for f in dataclasses.fields(cfg):
        section = getattr(cfg, f.name)
        if not dataclasses.is_dataclass(section):
            continue
        doc = (type(section).__doc__ or "").strip().splitlines()[0]
        lines += ["", f"[{f.name}]  # {doc}"]
        for sf in dataclasses.fields(section):
            if comment := _comment(sf):
                lines.append(comment)
            lines.append(f"{sf.name} = {_toml_value(getattr(section, sf.name))}")
    return "\n".join(lines) + "\n"


def _comment(f: dataclasses.Field) -> str:
    doc, unit = f.metadata.get("doc", ""), f.metadata.get("unit", "")
    choices = f.metadata.get("choices")
    text = doc + (f" [{unit}]" if unit else "")
    if choices:
        text += ("; " if text else "") + "one of " + ", ".join(choices)
    return "\n".join(textwrap.wrap(text, 98, initial_indent="# ", subsequent_indent="# "))


def _toml_value(value: object) -> str:
    return tomli_w.dumps({"v": value}).split("=", 1)[1].strip()
