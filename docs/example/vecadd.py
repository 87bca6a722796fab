"""The worked example of docs/ptx.md: a host program for ``gpusched run --program``."""

from pathlib import Path

import numpy as np


def main(ctx, seed: int = 0, scale: float = 1.0):
    n = int((1 << 20) * scale)
    rng = np.random.default_rng(seed)
    a, b = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    mod = ctx.load_ptx(Path(__file__).with_suffix(".ptx"))
    c = ctx.empty(n, np.float32)
    mod.launch("vecadd", grid=(-(-n // 256),), block=(256,),
               args=(ctx.to_device(a), ctx.to_device(b), c, np.int32(n)))
    assert np.array_equal(c.get(), a + b)
    return {"c": c.get()}
