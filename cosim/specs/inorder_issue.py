"""Block entry: baseline in-order issue with scoreboard CAMs ([SOCGPU baseline]; the cycle contract
is ours)."""

from __future__ import annotations

from gpusched.blocks import BlockSpec, Param


def spec() -> BlockSpec:
    from cosim.stimuli.inorder_issue import InorderStimulus
    from hdl.inorder_issue import InorderIssue, InorderParams
    from sim.blocks.inorder_issue import InorderIssueTwin
    ports = InorderParams().ports()
    d = InorderParams()

    def rng(name, lo, hi):
        return Param(int, getattr(d, name), f"an integer in {lo}..{hi}", lambda v: lo <= v <= hi)

    return BlockSpec(
        name="inorder_issue",
        doc="baseline per-warp issue: 2-entry in-order IB, scoreboard CAMs sb_write/sb_read",
        params={"S": rng("S", 1, 8), "D": rng("D", 1, 4), "RW": rng("RW", 3, 16),
                "PW": rng("PW", 4, 64), "W": rng("W", 1, 8), "sb_write": rng("sb_write", 1, 64),
                "sb_read": rng("sb_read", 1, 64),
                "dual": Param(str, "on", "off or on", lambda v: v in ("off", "on"))},
        make_rtl=lambda p: InorderIssue(**p),
        make_twin=lambda p: InorderIssueTwin(**p),
        make_stimulus=lambda p, seed: InorderStimulus(p, seed),
        inputs=tuple(k for k, (dd, _) in ports.items() if dd == "in"),
        outputs=tuple(k for k, (dd, _) in ports.items() if dd == "out"),
        paper="SAED 14 nm, one warp: 2,234.79 µm² (SOCGPU N=8 is 5.09x), [SOCGPU area]",
    )
