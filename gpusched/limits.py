"""Bounds on the counts a user types, checked before any work starts (exit 2, one line naming
the option, the value and the limit with the time it stands for).

The limits are choices: each one is far above any run in docs/ and the papers' grids, and
below what would run for days or exhaust memory.
"""

from __future__ import annotations

import math

from gpusched.config import ConfigError

SEED_MIN, SEED_MAX = -(1 << 63), (1 << 63) - 1     # a signed 64-bit integer: what the results
                                                   # store (SQLite INTEGER) keeps
MAX_COSIM_CYCLES = 100_000_000      # ~6 h in lockstep with the Python twin at ~5 k cycles/s
MAX_BENCH_REPEAT = 100              # each repeat runs every reference in a fresh process
MAX_GRID_POINTS = 100_000           # a sweep of more: split the grid
MAX_BMC_DEPTH = 1_000               # BMC to depth 40 already takes minutes per case
MAX_TIMEOUT_S = 7 * 24 * 3600.0


def check_seed(where: str, seed: object) -> None:
    """A seed is an integer within 64 bits (signed)."""
    if isinstance(seed, bool) or not isinstance(seed, int) or not SEED_MIN <= seed <= SEED_MAX:
        raise ConfigError(where, seed, f"expected an integer from {SEED_MIN} to {SEED_MAX} "
                                       "(64 bits)")


def check_count(where: str, value: int, low: int, high: int, why: str = "") -> None:
    """``low <= value <= high``; ``why`` says what the limit stands for."""
    if not low <= value <= high:
        raise ConfigError(where, value, f"must be {low:,} to {high:,}" + (f" ({why})" if why else ""))


def check_seconds(where: str, value: float, high: float = MAX_TIMEOUT_S) -> None:
    """A finite number of seconds above 0 and at most ``high``."""
    if not math.isfinite(value) or not 0 < value <= high:
        raise ConfigError(where, value, f"expected a number of seconds above 0 and at most "
                                        f"{high:,.0f}")


def duration(seconds: float) -> str:
    """``42 s``, ``3.5 min``, ``2.1 h`` or ``4.0 days``."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.1f} min"
    if seconds < 2 * 86400:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:.1f} days"
