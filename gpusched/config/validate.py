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


# Ceilings that keep the model's memory sane (choice): the largest real GPUs have ~150 SMs and
# caches of a few thousand sets, so these are far above any real design, yet low enough that the
# structures the model allocates per SM, slice and channel fit in a few GB. A field without an
# entry here (and without its own ``hi`` rule) is capped at INT_CEILING / FLOAT_CEILING.
SANE_MAX: dict[str, int | float] = {
    "core_clock_mhz": 100_000.0, "dram.clock_mhz": 100_000.0,
    "sm.count": 1024, "sm.subcores": 64, "sm.regs_per_sm": 1 << 24, "sm.smem_per_sm": 1 << 24,
    "sm.threads_per_sm": 1 << 16, "sm.sms_per_cluster": 1024, "units.smem_banks": 1024,
    "l1.sets": 1 << 16, "l1.ways": 1024, "l1.line_bytes": 1 << 12, "l1.sector_bytes": 1 << 12,
    "l1.size_bytes": 1 << 30, "l1.mshrs": 1 << 16,
    "l2.slices": 1024, "l2.sets": 1 << 16, "l2.ways": 1024, "l2.line_bytes": 1 << 12,
    "l2.size_per_slice": 1 << 30, "l2.mshrs": 1 << 16, "l2.input_queue": 1 << 16,
    "icnt.bytes_per_cycle": 1 << 16, "icnt.header_bytes": 1 << 16, "icnt.inject_queue": 1 << 16,
    "dram.channels": 1024, "dram.banks": 1024, "dram.row_bytes": 1 << 20,
    "dram.queue_size": 1 << 16,
}
INT_CEILING = 1 << 40
DERIVED_FIELDS = ("l1.size_bytes", "l2.size_per_slice")
FLOAT_CEILING = 1e12
# Products of fields that size one allocated structure (per-SM L1 sets, L2 sets, the SM × slice
# interconnect queues, DRAM banks): each at most STRUCTURE_CEILING entries.
STRUCTURE_CEILING = 1 << 22
_PRODUCTS = (("sm.count", "l1.sets"), ("l2.slices", "l2.sets"), ("sm.count", "l2.slices"),
             ("dram.channels", "dram.banks"))


def check_type(path: str, value: object, typ: type) -> object:
    """Return ``value`` coerced to ``typ`` (an int is a valid float), else raise ConfigError.
    Floats must be finite (nan, inf and 1e400 are refused: they crash the model later or end as
    NaN in its JSON)."""
    if typ is float and isinstance(value, int) and not isinstance(value, bool):
        if abs(value) > FLOAT_CEILING:
            raise ConfigError(path, value, f"must be <= {FLOAT_CEILING:g}")
        return float(value)
    if typ in (int, float) and isinstance(value, bool):
        raise ConfigError(path, value, f"expected {_TYPE_NAMES[typ]}")
    if not isinstance(value, typ):
        raise ConfigError(path, value, f"expected {_TYPE_NAMES.get(typ, typ.__name__)}")
    if typ is float and not math.isfinite(value):  # type: ignore[arg-type]
        raise ConfigError(path, value, "expected a finite number")
    return value


def check_ceiling(path: str, value: object) -> None:
    """The memory-keeping upper bound of one scalar field (SANE_MAX or the generic ceiling)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return
    hi = SANE_MAX.get(path, FLOAT_CEILING if isinstance(value, float) else INT_CEILING)
    if value > hi:
        shown = f"{hi:g}" if isinstance(hi, float) else f"{hi}"
        raise ConfigError(path, value, f"must be <= {shown} (a ceiling that keeps the model's "
                                       "memory sane)")


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
    values = {}
    # derived capacities last, so an error names the field the user gave (l1.sets, not l1.size_bytes)
    for path, value, f in sorted(_walk(cfg), key=lambda item: item[0] in DERIVED_FIELDS):
        check_type(path, value, field_type(f))
        check_rule(path, value, f.metadata)
        check_ceiling(path, value)
        values[path] = value
    for a, b in _PRODUCTS:
        if values[a] * values[b] > STRUCTURE_CEILING:
            raise ConfigError(b, values[b], f"{a} × {b} = {values[a]} × {values[b]} must be <= "
                                            f"{STRUCTURE_CEILING} (entries of one structure the "
                                            "model allocates)")
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
    _check_carveouts(cfg)
    _check_dram_timing(cfg)
    return cfg


def _check_memory(cfg: GPUConfig) -> None:
    """Rules the memory hierarchy relies on (sim/memory/): one line size, slices per channel,
    and a DRAM row exactly as large as the column bits the mapping leaves below row_bit."""
    if cfg.l2.line_bytes != cfg.l1.line_bytes:
        raise ConfigError("l2.line_bytes", cfg.l2.line_bytes,
                          f"must equal l1.line_bytes ({cfg.l1.line_bytes}): requests are line-sized")
    if cfg.l2.slices % cfg.dram.channels:
        raise ConfigError("l2.slices", cfg.l2.slices,
                          f"must be a multiple of dram.channels ({cfg.dram.channels})")
    line_sectors = cfg.l2.line_bytes // cfg.l1.sector_bytes
    if 0 < cfg.l2.input_queue < line_sectors:
        raise ConfigError("l2.input_queue", cfg.l2.input_queue,
                          f"must be 0 (unbounded) or >= the sectors of a line ({line_sectors}): "
                          "a smaller queue never has room for a line's requests")
    d = cfg.dram
    col_bits = d.row_bit - _bits(d.channels) - _bits(d.banks)
    if d.channel_bit < d.row_bit and d.bank_bit < d.row_bit and 1 << max(col_bits, 0) != d.row_bytes:
        raise ConfigError("dram.row_bit", d.row_bit,
                          f"the {col_bits} column bits below it (row_bit − channel bits − bank bits) "
                          f"must address dram.row_bytes = {d.row_bytes} bytes")


# the slice counts GPGPU-Sim has IPOLY tables for (sim/memory/dram_map.py ``IPOLY``)
IPOLY_SLICES = (16, 32, 64)


def carveouts(text: str) -> list[int]:
    """``l1.carveouts`` as sorted byte counts ([] when empty); ValueError when malformed."""
    if not text.strip():
        return []
    vals = sorted(int(p) * 1024 for p in text.split(","))
    if vals[0] < 0:
        raise ValueError
    return vals


def _check_carveouts(cfg: GPUConfig) -> None:
    try:
        cuts = carveouts(cfg.l1.carveouts)
    except ValueError:
        raise ConfigError("l1.carveouts", cfg.l1.carveouts, "expected KB counts separated by "
                                                            "commas, e.g. '0,8,16,32,64,96'") from None
    if cuts and not cfg.sm.smem_per_sm <= cuts[-1] <= cfg.l1.size_bytes:
        raise ConfigError("l1.carveouts", cfg.l1.carveouts,
                          f"the largest carve-out must hold sm.smem_per_sm ({cfg.sm.smem_per_sm} "
                          f"bytes) and fit in the unified l1.size_bytes ({cfg.l1.size_bytes})")
    if cfg.dram.partition_map == "ipoly":
        if cfg.l2.slices not in IPOLY_SLICES or cfg.l2.slices // cfg.dram.channels & (
                cfg.l2.slices // cfg.dram.channels - 1):
            raise ConfigError("dram.partition_map", "ipoly", "needs l2.slices = 16, 32 or 64 "
                                                             "(GPGPU-Sim's IPOLY tables) and a "
                                                             "power-of-two slices per channel")


def _check_dram_timing(cfg: GPUConfig) -> None:
    """Write turnaround and recovery are defined from the write latency (GPGPU-Sim's
    tWTR = WL + burst + tCDLR, tWTP = WL + burst + tWR): they need tWL."""
    d = cfg.dram
    for name in ("tCDLR", "tWR"):
        if getattr(d, name) and not d.tWL:
            raise ConfigError(f"dram.{name}", getattr(d, name),
                              "needs dram.tWL > 0 (with tWL = 0 writes time as reads)")
    if d.banks % d.bank_groups:
        raise ConfigError("dram.bank_groups", d.bank_groups, f"must divide dram.banks ({d.banks})")


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


# ---- limits that depend on the run, not only on the config -----------------------------------

def _delays(cfg: GPUConfig) -> list[tuple[str, int, str]]:
    """(field, core cycles, what) of every fixed delay, and of the unloaded DRAM miss as a whole
    (named by its largest term)."""
    u, d = cfg.units, cfg.dram
    out = [(f"units.{f.name}", getattr(u, f.name), "") for f in dataclasses.fields(u)
           if f.name.endswith(("_latency", "_ii"))]
    out += [(p, v, "") for p, v in (
        ("l1.hit_latency", cfg.l1.hit_latency), ("l2.hit_latency", cfg.l2.hit_latency),
        ("icnt.latency", cfg.icnt.latency), ("dram.fixed_latency", d.fixed_latency),
        ("dram.controller_latency", d.controller_latency),
        ("sm.issue_interval", cfg.sm.issue_interval),
        ("kernels.launch_latency", cfg.kernels.launch_latency),
        ("kernels.tb_launch_latency", cfg.kernels.tb_launch_latency))]
    timing = {f: getattr(d, f) for f in ("tRP", "tRCD", "tCL", "tRAS", "tRRD", "tRC", "tWL", "tWR",
                                         "burst_length")}
    dram = math.ceil(sum(timing.values()) * cfg.core_clock_mhz / d.clock_mhz)
    terms = {"l1.hit_latency": cfg.l1.hit_latency, "icnt.latency": 2 * cfg.icnt.latency,
             "l2.hit_latency": cfg.l2.hit_latency, "dram.controller_latency": d.controller_latency,
             f"dram.{max(timing, key=lambda k: timing[k])}": dram}
    out.append((max(terms, key=lambda k: terms[k]), sum(terms.values()),
                " (the unloaded L1 → L2 → DRAM miss)"))
    return out


def check_watchdog(cfg: GPUConfig, watchdog: int) -> None:
    """Refuse a config with a delay as long as the deadlock watchdog: such a run could never
    show progress in time and would be reported as a deadlock."""
    for path, cycles, what in _delays(cfg):
        if cycles >= watchdog:
            raise ConfigError(path, _get(cfg, path), f"gives a delay of {cycles} core cycles{what}, "
                                                     f"not below the deadlock watchdog ({watchdog}):"
                                                     " lower it or raise --watchdog")


def _get(cfg: GPUConfig, path: str) -> object:
    value: object = cfg
    for part in path.split("."):
        value = getattr(value, part)
    return value


# The hardware blocks' own parameter checks, by policy name prefix: (block, field, check(cfg)),
# from the blocks' specs (hdl/params/, hdl/ikra/params.py: no Amaranth), imported only when a
# policy uses them.
def _swm_check(c: GPUConfig) -> None:
    from hdl.params.swm import check_params
    check_params(c.sm.count, 24, 16, 10)


def _ikra_check(c: GPUConfig) -> None:
    from hdl.ikra.params import check_params
    check_params(c.sm.count, 32, 32, "steal")


def _block_checks():
    return {"onac": ("onac", "sm.count", _swm_check),
            "seq_det": ("seq_det", "sm.count", _swm_check),
            "ikra_": ("cta_sched", "sm.count", _ikra_check)}


def check_block_limits(cfg: GPUConfig, policies: dict[str, str]) -> None:
    """Before a run: the RTL blocks behind the chosen policies accept this config (their own
    parameter checks, e.g. ONAC's 2..64 SMs), else a ConfigError naming the config field."""
    checks = _block_checks()
    for kind, name in policies.items():
        if not isinstance(name, str):
            continue
        for prefix, (block, path, check) in checks.items():
            if name.startswith(prefix):
                try:
                    check(cfg)
                except ValueError as e:
                    raise ConfigError(path, _get(cfg, path), f"--{kind.replace('_', '-')} {name} uses the "
                                                   f"{block} block, whose check says: {e}") from None
