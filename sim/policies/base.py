"""What every scheduling policy shares: the GPU handle, per-cycle hook and event hooks.

The GPU calls the hooks of all four policies (kernel scheduler, CTA scheduler, CTA-count limit,
active-SM controller) on every event, in that order. Hooks run at the end of the cycle ``now``
in which the event happened. A policy with ``per_cycle = True`` also gets ``on_cycle(now)`` on
every simulated cycle; ``next_wakeup(now)`` names a future cycle the GPU must not skip past
(e.g. the end of a sampling epoch), so idle-cycle skipping stays exact.
"""

from __future__ import annotations


class Policy:
    """Base class with no-op hooks; subclasses override what they need."""

    per_cycle = False
    chooses_cta_ids = False     # a CTA scheduler placing CTAs out of linear id order (IKRA)

    def attach(self, gpu) -> None:
        """Called once when the GPU is built (before cycle 0)."""
        self.gpu = gpu

    def on_cycle(self, now: int) -> None:
        """Every simulated cycle, after the SMs ran and before CTA issue (``per_cycle`` only)."""

    def next_wakeup(self, now: int) -> int | None:
        """The next cycle > now at which this policy needs to run, or None."""
        return None

    def on_kernel_launch(self, now: int, run) -> None:
        """``run`` entered a kernel slot (its launch countdown starts)."""

    def on_kernel_start(self, now: int, run) -> None:
        """The first CTA of ``run`` was placed."""

    def on_kernel_end(self, now: int, run) -> None:
        """The last CTA of ``run`` finished."""

    def on_cta_start(self, now: int, sm, cta) -> None:
        """``cta`` was placed on ``sm``."""

    def on_cta_finish(self, now: int, sm, cta) -> None:
        """All warps of ``cta`` finished on ``sm``; its resources are free again."""

    def on_sm_drained(self, now: int, sm) -> None:
        """A paused ``sm`` has no instruction in flight any more (pause acknowledged)."""

    def report(self) -> dict | None:
        """JSON-ready record of what the policy decided (traces, counters) for the run's stats
        under ``policy_reports``; None when there is nothing to report (the baselines)."""
        return None

    def may_dispatch(self, sm_id: int) -> bool:
        """Active-SM controllers only: may SM ``sm_id`` receive new CTAs now (default: yes)."""
        return True
