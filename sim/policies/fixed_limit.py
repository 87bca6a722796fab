"""Fixed per-SM CTA-count limit: every SM holds at most min(n, N_max) CTAs of a kernel, where
N_max is the baseline occupancy limit (``MaxOccupancy``). The Perf-Sat experiment sweeps it to
find the oracle count (thesis.md §2.8: the count beyond which one more CTA gains < 2 %); it is
not a mechanism of the thesis.

Registered as ``ctas_<n>`` for n = 1..``MAX_REGISTERED`` (``--cta-limit ctas_3``).
"""

from __future__ import annotations

from gpusched.config import ConfigError
from sim.policies.cta_limit import MaxOccupancy

MAX_REGISTERED = 32     # the most CTA slots per SM of the presets


class FixedLimit(MaxOccupancy):
    """CTA-count limit ``n`` on every SM, never above the occupancy limit."""

    def __init__(self, cfg, n: int):
        if n < 1:
            raise ConfigError("cta_limit", f"ctas_{n}", "needs n >= 1")
        super().__init__(cfg)
        self.n = n

    def limit(self, sm, run) -> int:
        return min(self.n, super().limit(sm, run))

    def report(self) -> dict:
        return {"n": self.n}


def _fixed(n: int):
    def make(cfg) -> FixedLimit:
        return FixedLimit(cfg, n)
    make.__name__ = make.__qualname__ = f"FixedLimit_{n}"
    return make


FIXED_CTA_LIMITS = {f"ctas_{n}": _fixed(n) for n in range(1, MAX_REGISTERED + 1)}
