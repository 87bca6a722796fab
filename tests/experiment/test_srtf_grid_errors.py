"""A user's grid file of kind ``srtf_mp`` (``gpusched sweep GRID --plugin experiments.srtf_runs``)
with bad input exits 2 before anything runs, with one line naming the grid line and the field
(issue 21 "Bad input": unknown kernel, more kernels than max_concurrent, an offset beyond the
first kernel's runtime, a cap of 0)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest


def gpusched(*args, cwd) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("GPUSCHED_DB", "GPUSCHED_PLUGINS")}
    return subprocess.run([sys.executable, "-c", "from gpusched.cli import main; main()",
                           *map(str, args)], capture_output=True, text=True, env=env, cwd=cwd)


def _grid(path, workload: str, params: str) -> None:
    path.write_text(
        "[sweep]\n"
        'name = "bad"\n'
        'kind = "srtf_mp"\n'
        'preset = ["gtx480"]\n'
        f'workloads = ["{workload}"]\n'
        "[sweep.overrides]\n"
        '"kernels.concurrent_sm" = [true]\n'
        '"kernels.max_concurrent" = [2]\n'
        "[sweep.params]\n"
        'timing = ["spec"]\n'
        "scale = [0.02]\n"
        f"{params}\n")


@pytest.mark.parametrize("workload, params, where", [
    ("ercb_aes_d+ercb_nope", "", "g.toml:5 workload = 'ercb_nope'"),
    ("ercb_aes_d+ercb_sad+ercb_jpeg_d", "", "g.toml:8 kernels.max_concurrent = 2"),
    ("ercb_jpeg_d+ercb_sad", 'offset = ["10000000"]', "g.toml:12 offset = '10000000'"),
    ("ercb_aes_d+ercb_sad", "share_cap = [0]", "g.toml:12 share_cap = 0"),
], ids=["unknown-kernel", "too-many-kernels", "offset-beyond-runtime", "cap-0"])
def test_bad_srtf_grid_exits_2_with_one_line(workload, params, where, tmp_path):
    _grid(tmp_path / "g.toml", workload, params)
    r = gpusched("sweep", "g.toml", "--db", tmp_path / "r.sqlite", "-j", "1",
                 "--plugin", "experiments.srtf_runs", cwd=tmp_path)
    err = r.stderr.strip().splitlines()
    assert r.returncode == 2 and len(err) == 1, r.stderr
    assert err[0].startswith(f"gpusched: error: {where}"), err[0]
    assert r.stdout == ""                    # nothing ran
