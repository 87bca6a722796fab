"""The Pannotia-style graph programs (sssp, color, mis, pagerank): both input graphs have the
character IKRA describes (the IKRA paper's evaluation inputs), every program passes its check on the olesnik0
input too, and each runs its iteration's kernels over one thread per vertex in 256-thread TBs."""

from __future__ import annotations

import numpy as np
import pytest

from ptx.host import Context
from workloads import programs
from workloads.programs.common import graphs
from workloads.programs.common import pannotia as pn

APPS = {"sssp": ("sssp_relax", "sssp_update"), "color": ("color_find", "color_assign"),
        "mis": ("mis_find", "mis_select", "mis_check"),
        "pagerank": ("pagerank_contribute", "pagerank_gather")}


def test_graphs_have_ikras_tb_counts_and_degree_character():
    cond = pn.graph("cond_mat", 0, 1.0)
    oles = pn.graph("olesnik0", 0, 1.0)
    # IKRA: cond_mat 66 TBs (16,726 vertices; ours 2^14), olesnik0 345 TBs (88,263 vertices)
    assert pn.blocks(len(cond["row_start"]) - 1) == 64
    assert pn.blocks(len(oles["row_start"]) - 1) == 345
    c, o = graphs.degree_stats(cond), graphs.degree_stats(oles)
    assert c["cv"] > 1.0 and c["max_degree"] > 20 * c["mean_degree"]      # imbalanced
    assert o["cv"] < 0.5 and o["max_degree"] < 3 * o["mean_degree"]       # balanced
    band = np.abs(np.repeat(np.arange(len(oles["row_start"]) - 1), np.diff(oles["row_start"]))
                  - oles["cols"])
    assert band.max() <= 88263 // pn.OLESNIK0_BAND                         # banded


@pytest.mark.parametrize("name", sorted(APPS))
def test_olesnik0_input_matches_numpy(name):
    assert programs.check(name, seed=3, scale=1 / 128, graph="olesnik0") == []


@pytest.mark.parametrize("name", sorted(APPS))
def test_iterations_launch_the_kernels_in_order_over_every_vertex(name):
    scale = 1 / 256                                   # 64 vertices: one TB
    _, ctx = programs.run_functional(name, 1, scale)
    n = len(pn.graph("cond_mat", 1, scale)["row_start"]) - 1
    kernels = [r.info.kernel for r in ctx.launches]
    per_iteration = APPS[name]
    assert len(kernels) % len(per_iteration) == 0 and len(kernels) >= 2 * len(per_iteration)
    assert kernels == list(per_iteration) * (len(kernels) // len(per_iteration))
    assert all(r.info.block == (256, 1, 1) and r.info.grid[0] * 256 >= n > (r.info.grid[0] - 1) * 256
               for r in ctx.launches)


def test_olesnik0_wrapper_runs_the_olesnik0_graph():
    from workloads.programs.mis import mis_olesnik0
    ctx = Context(progress=False)
    mis_olesnik0.main(ctx, seed=0, scale=1 / 128)
    n = len(pn.graph("olesnik0", 0, 1 / 128)["row_start"]) - 1
    assert ctx.launches[0].info.grid[0] == pn.blocks(n)


def test_unknown_graph_names_the_option():
    with pytest.raises(ValueError, match="graph"):
        programs.load("sssp").inputs(0, 1 / 64, graph="roadNet")
