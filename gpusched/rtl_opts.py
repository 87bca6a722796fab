"""``--rtl BLOCK[@INSTANCE]``, ``--rtl-sim`` and ``--lockstep`` of ``gpusched run`` (and sweep
grids' ``rtl`` key): the block provider they ask for and the run around it."""

from __future__ import annotations

import sys
from typing import Callable

from gpusched.config import ConfigError


def rtl_selections(value) -> list[str]:
    """A grid's ``rtl`` value (``"BLOCK[@INSTANCE],…"`` or a list) as selections, checked."""
    if value is None or value == "":
        return []
    items = value if isinstance(value, list) else str(value).split(",")
    from cosim.provider import parse_selection
    for item in items:
        parse_selection(str(item).strip(), "rtl")
    return [str(item).strip() for item in items]


def rtl_provider(rtl: list[str] | None, rtl_sim: str = "verilator", lockstep: bool = False):
    """The run's block provider: the twins without ``rtl``, else cosim's ``RtlProvider``."""
    if not rtl:
        if lockstep or rtl_sim != "verilator":
            raise ConfigError("--lockstep" if lockstep else "--rtl-sim", lockstep or rtl_sim,
                              "needs --rtl BLOCK[@INSTANCE]")
        from sim.blocks.provider import TWINS
        return TWINS
    from cosim.provider import RtlProvider, parse_selection
    return RtlProvider([parse_selection(r) for r in rtl], rtl_sim, lockstep,
                       say=lambda text: print(f"gpusched: {text}", file=sys.stderr))


def run_with_rtl(blocks, run: Callable, cli: bool = True):
    """``run(blocks)``; a selection that matched no block instance is a ConfigError. On the
    command line (``cli``) a lockstep mismatch exits 1 with its report and the RTL in the loop is
    summed up on stderr; elsewhere (a sweep point) the mismatch is raised."""
    from sim.blocks.provider import TWINS
    if blocks is TWINS:
        return run(blocks)
    from cosim.lockstep import LockstepMismatch
    try:
        result = run(blocks)
    except LockstepMismatch as e:
        if not cli:
            raise
        print(f"gpusched: lockstep mismatch: {e}", file=sys.stderr)
        raise SystemExit(1) from None
    finally:
        blocks.close()
    unused = blocks.unused()
    if unused:
        raise ConfigError("--rtl", ", ".join(map(str, unused)), "matched no block instance of "
                          "this run (instances: gpu, sm<i>, sm<i>.sub<j>, sm<i>.w<k>, mc<c>; "
                          "the block must be in use: e.g. cta_sched needs --cta-scheduler ikra_*)")
    if not cli:
        return result
    rep = blocks.report()
    done = ", ".join(f"{v['block']}@{k} {v['cycles']:,} cycles" for k, v in rep["instances"].items())
    mode = " in lockstep with the twin" if rep["lockstep"] else ""
    print(f"gpusched: rtl ({rep['backend']}{mode}): {done}", file=sys.stderr)
    return result
