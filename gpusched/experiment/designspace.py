"""Design-space view (``gpusched report designspace``): every mechanism's headline gain, as its
paper measures it, against what its RTL costs in gates, with the paper's own claim beside it.

Gains come from the stored reproductions (the runs of each experiment's full grid, else its quick
grid, read from the results store and evaluated with the experiment's own headline rows), so the
view follows every re-run. Costs come from ``synth.area`` (cached), priced per SM: a block that
exists once per GPU is divided over the SMs, one per sub-core or per warp multiplied; the table
also gives the cost over the baseline block a mechanism takes the place of. The share
of an SM uses an estimate of the SM from its preset: one NAND2 equivalent per bit of register
file, shared memory and L1 (an SRAM bit cell with its periphery is about one NAND2; logic is left
out, so the share is an upper bound).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Literal

from gpusched import jsonout
from gpusched.config import GPUConfig, get_preset

Scope = Literal["gpu", "channel", "sm", "subcore", "warp"]
Better = Literal["higher", "lower", "percent"]


@dataclass(frozen=True)
class Priced:
    """One RTL block instance type of a mechanism and how many the GPU holds."""
    block: str
    params: dict
    per: Scope


@dataclass(frozen=True)
class Mechanism:
    """A point of the view: ``metric`` names a headline row of ``experiment``; ``better`` says
    how it reads as a gain in %: ``higher`` (× over baseline: (x − 1)·100), ``lower`` (a time or
    energy ratio: (1 − x)·100) or ``percent`` (already a saving in %)."""
    name: str
    experiment: str
    metric: str
    better: Better
    cost: tuple[Priced, ...]
    page: str  # docs/mechanisms/<page>.md: citation and what is modelled
    replaces: tuple[Priced, ...] = ()  # the baseline blocks it takes the place of (subtracted)


MECHANISMS: tuple[Mechanism, ...] = (
    Mechanism("GTO warp scheduler (vs LRR)", "baseline_warp",
              "GTO/LRR IPC, geometric mean over workloads", "higher",
              (Priced("warp_sched", {"policy": "gto"}, "subcore"),), "baselines",
              replaces=(Priced("warp_sched", {"policy": "lrr"}, "subcore"),)),
    Mechanism("SOCGPU, N = 8", "socgpu",
              "speedup SOCGPU (N=8, first, dual, 64 warps) over in-order GTO", "higher",
              (Priced("socgpu_issue", {"N": 8}, "warp"),), "socgpu",
              replaces=(Priced("inorder_issue", {}, "warp"),)),
    Mechanism("IKRA Steal (regular, time)", "ikra", "regular: time, Steal/G", "lower",
              (Priced("cta_sched", {"policy": "steal", "C": 15}, "gpu"),), "ikra",
              replaces=(Priced("cta_sched", {"policy": "rr", "C": 15}, "gpu"),)),
    Mechanism("ONAC (type A, energy)", "onac", "type A: ONAC energy saving vs all SMs (arith mean)",
              "percent",
              (Priced("onac", {"M": 32}, "gpu"), Priced("core_sampler", {}, "sm")), "onac"),
    Mechanism("Seq-Det (type A, energy)", "onac", "type A: Seq-Det energy saving vs all SMs",
              "percent", (Priced("seq_det", {"M": 32}, "gpu"),), "onac"),
    Mechanism("Perf-Sat (resources saved)", "perfsat",
              "Perf-Sat resource saving (1 − N̄_det/N_max)", "percent",
              (Priced("perf_sat", {}, "sm"), Priced("core_sampler", {}, "sm")), "perf-sat"),
    Mechanism("OWL +BLP scheduler (vs RR)", "owl", "+BLP over RR", "percent",
              (Priced("warp_sched", {"policy": "owl_blp"}, "subcore"),), "owl",
              replaces=(Priced("warp_sched", {"policy": "lrr"}, "subcore"),)),
    Mechanism("OWL: +BLP and prefetch (vs RR)", "owl", "OWL over RR, IPC (arithmetic mean)",
              "percent", (Priced("warp_sched", {"policy": "owl_blp"}, "subcore"),
                          Priced("owl_prefetch", {}, "channel")), "owl",
              replaces=(Priced("warp_sched", {"policy": "lrr"}, "subcore"),)),
    Mechanism("phase-aware single-level (vs GTO, type B)", "phase",
              "single-level type B: phase / GTO speedup", "higher",
              (Priced("warp_sched", {"policy": "phase"}, "subcore"),), "phase-aware",
              replaces=(Priced("warp_sched", {"policy": "gto"}, "subcore"),)),
    Mechanism("phase-aware two-level (vs TLRR, type A)", "phase",
              "two-level type A: tlphase / TLRR speedup", "higher",
              (Priced("warp_sched", {"policy": "tlphase", "N": 6}, "subcore"),), "phase-aware",
              replaces=(Priced("warp_sched", {"policy": "tlrr", "N": 6}, "subcore"),)),
    Mechanism("SRTF kernel scheduling (STP vs FIFO)", "srtf", "STP, SRTF / FIFO", "higher",
              (Priced("kernel_sched", {"policy": "srtf"}, "gpu"), Priced("srtf_pred", {}, "sm")),
              "srtf", replaces=(Priced("kernel_sched", {"policy": "fifo"}, "gpu"),)),
    Mechanism("concurrent kernels, interleaved (vs sequential)", "concurrent",
              "best achieved speedup over sequential (interleaved)", "higher",
              (Priced("ck_dispatch", {"policy": "interleaved"}, "gpu"),), "concurrent-kernels",
              replaces=(Priced("ck_dispatch", {"policy": "sequential"}, "gpu"),)),
)


def gain_percent(value: float | None, better: Better) -> float | None:
    if value is None:
        return None
    return {"higher": (value - 1) * 100, "lower": (1 - value) * 100, "percent": value}[better]


def instances_per_sm(per: Scope, cfg: GPUConfig) -> float:
    return {"gpu": 1 / cfg.sm.count, "channel": cfg.dram.channels / cfg.sm.count, "sm": 1.0,
            "subcore": float(cfg.sm.subcores), "warp": float(cfg.sm.warps_per_sm)}[per]


def sm_estimate_ge(cfg: GPUConfig) -> float:
    """The SM's storage in NAND2 equivalents: register file, shared memory and L1 bits."""
    return cfg.sm.regs_per_sm * 32 + cfg.sm.smem_per_sm * 8 + cfg.l1.size_bytes * 8


def block_params(p: Priced, cfg: GPUConfig) -> dict:
    """A block's parameters at the experiment's machine: a warp scheduler gets the preset's
    warps per sub-core."""
    if p.block == "warp_sched":
        return {"W": cfg.sm.warps_per_sm // cfg.sm.subcores, **p.params}
    if p.block == "ck_dispatch":                       # one core status row per SM
        return {"NC": cfg.sm.count, **p.params}
    return dict(p.params)


@dataclass
class Row:
    mechanism: Mechanism
    preset: str
    grid: str               # "full", "quick" or "" (not reproduced)
    ours: float | None      # the headline value as the paper states it
    paper: float | None
    unit: str
    gain: float | None      # %
    paper_gain: float | None
    ge_per_sm: float | None       # the mechanism's blocks
    um2_per_sm: float | None
    sm_share: float | None        # % of the SM estimate
    net_ge_per_sm: float | None   # minus the baseline blocks it replaces (may be negative)
    note: str = ""
    replaced_ge_per_sm: float = 0.0   # the baseline blocks it replaces


def headline_of(mech: Mechanism, store) -> tuple[str, dict | None]:
    """(grid used, headline row) from the stored runs: the full grid when every point is
    stored, else the quick grid when it is, else the grid with more finished runs."""
    from .registry import get_experiment
    from .report import headline_rows, results_of
    exp = get_experiment(mech.experiment)
    best = ("", None, -1)
    for label, grid in (("full", exp.grid), ("quick", exp.quick)):
        points = grid.check()
        runs = store.runs([p.key for p in points])
        done = sum(r.status == "done" for r in runs)
        if done and done == len(points):
            best = (label, runs, len(points))
            break
        if done > best[2]:
            best = (label, runs, done)
    label, runs, done = best
    if not runs or done <= 0:
        return "", None
    rows = headline_rows(exp, results_of(exp, runs), quick=label == "quick")
    return label, next((r for r in rows if r["metric"] == mech.metric), None)


AreaFn = Callable[[str, dict], dict]


def synth_area(liberty: str, progress=None) -> AreaFn:
    from synth.area import area

    from gpusched.blocks import get_block, parse_params

    def price(block: str, params: dict) -> dict:
        spec = get_block(block)
        return area(spec, parse_params(spec, params), liberty, progress=progress)
    return price


def collect(store, price: AreaFn, mechanisms=MECHANISMS, progress=None) -> list[Row]:
    """One row per mechanism; ``progress(text)`` hears ``N/M name`` before each (synthesis of
    a block not priced yet takes up to a minute)."""
    from .registry import get_experiment
    out = []
    for i, mech in enumerate(mechanisms, 1):
        if progress is not None:
            progress(f"designspace {i}/{len(mechanisms)}: {mech.name}")
        exp = get_experiment(mech.experiment)
        preset = str(exp.grid.preset[0])
        cfg = get_preset(preset)
        label, head = headline_of(mech, store)
        ours = head["ours"] if head else None
        paper = head["paper"] if head else None
        ge, um2 = cost_per_sm(mech.cost, cfg, price)
        replaced, _ = cost_per_sm(mech.replaces, cfg, price)
        if head is None:
            declared = next(h for h in exp.headline if h.metric == mech.metric)
            paper, unit = declared.paper, declared.unit
            note = f"not reproduced: gpusched reproduce {mech.experiment} --quick"
        else:
            unit, note = head["unit"], head["note"] if ours is None else (head.get("caveat")
                                                                           or "")
        if ge - replaced < 0:
            note = "; ".join(filter(None, [note, costlier_baseline(mech, cfg, ge, replaced)]))
        out.append(Row(mech, preset, label, ours, paper, unit,
                       gain_percent(ours, mech.better), gain_percent(paper, mech.better),
                       ge, um2, 100 * ge / sm_estimate_ge(cfg), ge - replaced, note, replaced))
    return out


def costlier_baseline(mech: Mechanism, cfg: GPUConfig, ge: float, replaced: float) -> str:
    """Why the net cost is negative, in numbers: the baseline blocks it replaces cost more per
    SM than the mechanism's own (SOCGPU: the in-order stage's scoreboard CAMs, docs/socgpu.md)."""
    blocks = " + ".join(f"{p.block} per {p.per}" for p in mech.replaces)
    return (f"negative net: the replaced {blocks} costs {replaced / 1e6:.2f} M GE per SM "
            f"({100 * replaced / sm_estimate_ge(cfg):.0f} % of the SM storage estimate), "
            f"more than this mechanism's {ge / 1e6:.2f} M (docs/mechanisms/{mech.page}.md)")


def cost_per_sm(blocks: tuple[Priced, ...], cfg: GPUConfig,
                price: AreaFn) -> tuple[float, float | None]:
    """(GE, µm²) per SM of ``blocks``; µm² None when the liberty gives none."""
    ge, um2 = 0.0, 0.0
    for p in blocks:
        res = price(p.block, block_params(p, cfg))
        n = instances_per_sm(p.per, cfg)
        ge += res["ge"] * n
        um2 = None if um2 is None or res.get("um2") is None else um2 + res["um2"] * n
    return ge, um2


def _fmt(value: float | None, spec: str) -> str:
    return "—" if value is None or (isinstance(value, float) and math.isnan(value)) else \
        format(value, spec)


def table_md(rows: list[Row]) -> list[str]:
    lines = ["| mechanism | preset | grid | ours | paper | gain ours (%) | gain paper (%) | "
             "GE per SM | µm² per SM | share of SM storage (%) | GE per SM over the replaced "
             "baseline | note |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        link = f"[{r.mechanism.name}](../../docs/mechanisms/{r.mechanism.page}.md)"
        lines.append(f"| {link} | {r.preset} | {r.grid or '—'} | {_fmt(r.ours, '.4g')} {r.unit} | "
                     f"{_fmt(r.paper, '.4g')} | {_fmt(r.gain, '+.1f')} | "
                     f"{_fmt(r.paper_gain, '+.1f')} | {_fmt(r.ge_per_sm, ',.0f')} | "
                     f"{_fmt(r.um2_per_sm, ',.0f')} | {_fmt(r.sm_share, '.3f')} | "
                     f"{_fmt(r.net_ge_per_sm, '+,.0f')} | {r.note} |")
    return lines


SHAPES = "osD^vP*Xph<>"       # one marker shape per mechanism (12), so no two look alike


def plot(rows: list[Row], png: Path) -> list[Path]:
    """Gain (%) against GE per SM (log x: costs span four decades); ours filled, the paper's
    claim hollow, joined by a thin line. Each mechanism has its own marker shape and a number
    beside its point (placed clear of the others; the legend names it), since colours must
    repeat past eight and some points sit at almost the same cost. A negative net cost (the
    replaced baseline costs more) is said in the legend."""
    from . import plotstyle
    plt = plotstyle.pyplot()
    fig, (ax,) = plotstyle.figure(plt, size=(7.4, 4.6))
    numbers, markers = [], []
    colours = [c for c in plotstyle.COLOURS if c != "#F0E442"]    # yellow: too faint for a marker
    for i, r in enumerate(rows):
        if r.ge_per_sm is None or r.ge_per_sm <= 0:
            continue
        colour = colours[i % len(colours)]
        shape = SHAPES[i % len(SHAPES)]
        name = f"{i + 1}  {r.mechanism.name}"
        if r.net_ge_per_sm is not None and r.net_ge_per_sm < 0:
            name += f"\n    (net {r.net_ge_per_sm / 1e6:+.2f} M GE/SM: replaces a costlier baseline)"
        ys = [y for y in (r.gain, r.paper_gain) if y is not None]
        if r.gain is not None:
            ax.plot([r.ge_per_sm], [r.gain], shape, color=colour, ms=6, label=name)
        if r.paper_gain is not None:
            ax.plot([r.ge_per_sm], [r.paper_gain], shape, mfc="none", color=colour, ms=6,
                    label=None if r.gain is not None else name)
        if len(ys) == 2:
            ax.plot([r.ge_per_sm] * 2, ys, "-", lw=0.8, color=colour)
        if ys:
            numbers.append((r.ge_per_sm, ys[0], str(i + 1)))
            markers += [(r.ge_per_sm, y) for y in ys[1:]]
    ax.set_xscale("log")
    ax.axhline(0, color="grey", lw=0.8, ls="--")
    ax.set_xlabel("cost: NAND2 equivalents per SM (Yosys; log scale)")
    plotstyle.set_ylabel(ax, "headline gain over the paper's baseline (%)")
    ax.set_title("Gain against gates (filled: ours, hollow: the paper)")
    ax.margins(x=0.12, y=0.12)
    plotstyle.legend_right(ax)
    plotstyle.label_points(ax, numbers, fontsize=7, marker_pt=4.5, obstacles=markers)
    return plotstyle.save(fig, png)


def write(rows: list[Row], out_dir: str | Path) -> list[Path]:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    data = [{"mechanism": r.mechanism.name, "experiment": r.mechanism.experiment,
             "metric": r.mechanism.metric, "preset": r.preset, "grid": r.grid, "ours": r.ours,
             "paper": r.paper, "unit": r.unit, "gain_pct": r.gain, "paper_gain_pct": r.paper_gain,
             "ge_per_sm": r.ge_per_sm, "um2_per_sm": r.um2_per_sm, "sm_share_pct": r.sm_share,
             "net_ge_per_sm": r.net_ge_per_sm,
             "note": r.note} for r in rows]
    (out / "designspace.json").write_text(jsonout.dumps(data, indent=1) + "\n")
    images = plot(rows, out / "designspace.png")
    md = ["# Design space: gain against gates", "",
          "Each mechanism's headline (from the stored reproductions; `grid` says which) beside "
          "the paper's, as a gain in % over the paper's baseline, and its RTL's cost per SM "
          "(Yosys; blocks once per GPU divided over the SMs), and that cost over the baseline "
          "block the mechanism replaces (LRR for GTO, the in-order issue stage for SOCGPU, "
          "round-robin CTA issue for IKRA, the left-over dispatcher for concurrent kernels; "
          "negative where ours is smaller). The SM share "
          "divides by the "
          "SM's storage (register file, shared memory, L1 at one NAND2 equivalent per bit), "
          "so it is an upper bound.", "", *table_md(rows), "",
          "![gain against gates](designspace.png)", "",
          "Re-render after any reproduction: `gpusched report designspace`.", ""]
    (out / "report.md").write_text("\n".join(md))
    return [out / "report.md", out / "designspace.json", *images]
