"""Twin of ``hdl.core_sampler.CoreSampler``: per-SM sampling window and pause quiesce.

Same ports, widths and cycle timing (protocol in hdl/core_sampler.py). ``issue_hold`` is
combinational from ``pause_req`` and the state; the other outputs are registers.

Method-level API for the GPU model's SM: ``hold(pause_req)`` (may the SM issue this cycle?),
``sample_result`` ((instructions, cycles) once done, else None).
"""

from __future__ import annotations

from hdl.params.core_sampler import SamplerState as S
from hdl.params.core_sampler import check_params


class CoreSamplerTwin:
    """Behavioral sampler of one SM."""

    def __init__(self, waves: int = 4, count_bits: int = 24, limit_bits: int = 5):
        check_params(waves, count_bits, limit_bits)
        self.args = (waves, count_bits, limit_bits)
        self.waves = waves
        self.limit_mask = (1 << limit_bits) - 1
        self.cyc_max = (1 << count_bits) - 1
        self.instr_mask = (1 << (count_bits + 2)) - 1
        self.state = S.IDLE
        self.pause_ack = 0
        self.instr = self.cycles = self.ctas = self.target = 0

    def reset(self) -> None:
        """The synchronous reset: every register to its initial value."""
        self.__init__(*self.args)

    def peek(self) -> dict[str, int]:
        """The registered outputs after the last edge (``issue_hold`` for ``pause_req`` = 0)."""
        st = self.state
        return {"issue_hold": int(st == S.QUIESCE), "pause_ack": self.pause_ack,
                "sample_done": int(st == S.DONE), "sample_instr": self.instr,
                "sample_cycles": self.cycles, "state": int(st)}

    def hold(self, pause_req: int) -> bool:
        return bool(pause_req) or self.state == S.QUIESCE

    @property
    def sample_result(self) -> tuple[int, int] | None:
        return (self.instr, self.cycles) if self.state == S.DONE else None

    def step(self, pause_req: int = 0, sample_req: int = 0, instr: int = 0, in_flight: int = 0,
             cta_done: int = 0, cta_limit: int = 0) -> dict[str, int]:
        """Outputs of this cycle, then the clock edge."""
        st = self.state
        out = {"issue_hold": int(bool(pause_req) or st == S.QUIESCE), "pause_ack": self.pause_ack,
               "sample_done": int(st == S.DONE), "sample_instr": self.instr,
               "sample_cycles": self.cycles, "state": int(st)}
        self.pause_ack = int(bool(pause_req) and not in_flight)
        if pause_req or not sample_req:
            self.state = S.IDLE
        elif st == S.IDLE:
            self.state = S.QUIESCE
        elif st == S.QUIESCE:
            if not in_flight:
                self.instr = self.cycles = self.ctas = 0
                self.target = ((cta_limit & self.limit_mask) or 1) * self.waves
                self.state = S.COUNT
        elif st == S.COUNT:
            ctas = self.ctas + cta_done
            done = ctas >= self.target or self.cycles + 1 == self.cyc_max
            self.cycles += 1
            self.instr = (self.instr + instr) & self.instr_mask
            self.ctas = ctas
            if done:
                self.state = S.DONE
        return out
