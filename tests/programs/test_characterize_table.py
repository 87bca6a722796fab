"""The characterisation table: ours beside the paper's values, percents as the paper prints them,
the per-column mean difference; a bad paper name is a one-line error."""

from __future__ import annotations

import subprocess
import sys

from experiments.characterize_table import markdown


def _row(program: str, pmem: float, cinv: float) -> dict:
    return {"program": program, "warp_insts": 1000, "ipc": 1.0, "ctas_per_sm": 4,
            "limited_by": "threads", "l1_miss": 0.5, "l2_miss": 0.25, "memory_block": 0.1,
            "gto_rr_class": "RR", "pmem": pmem, "perfect_l2": 1.2, "cinv": cinv,
            "row_sharing": None, "ctas_per_row": None}


def test_owl_table_compares_percents_and_means_the_difference():
    infos = {"a": {"papers": {"owl": "A"}, "paper_values": {"owl": {"pmem": 2.0, "cinv": 50}}},
             "b": {"papers": {"owl": "B"}, "paper_values": {"owl": {"pmem": 1.0}}}}
    text = markdown("owl", [_row("a", 3.0, 0.40), _row("b", 1.5, 0.10)], infos)
    lines = text.splitlines()
    a = [c.strip() for c in lines[2].strip("|").split("|")]
    head = [c.strip() for c in lines[0].strip("|").split("|")]
    assert a[head.index("CINV %")] == "40" and a[head.index("CINV % (paper)")] == "50"
    assert a[head.index("PMEM")] == "3.00" and a[head.index("PMEM (paper)")] == "2.00"
    # PMEM: |3-2|/2 = 50 %, |1.5-1|/1 = 50 % → 50 %; CINV: |40-50|/50 = 20 % over one program
    assert "pmem: mean |ours − paper| / paper = 50 % over 2 programs" in text
    assert "cinv: mean |ours − paper| / paper = 20 % over 1 programs" in text


def test_unknown_paper_is_one_line():
    r = subprocess.run([sys.executable, "-c", "from gpusched.cli import main; main()", "workloads",
                        "--characterize", "paper:nosuch"], capture_output=True, text=True)
    assert r.returncode == 2
    assert r.stderr.strip().count("\n") == 0 and "paper:nosuch" in r.stderr


def test_thesis_ch3_compares_cores_ctas_and_phases_of_the_first_kernel():
    """ch.3's Table 3.2 is per kernel: the program's first labelled kernel is compared."""
    infos = {"km": {"papers": {"thesis_ch3": "KM"},
                    "paper_values": {"thesis_ch3": {"KM": {"ctas_per_core": 6, "phases": 2}}}}}
    row = {**_row("km", 1.0, 0.1), "ctas_per_sm": 3, "main_phases": 5}
    text = markdown("thesis_ch3", [row], infos)
    head = [c.strip() for c in text.splitlines()[0].strip("|").split("|")]
    km = [c.strip() for c in text.splitlines()[2].strip("|").split("|")]
    assert head.count("CTAs/SM") == 1 and km[head.index("CTAs/SM")] == "3"
    assert km[head.index("CTAs/SM (paper)")] == "6" and km[head.index("phases")] == "5"
    # |3-6|/6 = 50 %; |5-2|/2 = 150 %
    assert "ctas_per_sm: mean |ours − paper| / paper = 50 % over 1 programs" in text
    assert "main_phases: mean |ours − paper| / paper = 150 % over 1 programs" in text
