"""Datapath and control pieces shared by the SM Work Manager detectors (ONAC, Seq-Det).

- ``divider``: a sequential restoring divider (one quotient bit per cycle), [THESIS] / our
  reproduction plan.
- ``swm``: the detection skeleton both detectors share: per-SM pause / sample handshakes, the
  Core Status Table (active, paused, IPC), per-SM IPC by division, the 0.98 threshold, drain and
  power-gating ([THESIS §4.4.2.3], with our choices where it is silent).
"""
