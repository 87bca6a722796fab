"""docs/stats.md lists every key ``gpusched run`` prints, for a run of every kind, nothing else,
and is the current rendering of sim/stats_reference.py.

``RUNS`` is the table of runs, one command line each, run through the CLI itself (``--json`` and
``--format accelsim``). A new kind of run — a workload front end, a profiler, a policy with a
report — is one more row (inputs made on the fly, such as a trace directory, come from
``INPUTS`` as ``{name}`` in the command line); a key any of them prints that the reference does
not list fails here, with no list of expected keys to update by hand.
"""

import contextlib
import io
import json
import re

import pytest

from sim.stats_reference import DOC, STATS, keys_of, render

BASE = ("run", "--preset", "tiny", "--memory", "hierarchy")
SMALL = ("--workload", "mixed_like", "--scale", "0.05")

RUNS: dict[str, tuple[str, ...]] = {
    "catalogue": SMALL,
    "catalogue, fixed memory": (*SMALL, "--memory", "fixed"),
    "trace (Accel-Sim .traceg)": ("--trace", "{trace}"),
    "program (PTX front end)": ("--program", "{program}", "--scale", "0.01"),
    "SOCGPU issue stage": (*SMALL, "--issue", "socgpu"),
    "dual issue, no L1 misses": ("--workload", "compute_only", "--scale", "0.2", "--issue",
                                 "inorder_issue", "--set", "sm.dual_issue=true"),
    "L1 bypassed": (*SMALL, "--set", "l1.bypass_global_loads=true"),
    "CTA, limit and SM-controller reports": (*SMALL, "--cta-limit", "perf_sat",
                                             "--sm-controller", "onac",
                                             "--cta-scheduler", "ikra_steal"),
    "kernel-scheduler report": ("--workload", "rnn_like", "--scale", "0.1",
                                "--kernel-scheduler", "srtf", "--set", "kernels.concurrent_sm=true"),
    "profile warp-states": (*SMALL, "--profile", "warp-states"),
    "profile owl": (*SMALL, "--profile", "owl"),
}


def make_trace(tmp_path) -> str:
    from sim.workload.synthetic import build_kernel
    from sim.workload.tracegen import write_trace_dir
    from tests.workload.test_synthetic import rich_spec
    return str(write_trace_dir(tmp_path / "trace", [build_kernel(rich_spec(grid=(3, 2)),
                                                                 seed=1)]))


def example_program(tmp_path) -> str:
    """The worked example of docs/ptx.md, a CUDA vector add (host program + PTX)."""
    from pathlib import Path
    return str(Path(__file__).parents[2] / "docs" / "example" / "vecadd.py")


INPUTS = {"trace": make_trace, "program": example_program}


def gpusched(*args: str) -> str:
    """``gpusched ARGS`` in this process: its standard output (exit status 0 asserted)."""
    from gpusched.cli import main
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            main(list(args))
        except SystemExit as e:
            assert e.code in (0, None), f"gpusched {' '.join(args)}: exit {e.code}"
    return out.getvalue()


@pytest.fixture(scope="module")
def outputs(tmp_path_factory):
    """Run name → (the ``--json`` object, the ``--format accelsim`` text), from the CLI."""
    tmp = tmp_path_factory.mktemp("inputs")
    inputs = {name: make(tmp) for name, make in INPUTS.items()}
    result = {}
    for name, args in RUNS.items():
        args = tuple(a.format(**inputs) for a in args)
        result[name] = (json.loads(gpusched(*BASE, *args, "--json")),
                        gpusched(*BASE, *args, "--format", "accelsim"))
    return result


# the host's time for the run: printed as Accel-Sim does, never in the (deterministic) JSON
TEXT_ONLY = {"gpgpu_simulation_time", "gpgpu_simulation_rate", "gpgpu_silicon_slowdown"}


def accelsim_keys(text: str) -> set[str]:
    """The ``key = value`` (and Accel-Sim's ``Stall:N``-style) lines of ``--format accelsim``
    as documented paths: one block per kernel (``accelsim.kernels[].key``), a blank line after
    each, then the totals (``accelsim.total.key``); the host-time lines left out."""
    *kernels, totals = text.strip("\n").split("\n\n")
    def keys(block: str) -> set[str]:
        out = set()
        for line in block.splitlines():
            sep = " = " if " = " in line else ":" if re.fullmatch(r"\w+:\d+", line) else None
            if sep:
                out.add(line.split(sep, 1)[0].strip())
        return out - TEXT_ONLY
    return ({f"accelsim.kernels[].{k}" for block in kernels for k in keys(block)}
            | {f"accelsim.total.{k}" for k in keys(totals)})


def test_every_printed_key_is_documented_and_every_documented_key_is_printed(outputs):
    documented = {s.key for s in STATS}
    printed: dict[str, set[str]] = {}
    for name, (as_json, text) in outputs.items():
        for key in keys_of(as_json) | accelsim_keys(text):
            printed.setdefault(key, set()).add(name)
    missing = {k: sorted(v) for k, v in printed.items() if k not in documented}
    assert missing == {}, "document these in sim/stats_reference.py (key: runs printing it)"
    assert documented - set(printed) == set(), "documented, but no run of RUNS prints them"


def test_accelsim_text_and_json_carry_the_same_keys(outputs):
    for name, (as_json, text) in outputs.items():
        assert accelsim_keys(text) == {k for k in keys_of(as_json)
                                                if k.startswith("accelsim.")}, name


def test_a_run_without_l1_misses_has_a_mean_latency_and_no_stray_sum(outputs):
    """The mean of zero misses is 0.0; the sum it is made from is never a key of its own."""
    for name, (as_json, _) in outputs.items():
        l1 = as_json["memory"].get("l1")
        if l1 is not None:
            assert "miss_latency_sum" not in l1 and "miss_count" not in l1, name
    bypassed = outputs["dual issue, no L1 misses"][0]["memory"]["l1"]
    assert bypassed["misses"] == 0 and bypassed["miss_latency_mean"] == 0.0


def test_the_shape_is_nested_objects_only(outputs):
    """Every documented path resolves by nesting: no object holds a dotted key."""
    for as_json, _ in outputs.values():
        for path in keys_of(as_json):
            node = as_json
            for part in path.replace("[]", ".0").split("."):
                node = node[int(part)] if isinstance(node, list) else node[part]


def test_energy_total_is_the_sum_of_its_parts(outputs):
    hier, fixed = outputs["catalogue"][0]["energy"], outputs["catalogue, fixed memory"][0]["energy"]
    assert hier["total_pj"] == pytest.approx(hier["memory_pj"] + hier["core_pj"]
                                             + hier["static_sm_pj"] + hier["static_uncore_pj"])
    assert hier["memory_pj"] > 0 and "memory_pj" not in fixed
    assert fixed["total_pj"] == pytest.approx(fixed["core_pj"] + fixed["static_sm_pj"]
                                              + fixed["static_uncore_pj"])


def test_docs_stats_md_is_current():
    assert DOC.read_text() == render(), "stale: run python -m sim.stats_reference"


def test_issued_counts_slots_not_instructions(outputs):
    dual = outputs["dual issue, no L1 misses"][0]
    assert dual["issue_stage"]["dual_issues"] > 0
    assert dual["warp_insts"] == dual["issue"]["issued"] + dual["issue_stage"]["dual_issues"]
