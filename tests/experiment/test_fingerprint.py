"""Model fingerprints, both directions, on a copy of the repository's sources: adding a policy
in its own file (docs/adding-a-scheduler.md §1) leaves every other point's key as it was; a
change to code a point executes — the model core, its own policy module, a package the model
imports, even one added later — gives it a new key."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gpusched.experiment.fingerprint import closure

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("cosim", "experiments", "formal", "gpusched", "hdl", "sim", "synth")

KEYS = """
import json, sys
from gpusched.experiment.point import Point
import sim
assert sim.__file__.startswith(sys.argv[1]), sim.__file__     # the copy, not the clone
out = {}
for policy in sys.argv[2:]:
    p = Point(preset="tiny", workload="compute_only", overrides={"sm.warp_sched": policy})
    out[policy] = p.key
print(json.dumps(out))
"""

NEWEST = '''
from sim.blocks.youngest import YoungestTwin
from sim.policies.names import Family

POLICY_FAMILIES = {"warp_scheduler": [
    Family("newest", lambda n_slots, a: YoungestTwin(n_slots), "a policy added for a test")]}
'''


@pytest.fixture
def tree(tmp_path):
    """The repository's packages copied to ``tmp_path/src`` (sources only)."""
    src = tmp_path / "src"
    for pkg in PACKAGES:
        shutil.copytree(ROOT / pkg, src / pkg,
                        ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.pyc"))
    return src


def keys(src: Path, *policies: str) -> dict:
    env = {**os.environ, "PYTHONPATH": str(src), "GPUSCHED_PURE": "1"}
    out = subprocess.run([sys.executable, "-c", KEYS, str(src), *policies], cwd=src, env=env,
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-2000:]
    import json
    return json.loads(out.stdout)


MY_RR = '''
from sim.policies.cta_sched import RoundRobinCTAScheduler
from sim.policies.names import Family

POLICY_FAMILIES = {"cta_scheduler": [
    Family("my_rr", lambda cfg, a: RoundRobinCTAScheduler(cfg), "a CTA scheduler added")]}
'''


def test_adding_a_policy_file_keeps_the_other_policies_keys(tree):
    before = keys(tree, "lrr", "gto", "youngest")
    (tree / "sim" / "blocks" / "newest.py").write_text(NEWEST)
    (tree / "sim" / "policies" / "my_rr.py").write_text(MY_RR)
    after = keys(tree, "lrr", "gto", "youngest", "newest")
    assert {p: after[p] for p in before} == before
    assert after["newest"] not in before.values()
    # both are on the command line without a registry edit
    for flag in (["--warp-scheduler", "newest"], ["--cta-scheduler", "my_rr"]):
        out = cli(tree, "run", "--preset", "tiny", "--workload", "compute_only", "--scale",
                  "0.05", "--memory", "fixed", "--json", *flag)
        assert '"cycles"' in out.stdout


def test_editing_a_policy_module_renews_only_its_points(tree):
    before = keys(tree, "lrr", "gto", "youngest")
    with open(tree / "sim" / "blocks" / "youngest.py", "a") as f:
        f.write("\n# an edit\n")
    after = keys(tree, "lrr", "gto", "youngest")
    assert after["lrr"] == before["lrr"] and after["gto"] == before["gto"]
    assert after["youngest"] != before["youngest"]


@pytest.mark.parametrize("core", ["sim/memory/l1.py", "sim/policies/warp_sched.py",
                                  "hdl/params/warp_sched.py"])
def test_editing_the_model_core_renews_every_point(tree, core):
    before = keys(tree, "lrr", "youngest")
    with open(tree / core, "a") as f:
        f.write("\n# an edit\n")
    after = keys(tree, "lrr", "youngest")
    assert all(after[p] != before[p] for p in before)


def test_a_new_package_counts_once_the_model_imports_it(tree):
    """A front end added later (a package such as ptx/) is covered without a list to update."""
    (tree / "frontend").mkdir()
    (tree / "frontend" / "__init__.py").write_text("")
    (tree / "frontend" / "lower.py").write_text("WIDTH = 32\n")
    before = keys(tree, "lrr")
    (tree / "frontend" / "lower.py").write_text("WIDTH = 64\n")
    assert keys(tree, "lrr") == before, "not imported by the model: not its code"
    with open(tree / "sim" / "workload" / "kernel.py", "a") as f:
        f.write("\n\ndef _front():\n    from frontend.lower import WIDTH\n    return WIDTH\n")
    imported = keys(tree, "lrr")
    (tree / "frontend" / "lower.py").write_text("WIDTH = 128\n")
    assert keys(tree, "lrr") != imported


def test_the_closure_follows_lazy_imports_and_skips_what_no_run_executes():
    mods = closure(("gpusched.experiment.runners",))
    # imported inside functions: sim.run (run_model), the catalogue (load_workload)
    assert {"sim.run", "sim.workload.catalogue", "sim.memory.hierarchy"} <= set(mods)
    # gpusched.experiment's __init__ re-exports the store and reports: hashed, not followed
    assert "gpusched.experiment" in mods
    assert not {"gpusched.experiment.store", "gpusched.experiment.report"} & set(mods)
    assert "sim.blocks.youngest" not in mods, "a discovered policy is reached only when selected"
    assert all(len(d) == 64 for d in mods.values())


GRID = """[sweep]
name = "fp"
preset = "tiny"
workloads = ["compute_only"]
seeds = [0, 1]
[sweep.overrides]
"sm.warp_sched" = {policies}
[sweep.params]
scale = 0.05
memory = "fixed"
"""


def cli(src: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(src), "GPUSCHED_PURE": "1"}
    env.pop("GPUSCHED_DB", None)
    out = subprocess.run([sys.executable, "-c", "from gpusched.cli import main; main()", *args],
                         cwd=src, env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-2000:]
    return out


def test_a_sweep_reruns_only_a_new_policys_points_then_everything_after_a_model_change(tree):
    db, grid = str(tree / "store.sqlite"), tree / "grid.toml"
    grid.write_text(GRID.format(policies='["lrr", "gto"]'))
    assert "4 points, 0 already stored, 4 run" in cli(tree, "sweep", str(grid), "--jobs", "1",
                                                      "--db", db, "-q").stdout
    (tree / "sim" / "blocks" / "newest.py").write_text(NEWEST)
    grid.write_text(GRID.format(policies='["lrr", "gto", "newest"]'))
    assert "6 points, 4 already stored, 2 run" in cli(tree, "sweep", str(grid), "--jobs", "1",
                                                      "--db", db, "-q").stdout
    with open(tree / "sim" / "memory" / "fixed.py", "a") as f:
        f.write("\n# a model change\n")
    assert "6 points, 0 already stored, 6 run" in cli(tree, "sweep", str(grid), "--jobs", "1",
                                                      "--db", db, "-q").stdout
    query = cli(tree, "results", "query", "--db", db, "--format", "csv", "--columns",
                "sm.warp_sched,model")
    rows = query.stdout.splitlines()[1:]
    assert len(rows) == 6 and "6 rows of other models left out" in query.stderr
    assert sorted(r.split(",")[0] for r in rows) == ["gto", "gto", "lrr", "lrr", "newest",
                                                     "newest"]
    every = cli(tree, "results", "query", "--db", db, "--all-models", "--format", "csv",
                "--columns", "current")
    assert sorted(every.stdout.splitlines()[1:]) == ["false"] * 6 + ["true"] * 6
    assert "dropped 6 rows of other models; 6 rows" in cli(tree, "results", "prune",
                                                           "--db", db).stdout
    assert len(cli(tree, "results", "query", "--db", db, "--all-models", "--format",
                   "csv").stdout.splitlines()) == 7
