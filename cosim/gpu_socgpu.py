"""GPU-model scenario with the SOCGPU per-warp issue blocks of one SM in the loop
(``sm.issue = socgpu``): ``PortIssue`` puts a flat-port ``socgpu_issue`` block (RTL, lockstep
proxy or twin) behind the model's per-warp block API, and ``gpu_socgpu`` runs the whole GPU with
those blocks in every sub-core of one SM (the other SMs keep the fast model blocks). Run through
``cosim.gpu_scenarios.run("socgpu_issue", ...)``."""

from __future__ import annotations

from gpusched.blocks import get_block, parse_params
from cosim.gpu_scenarios import _config, _given, _simulate, _with_twin


def socgpu_issue_params(preset: str, overrides=(), slot: int = 0) -> dict:
    """``socgpu_issue`` RTL params matching what ``SocgpuSubCore`` feeds its blocks on that config
    (the one place they are derived): N = ``sm.ib_entries``, the local policy, the dual mode,
    W = the model's write-back ports per warp, RW wide enough for every model register id;
    S / D / PW stay at the spec defaults (checked on every insert by ``PortIssue``)."""
    from sim.issue.socgpu import block_params
    cfg = _config(preset, overrides)
    if cfg.sm.issue != "socgpu":
        raise ValueError(f"sm.issue = {cfg.sm.issue}: this scenario needs sm.issue=socgpu")
    return parse_params(get_block("socgpu_issue"), block_params(cfg, slot))


def socgpu_params_list(preset: str, overrides=()) -> list[dict]:
    """One params dict per warp slot of an SM (slot k seeds nothing for stateless policies but
    keeps each instance's parameters exact)."""
    cfg = _config(preset, overrides)
    return [socgpu_issue_params(preset, overrides, k) for k in range(cfg.sm.warps_per_sm)]


def gpu_socgpu(blocks, params_list: list[dict], preset: str, workload: str, scale: float = 1.0,
               overrides: list[str] = (), memory: str = "fixed", seed: int = 0, sm: int = 0,
               twin: str | None = None, port_twins: bool = False) -> dict:
    """One GPU run with ``sm.issue=socgpu``; the issue block of warp slot k of SM ``sm`` is
    ``blocks[k]`` behind ``PortIssue`` (the other SMs keep ``FastSocgpuIssue``). ``blocks=None``:
    the stock model (every block ``FastSocgpuIssue``), or with ``port_twins`` the twins through
    the same ports. {"runs": [{"sm", "cycles", "ipc", "block_steps", "slot_steps", "stats"}]}."""
    cfg = _config(preset, overrides)
    want = socgpu_params_list(preset, overrides)
    if [dict(p) for p in params_list] != want:
        raise ValueError(f"socgpu_issue params {params_list} do not match {preset}: {want}")
    if blocks is None and not port_twins:
        stats = _simulate(cfg, workload, scale, seed, memory)
        return {"runs": [{"sm": None, "cycles": stats["cycles"], "ipc": stats.get("ipc"),
                          "block_steps": 0, "slot_steps": [], "stats": stats}]}
    if blocks is None:
        from sim.blocks.socgpu_issue import SocgpuIssueTwin
        blocks = [SocgpuIssueTwin(**p) for p in params_list]
    from cosim.gpu_owl import _Counted
    counted = [_Counted(b) for b in _with_twin(blocks, params_list, twin)]
    stats = _simulate(cfg, workload, scale, seed, memory,
                      blocks=_given(**{f"sm{sm}.w{k}": ("socgpu_issue", b)
                                       for k, b in enumerate(counted)}))
    steps = [b.steps for b in counted]
    return {"runs": [{"sm": sm, "cycles": stats["cycles"], "ipc": stats.get("ipc"),
                      "block_steps": sum(steps), "slot_steps": steps, "stats": stats}]}
