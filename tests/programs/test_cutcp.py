"""cutcp's host hashes atoms into bins of DEPTH slots and, as Parboil does, computes the atoms
that overflow a full bin on the CPU: an input dense enough to overflow must still give the full
cutoff potential (the suite's quick scale is one sparse bin, which never overflows)."""

from __future__ import annotations

import numpy as np

from workloads import programs

cutcp = programs.load("cutcp")


def test_full_bins_spill_to_the_host_and_the_potential_stays_exact():
    scale = 0.125                                   # an 8 Å box: 2×2×2 regions, ~51 atoms
    length = cutcp.side(scale)
    atoms = cutcp.inputs(3, scale)["atoms"]
    bins, extras = cutcp.bin_atoms(atoms, int(length / cutcp.BIN), 2)
    assert len(extras) > 0
    assert np.count_nonzero(bins[..., 3]) + len(extras) == len(atoms)
    assert programs.check("cutcp", seed=3, scale=scale) == []


def test_neighbour_list_is_the_bins_within_the_cutoff():
    pad = int(np.ceil(cutcp.CUTOFF / cutcp.BIN))
    offsets = cutcp.neighbour_offsets(pad, 10, 10)
    # 8 Å cutoff over 4 Å bins: every bin within one bin of gap on each axis (5³), none further
    assert len(offsets) == 5 ** 3
    assert len(set(offsets.tolist())) == len(offsets) and 0 in offsets
