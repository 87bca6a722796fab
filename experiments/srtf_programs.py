"""SRTF ([SRTF]) on the program suite: the experiment ``gpusched reproduce srtf`` runs.

The eight ERCBench kernels of [SRTF ERCBench] (Table 5) are one kernel of a suite program each
(``program:NAME~KERNEL``, sim/multiprog/compose.py); their 56 ordered pairs run in the
cycle-level model with the memory hierarchy on gtx480 (runner kind ``srtf_program``), under
FIFO, MPMax, SRTF, SRTF/Adaptive and zero-sampling SRTF, at +100 cycles, +25 % and +50 %. Every
member runs at one program scale, so the kernels' block counts keep Table 5's proportions (the
programs' grids at scale 1 are the paper's). The Parboil2 programs (cutcp, LBM, SGEMM) run alone
for the predictor's accuracy ([SRTF ERCBench]: shapes of the predictor study).

The block-level mode stays the fast option: ``check`` points run a pair in both models (block
records measured from each kernel's own cycle-level run) and the headline states the NTT error.

Quick grid: 8 of the 56 pairs at +100 cycles, every policy, at ``QUICK_SCALE`` (no SHA1 pair:
SHA1 alone costs 95 s there, a pair about as much per policy); the eight kernels alone (Table
5's columns); one check pair under FIFO, MPMax and SRTF. Full grid: ``FULL_SCALE``, estimated in
docs/mechanisms/srtf.md "On the program suite".
"""

from __future__ import annotations

from experiments.srtf_program_runs import KIND
from experiments.thesis_runs import GridUnion
from gpusched.experiment.grid import Grid
from gpusched.experiment.query import ResultSet
from gpusched.experiment.registry import Experiment, Headline, Metric, Table
from sim.multiprog.compose import ordered_pairs
from sim.multiprog.metrics import gmean

# [SRTF ERCBench] Table 5's kernels: label → member (the paper's values are in each program's
# INFO["paper_values"]["srtf"])
MEMBERS = {"AES-d": "program:aes~aesDecrypt128", "AES-e": "program:aes~aesEncrypt128",
           "NLM2": "program:nlm2", "JPEG-d": "program:jpeg~jpeg_idct",
           "JPEG-e": "program:jpeg~jpeg_dct", "RayTracing": "program:raytrace",
           "SAD": "program:sad~mb_sad_calc", "SHA1": "program:sha1"}
TABLE5_KEYS = ("resident_ctas", "threads", "blocks", "standalone_cycles", "mean_block_cycles",
               "rsd")
PARBOIL = {"cutcp": "program:cutcp", "LBM": "program:lbm", "SGEMM": "program:sgemm"}
LABEL_OF = {m: label for label, m in {**MEMBERS, **PARBOIL}.items()}

POLICIES = ["srtf_fifo", "mpmax", "srtf", "adaptive", "srtf_zero"]
OFFSETS = ["100", "25%", "50%"]
QUICK_SCALE = 0.05
FULL_SCALE = 0.25
PAIRS = ordered_pairs(list(MEMBERS.values()))
_Q = MEMBERS
QUICK_PAIRS = [f"{_Q[a]}+{_Q[b]}" for a, b in (
    ("AES-e", "JPEG-d"), ("JPEG-d", "AES-e"), ("RayTracing", "JPEG-e"), ("JPEG-e", "RayTracing"),
    ("SAD", "NLM2"), ("RayTracing", "AES-d"), ("NLM2", "JPEG-d"), ("AES-d", "SAD"))]
OVERRIDES = {"kernels.concurrent_sm": True}


def _grid(name: str, pairs: list[str], offsets: list[str], scale: float,
          alone: list[str], check: list[str]) -> GridUnion:
    parts = (Grid(name=f"{name}_pairs", workloads=pairs, preset=["gtx480"], kind=KIND,
                  overrides=dict(OVERRIDES),
                  params={"task": ["pair"], "policy": POLICIES, "offset": offsets,
                          "scale": [scale]}),
             Grid(name=f"{name}_alone", workloads=alone, preset=["gtx480"], kind=KIND,
                  overrides=dict(OVERRIDES),
                  params={"task": ["alone"], "policy": ["srtf_fifo"], "scale": [scale]}),
             Grid(name=f"{name}_check", workloads=check, preset=["gtx480"], kind=KIND,
                  overrides=dict(OVERRIDES),
                  params={"task": ["check"], "policy": CHECK_POLICIES, "offset": ["100"],
                          "scale": [scale]}))
    return GridUnion(name=name, workloads=list(dict.fromkeys(pairs + alone + check)),
                     preset=["gtx480"], seeds=[0], kind=KIND, parts=parts)


# the block-level mode against the cycle-level model: the catalogue study's four check kernels
CHECK_POLICIES = ["srtf_fifo", "mpmax", "srtf"]
CHECK_PAIRS = ordered_pairs([MEMBERS[k] for k in ("JPEG-d", "AES-e", "RayTracing", "SAD")])
GRID = _grid("srtf_programs", PAIRS, OFFSETS, FULL_SCALE,
             list(MEMBERS.values()) + list(PARBOIL.values()), CHECK_PAIRS)
QUICK = _grid("srtf_programs_quick", QUICK_PAIRS, ["100"], QUICK_SCALE, list(MEMBERS.values()),
              [f"{MEMBERS['AES-e']}+{MEMBERS['JPEG-d']}"])


def label(workload: str) -> str:
    """``program:aes~aesEncrypt128+program:jpeg~jpeg_idct`` → ``AES-e+JPEG-d``."""
    return "+".join(LABEL_OF.get(m, m) for m in workload.split("+"))


def means(values: list[float]) -> dict[str, float]:
    """Arithmetic, harmonic and geometric means."""
    vals = list(values)
    return {"arith": sum(vals) / len(vals), "harm": len(vals) / sum(1 / v for v in vals),
            "geo": gmean(vals)}


def pair_values(results: ResultSet, policy: str, metric: str, offset: str = "100") -> list[float]:
    vals = [r[metric] for r in results.rows if r.get("task") == "pair"
            and r.get("policy") == policy and str(r.get("offset")) == offset
            and r.get(metric) is not None]
    if not vals:
        raise ValueError(f"no {policy} runs at offset {offset}")
    return vals


def mean(policy: str, metric: str, kind: str = "geo", offset: str = "100"):
    return lambda results: means(pair_values(results, policy, metric, offset))[kind]


def ratio(a, b):
    return lambda results: a(results) / b(results)


def paper_ratio_rows(mean) -> list[Headline]:
    """The headlines that compare policies, each beside the paper's figure ([SRTF]); ``mean``
    (policy, metric) → a function of the results: the catalogue's and the programs' means."""
    H = Headline
    return [
        H("STP, SRTF / FIFO", "×", ratio(mean("srtf", "stp"), mean("srtf_fifo", "stp")), 1.18),
        H("ANTT, FIFO / SRTF", "×", ratio(mean("srtf_fifo", "antt"), mean("srtf", "antt")), 2.25),
        H("STP, SRTF / MPMax", "×", ratio(mean("srtf", "stp"), mean("mpmax", "stp")), 1.16),
        H("ANTT, MPMax / SRTF", "×", ratio(mean("mpmax", "antt"), mean("srtf", "antt")), 1.3),
        H("STP, SRTF below SJF", "%", lambda r: 100 * (1 - mean("srtf", "stp")(r)
                                                       / mean("srtf", "sjf.stp")(r)), 12.64),
        H("StrictF, FIFO", "", mean("srtf_fifo", "fairness"), 0.19),
        H("StrictF, SRTF/Adaptive", "", mean("adaptive", "fairness"), 0.56),
        H("StrictF, Adaptive / FIFO", "×", ratio(mean("adaptive", "fairness"),
                                                 mean("srtf_fifo", "fairness")), 2.95),
        H("STP, Adaptive / FIFO", "×", ratio(mean("adaptive", "stp"), mean("srtf_fifo", "stp")),
          1.12),
    ]


def table5(member: str) -> list:
    """[SRTF] Table 5's row of ``member`` (None where the paper gives no value)."""
    from workloads import programs
    program, _, kernel = member.removeprefix("program:").partition("~")
    info = programs.load(program).INFO
    values = info.get("paper_values", {}).get("srtf", {})
    values = values.get(kernel or info["kernels"][0], values)      # SAD's are not per kernel
    return [values.get(k) for k in TABLE5_KEYS]


def _fmt(value, column: int) -> str:
    return "—" if value is None else f"{value:.1f}" if column == 5 else f"{value:,.0f}"


def table5_section(results: ResultSet) -> list[str]:
    """Each kernel alone beside [SRTF] Table 5 (the paper at full size; ours at the grid's
    scale, so blocks and standalone cycles are smaller by design)."""
    alone = {label(r["workload"]): r for r in results.rows      # the report shows labels
             if r.get("task") == "alone" and r.get("table5.R")}
    if not alone:
        return []
    lines = ["### Each kernel alone, beside [SRTF] Table 5 (paper / ours)", "",
             "| kernel | scale | R | threads/block | blocks | standalone cycles "
             "| mean block time | %RSD |",
             "|---|---|---|---|---|---|---|---|"]
    for lab, member in {**MEMBERS, **PARBOIL}.items():
        r = alone.get(lab)
        if r is None:
            continue
        p = table5(member)
        ours = [r["table5.R"], r["table5.threads"], r["table5.blocks"], r["table5.standalone"],
                r["table5.block_time"], r["table5.rsd"]]
        cells = [f"{_fmt(a, i)} / {_fmt(b, i)}" for i, (a, b) in enumerate(zip(p, ours))]
        lines.append(f"| {lab} | {r.get('scale')} | " + " | ".join(cells) + " |")
    return lines + [""]


def _headline() -> list[Headline]:
    from experiments import srtf
    H = Headline
    rows = []
    for metric, unit_label, paper in (("stp", "STP", {"srtf_fifo": 1.35, "srtf": 1.59}),
                                      ("antt", "ANTT", {"srtf_fifo": 3.66, "srtf": 1.63})):
        for policy, name in (("srtf_fifo", "FIFO"), ("srtf", "SRTF")):
            rows.append(H(f"{unit_label}, {name}", "", mean(policy, metric), paper[policy],
                          "geo. mean over the pairs at +100 cycles"))
            for kind, word in (("arith", "arithmetic"), ("harm", "harmonic")):
                rows.append(H(f"{unit_label}, {name} ({word} mean)", "",
                              mean(policy, metric, kind)))
    rows += paper_ratio_rows(mean)
    rows += [
        H("STP, MPMax", "", mean("mpmax", "stp")),
        H("ANTT, MPMax", "", mean("mpmax", "antt")),
        H("STP, SRTF zero-sampling", "", mean("srtf_zero", "stp")),
        H("ANTT, SRTF zero-sampling", "", mean("srtf_zero", "antt")),
        H("STP, SJF (analytic)", "", mean("srtf", "sjf.stp")),
        H("STP, serial FIFO (analytic)", "", mean("srtf", "serial.stp")),
        H("ANTT, SJF (analytic)", "", mean("srtf", "sjf.antt")),
        H("ANTT, serial FIFO (analytic)", "", mean("srtf", "serial.antt")),
        H("predictions within 2×, kernels alone", "%", srtf.within_2x("alone", "srtf_fifo"),
          note="the document: mostly within 2×"),
        H("predictions within 2×, under MPMax", "%", srtf.within_2x("pair", "mpmax")),
        H("predictions within 2×, under SRTF", "%", srtf.within_2x("pair", "srtf")),
        H("block vs cycle model: mean NTT error", "%", lambda r: srtf.check_error(r, None),
          note="check pairs; block records measured from each kernel's cycle-level run"),
        H("block vs cycle model: max NTT error", "%", srtf.check_error),
        H("SRTF switches per pair (mean)", "", lambda r: sum(pair_values(r, "srtf", "switches"))
          / len(pair_values(r, "srtf", "switches"))),
    ]
    for off in OFFSETS[1:]:
        for p, name in (("srtf_fifo", "FIFO"), ("srtf", "SRTF")):
            rows += [H(f"STP at +{off}, {name}", "", mean(p, "stp", offset=off)),
                     H(f"ANTT at +{off}, {name}", "", mean(p, "antt", offset=off))]
    return rows


def program_experiment() -> Experiment:
    """The program-suite experiment (the catalogue's per-run metrics, plots and predictor
    helpers from experiments/srtf.py)."""
    from experiments import srtf
    names = {"workload": {w: label(w) for w in dict.fromkeys(
        PAIRS + list(MEMBERS.values()) + list(PARBOIL.values()))}}
    return Experiment(
        name="srtf",
        title="SRTF: preemptive thread-block scheduling of concurrent kernels, on the program "
              "suite, cycle-level ([SRTF])",
        grid=GRID, quick=QUICK,
        metrics=[Metric("stp", "STP"), Metric("antt", "ANTT"), Metric("fairness", "StrictF"),
                 Metric("stp_100", "STP at +100", compute=srtf.at_100("stp")),
                 Metric("antt_100", "ANTT at +100", compute=srtf.at_100("antt")),
                 Metric("fairness_100", "StrictF at +100", compute=srtf.at_100("fairness"))],
        tables=[Table("stp_100", rows="workload", columns="policy",
                      title="STP per pair at +100 cycles (the paper gives no per-pair values)"),
                Table("antt_100", rows="workload", columns="policy",
                      title="ANTT per pair at +100 cycles")],
        plots=list(srtf.PROGRAM_PLOTS),
        headline=_headline(), labels={"policy": "kernel scheduler"}, names=names,
        description=__doc__, sections=(table5_section,))
