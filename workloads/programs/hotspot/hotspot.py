"""Rodinia-style HotSpot: transient thermal simulation of a chip on a square grid; the host
launches hotspot_step once per pyramid (``pyramid`` time steps inside shared memory per launch)
and swaps the temperature buffers. Input: a generated floorplan's power map and a warm start."""

from __future__ import annotations

from pathlib import Path

import numpy as np

TILE = 16
ITERATIONS = 20                  # IKRA's run
# The HotSpot model's chip and silicon constants (Huang et al. 2006; Rodinia uses the same)
CHIP_SIDE, CHIP_THICKNESS = 0.016, 0.0005            # m
SPEC_HEAT_SI, K_SI, FACTOR_CHIP = 1.75e6, 100.0, 0.5
MAX_PD, PRECISION, AMBIENT = 3.0e6, 0.001, 80.0

INFO = {
    "title": "HotSpot transient thermal simulation (pyramid tiles in shared memory)",
    "suite": "Rodinia",
    "papers": {"owl": "HS", "socgpu": "hotspot", "thesis_ch4": "Hotspot", "ikra": "Hotspot"},
    "kernels": ("hotspot_step",),
    "default_scale": 1.0,
    "quick_scale": 0.0625,
    "inputs": "256 x 256 grid; power from a generated floorplan (recursive split into 24 "
              "units, log-normal power densities, 60 W chip), initial temperature 323 K plus "
              "a smoothed image of the power; 20 time steps, pyramid height 1",
    "scale_note": "scale 1 = IKRA's input (256 x 256, 20 iterations, pyramid height 1: 20 "
                  "launches of 19 x 19 = 361 CTAs); the grid side grows with sqrt(scale). "
                  "The thesis's 29,241-CTA grid (171^2) is 2048 x 2048 with pyramid 2; "
                  "pyramid= selects the height (Rodinia's runs use 2)",
    "paper_values": {
        "owl": {"cinv": 21},
        "thesis_ch4": {"Hotspot": {"reg_bytes_per_cta": 36864, "threads": 256, "fermi_max": 3,
                                   "fermi_opt": 3, "fermi_type": "C-strong", "kepler_max": 6,
                                   "kepler_opt": 6, "kepler_type": "C-strong",
                                   "onac_ctas": 29241, "onac_type": "B"}},
        "ikra": {"input": "256x256, 20 iterations", "tb_size": "16x16", "tbs_per_kernel": 361},
    },
}
# Absolute tolerance in kelvin: the kernel steps in float32 (ulp 3e-5 at 330 K, one rounding or
# two per step, 20 steps), the reference in float64.
TOLERANCE = {"temperature": (0.0, 1e-3)}


def coefficients(side: int) -> dict[str, float]:
    """The RC grid's capacitance, resistances and time step for a side x side grid."""
    cell = CHIP_SIDE / side
    cap = FACTOR_CHIP * SPEC_HEAT_SI * CHIP_THICKNESS * cell * cell
    rx = cell / (2.0 * K_SI * CHIP_THICKNESS * cell)
    ry = cell / (2.0 * K_SI * CHIP_THICKNESS * cell)
    rz = CHIP_THICKNESS / (K_SI * cell * cell)
    max_slope = MAX_PD / (FACTOR_CHIP * CHIP_THICKNESS * SPEC_HEAT_SI)
    return {"cap": cap, "rx": rx, "ry": ry, "rz": rz, "step": PRECISION / max_slope}


def _floorplan(rng, side: int, units: int) -> np.ndarray:
    """Power per cell: the die split recursively into rectangles (functional units), each with
    a log-normal power density; 60 W in total."""
    rects = [(0, 0, side, side)]
    while len(rects) < units:
        rects.sort(key=lambda r: (r[2] - r[0]) * (r[3] - r[1]))
        y0, x0, y1, x1 = rects.pop()
        if y1 - y0 >= x1 - x0:
            cut = rng.integers(y0 + (y1 - y0) // 4, y0 + 3 * (y1 - y0) // 4 + 1)
            rects += [(y0, x0, cut, x1), (cut, x0, y1, x1)]
        else:
            cut = rng.integers(x0 + (x1 - x0) // 4, x0 + 3 * (x1 - x0) // 4 + 1)
            rects += [(y0, x0, y1, cut), (y0, cut, y1, x1)]
    density = np.zeros((side, side))
    for y0, x0, y1, x1 in rects:
        density[y0:y1, x0:x1] = rng.lognormal(0.0, 1.0)
    return density * (60.0 / density.sum())


def inputs(seed: int, scale: float) -> dict[str, np.ndarray]:
    side = max(TILE, int(round(256 * np.sqrt(scale))))
    rng = np.random.default_rng(seed)
    power = _floorplan(rng, side, 24)
    # a warm start: 323 K plus the power map blurred (heat spreads around the hot units)
    spectrum = np.fft.rfft2(power)
    fy, fx = np.fft.fftfreq(side)[:, None], np.fft.rfftfreq(side)[None, :]
    blurred = np.fft.irfft2(spectrum * np.exp(-(fx * fx + fy * fy) * (side / 8) ** 2), s=power.shape)
    temp = 323.15 + 20.0 * blurred / max(blurred.max(), 1e-12)
    return {"power": power.astype(np.float32), "temperature": temp.astype(np.float32)}


def main(ctx, seed: int = 0, scale: float = 1.0, pyramid: int = 1) -> dict[str, np.ndarray]:
    if not 1 <= pyramid <= TILE // 2 - 1:
        raise ValueError(f"pyramid = {pyramid}: expected 1..{TILE // 2 - 1}")
    inp = inputs(seed, scale)
    rows, cols = inp["power"].shape
    k = coefficients(cols)
    inner = TILE - 2 * pyramid
    grid = (-(-cols // inner), -(-rows // inner))
    mod = ctx.load_ptx(Path(__file__).with_suffix(".ptx"))
    d_power = ctx.to_device(inp["power"])
    bufs = [ctx.to_device(inp["temperature"]), ctx.to_device(inp["temperature"])]
    src = 0
    for done in range(0, ITERATIONS, pyramid):
        steps = min(pyramid, ITERATIONS - done)
        mod.launch("hotspot_step", grid, (TILE, TILE),
                   (np.int32(steps), d_power, bufs[src], bufs[1 - src], np.int32(cols),
                    np.int32(rows), np.int32(pyramid), np.int32(pyramid),
                    *(np.float32(k[name]) for name in ("cap", "rx", "ry", "rz", "step"))))
        src = 1 - src
    return {"temperature": bufs[src].get()}


def reference(seed: int, scale: float) -> dict[str, np.ndarray]:
    inp = inputs(seed, scale)
    k = coefficients(inp["power"].shape[1])
    t = inp["temperature"].astype(np.float64)
    p = inp["power"].astype(np.float64)
    for _ in range(ITERATIONS):
        e = np.pad(t, 1, mode="edge")                    # neighbours beyond the edge: the cell
        vertical = e[2:, 1:-1] + e[:-2, 1:-1] - 2.0 * t
        horizontal = e[1:-1, 2:] + e[1:-1, :-2] - 2.0 * t
        t = t + k["step"] / k["cap"] * (p + vertical / k["ry"] + horizontal / k["rx"]
                                        + (AMBIENT - t) / k["rz"])
    return {"temperature": t}
