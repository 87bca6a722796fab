"""Active-SM controllers: pause / un-pause / power-gate SMs (ONAC, Seq-Det; [THESIS]).

Protocol: the ``Policy`` hooks plus ``may_dispatch(sm_id)``; act through ``gpu.pause_sm(now, i)``,
``gpu.resume_sm(now, i)`` and ``gpu.gate_sm(now, i)``. A paused SM stops issuing, keeps its CTAs,
gets no new CTA and acknowledges through ``on_sm_drained`` once its in-flight instructions
drained. ``may_dispatch(i)`` is the controller's say in CTA placement (the core status table's
active bit): the GPU's ``can_accept`` places CTAs on SM i only while it is true.
"""

from __future__ import annotations

from sim.policies.base import Policy


class AllActive(Policy):
    """Baseline: every SM stays active."""

    def __init__(self, cfg):
        pass
