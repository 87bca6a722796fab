"""Validation of a :class:`GPUConfig`: per-field rules from metadata, then cross-field rules.

Every failure raises :class:`ConfigError` naming the dotted field path, the value and what is
allowed; the first failure wins so the user sees one line.
"""

from __future__ import annotations

import dataclasses
import math

from .errors import ConfigError
from .schema import GPUConfig

_TYPE_NAMES = {int: "an integer", float: "a number", bool: "true or false", str: "a string"}


def field_type(f: dataclasses.Field) -> type:
    """The Python type of a scalar field (annotations are strings under postponed evaluation)."""
    return {"int": int, "float": float, "bool": bool, "str": str}.get(f.type, f.type)


def check_type(path: str, value: object, typ: type) -> object:
    """Return ``value`` coerced to ``typ`` (an int is a valid float), else raise ConfigError."""
    if typ is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if typ in (int, float) and isinstance(value, bool):
        raise ConfigError(path, value, f"expected {_TYPE_NAMES[typ]}")
    if not isinstance(value, typ):
        raise ConfigError(path, value, f"expected {_TYPE_NAMES.get(typ, typ.__name__)}")
    return value


def check_rule(path: str, value: object, meta: dict) -> None:
    """Apply one field's bounds / choices / power-of-two rule."""
    lo, hi, choices = meta.get("lo"), meta.get("hi"), meta.get("choices")
    if choices is not None and value not in choices:
        raise ConfigError(path, value, "allowed: " + ", ".join(choices))
    if lo is not None and value < lo:
        raise ConfigError(path, value, f"must be >= {lo}" + (f" and <= {hi}" if hi is not None else ""))
    if hi is not None and value > hi:
        raise ConfigError(path, value, f"must be <= {hi}" + (f" and >= {lo}" if lo is not None else ""))
    if meta.get("pow2") and (value < 1 or value & (value - 1)):
        raise ConfigError(path, value, "must be a power of two")


def _walk(obj, prefix: str = ""):
    """Yield (path, value, field) for every scalar field of a nested config dataclass."""
    for f in dataclasses.fields(obj):
        value = getattr(obj, f.name)
        path = f"{prefix}{f.name}"
        if dataclasses.is_dataclass(value):
            yield from _walk(value, path + ".")
        else:
            yield path, value, f


def _bits(count: int) -> int:
    return max(1, math.ceil(math.log2(count))) if count > 1 else 0


def validate(cfg: GPUConfig) -> GPUConfig:
    """Raise ConfigError for the first broken rule; return ``cfg`` unchanged when it is valid."""
    for path, value, f in _walk(cfg):
        check_type(path, value, field_type(f))
        check_rule(path, value, f.metadata)
    sm = cfg.sm
    if sm.count % sm.sms_per_cluster:
        raise ConfigError("sm.sms_per_cluster", sm.sms_per_cluster, f"must divide sm.count ({sm.count})")
    if sm.warps_per_sm % sm.subcores:
        raise ConfigError("sm.warps_per_sm", sm.warps_per_sm,
                          f"must be divisible by sm.subcores ({sm.subcores})")
    if sm.threads_per_sm > sm.warps_per_sm * sm.warp_size:
        raise ConfigError("sm.threads_per_sm", sm.threads_per_sm,
                          f"must be <= sm.warps_per_sm × sm.warp_size ({sm.warps_per_sm * sm.warp_size})")
    for name, size_field in (("l1", "size_bytes"), ("l2", "size_per_slice")):
        c = getattr(cfg, name)
        want = c.sets * c.ways * c.line_bytes
        if getattr(c, size_field) != want:
            raise ConfigError(f"{name}.{size_field}", getattr(c, size_field),
                              f"must equal {name}.sets × {name}.ways × {name}.line_bytes "
                              f"= {c.sets} × {c.ways} × {c.line_bytes} = {want}")
    if cfg.l1.sector_bytes > cfg.l1.line_bytes:
        raise ConfigError("l1.sector_bytes", cfg.l1.sector_bytes, f"must be <= l1.line_bytes ({cfg.l1.line_bytes})")
    _check_dram_mapping(cfg)
    _check_memory(cfg)
    _check_warp_scheduler(cfg)
    return cfg


def _check_warp_scheduler(cfg: GPUConfig) -> None:
    """``sm.warp_sched`` names a registered family with valid arguments for this sub-core size
    (the registry lives with the model: sim/policies/warp_sched.py)."""
    from sim.policies.warp_sched import check_warp_scheduler
    check_warp_scheduler(cfg.sm.warp_sched, cfg.sm.warps_per_sm // cfg.sm.subcores)


def _check_memory(cfg: GPUConfig) -> None:
    """Rules the memory hierarchy relies on (sim/memory/): one line size, slices per channel,
    and a DRAM row exactly as large as the column bits the mapping leaves below row_bit."""
    if cfg.l2.line_bytes != cfg.l1.line_bytes:
        raise ConfigError("l2.line_bytes", cfg.l2.line_bytes,
                          f"must equal l1.line_bytes ({cfg.l1.line_bytes}): requests are line-sized")
    if cfg.l2.slices % cfg.dram.channels:
        raise ConfigError("l2.slices", cfg.l2.slices,
                          f"must be a multiple of dram.channels ({cfg.dram.channels})")
    d = cfg.dram
    col_bits = d.row_bit - _bits(d.channels) - _bits(d.banks)
    if d.channel_bit < d.row_bit and d.bank_bit < d.row_bit and 1 << max(col_bits, 0) != d.row_bytes:
        raise ConfigError("dram.row_bit", d.row_bit,
                          f"the {col_bits} column bits below it (row_bit − channel bits − bank bits) "
                          f"must address dram.row_bytes = {d.row_bytes} bytes")


def _check_dram_mapping(cfg: GPUConfig) -> None:
    """Channel, bank and row fields must not overlap each other or the bytes inside a burst."""
    d = cfg.dram
    col_bits = _bits(cfg.l2.line_bytes)
    fields = [("dram.channel_bit", d.channel_bit, _bits(d.channels)),
              ("dram.bank_bit", d.bank_bit, _bits(d.banks)),
              ("dram.row_bit", d.row_bit, 1)]
    for path, lo, width in fields:
        if width and lo < col_bits:
            raise ConfigError(path, lo, f"must be >= {col_bits} (bits below address bytes within one "
                                        f"{cfg.l2.line_bytes}-byte line)")
    spans = [(p, lo, lo + w) for p, lo, w in fields if w]
    for i, (p1, a1, b1) in enumerate(spans):
        for p2, a2, b2 in spans[i + 1:]:
            if a1 < b2 and a2 < b1:
                raise ConfigError(p2, a2, f"overlaps {p1} (bits {a1}..{b1 - 1}); fields must not overlap")
    row_lo = d.row_bit
    for p, lo, hi in spans[:2]:
        if lo > row_lo:
            raise ConfigError(p, lo, f"must lie below dram.row_bit ({row_lo}): the row takes all higher bits")
