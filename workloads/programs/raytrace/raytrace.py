"""Ray tracing of a sphere scene with reflections and shadows (ERCBench's RayTracing, kernel
render in raytrace.cu), 512×512 pixels. Output: the RGBA image, exact (the kernel's float
operations are explicitly rounded, and the reference repeats them in float32)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

BLOCK = (16, 8)
SIDE_AT_SCALE_1 = 512              # 32×64 = SRTF's 2,048 CTAs of 128 threads
MAX_DEPTH = 4
EPS, FAR, FLOOR_END = np.float32(1e-3), np.float32(1e30), np.float32(100.0)

INFO = {
    "title": "Ray tracing, render (ERCBench RayTracing)",
    "suite": "ERCBench",
    "papers": {"srtf": "RayTracing (render)"},
    "kernels": ("render",),
    "default_scale": 1.0,
    "quick_scale": 1 / 64,
    "inputs": "a 512×512 image at scale 1 of 8 spheres (5 reflective, one a 0.8 mirror) over a "
              "chequered floor, one point light; rays bounce up to 4 times, so per-pixel work "
              "runs from one pass (sky) to four passes with shadow rays",
    "scale_note": "scale 1 = SRTF's 2,048 CTAs of 16×8 threads; scale s has 512·√s-pixel sides "
                  "(rounded to 16)",
    "paper_values": {"srtf": {"render": {"threads": 128, "blocks": 2048, "standalone_cycles": 416563,
                                         "rsd": 65.7, "resident_ctas": 5, "mean_block_cycles": 15167}}},
}


def _side(scale: float) -> int:
    return max(16, int(round(SIDE_AT_SCALE_1 * math.sqrt(scale) / 16)) * 16)


def scene() -> np.ndarray:
    """The kernel's scene, read from its constant-memory initialiser in the PTX (one source):
    8 spheres (centre, radius², colour, reflectivity), the light's position, the ambient term."""
    from ptx.host import Context
    mod = Context(progress=False).load_ptx(Path(__file__).with_suffix(".ptx"))
    return mod.get_global("SCENE", np.float32).get().copy()


def inputs(seed: int, scale: float) -> dict[str, np.ndarray]:
    """The fixed scene, the image side and the seed's sub-pixel sample position."""
    jitter = np.random.default_rng(seed).uniform(0, 1, 2).astype(np.float32)
    return {"scene": scene(), "side": np.array([_side(scale)], np.int32), "jitter": jitter}


def main(ctx, seed: int = 0, scale: float = 1.0) -> dict[str, np.ndarray]:
    inp = inputs(seed, scale)
    side = int(inp["side"][0])
    mod = ctx.load_ptx(Path(__file__).with_suffix(".ptx"))
    image = ctx.empty((side, side, 4), np.uint8)
    mod.launch("render", grid=(side // BLOCK[0], side // BLOCK[1]), block=BLOCK,
               args=(np.int32(side), np.int32(side), inp["jitter"][0], inp["jitter"][1], image))
    return {"image": image.get()}


# -- the reference: the kernel's operations on float32 arrays, one lane per pixel -----------
def _dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def _scale(a, s):
    return [a[0] * s, a[1] * s, a[2] * s]


def _sub(a, b):
    return [a[0] - b[0], a[1] - b[1], a[2] - b[2]]


def _add(a, b):
    return [a[0] + b[0], a[1] + b[1], a[2] + b[2]]


def _normalize(a):
    return _scale(a, np.float32(1) / np.sqrt(_dot(a, a)))


def _hit_sphere(sc, s, o, d):
    f32 = np.float32
    oc = _sub(o, [f32(sc[s, 0]), f32(sc[s, 1]), f32(sc[s, 2])])
    b = _dot(oc, d)
    disc = b * b - (_dot(oc, oc) - sc[s, 3])
    root = np.sqrt(np.maximum(disc, f32(0)))
    t = -b - root
    t = np.where(t <= EPS, -b + root, t)
    return np.where((disc > 0) & (t > EPS), t, FAR)


def render_numpy(side: int, jitter: np.ndarray) -> np.ndarray:
    f32 = np.float32
    flat = scene()
    sc, light, ambient = flat[:64].reshape(8, 8), flat[64:67], flat[67]
    py, px = np.meshgrid(np.arange(side, dtype=np.float32), np.arange(side, dtype=np.float32),
                         indexing="ij")
    aspect = f32(side) / f32(side)
    zeros = np.zeros_like(px)
    d = _normalize([((px + jitter[0]) / f32(side) * f32(2) - f32(1)) * aspect,
                    f32(1) - (py + jitter[1]) / f32(side) * f32(2), zeros + f32(-1.5)])
    o = [zeros, zeros.copy(), zeros.copy()]
    colour = [zeros.copy(), zeros.copy(), zeros.copy()]
    weight = zeros + f32(1)
    live = np.ones_like(px, bool)
    with np.errstate(all="ignore"):
        for _ in range(MAX_DEPTH):
            t_min, hit = zeros + FAR, np.full(px.shape, -1)
            for s in range(len(sc)):
                t = _hit_sphere(sc, s, o, d)
                closer = t < t_min
                t_min, hit = np.where(closer, t, t_min), np.where(closer, s, hit)
            tf = (f32(-1) - o[1]) / d[1]
            floor = (d[1] < 0) & (tf > EPS) & (tf < FLOOR_END) & (tf < t_min)
            t_min, hit = np.where(floor, tf, t_min), np.where(floor, len(sc), hit)
            sky = live & (hit < 0)
            g = (d[1] + f32(1)) * f32(0.5)
            add = _scale([f32(1) - g * f32(0.5), f32(1) - g * f32(0.3), zeros + f32(1)], weight)
            colour = [np.where(sky, c + a, c) for c, a in zip(colour, add)]
            live &= ~sky
            p = _add(o, _scale(d, t_min))
            on_floor = hit == len(sc)
            k = np.clip(hit, 0, len(sc) - 1)
            centre = [sc[k, 0], sc[k, 1], sc[k, 2]]
            ns = _normalize(_sub(p, centre))
            n = [np.where(on_floor, f32(v), c) for v, c in zip((0, 1, 0), ns)]
            check = (np.floor(p[0]).astype(np.int32) + np.floor(p[2]).astype(np.int32)) & 1
            base = [np.where(on_floor, np.where(check == 1, f32(0.9), f32(lo)), sc[k, 4 + i])
                    for i, lo in enumerate((0.2, 0.2, 0.25))]
            reflect = np.where(on_floor, f32(0), sc[k, 7])
            to_light = _sub([light[0], light[1], light[2]], p)
            light_dist = np.sqrt(_dot(to_light, to_light))
            l = _scale(to_light, f32(1) / light_dist)
            q = _add(p, _scale(n, EPS))
            shadow = np.zeros_like(live)
            for s in range(len(sc)):
                shadow |= _hit_sphere(sc, s, q, l) < light_dist
            diffuse = np.where(shadow, f32(0), np.maximum(_dot(n, l), f32(0)))
            spec = np.where(shadow, f32(0), np.maximum(_dot(n, _normalize(_sub(l, d))), f32(0)))
            for _ in range(4):
                spec = spec * spec
            lit = (ambient + diffuse) * (f32(1) - reflect)
            add = _scale(_add(_scale(base, lit), [spec, spec, spec]), weight)
            colour = [np.where(live, c + a, c) for c, a in zip(colour, add)]
            live &= reflect != 0
            weight = np.where(live, weight * reflect, weight)
            two_dn = f32(2) * _dot(d, n)
            d = [np.where(live, a, b) for a, b in zip(_sub(d, _scale(n, two_dn)), d)]
            o = [np.where(live, a, b) for a, b in zip(q, o)]
    out = np.full((side, side, 4), 255, np.uint8)
    for i in range(3):
        out[..., i] = (np.minimum(colour[i], f32(1)) * f32(255)).astype(np.uint8)
    return out


def reference(seed: int, scale: float) -> dict[str, np.ndarray]:
    inp = inputs(seed, scale)
    return {"image": render_numpy(int(inp["side"][0]), inp["jitter"])}
