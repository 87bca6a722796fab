"""The characterisation table of docs/workloads.md: one row per program of a paper, ours beside
the paper's value where the paper gives one, and the mean absolute difference per column.

Rows come from ``experiments.characterize.summarise``; the paper's values from each program's
``INFO["paper_values"][paper]`` (OWL's CINV and row sharing in percent, as Tables 2 and 4 print
them; ours are fractions and are shown in percent).
"""

from __future__ import annotations

from experiments.characterize import mean_abs_difference

# (row key, header, the paper's key or None, scale of ours for display, format)
COMMON = [("scale", "scale", None, 1, "{:g}"), ("waves", "waves", None, 1, "{:.2f}"),
          ("warp_insts", "warp insts", None, 1, "{:,.0f}"), ("ipc", "IPC", None, 1, "{:.2f}"),
          ("ctas_per_sm", "CTAs/SM", None, 1, "{}"), ("limited_by", "limited by", None, 1, "{}"),
          ("l1_miss", "L1 miss %", None, 100, "{:.0f}"), ("l2_miss", "L2 miss %", None, 100, "{:.0f}"),
          ("memory_block", "MemBlock %", None, 100, "{:.0f}"),
          ("gto_rr_class", "GTO/RR", None, 1, "{}")]
PAPER_COLUMNS = {
    "owl": [("pmem", "PMEM", "pmem", 1, "{:.2f}"), ("perfect_l2", "Perfect-L2", None, 1, "{:.2f}"),
            ("cinv", "CINV %", "cinv", 100, "{:.0f}"),
            ("row_sharing", "row sharing %", "row_sharing", 100, "{:.0f}"),
            ("ctas_per_row", "CTAs/row", "ctas_per_row", 1, "{:.1f}")],
    "thesis_ch3": [("ctas_per_sm", "CTAs/SM", "ctas_per_core", 1, "{}"),
                   ("main_phases", "phases", "phases", 1, "{}")],
    "thesis_ch4": [("ch4_type", "ch.4 type", "fermi_type", 1, "{}"),
                   ("n_opt", "N_opt", "fermi_opt", 1, "{}")],
}


def _cell(value, fmt: str, scale: float) -> str:
    if value is None or value == "":
        return "–"
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return fmt.format(value * scale)
    return str(value)


def _paper_value(info: dict, paper: str, key: str):
    """The paper's value of ``key`` for a program (the first kernel's, for per-kernel tables)."""
    values = info.get("paper_values", {}).get(paper, {})
    if key in values:
        return values[key]
    for v in values.values():          # thesis ch.4: one dict per kernel label
        if isinstance(v, dict) and key in v:
            return v[key]
    return None


def markdown(paper: str, rows: list[dict], infos: dict[str, dict]) -> str:
    """The table for ``paper``: ``rows`` are summarise() rows with ``program`` set."""
    extra = PAPER_COLUMNS.get(paper, [])
    head = ["program", "paper's name"] + [c[1] for c in COMMON]
    shown = {c[0] for c in COMMON}          # a common column gets only its paper column here
    for key, title, pkey, _, _ in extra:
        head += ([] if key in shown else [title]) + ([f"{title} (paper)"] if pkey else [])
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    pairs: dict[str, list[tuple[float, float]]] = {c[0]: [] for c in extra if c[2]}
    agree: dict[str, list[bool]] = {c[0]: [] for c in extra if c[2]}
    for r in rows:
        info = infos[r["program"]]
        cells = [r["program"], str(info.get("papers", {}).get(paper, ""))]
        cells += [_cell(r.get(k), fmt, s) for k, _, _, s, fmt in COMMON]
        for key, _, pkey, scale, fmt in extra:
            ours = r.get(key)
            if key not in shown:
                cells.append(_cell(ours, fmt, scale))
            if not pkey:
                continue
            theirs = _paper_value(info, paper, pkey)
            cells.append(_cell(theirs, fmt, 1))
            if isinstance(theirs, (int, float)) and isinstance(ours, (int, float)):
                pairs[key].append((ours * scale, theirs))
            elif theirs is not None and ours is not None:
                agree[key].append(str(ours) == str(theirs))
        out.append("| " + " | ".join(cells) + " |")
    notes = []
    for key, _, pkey, _, _ in extra:
        if not pkey:
            continue
        mad = mean_abs_difference(pairs[key])
        if mad is not None:
            notes.append(f"{key}: mean |ours − paper| / paper = {100 * mad:.0f} % over "
                         f"{len(pairs[key])} programs")
        elif agree[key]:
            notes.append(f"{key}: {sum(agree[key])} of {len(agree[key])} agree")
    return "\n".join(out + ([""] + notes if notes else []))
