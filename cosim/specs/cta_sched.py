"""Block entry: IKRA CTA scheduler, policies rr / chunk / reset / flip / steal ([IKRA]).

Parameters: C = number of CUs (the spec's P), ID_W, QDEPTH, policy, victim_first (right: the
paper's Fig 3 order; left); ``check=1`` makes the twin
run the property checker of our test plan on every cycle (any backend; no effect on the RTL).
"""

from __future__ import annotations

from gpusched.blocks import BlockSpec, Param


def spec() -> BlockSpec:
    from cosim.stimuli.cta_sched import CtaSchedStimulus
    from hdl.cta_sched import CtaSched
    from hdl.ikra.params import POLICIES, VICTIM_FIRST, IkraShape
    from sim.blocks.cta_sched import CtaSchedTwin
    from sim.blocks.ikra.checker import checked_twin_class
    shape = IkraShape(2)
    pow2 = lambda v: v >= 2 and not v & (v - 1)
    return BlockSpec(
        name="cta_sched",
        doc="IKRA CTA scheduler: G (rr), Chunk, Reset, Flip, Steal ([IKRA])",
        params={
            "C": Param(int, 15, "an integer in 1..64 (number of CUs)", lambda v: 1 <= v <= 64),
            "ID_W": Param(int, 32, "an integer in 4..63 (linear TB id width)", lambda v: 4 <= v <= 63),
            "QDEPTH": Param(int, 32, "a power of two >= 2 (steal queue entries)", pow2),
            "policy": Param(str, "steal", "one of " + ", ".join(POLICIES), lambda v: v in POLICIES),
            "victim_first": Param(str, "right", "one of " + ", ".join(VICTIM_FIRST)
                                  + " (a thief's first victim, [IKRA Steal] Fig 3)",
                                  lambda v: v in VICTIM_FIRST),
            "check": Param(int, 0, "0 or 1 (the twin checks our per-cycle [IKRA] properties)",
                           lambda v: v in (0, 1)),
        },
        make_rtl=lambda p: CtaSched(p["C"], p["ID_W"], p["QDEPTH"], p["policy"],
                                    p.get("victim_first", "right")),
        make_twin=lambda p: (checked_twin_class(CtaSchedTwin) if p.get("check") else CtaSchedTwin)(
            p["C"], p["ID_W"], p["QDEPTH"], p["policy"],
            victim_first=p.get("victim_first", "right")),
        make_stimulus=lambda p, seed: CtaSchedStimulus(p["C"], p["ID_W"], seed),
        inputs=shape.inputs(),
        outputs=shape.outputs(),
        paper="Steal: 32 × 63 bits = 252 B of queue per CU, < 0.05 % of 528 KB ([IKRA])",
    )
