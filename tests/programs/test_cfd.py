"""CFD's generated mesh is a valid conforming tetrahedral mesh: neighbours are mutual, every
element's outward area normals close (sum to zero), the volumes fill the box minus the body,
and the boundary faces split into far-field box faces and wall faces of the body."""

from __future__ import annotations

import numpy as np

from workloads.programs.cfd import cfd, mesh


def test_mesh_is_conforming_and_closed():
    m = mesh.tetrahedra(6, seed=1)
    nb = m["neighbours"]
    elem, face = np.nonzero(nb >= 0)
    assert (nb[nb[elem, face]] == elem[:, None]).any(1).all()
    assert np.abs(m["normals"].astype(np.float64).sum(1)).max() < 1e-6
    straight = mesh.tetrahedra(6, seed=1, jitter=0.0)             # the body's vertices unmoved
    removed_cubes = 2 * 6 ** 3 - len(nb) // 6
    assert abs(straight["volumes"].astype(np.float64).sum() - (2.0 - removed_cubes / 6 ** 3)) < 1e-5
    # the far field is the box surface: 2 triangles per cube face on it
    assert (nb == mesh.FAR_FIELD).sum() == 2 * 2 * (12 * 6 + 12 * 6 + 6 * 6)
    assert (nb == mesh.WALL).sum() > 0


def test_uniform_flow_has_no_net_flux_away_from_walls():
    """A uniform free stream is a steady state of the scheme wherever no face is a wall."""
    m = mesh.tetrahedra(5, seed=2)
    u = np.tile(cfd.free_stream().astype(np.float64), (len(m["volumes"]), 1))
    out = cfd.net_outflow(u, m["neighbours"], m["normals"])
    free = ~(m["neighbours"] == mesh.WALL).any(1)
    assert np.abs(out[free]).max() < 1e-6
    assert np.abs(out[~free]).max() > 1e-3
