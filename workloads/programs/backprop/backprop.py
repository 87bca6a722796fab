"""Rodinia-style backprop: one training step of an n-16-1 perceptron. The GPU runs the input
layer's forward pass (bp_layer_forward: per-CTA partial sums) and its weight update
(bp_adjust_weights); the host sums the partials, runs the 16-1 output layer and computes the
deltas, as Rodinia's backprop does."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from workloads.programs.common import images

WIDTH = 16                       # CTA 16 x 16: 16 input units x 16 hidden units
HIDDEN = 16
ETA, MOMENTUM = 0.3, 0.3         # the kernels' constants
TARGET = 0.1

INFO = {
    "title": "Back-propagation training step of a two-layer perceptron",
    "suite": "Rodinia",
    "papers": {"owl": "BP", "socgpu": "backprop", "thesis_ch3": "BP-K1, BP-K2",
               "thesis_ch4": "BP-1, BP-2", "ikra": "Backprop"},
    "kernels": ("bp_layer_forward", "bp_adjust_weights"),
    "default_scale": 1.0,
    "quick_scale": 0.004,
    "inputs": "input layer = a 256 x 256 natural image (1/f spectrum) flattened, 65,536 units; "
              "16 hidden units, 1 output; weights uniform in [-0.05, 0.05], target 0.1",
    "scale_note": "scale 1 = Rodinia's run (65,536 input units: 4,096 CTAs of 16 x 16 per "
                  "kernel, 32 waves of 8 CTAs on 16 SMs); the thesis's 65,535-CTA grid is "
                  "scale 16",
    "paper_values": {
        "owl": {"pmem": 1.40, "cinv": 33, "row_sharing": 99, "ctas_per_row": 4},
        "thesis_ch3": {
            "BP-K1": {"ctas": 65535, "threads": 256, "ctas_per_core": 6, "phases": 5,
                      "longest": 206, "shortest": 26},
            "BP-K2": {"ctas": 65535, "threads": 256, "ctas_per_core": 5, "phases": 5,
                      "longest": 99, "shortest": 14}},
        "thesis_ch4": {
            "BP-1": {"reg_bytes_per_cta": 12288, "threads": 256, "fermi_max": 6, "fermi_opt": 6,
                     "fermi_type": "C-strong", "kepler_max": 8, "kepler_opt": 8,
                     "kepler_type": "C-strong", "onac_ctas": 65535, "onac_type": "B"},
            "BP-2": {"reg_bytes_per_cta": 24576, "threads": 256, "fermi_max": 5, "fermi_opt": 5,
                     "fermi_type": "C-weak", "kepler_max": 8, "kepler_opt": 5,
                     "kepler_type": "MEM", "onac_ctas": 65535, "onac_type": "A"}},
        "ikra": {"input": "16 x 16 TBs, 4,676 KB", "tb_size": "16x16", "tbs_per_kernel": 2048},
    },
}
# Relative and absolute tolerance: the kernel sums 16 products in a tree and the host sums the
# CTAs' partials in float32, the reference sums in float64; and nvcc fuses the weight step's
# multiply-adds. Errors stay near float32 rounding (~1e-7 relative).
TOLERANCE = {"hidden": (1e-5, 1e-6), "output": (1e-5, 1e-6), "weights": (1e-5, 1e-6),
             "output_weights": (1e-5, 1e-6)}


def inputs(seed: int, scale: float) -> dict[str, np.ndarray]:
    side = max(16, int(round(256 * np.sqrt(scale))) // 4 * 4)
    n = side * side
    rng = np.random.default_rng(seed + 1)
    units = np.concatenate([[1.0], images.natural(side, side, seed).ravel()]).astype(np.float32)
    weights = rng.uniform(-0.05, 0.05, (n + 1, HIDDEN + 1)).astype(np.float32)
    weights[:, 0] = 0.0                       # column 0 (the hidden bias unit) has no inputs
    out_weights = rng.uniform(-0.05, 0.05, HIDDEN + 1).astype(np.float32)
    return {"input": units, "weights": weights, "output_weights": out_weights}


def squash(x):
    return 1.0 / (1.0 + np.exp(-x))


def host_layers(hidden_sums: np.ndarray, out_weights: np.ndarray):
    """The host's part between the kernels: hidden activations, output, the deltas and the
    hidden->output weight update (momentum from zero)."""
    hidden = np.concatenate([[1.0], squash(hidden_sums)])
    output = squash(hidden @ out_weights.astype(np.float64))
    out_delta = output * (1.0 - output) * (TARGET - output)
    hid_delta = hidden * (1.0 - hidden) * out_weights * out_delta
    hid_delta[0] = 0.0
    new_out_weights = out_weights + ETA * out_delta * hidden
    return hidden, output, hid_delta, new_out_weights


def main(ctx, seed: int = 0, scale: float = 1.0) -> dict[str, np.ndarray]:
    inp = inputs(seed, scale)
    n = len(inp["input"]) - 1
    blocks = n // WIDTH
    mod = ctx.load_ptx(Path(__file__).with_suffix(".ptx"))
    d_input, d_weights = ctx.to_device(inp["input"]), ctx.to_device(inp["weights"])
    d_partial = ctx.empty((blocks, HIDDEN), np.float32)
    d_previous = ctx.zeros(inp["weights"].shape, np.float32)
    mod.launch("bp_layer_forward", (1, blocks), (WIDTH, WIDTH), (d_input, d_weights, d_partial))
    sums = d_partial.get().sum(axis=0, dtype=np.float32) + inp["weights"][0, 1:]
    hidden, output, hid_delta, out_w = host_layers(sums.astype(np.float64), inp["output_weights"])
    d_delta = ctx.to_device(hid_delta.astype(np.float32))
    mod.launch("bp_adjust_weights", (1, blocks), (WIDTH, WIDTH),
               (d_delta, d_input, d_weights, d_previous))
    return {"hidden": hidden[1:], "output": np.array([output]), "weights": d_weights.get(),
            "output_weights": out_w}


def reference(seed: int, scale: float) -> dict[str, np.ndarray]:
    inp = inputs(seed, scale)
    x = inp["input"].astype(np.float64)
    w = inp["weights"].astype(np.float64)
    sums = x @ w[:, 1:]                                   # bias row: x[0] = 1
    hidden, output, hid_delta, out_w = host_layers(sums, inp["output_weights"])
    step = ETA * np.outer(x, hid_delta)
    step[:, 0] = 0.0
    return {"hidden": hidden[1:], "output": np.array([output]), "weights": w + step,
            "output_weights": out_w}
