"""An unstructured tetrahedral mesh for the Euler solver: a 2 x 1 x 1 box of cubes, a
missile-like ellipsoid body cut out of it, every cube split into 6 tetrahedra (Kuhn's
subdivision, conforming across cubes), interior vertices jittered, elements renumbered along a
Morton curve of their centroids (the locality-preserving order finite-volume codes use).

Per element: the 4 neighbours across its faces (-1: wall of the body, -2: far-field box face),
the 4 outward face normals scaled by face area, and its volume."""

from __future__ import annotations

from itertools import permutations

import numpy as np

WALL, FAR_FIELD = -1, -2


def _morton(q: np.ndarray) -> np.ndarray:
    """Interleave the bits of three 10-bit coordinates."""
    key = np.zeros(len(q), np.int64)
    for bit in range(10):
        for axis in range(3):
            key |= ((q[:, axis] >> bit) & 1).astype(np.int64) << (3 * bit + axis)
    return key


def tetrahedra(ny: int, seed: int, jitter: float = 0.1) -> dict[str, np.ndarray]:
    nx, nz = 2 * ny, ny
    rng = np.random.default_rng(seed)
    gx, gy, gz = np.meshgrid(np.arange(nx + 1), np.arange(ny + 1), np.arange(nz + 1), indexing="ij")
    grid = np.stack([gx.ravel(), gy.ravel(), gz.ravel()], 1)
    vid = lambda x, y, z: (x * (ny + 1) + y) * (nz + 1) + z          # noqa: E731
    # cubes outside the body: an ellipsoid at 35 % of the length, semi-axes 0.25 x 0.12 x 0.12
    cx, cy, cz = np.meshgrid(np.arange(nx), np.arange(ny), np.arange(nz), indexing="ij")
    cx, cy, cz = cx.ravel(), cy.ravel(), cz.ravel()
    centre = (np.stack([cx, cy, cz], 1) + 0.5) / ny
    inside = (((centre - [0.7, 0.5, 0.5]) / [0.5, 0.12, 0.12]) ** 2).sum(1) < 1.0
    cx, cy, cz = cx[~inside], cy[~inside], cz[~inside]
    tets = []
    for perm in permutations(range(3)):                 # Kuhn: paths from corner 000 to 111
        corner = np.zeros((len(cx), 3), np.int64)
        path = [vid(cx, cy, cz)]
        for axis in perm:
            corner[:, axis] += 1
            path.append(vid(cx + corner[:, 0], cy + corner[:, 1], cz + corner[:, 2]))
        tets.append(np.stack(path, 1))
    tets = np.concatenate(tets)
    coords = grid.astype(np.float64) / ny
    on_box = ((grid == 0) | (grid == [nx, ny, nz])).any(1)
    coords[~on_box] += rng.uniform(-jitter, jitter, (int((~on_box).sum()), 3)) / ny
    # renumber the elements along a Morton curve of their centroids
    centroid = coords[tets].mean(1)
    order = np.argsort(_morton(np.minimum((centroid / 2.0 * 1023).astype(np.int64), 1023)),
                       kind="stable")
    tets = tets[order]
    nel = len(tets)
    # faces: face f of a tetrahedron is the one opposite its vertex f
    faces = np.stack([np.delete(tets, f, axis=1) for f in range(4)], 1)       # nel x 4 x 3
    tri = np.sort(faces.reshape(-1, 3), axis=1)
    n_v = len(grid)
    key = (tri[:, 0] * n_v + tri[:, 1]) * n_v + tri[:, 2]
    order = np.argsort(key, kind="stable")
    neighbours = np.full(nel * 4, FAR_FIELD, np.int64)
    same = key[order[1:]] == key[order[:-1]]
    a, b = order[:-1][same], order[1:][same]
    neighbours[a], neighbours[b] = b // 4, a // 4
    lone = neighbours == FAR_FIELD
    tri_grid = grid[tri[lone]]                                     # boundary faces: box or body?
    box_face = ((tri_grid == 0).all(1) | (tri_grid == [nx, ny, nz]).all(1)).any(1)
    neighbours[np.flatnonzero(lone)[~box_face]] = WALL
    p = coords[faces]                                              # nel x 4 x 3 x 3
    normal = 0.5 * np.cross(p[:, :, 1] - p[:, :, 0], p[:, :, 2] - p[:, :, 0])
    away = p[:, :, 0] - coords[tets]                               # from the opposite vertex
    normal *= np.sign((normal * away).sum(-1))[..., None]
    signed = np.linalg.det(coords[tets[:, 1:]] - coords[tets[:, :1]])
    straight = np.linalg.det((grid[tets[:, 1:]] - grid[tets[:, :1]]).astype(np.float64))
    if np.any(np.sign(signed) != np.sign(straight)):
        raise ValueError(f"jitter = {jitter}: inverts elements")
    return {"neighbours": neighbours.reshape(nel, 4).astype(np.int32),
            "normals": normal.astype(np.float32),
            "volumes": (np.abs(signed) / 6.0).astype(np.float32)}


def statistics(m: dict) -> dict:
    nb = m["neighbours"]
    inner = nb >= 0
    gap = np.abs(nb - np.arange(len(nb))[:, None])[inner]
    return {"elements": len(nb), "wall_faces": int((nb == WALL).sum()),
            "far_field_faces": int((nb == FAR_FIELD).sum()),
            "median_neighbour_gap": float(np.median(gap)),
            "neighbours_within_192": float((gap < 192).mean()),
            "volume_spread": float(m["volumes"].max() / m["volumes"].min())}
