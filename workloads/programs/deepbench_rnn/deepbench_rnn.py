"""DeepBench rnn-lstm and rnn-gru (SOCGPU's four RNN benchmarks, train and inference): one layer
unrolled over time, every step two GEMVs (input and recurrent weights) and an element-wise gate
kernel; training adds the backward pass through time, every step a gate-gradient kernel and a
GEMV with the transposed recurrent weights (deepbench_rnn.cu). One run does all four; the
options ``cell=lstm|gru`` and ``mode=train|infer`` select one (SOCGPU's benchmarks, e.g.
``program:deepbench_rnn:cell=lstm,mode=train``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ptx.host import DeviceArray

GATES = {"lstm": 4, "gru": 3}
# hidden units, batch, time steps at scale 1 (DeepBench-style: a training batch of 16, and
# latency-bound inference on one sequence)
MODES = {"train": (256, 16, 25), "infer": (512, 1, 50)}
BLOCK = 256

INFO = {
    "title": "DeepBench RNN layers (LSTM, GRU), training and inference",
    "suite": "DeepBench",
    "papers": {"socgpu": "rnn-lstm, rnn-gru (train, inference)"},
    "kernels": ("rnn_gemv_b1", "rnn_gemv_b16", "lstm_cell_forward", "lstm_cell_backward",
                "gru_cell_forward", "gru_cell_backward"),
    "default_scale": 0.08,
    "quick_scale": 0.02,
    "inputs": ("inputs and output gradients standard normal; weights uniform in ±1/√H "
               "(the usual initialisation); zero initial state"),
    "scale_note": ("scale 1 = hidden 256, batch 16, 25 steps (training: forward and backward) and "
                   "hidden 512, batch 1, 50 steps (inference), per cell type. The steps scale, so "
                   "the default 0.08 runs 2 and 4 steps with the full per-step kernels (GEMVs of "
                   "256-thread CTAs, a warp per weight row (training) or eight (inference): "
                   "LSTM 128 forward and 32 backward for training, 32 for inference, GRU ¾ of the "
                   "forward ones; gate kernels of 16 and 2 CTAs); below 0.08 the hidden size "
                   "shrinks too (in multiples of 128 and 256)."),
    "options": {"cell": ("all", "lstm", "gru"), "mode": ("all", "train", "infer")},
    "paper_values": {},
}
TOLERANCE = {k: (1e-4, 1e-5) for k in ("h_lstm_train", "h_lstm_infer", "h_gru_train", "h_gru_infer",
                                         "dh0_lstm_train", "dh0_gru_train")}   # float32 over steps


ROWS_PER_WARP = {1: 8, 16: 1}       # rnn_gemv_b1, rnn_gemv_b16
COLS_STEP = {1: 256, 16: 128}        # the GEMVs' unrolled stride: hidden sizes are multiples


def dims(mode: str, scale: float) -> tuple[int, int, int]:
    hidden, batch, steps = MODES[mode]
    unit = COLS_STEP[batch]
    hidden = unit * max(1, round(hidden * min(1.0, 12.5 * scale) / unit))
    return hidden, batch, max(1, round(steps * scale))


def selected(cell: str = "all", mode: str = "all") -> list[tuple[str, str]]:
    """The (cell, mode) layers the options select, in run order."""
    for name, value in (("cell", cell), ("mode", mode)):
        if value not in INFO["options"][name]:
            raise ValueError(f"{name}: {value!r} is not one of "
                             + ", ".join(INFO["options"][name]))
    return [(c, m) for c in GATES for m in MODES if cell in ("all", c) and mode in ("all", m)]


def inputs(seed: int, scale: float, cell: str = "all", mode: str = "all") -> dict[str, np.ndarray]:
    """Every layer's data drawn in one order (a selection's data equals its part of ``all``)."""
    rng = np.random.default_rng(seed)
    chosen = selected(cell, mode)
    out = {}
    for c, g in GATES.items():
        for m in MODES:
            h, b, t = dims(m, scale)
            lim = 1 / np.sqrt(h)
            key = f"{c}_{m}"
            drawn = {f"wx_{key}": rng.uniform(-lim, lim, (g * h, h)).astype(np.float32),
                     f"wh_{key}": rng.uniform(-lim, lim, (g * h, h)).astype(np.float32),
                     f"bias_{key}": rng.uniform(-lim, lim, 4 * h).astype(np.float32),
                     f"x_{key}": rng.standard_normal((t, b, h)).astype(np.float32)}
            if m == "train":
                drawn[f"dy_{key}"] = rng.standard_normal((t, b, h)).astype(np.float32)
            if (c, m) in chosen:
                out.update(drawn)
    return out


def _at(a: DeviceArray, index: int) -> DeviceArray:
    """The sub-array a[index] of a device array (pointer arithmetic)."""
    sub = a.shape[1:]
    return DeviceArray(a.ctx, a.ptr + index * int(np.prod(sub)) * a.dtype.itemsize, sub, a.dtype)


def _run(ctx, mod, cell: str, mode: str, data: dict, scale: float) -> dict[str, np.ndarray]:
    h, b, t = dims(mode, scale)
    g = GATES[cell]
    key = f"{cell}_{mode}"
    gemv = f"rnn_gemv_b{b}"
    wx, wh = ctx.to_device(data[f"wx_{key}"]), ctx.to_device(data[f"wh_{key}"])
    bias = ctx.to_device(data[f"bias_{key}"])
    x = ctx.to_device(data[f"x_{key}"])
    hs = ctx.zeros((t + 1, b, h), np.float32)
    cs = ctx.zeros((t + 1, b, h), np.float32)
    saved = ctx.zeros((t, b, 4 * h), np.float32)
    px, ph = ctx.zeros((b, g * h), np.float32), ctx.zeros((b, g * h), np.float32)
    cells = (-(-b * h // BLOCK),)

    def product(w, vec, out, rows, cols):
        warps = rows // ROWS_PER_WARP[b]
        mod.launch(gemv, grid=(-(-warps * 32 // BLOCK),), block=(BLOCK,),
                   args=(w, vec, out, np.int32(rows), np.int32(cols)))

    for s in range(t):                                   # forward through time
        product(wx, _at(x, s), px, g * h, h)
        product(wh, _at(hs, s), ph, g * h, h)
        if cell == "lstm":
            mod.launch("lstm_cell_forward", grid=cells, block=(BLOCK,),
                       args=(px, ph, bias, _at(cs, s), _at(cs, s + 1), _at(hs, s + 1),
                             _at(saved, s), np.int32(h), np.int32(b)))
        else:
            mod.launch("gru_cell_forward", grid=cells, block=(BLOCK,),
                       args=(px, ph, bias, _at(hs, s), _at(hs, s + 1), _at(saved, s),
                             np.int32(h), np.int32(b)))
    out = {f"h_{key}": hs.get()[1:]}
    if mode != "train":
        return out
    wht = ctx.to_device(np.ascontiguousarray(data[f"wh_{key}"].T))      # H × gH
    dy = ctx.to_device(data[f"dy_{key}"])
    dh_rec, carry = ctx.zeros((b, h), np.float32), ctx.zeros((b, h), np.float32)
    dgates = ctx.zeros((b, g * h), np.float32)
    for s in reversed(range(t)):                         # backward through time
        if cell == "lstm":
            mod.launch("lstm_cell_backward", grid=cells, block=(BLOCK,),
                       args=(_at(dy, s), dh_rec, carry, _at(saved, s), _at(cs, s + 1), _at(cs, s),
                             dgates, np.int32(h), np.int32(b)))
        else:
            mod.launch("gru_cell_backward", grid=cells, block=(BLOCK,),
                       args=(_at(dy, s), dh_rec, carry, _at(saved, s), _at(hs, s), dgates,
                             np.int32(h), np.int32(b)))
        product(wht, dgates, dh_rec, h, g * h)
    dh0 = dh_rec.get() + (carry.get() if cell == "gru" else 0.0)   # the host adds the GRU's direct path
    out[f"dh0_{key}"] = dh0
    return out


def main(ctx, seed: int = 0, scale: float = 1.0, cell: str = "all",
         mode: str = "all") -> dict[str, np.ndarray]:
    data = inputs(seed, scale, cell, mode)
    mod = ctx.load_ptx(Path(__file__).with_suffix(".ptx"))
    out = {}
    for c, m in selected(cell, mode):
        out.update(_run(ctx, mod, c, m, data, scale))
    return out


def _sigmoid(v):
    return 1 / (1 + np.exp(-v))


def _reference_one(cell: str, mode: str, data: dict, scale: float) -> dict[str, np.ndarray]:
    h, b, t = dims(mode, scale)
    key = f"{cell}_{mode}"
    wx, wh = data[f"wx_{key}"].astype(np.float64), data[f"wh_{key}"].astype(np.float64)
    bias, x = data[f"bias_{key}"].astype(np.float64), data[f"x_{key}"].astype(np.float64)
    hs, cs = np.zeros((t + 1, b, h)), np.zeros((t + 1, b, h))
    saved = []
    for s in range(t):
        px, ph = x[s] @ wx.T, hs[s] @ wh.T
        if cell == "lstm":
            a = px + ph + bias
            i, f, o = _sigmoid(a[:, :h]), _sigmoid(a[:, h:2 * h]), _sigmoid(a[:, 3 * h:])
            gg = np.tanh(a[:, 2 * h:3 * h])
            cs[s + 1] = f * cs[s] + i * gg
            hs[s + 1] = o * np.tanh(cs[s + 1])
            saved.append((i, f, gg, o))
        else:
            r = _sigmoid(px[:, :h] + ph[:, :h] + bias[:h])
            z = _sigmoid(px[:, h:2 * h] + ph[:, h:2 * h] + bias[h:2 * h])
            hn = ph[:, 2 * h:] + bias[3 * h:]
            n = np.tanh(px[:, 2 * h:] + bias[2 * h:3 * h] + r * hn)
            hs[s + 1] = (1 - z) * n + z * hs[s]
            saved.append((r, z, n, hn))
    out = {f"h_{key}": hs[1:]}
    if mode != "train":
        return out
    dy = data[f"dy_{key}"].astype(np.float64)
    dh_rec, carry = np.zeros((b, h)), np.zeros((b, h))
    for s in reversed(range(t)):
        if cell == "lstm":
            i, f, gg, o = saved[s]
            dh = dy[s] + dh_rec
            tc = np.tanh(cs[s + 1])
            dc = carry + dh * o * (1 - tc * tc)
            dg = np.concatenate([dc * gg * i * (1 - i), dc * cs[s] * f * (1 - f),
                                 dc * i * (1 - gg * gg), dh * tc * o * (1 - o)], 1)
            carry = dc * f
        else:
            r, z, n, hn = saved[s]
            dh = dy[s] + dh_rec + carry
            dan = dh * (1 - z) * (1 - n * n)
            dg = np.concatenate([dan * hn * r * (1 - r), dh * (hs[s] - n) * z * (1 - z), dan * r], 1)
            carry = dh * z
        dh_rec = dg @ wh
    out[f"dh0_{key}"] = dh_rec + (carry if cell == "gru" else 0.0)
    return out


def reference(seed: int, scale: float, cell: str = "all", mode: str = "all") -> dict[str, np.ndarray]:
    data = inputs(seed, scale, cell, mode)
    out = {}
    for c, m in selected(cell, mode):
        out.update(_reference_one(c, m, data, scale))
    return out
