"""lavaMD: particle potentials and forces within a cutoff, the space cut into boxes of the
cutoff's size (Rodinia lavaMD): one 128-thread CTA per home box, its 100 particles interact with
those of the home box and of its up to 26 neighbours, staged box by box in shared memory."""

from __future__ import annotations

from itertools import product
from pathlib import Path

import numpy as np

PER_BOX = 100
THREADS = 128
BOXES1D_AT_SCALE_1 = 10         # Rodinia's default run: -boxes1d 10 (1000 boxes)
ALPHA = 0.5
BOX = np.dtype([("neighbours", np.int32), ("neighbour", np.int32, 26)])

INFO = {
    "title": "lavaMD: pair potentials and forces over neighbouring boxes (shared-memory staging)",
    "suite": "Rodinia",
    "papers": {"socgpu": "lavaMD", "ikra": "LavaMD"},
    "kernels": ("lavamd",),
    "default_scale": 0.008,
    "quick_scale": 0.001,
    "inputs": "100 particles per unit box on a jittered 5x5x4 lattice (liquid-like spacing, "
              "no overlaps), charges uniform in [0.1, 1)",
    "scale_note": "scale 1 = Rodinia's default -boxes1d 10 (1000 boxes, ~200 M warp "
                  "instructions); the scale multiplies the box count (boxes1d = 10 * scale^(1/3)); "
                  "the default 0.008 is boxes1d 2: IKRA's 8 CTAs of 128 threads",
    "paper_values": {"ikra": {"input": "8 TBs, 61 KB", "tb_size": 128, "tbs_per_kernel": 8}},
}

# float32 sums of up to 2700 terms with expf: ~1e-5 of the largest term's size; the forces
# cancel (both signs), so the absolute part is scaled to the sum of |terms| (about 100)
TOLERANCE = {"potential": (1e-4, 1e-3), "force": (1e-4, 5e-3)}


def _boxes1d(scale: float) -> int:
    return max(1, int(round(BOXES1D_AT_SCALE_1 * scale ** (1 / 3))))


def neighbours(n: int) -> np.ndarray:
    """For every box (x fastest, then y, then z): its neighbours inside the space, in (dz, dy,
    dx) order."""
    boxes = np.zeros(n ** 3, BOX)
    for z, y, x in product(range(n), repeat=3):
        near = [((z + dz) * n + y + dy) * n + x + dx
                for dz, dy, dx in product((-1, 0, 1), repeat=3)
                if (dz, dy, dx) != (0, 0, 0) and 0 <= z + dz < n and 0 <= y + dy < n
                and 0 <= x + dx < n]
        b = boxes[(z * n + y) * n + x]
        b["neighbours"] = len(near)
        b["neighbour"][:len(near)] = near
    return boxes


def inputs(seed: int, scale: float) -> dict[str, np.ndarray]:
    n = _boxes1d(scale)
    rng = np.random.default_rng(seed)
    cells = np.array([(i + 0.5, j + 0.5, k + 0.5) for k in range(4) for j in range(5)
                      for i in range(5)]) / np.array([5, 5, 4])
    pos = []
    for z, y, x in product(range(n), repeat=3):
        jitter = rng.uniform(-0.3, 0.3, (PER_BOX, 3)) / np.array([5, 5, 4])
        pos.append(np.array([x, y, z]) + cells + jitter)
    pos = np.concatenate(pos).astype(np.float32)
    return {"position": pos, "charge": rng.uniform(0.1, 1.0, len(pos)).astype(np.float32)}


def main(ctx, seed: int = 0, scale: float = 1.0) -> dict[str, np.ndarray]:
    inp = inputs(seed, scale)
    pos = inp["position"]
    rv = np.concatenate([(pos.astype(np.float64) ** 2).sum(1, keepdims=True), pos], axis=1)
    mod = ctx.load_ptx(Path(__file__).with_suffix(".ptx"))
    boxes = neighbours(_boxes1d(scale))
    fv = ctx.zeros((len(pos), 4), np.float32)
    mod.launch("lavamd", grid=(len(boxes),), block=(THREADS,),
               args=(np.float32(2 * ALPHA * ALPHA), ctx.to_device(boxes.view(np.uint8)),
                     ctx.to_device(rv.astype(np.float32)), ctx.to_device(inp["charge"]), fv))
    out = fv.get()
    return {"potential": out[:, 0], "force": out[:, 1:]}


def reference(seed: int, scale: float) -> dict[str, np.ndarray]:
    inp = inputs(seed, scale)
    pos, q = inp["position"].astype(np.float64), inp["charge"].astype(np.float64)
    boxes = neighbours(_boxes1d(scale))
    a2 = 2 * ALPHA * ALPHA
    pot = np.zeros(len(pos))
    force = np.zeros((len(pos), 3))
    for b in range(len(boxes)):
        home = pos[b * PER_BOX:(b + 1) * PER_BOX]
        for src in [b, *boxes[b]["neighbour"][:boxes[b]["neighbours"]]]:
            other = pos[src * PER_BOX:(src + 1) * PER_BOX]
            qs = q[src * PER_BOX:(src + 1) * PER_BOX]
            d = home[:, None, :] - other[None, :, :]
            vij = np.exp(-a2 * (d * d).sum(-1))
            pot[b * PER_BOX:(b + 1) * PER_BOX] += vij @ qs
            force[b * PER_BOX:(b + 1) * PER_BOX] += ((2 * vij * qs)[:, :, None] * d).sum(1)
    return {"potential": pot, "force": force}
