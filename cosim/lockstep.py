"""Backend-neutral lockstep: every cycle the twin's outputs must equal the RTL's.

A backend (Amaranth simulator, cocotb) only has to drive inputs and read outputs; this module
owns the stimulus → twin → compare loop and the readable first-mismatch report.
"""

from __future__ import annotations

from dataclasses import dataclass


class LockstepMismatch(AssertionError):
    """First cycle where RTL and twin disagree."""


@dataclass
class LockstepReport:
    block: str
    params: dict
    seed: int
    cycles: int
    mismatches: int
    seconds: float

    @property
    def cycles_per_s(self) -> float:
        return self.cycles / self.seconds if self.seconds > 0 else float("inf")


def _fmt(d: dict) -> str:
    return ", ".join(f"{k}={v:#x}" if isinstance(v, int) and v > 9 else f"{k}={v}" for k, v in d.items())


def mismatch_message(block: str, params: dict, seed: int, cycle: int, inputs: dict,
                     expected: dict, got: dict) -> str:
    diff = [k for k in expected if expected[k] != got.get(k)]
    return (f"{block} {params} seed={seed}: mismatch at cycle {cycle} on {', '.join(diff)}\n"
            f"  inputs: {_fmt(inputs)}\n  twin:   {_fmt(expected)}\n  rtl:    {_fmt(got)}")


def compare(block: str, params: dict, seed: int, cycle: int, inputs: dict, expected: dict,
            got: dict) -> None:
    """Raise LockstepMismatch naming cycle, inputs and both outputs if any output differs."""
    for k, v in expected.items():
        if got.get(k) != v:
            raise LockstepMismatch(mismatch_message(block, params, seed, cycle, inputs, expected, got))
