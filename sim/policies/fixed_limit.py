"""Fixed per-SM CTA-count limit: every SM holds at most min(n, N_max) CTAs of a kernel, where
N_max is the baseline occupancy limit (``MaxOccupancy``). The Perf-Sat experiment sweeps it to
find the oracle count ([THESIS Table 4.2]: the count beyond which one more CTA gains < 2 %); it is
not a mechanism of the thesis.

Registered as the family ``fixed:<N>`` (``--cta-limit fixed:3``; the older ``ctas_3`` still works).
"""

from __future__ import annotations

from gpusched.config import ConfigError
from sim.policies.cta_limit import MaxOccupancy

class FixedLimit(MaxOccupancy):
    """CTA-count limit ``n`` on every SM, never above the occupancy limit."""

    def __init__(self, cfg, n: int):
        if n < 1:
            raise ConfigError("cta_limit", f"fixed:{n}", "needs N >= 1")
        super().__init__(cfg)
        self.n = n

    def limit(self, sm, run) -> int:
        return min(self.n, super().limit(sm, run))

    def report(self) -> dict:
        return {"n": self.n}
