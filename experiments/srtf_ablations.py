"""Knob ablations of the SRTF reproduction ([SRTF], [SRTF STP, ANTT] "knob ablations"): SRTF and
SRTF/Adaptive with one knob changed from the spec's default, through the scheduler names of
sim/policies/srtf.py (``srtf[:h_pct[:sample_sm[:samples[:resident]]]]``), on the pairs at +100
cycles. Defaults: h = 0, sampling SM 0, one record before a sample decision, Resident =
min(R, cap). Resident = R only differs where a cap is below R, i.e. under Adaptive's sharing.
"""

from __future__ import annotations

from experiments.srtf_runs import KIND
from gpusched.experiment.grid import Grid
from gpusched.experiment.query import ResultSet
from gpusched.experiment.registry import Headline, Metric, Table
from sim.multiprog.metrics import gmean

# (scheduler name, its default, label)
VARIANTS = [("srtf:10", "srtf", "SRTF, h = 0.1"),
            ("srtf:0:free", "srtf", "SRTF, sampling SM: first free"),
            ("srtf:0:sm0:2", "srtf", "SRTF, 2 records per sample"),
            ("adaptive:0:sm0:1:R", "adaptive", "Adaptive, Resident = R")]
BASES = {"srtf": "SRTF (defaults)", "adaptive": "SRTF/Adaptive (defaults)"}
LABEL = {**BASES, **{v: label for v, _, label in VARIANTS}}
# of the quick grid's pairs, four without SHA1 (fast); SAD+NLM2 puts Adaptive in sharing mode
QUICK_PAIRS = ["ercb_aes_e+ercb_jpeg_d", "ercb_jpeg_d+ercb_aes_e", "ercb_raytracing+ercb_aes_d",
               "ercb_sad+ercb_nlm2"]


def knob_grid(name: str, pairs: list[str], overrides: dict) -> Grid:
    return Grid(name=f"{name}_knobs", workloads=pairs, preset=["gtx480"], kind=KIND,
                overrides=dict(overrides),
                params={"task": ["pair"], "policy": [v for v, _, _ in VARIANTS],
                        "offset": ["100"]})


def _rows(results: ResultSet, policy: str, pairs: set[str] | None = None) -> list[dict]:
    return [r for r in results.rows if r.get("task") == "pair" and r.get("policy") == policy
            and str(r.get("offset")) == "100" and r.get("stp") is not None
            and r.get("share_cap", 3) == 3 and r.get("timing", "calibrated") == "calibrated"
            and (pairs is None or r["workload"] in pairs)]


def _paired(results: ResultSet, variant: str, base: str) -> tuple[list[dict], list[dict]]:
    """Runs of ``variant`` and of ``base`` on the workloads both ran (same pairs)."""
    common = {r["workload"] for r in _rows(results, variant)} & \
        {r["workload"] for r in _rows(results, base)}
    if not common:
        raise ValueError(f"no {variant} runs beside {base}")
    return _rows(results, variant, common), _rows(results, base, common)


def change(variant: str, base: str, metric: str):
    """Geometric mean of ``metric`` under ``variant`` / the same under ``base``, same pairs."""
    def ours(results: ResultSet) -> float:
        v, b = _paired(results, variant, base)
        return gmean(r[metric] for r in v) / gmean(r[metric] for r in b)
    return ours


def gm_knob(variant: str, base: str, metric: str):
    def ours(results: ResultSet) -> float:
        return gmean(r[metric] for r in _paired(results, variant, base)[0])
    return ours


def switches(policy: str, base: str):
    """Mean number of kernel switches per workload."""
    def ours(results: ResultSet) -> float:
        rows = _paired(results, policy, base)[0]
        return sum(r.get("switches") or 0 for r in rows) / len(rows)
    return ours


def median_sampling(policy: str, base: str):
    def ours(results: ResultSet) -> float:
        xs = sorted(x for r in _paired(results, policy, base)[0]
                    for x in (r.get("delays.sampling") or []))
        if not xs:
            raise ValueError(f"no sampling delays under {policy}")
        return float(xs[len(xs) // 2])
    return ours


def headline() -> list[Headline]:
    H = Headline
    rows = []
    for v, base, label in VARIANTS:
        note = f"ablation, +100 cycles; × = against {BASES[base]} on the same pairs"
        rows += [H(f"STP, {label}", "", gm_knob(v, base, "stp"), note=note),
                 H(f"STP, {label} / defaults", "×", change(v, base, "stp")),
                 H(f"ANTT, {label} / defaults", "×", change(v, base, "antt")),
                 H(f"StrictF, {label} / defaults", "×", change(v, base, "fairness")),
                 H(f"switches per workload, {label}", "", switches(v, base))]
    for base in BASES:
        other = next(v for v, b, _ in VARIANTS if b == base)
        rows.append(H(f"switches per workload, {BASES[base]}", "", switches(base, other),
                      note="on the pairs of the ablations"))
    for v in ("srtf", "srtf:0:free"):
        rows.append(H(f"median sampling delay, {LABEL[v]}", "cycles",
                      median_sampling(v, "srtf:0:free" if v == "srtf" else "srtf")))
    return rows


def stp_knob(s: dict):
    """Per-run metric for the knob table: STP of SRTF / Adaptive runs at +100, defaults or one
    knob changed."""
    ok = s.get("offset") == "100" and "sjf" in s and s.get("share_cap", 3) == 3 and \
        s.get("timing", "calibrated") == "calibrated" and s.get("variant") in LABEL
    return s.get("stp") if ok else None


METRICS = [Metric("stp_knob", "STP (knob ablation)", compute=stp_knob)]
TABLES = [Table("stp_knob", rows="workload", columns="policy",
                title="Knob ablations: STP per workload at +100 cycles")]


def draw_knobs(exp, results: ResultSet, plt):
    """Each variant's geometric-mean STP, ANTT and StrictF as a change in % from its defaults on
    the same pairs: bars from 0 (= no change), so a bar's length is the change itself (a ratio
    axis cut near 1 would make a 1 % change look like a tenfold one). Higher is better for STP
    and StrictF, lower for ANTT."""
    from gpusched.experiment import plotstyle
    fig, axes = plotstyle.figure(plt, 3, size=(4.2, 3.4), sharey=True)
    shown = [(v, b) for v, b, _ in VARIANTS if _rows(results, v) and _rows(results, b)]
    panels = [("stp", "STP (higher is better)"), ("antt", "ANTT (lower is better)"),
              ("fairness", "StrictF (higher is better)")]
    changes = {m: [100 * (change(v, b, m)(results) - 1) for v, b in shown] for m, _ in panels}
    top = max([1.0] + [abs(y) for ys in changes.values() for y in ys if y == y]) * 1.35
    for ax, (metric, title) in zip(axes, panels):
        ys = changes[metric]
        bars = ax.bar(range(len(shown)), ys, 0.6,
                      color=[plotstyle.COLOURS[i] for i in range(len(shown))])
        ax.bar_label(bars, [f"{y:+.1f} %" if round(y, 1) else "0.0 %" for y in ys], fontsize=7,
                     padding=2)
        ax.axhline(0.0, color="black", lw=0.8)
        ax.set_ylim(-top, top)
        ax.set_title(title)
        plotstyle.category_axis(ax, [LABEL[v] for v, _ in shown])
    plotstyle.set_ylabel(axes[0], "change from the defaults (%)")
    return fig
