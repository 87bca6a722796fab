"""Import an Accel-Sim / GPGPU-Sim configuration: ``import_config(gpgpusim.config,
[trace.config])`` → (``GPUConfig``, rows), and ``imported_toml`` for ``gpusched config import``.

The option handlers live in ``gpgpusim_import``, the ignored options and their reasons in
``gpgpusim_options``; docs/config.md holds the mapping table.
"""

from __future__ import annotations

from pathlib import Path

from .errors import ConfigError
from .gpgpusim_file import Options, read_booksim, read_options
from .gpgpusim_import import (APPROXIMATED, DEFAULTS, LATENCIES, MAPPED, OPERAND_LATENCY, SHMEM,
                              Row, _Ctx, _latencies)
from .gpgpusim_options import ignored_reason, known_option
from .loader import dumps_toml, from_dict
from .schema import GPUConfig

# GPGPU-Sim pipeline behaviour every import gets (module docstring of gpgpusim_import)
PIPELINE = {"units.operand_latency": OPERAND_LATENCY, "units.ldst_shared": True, "units.ldst_ii": 1,
            "l1.store_ack": True, "l1.sector_acks": True, "kernels.stream_order": True,
            "icnt.latency": 20, "sm.blocking_atomics": True}


def _shared_memory(ctx: _Ctx) -> str:
    ctx.set(sm__smem_per_sm=ctx.int("-gpgpu_shmem_size"))
    return ""


def _booksim(ctx: _Ctx, folder: Path, rows: list[Row]) -> None:
    """``-inter_config_file``: flit size, input buffer (in packets of up to 4 flits: a 128-byte
    line and its header in 40-byte flits) and virtual channels of the Booksim network."""
    if ctx.int("-network_mode") != 1 or "-inter_config_file" not in ctx.opts:
        return
    value, where = ctx.opts["-inter_config_file"]
    path = folder / value
    if not path.is_file():
        rows.append(Row("-inter_config_file", value, where, "ignored", "",
                        "file not found beside gpgpusim.config: the flit size of -icnt_flit_size "
                        "and in-order inputs are used"))
        return
    b = read_booksim(path)

    def num(key: str, default: float) -> float:
        try:
            return float(b[key][0]) if key in b else default
        except ValueError:
            raise ConfigError(b[key][1] + f" {key}", b[key][0], "expected a number") from None
    flit = int(num("flit_size", 32))
    ctx.set(icnt__bytes_per_cycle=flit,
            icnt__inject_queue=max(1, int(num("input_buffer_size", 64)) // 4),
            icnt__fifo_inputs=int(num("num_vcs", 1)) == 1)
    rows.append(Row("-inter_config_file", value, where, "approximated",
                    "icnt.bytes_per_cycle, icnt.inject_queue, icnt.fifo_inputs",
                    f"{path.name}: flit_size {flit}, input_buffer_size "
                    f"{int(num('input_buffer_size', 64))} flits = packets of 4 flits, num_vcs "
                    f"{int(num('num_vcs', 1))} (1: one in-order queue per input); internal_speedup "
                    f"{num('internal_speedup', 1.0):g} and vc_buf_size not modelled"))


def import_config(gpgpusim: str | Path, trace: str | Path | None = None,
                  name: str | None = None) -> tuple[GPUConfig, list[Row]]:
    """The validated config of an Accel-Sim configuration and what became of every option.
    Without ``trace``, a ``trace.config`` beside ``gpgpusim`` is read when there is one."""
    g = Path(gpgpusim)
    opts: Options = read_options(g)
    t = Path(trace) if trace is not None else (g.parent / "trace.config")
    traced = t.is_file()
    if trace is not None and not traced:
        raise ConfigError(str(t), "", "cannot read: no such file")
    if traced:
        read_options(t, opts)
    for opt, (value, where) in opts.items():
        if not known_option(opt):
            raise ConfigError(f"{where} {opt}", value, "not a GPGPU-Sim 4.x / Accel-Sim option "
                                                       "(it would refuse it too)")
    ctx = _Ctx(opts)
    ctx.set(**{k.replace(".", "__"): v for k, v in PIPELINE.items()})
    rows: list[Row] = []
    done: set[str] = set()
    for opt, handler in MAPPED.items():
        if handler in done:
            continue
        done.add(handler)           # type: ignore[arg-type]
        before = set(ctx.fields)
        note = handler(ctx)
        fields = ", ".join(sorted(set(ctx.fields) - before)) or "(as set above)"
        for o in [k for k, h in MAPPED.items() if h is handler]:
            status = "approximated" if o in APPROXIMATED else "mapped"
            value, where = opts.get(o, (DEFAULTS.get(o, ""), "GPGPU-Sim default"))
            if o in opts or o in DEFAULTS:
                rows.append(Row(o, value, where, status if o in opts else "default", fields, note))
    rows.append(_group(ctx, opts, SHMEM, _shared_memory(ctx), "sm.smem_per_sm"))
    rows.append(_group(ctx, opts, LATENCIES, _latencies(ctx, traced), "units.*_latency, *_ii"))
    _booksim(ctx, g.parent, rows)
    for opt, (value, where) in opts.items():
        if opt not in MAPPED and opt not in SHMEM and opt not in LATENCIES \
                and opt != "-inter_config_file":
            rows.append(Row(opt, value, where, "ignored", "", ignored_reason(opt)))
    data: dict = {}
    for path, value in ctx.fields.items():
        node = data
        *heads, last = path.split(".")
        for h in heads:
            node = node.setdefault(h, {})
        node[last] = value
    data["name"] = name or g.parent.name.lower() or "imported"
    try:
        cfg = from_dict(data)
    except ConfigError as e:        # name the option that set the field (else the file)
        row = next((r for r in rows if r.status != "ignored" and e.where in r.fields.split(", ")),
                   None)
        where = f"{row.where} {row.option.split()[0]}" if row else str(g)
        raise ConfigError(f"{where} (imported as {e.where})", e.value, e.allowed) from None
    return cfg, rows


def _group(ctx: _Ctx, opts: Options, names: tuple[str, ...], note: str, fields: str) -> Row:
    given = [n for n in names if n in opts]
    where = opts[given[0]][1] if given else "GPGPU-Sim default"
    return Row(" ".join(given) or names[0], " ".join(opts[n][0] for n in given), where,
               "mapped", fields, note)


def imported_toml(cfg: GPUConfig, rows: list[Row], sources: list[str]) -> str:
    """The config as TOML (loads back to the same config) with the import report on top."""
    head = [f"# imported by gpusched config import from {', '.join(sources)}",
            "# option → fields (status: note); docs/config.md explains each mapping"]
    for r in rows:
        if r.status == "ignored":
            head.append(f"#   {r.option} = {r.value} → ignored: {r.note}")
        else:
            note = f": {r.note}" if r.note else ""
            head.append(f"#   {r.option} = {r.value} → {r.fields} ({r.status}{note})")
    return "\n".join(head) + "\n" + dumps_toml(cfg)
