"""Phase analysis ([THESIS §3.3.1–§3.4.2.1]): the hand-worked example, blocks, traces, the CLI
table."""

import json

import pytest

from sim.workload.catalogue import get_workload
from sim.workload.kernel import Instr, Op
from sim.workload.phases import analyse, code_size_overhead, kernel_phases, static_code


def _vector_add():
    """Fig 3.2-like vector add: 3 index ALU ops, 3 global loads (phase 1); the add reads two
    loads of phase 1 and begins phase 2; the next ALU reads the third load, but the set was
    cleared at the phase start, so it stays in phase 2; a store and EXIT end it."""
    code = [Instr(Op.ALU, (1,), (0,)), Instr(Op.ALU, (2,), (1,)), Instr(Op.ALU, (3,), (2,)),
            Instr(Op.LDG, (4,), (3,)), Instr(Op.LDG, (5,), (2,)), Instr(Op.LDG, (6,), (1,)),
            Instr(Op.ALU, (7,), (4, 5)), Instr(Op.ALU, (8,), (7, 6)), Instr(Op.STG, (), (3, 8)),
            Instr(Op.EXIT)]
    for i, ins in enumerate(code):
        ins.pc, ins.next_pc = 8 * i, 8 * i + 8
    return code


def test_hand_worked_vector_add_has_phases_of_18_and_10():
    # by hand: phase 1 = 4+4+4 (ALU) + 2+2+2 (loads: issue cost) = 18; phase 2 = 4+4+2+0 = 10;
    # distances count down to the end of each phase
    info = analyse(reversed(_vector_add()))          # input order does not matter: by PC
    assert info.phase == (1, 1, 1, 1, 1, 1, 2, 2, 2, 2)
    assert info.lengths == (18, 10)
    assert info.distance == (18, 14, 10, 6, 4, 2, 10, 6, 2, 0)
    assert info.table() == {"phases": 2, "longest": 18, "shortest": 10, "instructions": 10}


def test_a_branch_target_and_the_instruction_after_a_branch_begin_phases():
    code = _vector_add()
    # a loop branch at 0x28 back to 0x08: 0x08 (target) and 0x30 (after the branch) lead blocks
    code[5] = Instr(Op.BRA, (), (1,), pc=0x28, next_pc=0x08)
    info = analyse(code)
    assert info.phase == (1, 2, 2, 2, 2, 2, 3, 3, 3, 3)
    # the loads of block 2 do not reach into block 3: the ALU at 0x30 starts it anyway
    assert info.lengths == (4, 4 + 4 + 2 + 2 + 2, 10)


def test_overhead_of_the_hints():
    info = analyse(_vector_add())
    o = code_size_overhead(info)
    assert o["single_byte"] == 12.5                        # [THESIS §3.4.2.1]: one byte per 8-byte instr
    assert abs(o["single_9bit"] - 100 * 9 / 64) < 1e-9
    assert abs(o["two_level_9bit"] - 100 * 9 * 2 / (64 * 10)) < 1e-9
    many = [Instr(Op.DIV, (1,), (0,), pc=8 * i) for i in range(20)]     # 20 × 39 = 780 > 511
    o = code_size_overhead(analyse(many))
    assert o["over_511"] == sum(1 for k in range(20) if 39 * (20 - k) > 511)


def test_catalogue_phase_kernel_and_its_exported_trace_agree(tmp_path):
    from sim.workload.accelsim import read_trace_dir
    from sim.workload.tracegen import write_trace_dir
    wl = get_workload("fwt_like", seed=0, scale=0.05)
    info = kernel_phases(wl.kernels[0])
    # fwt_like is built as phases of 45 and 174 cycles (⌈L/4⌉ ALU ops each, plus loads)
    assert info.n_phases >= 2 and info.table()["longest"] >= 174
    d = write_trace_dir(tmp_path / "t", wl, family="volta")
    trace_kernel = read_trace_dir(d).kernels[0]
    assert {i.pc for i in static_code(trace_kernel)} == set(info.pcs)
    tinfo = kernel_phases(trace_kernel)
    assert tinfo.lengths == info.lengths and tinfo.distance == info.distance


def test_workloads_phases_prints_the_table(cli):
    r = cli("workloads", "--phases", "lud_like", "--scale", "0.1")
    assert r.returncode == 0, r.stderr
    assert "lud_internal" in r.stdout and "phases" in r.stdout
    r = cli("workloads", "--phases", "lud_like", "--scale", "0.1", "--json")
    row = json.loads(r.stdout)[0]
    info = kernel_phases(get_workload("lud_like", seed=0, scale=0.1).kernels[0])
    assert (row["phases"], row["longest"], row["shortest"]) == (
        info.n_phases, max(info.lengths), min(info.lengths))
    r = cli("workloads", "--phases", "no_such_entry")
    assert r.returncode == 2 and "workload" in r.stderr


# Tables 3.2/3.3 ([THESIS Table 3.2, Table 3.3]): entry → (threads/CTA, CTAs/core, phases, longest,
# shortest)
TABLES = {"bp_k1_like": (256, 6, 5, 206, 26), "bp_k2_like": (256, 5, 5, 99, 14),
          "heartwall_like": (256, 4, 45, 212, 41), "km_like": (256, 6, 2, 48, 14),
          "lud_like": (256, 6, 3, 150, 7), "srad_like": (256, 6, 4, 218, 31),
          "cfd_like": (192, 3, 9, 985, 86), "dwt_like": (512, 3, 2, 144, 44),
          "dxtc_like": (256, 4, 3, 1159, 24), "fwt_like": (512, 3, 2, 174, 45),
          "hist_like": (192, 6, 2, 44, 24), "mco_like": (256, 5, 2, 284, 38)}


def test_ch3_kernels_match_tables_3_2_and_3_3_on_the_ch3_machine():
    from gpusched.config import get_preset
    from sim.cta import occupancy_limit
    cfg = get_preset("thesis_ch3")
    assert (cfg.sm.count, cfg.sm.warps_per_sm, cfg.sm.max_ctas_per_sm, cfg.sm.subcores,
            cfg.sm.issue_interval, cfg.core_clock_mhz) == (16, 48, 8, 2, 2, 1300.0)
    for name, (threads, per_core, phases, longest, shortest) in TABLES.items():
        k = get_workload(name, seed=0, scale=1.0).kernels[0]
        assert k.threads_per_cta == threads, name
        assert occupancy_limit(cfg.sm, k, cfg.sm.count, clamp_small_grid=False).limit == \
            per_core, name
        t = kernel_phases(k).table()
        assert t["phases"] == phases, name
        # lengths to a few cycles (whole ALU ops of 4 cycles, fixed parts); heartwall's 45
        # lengths are drawn from 41..212 by the seed; bp_k2's 14-cycle first phase cannot
        # hold its 4 index ops and 2 loads (20)
        assert abs(t["longest"] - longest) <= (12 if name == "heartwall_like" else 2), name
        assert abs(t["shortest"] - shortest) <= {"heartwall_like": 8, "bp_k2_like": 6}.get(
            name, 2), name


def test_cfd_stagger_like_runs_cfd_phases_with_per_cta_trip_counts():
    """The type B stand-in whose CTAs run out of step: CFD's geometry on the ch.3 machine, one
    static copy of the looped phases, and CTAs of different lengths (so later CTAs start at
    scattered times)."""
    from gpusched.config import get_preset
    from sim.cta import occupancy_limit
    cfg = get_preset("thesis_ch3")
    k = get_workload("cfd_stagger_like", seed=0, scale=1.0).kernels[0]
    assert k.threads_per_cta == 192
    assert occupancy_limit(cfg.sm, k, cfg.sm.count, clamp_small_grid=False).limit == 3
    t = kernel_phases(k).table()
    assert t["longest"] == pytest.approx(985, abs=12) and t["phases"] >= 9
    lengths = {sum(1 for _ in k.stream(cta, 0)) for cta in range(24)}
    assert len(lengths) >= 4
    assert {sum(1 for _ in k.stream(3, w)) for w in range(6)} == {sum(1 for _ in k.stream(3, 0))}
