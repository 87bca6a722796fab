"""[OWL Table 4]'s row metrics on hand-made layouts and on the OWL archetypes."""

from __future__ import annotations

from gpusched.config import get_preset
from sim.run import load_workload
from sim.workload.kernel import Instr, Kernel, Op, Workload
from sim.workload.row_profile import row_sharing

DRAM = get_preset("owl").dram              # row-contiguous: 2 KB of addresses = one row


def _kernel(n_ctas: int, row_of_cta) -> Workload:
    """One warp per CTA reading two lines of 2 KB chunk ``row_of_cta(c)`` (a whole DRAM row)."""
    def stream(cta: int, warp: int):
        base = row_of_cta(cta) * 2048
        yield Instr(Op.LDG, (1,), (), tuple(base + 4 * i for i in range(32)))
        yield Instr(Op.ALU, (2,), (1,))
        yield Instr(Op.STG, (), (2,), tuple(base + 1024 + 4 * i for i in range(32)))
        yield Instr(Op.EXIT)
    return Workload("w", [Kernel("k", (n_ctas, 1, 1), (32, 1, 1), 16, 0, stream)])


def test_pairs_of_consecutive_ctas_share_every_row():
    got = row_sharing(_kernel(8, lambda c: c // 2), DRAM)
    assert got == {"rows": 4, "cons_cta_row_sharing": 1.0, "ctas_per_row": 2.0}


def test_private_rows_score_zero_with_one_cta_per_row():
    got = row_sharing(_kernel(6, lambda c: c), DRAM)
    assert got == {"rows": 6, "cons_cta_row_sharing": 0.0, "ctas_per_row": 1.0}


def test_non_consecutive_sharers_do_not_count():
    # rows shared by CTAs {0, 2} and {1, 3}: two CTAs per row, none consecutive
    got = row_sharing(_kernel(4, lambda c: c % 2), DRAM)
    assert got == {"rows": 2, "cons_cta_row_sharing": 0.0, "ctas_per_row": 2.0}
    # {0, 1, 3}: 0 and 1 are consecutive, 3 is not → 2/3
    got = row_sharing(_kernel(4, lambda c: 0 if c != 2 else 9), DRAM)
    assert abs(got["cons_cta_row_sharing"] - (2 / 3 + 0) / 2) < 1e-12


def test_owl_stream_archetypes_are_the_two_ends_of_table_4():
    """T-STREAM-SHARED shares rows between consecutive CTAs, T-STREAM-PRIVATE does not (the
    Table 4 magnitudes are the workload tuning's job, issue 22 item 5)."""
    shared = row_sharing(load_workload("owl_t_stream_shared"), DRAM)
    private = row_sharing(load_workload("owl_t_stream_private"), DRAM)
    assert shared["cons_cta_row_sharing"] > 0.9 and 7 <= shared["ctas_per_row"] <= 8   # s = 8
    assert private["cons_cta_row_sharing"] < 0.1 and private["ctas_per_row"] < 1.5


def test_owl_mixed_windows_share_rows_between_two_grid_rows():
    """T-MIXED (our archetype, CTAs/Row ≈ 32 as SAD and KMN in [OWL Table 4]): a row of the 16-block
    image is one DRAM row, read by the 16 CTAs of a grid row and (its window reaching one block row
    down) by the 16 above; every loaded line is read by exactly two CTAs, and each CTA's lines are
    dense (no half-used 64 B line for the prefetcher to fetch in vain)."""
    from sim.workload.kernel import Op
    wl = load_workload("owl_t_mixed")
    mixed = row_sharing(wl, DRAM)
    assert mixed["ctas_per_row"] > 25 and mixed["cons_cta_row_sharing"] > 0.95
    k = wl.kernels[0]
    readers: dict[int, set[int]] = {}
    for cta in range(k.n_ctas):
        for w in range(k.warps_per_cta(32)):
            for ins in k.stream(cta, w):
                if ins.op == Op.LDG:
                    for a in ins.addrs:
                        readers.setdefault(a >> 6, set()).add(cta)
    interior = [len(c) for c in readers.values() if min(c) >= 16 and max(c) < k.n_ctas - 16]
    assert interior and set(interior) == {2}
    assert all(line ^ 1 in readers for line in readers)     # both halves of every 128 B


def test_owl_reuse_tiles_share_each_row_with_one_partner():
    """T-REUSE (our archetype: low sharing (~36 %), CTAs/Row ≈ 2): each row holds pieces of two
    CTAs' tiles, consecutive ones for 2 of the 8 pieces (the stores' rows add a little)."""
    reuse = row_sharing(load_workload("owl_t_reuse"), DRAM)
    assert 0.25 <= reuse["cons_cta_row_sharing"] <= 0.45
    assert 1.8 <= reuse["ctas_per_row"] <= 2.3
