"""MCO: Monte-Carlo pricing of European call options (CUDA SDK MonteCarlo): 8 CTAs of 256
threads per option each sum the payoffs of their share of the paths; the host combines the
partial sums into the price and its 95 % confidence half-width."""

from __future__ import annotations

from pathlib import Path

import numpy as np

OPTIONS = 256                   # the SDK's OPT_N
CTAS_PER_OPTION = 8             # 2048 CTAs, thesis Table 3.3
THREADS = 256
PATHS_AT_SCALE_1 = 262144       # the SDK's PATH_N
RATE, VOLATILITY = 0.06, 0.10   # the SDK's riskless rate and volatility

INFO = {
    "title": "Monte-Carlo option pricing (per-option path sums + tree reduction)",
    "suite": "CUDA SDK",
    "papers": {"thesis_ch3": "MCO"},
    "kernels": ("mc_paths",),
    "default_scale": 1 / 4,
    "quick_scale": 1 / 512,
    "inputs": "256 options (spot 5-50, strike 10-25, 1-5 years, rate 6 %, volatility 10 %), "
              "standard normal samples drawn on the host and shared by every option",
    "scale_note": "scale 1 = the SDK's 262144 paths per option; the default 1/4 keeps the "
                  "thesis's 2048 CTAs (256 options x 8) with 65536 paths per option, 32 per "
                  "thread instead of 128: the path-loop phase is 4x shorter; below 1/16 the "
                  "option count shrinks too (scale 1/512: 8 options, 64 CTAs, 2048 paths)",
    "paper_values": {"thesis_ch3": {"MCO": {
        "ctas": 2048, "threads": 256, "ctas_per_core": 5, "phases": 2,
        "longest": 284, "shortest": 38}}},
}

# float32 payoffs and sums of 32 paths per thread, then a 256-way tree: relative error ~1e-6;
# a wrong payoff formula or a lost partial moves the price by percents
TOLERANCE = {"price": (2e-5, 1e-6), "confidence": (2e-4, 1e-6)}

OPTION_DTYPE = np.dtype([("spot", np.float32), ("strike", np.float32), ("mu_by_t", np.float32),
                         ("v_by_sqrt_t", np.float32)])


def _paths(scale: float) -> int:
    unit = CTAS_PER_OPTION * THREADS
    return max(unit, int(round(PATHS_AT_SCALE_1 * scale / unit)) * unit)


def _option_count(scale: float) -> int:
    """All 256 options from scale 1/16 up; fewer below (the quick test's size)."""
    return int(min(OPTIONS, max(2, round(OPTIONS * scale * 16))))


def inputs(seed: int, scale: float) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    n = _option_count(scale)
    return {"spot": rng.uniform(5, 50, n).astype(np.float32),
            "strike": rng.uniform(10, 25, n).astype(np.float32),
            "years": rng.uniform(1, 5, n).astype(np.float32),
            "normals": rng.standard_normal(_paths(scale)).astype(np.float32)}


def _options(inp) -> np.ndarray:
    t = inp["years"].astype(np.float64)
    opts = np.zeros(len(t), OPTION_DTYPE)
    opts["spot"], opts["strike"] = inp["spot"], inp["strike"]
    opts["mu_by_t"] = (RATE - 0.5 * VOLATILITY ** 2) * t
    opts["v_by_sqrt_t"] = VOLATILITY * np.sqrt(t)
    return opts


def _finish(sums, squares, paths, years):
    """Price = discounted mean payoff; confidence = 1.96 standard errors of it."""
    disc = np.exp(-RATE * years.astype(np.float64))
    mean = sums / paths
    std = np.sqrt(np.maximum(squares / paths - mean * mean, 0.0) * paths / (paths - 1))
    return disc * mean, disc * 1.96 * std / np.sqrt(paths)


def main(ctx, seed: int = 0, scale: float = 1.0) -> dict[str, np.ndarray]:
    inp = inputs(seed, scale)
    paths, n = len(inp["normals"]), len(inp["years"])
    mod = ctx.load_ptx(Path(__file__).with_suffix(".ptx"))
    options = ctx.to_device(_options(inp).view(np.float32))
    normals = ctx.to_device(inp["normals"])
    partial = ctx.zeros((n * CTAS_PER_OPTION, 2), np.float32)
    mod.launch("mc_paths", grid=(n * CTAS_PER_OPTION,), block=(THREADS,),
               args=(options, normals, np.int32(CTAS_PER_OPTION),
                     np.int32(paths // CTAS_PER_OPTION), partial))
    part = partial.get().astype(np.float64).reshape(n, CTAS_PER_OPTION, 2).sum(axis=1)
    price, conf = _finish(part[:, 0], part[:, 1], paths, inp["years"])
    return {"price": price, "confidence": conf}


def reference(seed: int, scale: float) -> dict[str, np.ndarray]:
    inp = inputs(seed, scale)
    opts = _options(inp)
    z = inp["normals"].astype(np.float64)[None, :]
    spot = opts["spot"].astype(np.float64)[:, None]
    price = spot * np.exp(opts["mu_by_t"].astype(np.float64)[:, None]
                          + opts["v_by_sqrt_t"].astype(np.float64)[:, None] * z)
    payoff = np.maximum(price - opts["strike"].astype(np.float64)[:, None], 0.0)
    paths = z.shape[1]
    p, c = _finish(payoff.sum(axis=1), (payoff * payoff).sum(axis=1), paths, inp["years"])
    return {"price": p, "confidence": c}
