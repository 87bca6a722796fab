"""The compiled model (sim.accel: memory model and SM core) is the same model: byte-identical
results, and a build is only used while it matches the current sources."""

import json
import os
import shutil
import subprocess
import sys

import pytest

from sim import accel
from sim import compiled as loader

# argv: the number of CTAs of the 'mixed' reference to keep, then config overrides
RUN = ("import dataclasses, json, sys; from gpusched.config import get_preset, with_overrides; "
       "from sim.run import simulate; from sim.bench import reference; from sim import accel; "
       "cfg = with_overrides(get_preset('gtx480'), sys.argv[2:]); wl = reference('mixed'); "
       "wl.kernels[0] = dataclasses.replace(wl.kernels[0], grid=(int(sys.argv[1]), 1, 1)); "
       "r = simulate(cfg, wl, memory='hierarchy'); "
       "print(json.dumps({'compiled': accel.active(), 'result': r}, sort_keys=True, default=str))")


def _run(pure: bool, n_ctas: int, overrides: tuple[str, ...] = ()) -> dict:
    env = dict(os.environ)
    env.pop("GPUSCHED_PURE", None)
    if pure:
        env["GPUSCHED_PURE"] = "1"
    out = subprocess.run([sys.executable, "-c", RUN, str(n_ctas), *overrides], capture_output=True, text=True, check=True,
                         env=env, cwd=accel.ROOT)
    return json.loads(out.stdout)


# socgpu: an interpreted subclass of SubCore; phase: port inputs. Those two run a quarter of the
# CTAs (2 per SM on 15 SMs; the plain-Python run is the suite's slowest otherwise)
@pytest.mark.parametrize("n_ctas, overrides", [(120, ()), (30, ("sm.issue=socgpu", "sm.ib_entries=8")),
                                               (30, ("sm.warp_sched=tlphase",))],
                         ids=["inorder", "socgpu", "phase"])
def test_compiled_and_plain_python_give_identical_results(n_ctas, overrides):
    if not (accel.build_dir() / "ok").is_file():
        if os.environ.get("CI"):
            pytest.fail("CI must build the compiled model (make setup runs sim.accel build)")
        pytest.skip("compiled model not built (python -m sim.accel build)")
    compiled, plain = _run(False, n_ctas, overrides), _run(True, n_ctas, overrides)
    assert compiled["compiled"] is True and plain["compiled"] is False
    assert compiled["result"]["warp_insts"] > 0
    assert json.dumps(compiled["result"], sort_keys=True) == json.dumps(plain["result"], sort_keys=True)


def test_an_edited_source_never_runs_a_stale_build(tmp_path, monkeypatch):
    for rel in [str(p.relative_to(accel.ROOT)) for p in accel.compiled_sources()] + list(accel.HASHED_TOO):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(accel.ROOT / rel, tmp_path / rel)
    monkeypatch.delenv("GPUSCHED_PURE", raising=False)     # the test sets it itself below
    monkeypatch.setattr(loader, "ROOT", tmp_path)
    monkeypatch.setattr(loader, "ACCEL_ROOT", tmp_path / ".accel")
    before = accel.source_hash()
    (accel.build_dir() / "sim" / "memory").mkdir(parents=True)
    (accel.build_dir() / "ok").write_text("pretend build\n")
    path: list[str] = []
    assert accel.use_compiled("sim.memory", path) and path[0].startswith(str(tmp_path / ".accel" / before))
    dram = tmp_path / "sim" / "memory" / "dram.py"
    dram.write_text(dram.read_text() + "\n# edited\n")
    assert accel.source_hash() != before
    path = []
    assert not accel.use_compiled("sim.memory", path) and path == []
    sm = tmp_path / "sim" / "sm.py"                 # the SM core flips both packages too
    dram.write_text(dram.read_text()[:-len("\n# edited\n")])
    assert accel.use_compiled("sim", path)
    sm.write_text(sm.read_text() + "\n# edited\n")
    path = []
    assert not accel.use_compiled("sim", path) and not accel.use_compiled("sim.memory", path)
    sm.write_text(sm.read_text()[:-len("\n# edited\n")])
    monkeypatch.setenv("GPUSCHED_PURE", "1")
    assert accel.source_hash() == before and not accel.use_compiled("sim.memory", path)


WORKER = ("import multiprocessing as mp\n"
          "def probe():\n"
          "    import sim.blocks.cta_sched, sim.sm\n"
          "    return sim.sm.__file__\n"
          "if __name__ == '__main__':\n"
          "    import sim.sm\n"
          "    from sim import accel\n"
          "    with mp.get_context('forkserver').Pool(1) as pool:\n"
          "        print(accel.active(), pool.apply(probe))\n")


def test_a_worker_process_finds_every_model_module(tmp_path):
    """A sweep's forkserver workers inherit the parent's sys.path, build folder included; they
    must still import the ``sim`` package (not the build's folder of compiled modules alone)."""
    if not loader.build_dir().joinpath("ok").is_file():
        pytest.skip("compiled model not built (python -m sim.accel build)")
    script = tmp_path / "probe.py"             # run from outside the project, as a console
    script.write_text(WORKER)                  # script is: the project is not on sys.path
    env = {k: v for k, v in os.environ.items() if k not in ("GPUSCHED_PURE", "PYTHONPATH")}
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         env=env, cwd=tmp_path)
    assert out.returncode == 0, out.stderr.strip().splitlines()[-1:]
    active, sm_file = out.stdout.split()
    assert active == "True" and str(loader.build_dir()) in sm_file    # the worker runs compiled
