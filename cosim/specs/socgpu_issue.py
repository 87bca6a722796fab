"""Block entry: SOCGPU per-warp issue block, IB + dependence matrix ([SOCGPU instruction buffer,
dependence matrix, area])."""

from __future__ import annotations

from gpusched.blocks import BlockSpec, Param


def spec() -> BlockSpec:
    from cosim.stimuli.socgpu_issue import SocgpuStimulus
    from hdl.socgpu import DUAL_MODES, POLICIES, IssueParams
    from hdl.socgpu_issue import SocgpuIssue
    from sim.blocks.socgpu_issue import SocgpuIssueTwin
    ports = IssueParams().ports()

    def rng(lo, hi):
        return Param(int, None, f"an integer in {lo}..{hi}", lambda v: lo <= v <= hi)

    params = {
        "N": rng(2, 64), "S": rng(1, 8), "D": rng(1, 4), "RW": rng(3, 16), "PW": rng(4, 64),
        "W": rng(1, 8), "slot": rng(0, 65534),
        "policy": Param(str, None, "one of " + ", ".join(POLICIES), lambda v: v in POLICIES),
        "dual": Param(str, None, "one of " + ", ".join(DUAL_MODES), lambda v: v in DUAL_MODES),
    }
    defaults = IssueParams()
    params = {k: Param(v.type, getattr(defaults, k), v.allowed, v.check) for k, v in params.items()}
    return BlockSpec(
        name="socgpu_issue",
        doc="SOCGPU per-warp issue: N-entry IB, dependence matrix, local policy, dual issue",
        params=params,
        make_rtl=lambda p: SocgpuIssue(**p),
        make_twin=lambda p: SocgpuIssueTwin(**p),
        make_stimulus=lambda p, seed: SocgpuStimulus(p, seed),
        inputs=tuple(k for k, (d, _) in ports.items() if d == "in"),
        outputs=tuple(k for k, (d, _) in ports.items() if d == "out"),
        paper="SAED 14 nm, one warp, N=8: 11,375.72 µm² vs baseline 2,234.79 µm² (5.09x), [SOCGPU area]",
    )
