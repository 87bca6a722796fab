"""The parity tables and correlation plots of docs/validation.md: the parity suite regenerated,
run on a configuration of ``trace_parity.PARITY`` (its preset, optionally changed by ``--set``)
and compared with Accel-Sim's recorded numbers (data/accelsim/).

    python -m experiments.trace_parity_report CONFIG [CONFIG ...] [--set k=v ...] [--plot OUT.png]

Prints a Markdown table per configuration (cycles, ratio, warp instructions) with the mean
absolute error and Pearson r of log cycles. (Speed is measured separately, both simulators as
whole processes back to back: docs/validation.md.)
"""

from __future__ import annotations

import argparse
import json
import math
import tempfile
import warnings
from pathlib import Path

DATA = Path(__file__).parents[1] / "data" / "accelsim"


def measure(config: str, overrides: list[str], preset: str | None = None) -> list[dict]:
    """One row per case: Accel-Sim's recorded numbers for ``config`` beside ours on its preset
    (or ``preset``) with ``overrides``."""
    from gpusched.config import resolve_config
    from sim.run import simulate
    from sim.workload.accelsim import read_trace_dir
    from sim.workload.trace_parity import CASES, PARITY, write_case
    p = PARITY[config]
    ref = json.loads((DATA / p.data).read_text())["cases"]
    cfg = resolve_config(preset or p.preset, overrides)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in CASES:
            d = write_case(name, Path(tmp), p.family)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                wl = read_trace_dir(d, cache=Path(tmp) / "cache")
            r = simulate(cfg, wl, memory="hierarchy")
            a = ref[name]
            rows.append({"case": name, "what": CASES[name][0], "accelsim": a["cycles"],
                         "ours": r["cycles"], "ratio": r["cycles"] / a["cycles"],
                         "warp_insts": r["warp_insts"]})
    return rows


def summary(rows: list[dict]) -> dict:
    errors = [abs(r["ratio"] - 1) for r in rows]
    xs = [math.log(r["accelsim"]) for r in rows]
    ys = [math.log(r["ours"]) for r in rows]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    cov = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    r = cov / math.sqrt(sum((x - mx) ** 2 for x in xs) * sum((y - my) ** 2 for y in ys))
    return {"mae": sum(errors) / len(errors), "within": sum(e <= 0.10 for e in errors),
            "n": len(rows), "pearson_log": r}


def markdown(rows: list[dict]) -> str:
    out = ["| case | exercises | Accel-Sim cycles | ours | ours/AS | warp insts |",
           "|---|---|---:|---:|---:|---:|"]
    for r in rows:
        mark = "" if abs(r["ratio"] - 1) <= 0.10 else " ✗"
        out.append(f"| {r['case']} | {r['what']} | {r['accelsim']:,} | {r['ours']:,} | "
                   f"{r['ratio']:.2f}{mark} | {r['warp_insts']:,} |")
    s = summary(rows)
    out.append(f"\n{s['within']}/{s['n']} within ±10 %, mean absolute error {100 * s['mae']:.1f} %, "
               f"Pearson r (log cycles) {s['pearson_log']:.3f}")
    return "\n".join(out)


def plot(series: dict[str, list[dict]], path: Path) -> None:
    """Log–log scatter of ours vs Accel-Sim cycles per series, with y = x and the ±10 % band."""
    from gpusched.experiment import plotstyle
    plt = plotstyle.pyplot()
    fig, (ax,) = plotstyle.figure(plt, size=(5.8, 5.6))
    lo = min(min(r["accelsim"], r["ours"]) for rows in series.values() for r in rows) / 1.5
    hi = max(max(r["accelsim"], r["ours"]) for rows in series.values() for r in rows) * 1.5
    ax.plot([lo, hi], [lo, hi], color="black", lw=1, label="y = x")
    ax.fill_between([lo, hi], [lo * 0.9, hi * 0.9], [lo * 1.1, hi * 1.1], color="0.85", label="±10 %")
    for (label, rows), marker in zip(series.items(), "os^"):
        s = summary(rows)
        ax.scatter([r["accelsim"] for r in rows], [r["ours"] for r in rows], marker=marker, s=28,
                   label=f"{label}: MAE {100 * s['mae']:.0f} %, r = {s['pearson_log']:.2f}")
    ax.set(xscale="log", yscale="log", xlim=(lo, hi), ylim=(lo, hi),
           xlabel="Accel-Sim cycles", ylabel="gpusched cycles",
           title=f"Parity suite, {len(list(series.values())[0])} traces")
    ax.grid(True, which="major", axis="both", alpha=0.3)
    ax.legend(fontsize=7, loc="upper left")
    *others, last = series.values()
    plotstyle.label_points(ax, [(r["accelsim"], r["ours"], r["case"]) for r in last],
                           obstacles=[(r["accelsim"], r["ours"]) for rows in others for r in rows])
    fig.savefig(path)
    plt.close(fig)


def main() -> None:
    from sim.workload.trace_parity import PARITY
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("config", nargs="*", choices=sorted(PARITY), help="configuration(s); each a series")
    ap.add_argument("--set", action="append", default=[], help="override for every configuration")
    ap.add_argument("--preset", help="run this preset instead of each configuration's own")
    ap.add_argument("--plot", help="write the correlation plot here")
    ap.add_argument("--json", help="write the rows here")
    ap.add_argument("--from-json", help="plot rows written by --json instead of measuring")
    a = ap.parse_args()
    if a.from_json:
        series = json.loads(Path(a.from_json).read_text())
    else:
        series = {c: measure(c, a.set, a.preset) for c in a.config}
    for c, rows in series.items():
        where = f" (Accel-Sim {PARITY[c].accelsim})" if c in PARITY else ""
        print(f"### {c}{where}\n\n{markdown(rows)}\n")
    if a.plot:
        plot(series, Path(a.plot))
    if a.json:
        Path(a.json).write_text(json.dumps(series, indent=1))


if __name__ == "__main__":
    main()
