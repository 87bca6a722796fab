"""``python -m sim.multiprog``: a run's metrics, and bad input → exit 2 with one line naming the
field, before anything runs (issue 21 "Bad input")."""

import json

import pytest

from sim.multiprog.__main__ import main

QUICK = ["--scale", "0.02"]


@pytest.mark.parametrize("argv, field", [
    (["ercb_aes_d+ercb_nope"], "workload"),
    (["ercb_aes_d+ercb_sad+ercb_jpeg_d", "--set", "kernels.max_concurrent=2"],
     "kernels.max_concurrent"),
    (["ercb_jpeg_d+ercb_jpeg_e", "--offset", "10000000"], "offset"),
    (["ercb_jpeg_d+ercb_jpeg_e", "--offset", "150%"], "offset"),
    (["ercb_jpeg_d+ercb_jpeg_e", "--share-cap", "0"], "share_cap"),
    (["ercb_jpeg_d+ercb_jpeg_e", "--kernel-scheduler", "sjf_magic"], "kernel_scheduler"),
    (["ercb_jpeg_d+ercb_jpeg_e", "--mode", "rtl"], "mode"),
])
def test_bad_input_exits_2_with_one_line(argv, field, capsys, tmp_path):
    code = main(argv + QUICK + ["--cache", str(tmp_path)])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1
    assert err[0].startswith(f"sim.multiprog: error: {field} = ")


def test_pair_file_with_unknown_kernel(capsys, tmp_path):
    f = tmp_path / "pairs.txt"
    f.write_text("ercb_jpeg_d+ercb_jpeg_e\nercb_jpeg_e+sha2\n")
    code = main(["--pairs", str(f), "--cache", str(tmp_path)])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and f"{f}:2 = 'sha2'" in err[0]


def test_a_pair_run_prints_its_metrics(capsys, tmp_path):
    code = main(["ercb_aes_d+ercb_jpeg_d", "--kernel-scheduler", "srtf", "--cache", str(tmp_path),
                 *QUICK])
    out = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert code == 0 and len(out) == 1
    r = out[0]
    n1, n2 = (mp / sp for mp, sp in zip(r["t_mp"], r["t_sp"]))
    assert r["ntt"] == [n1, n2] and r["stp"] == pytest.approx(1 / n1 + 1 / n2)
    assert min(r["ntt"]) >= 0.99            # nobody runs faster than alone (± startup draw)
    assert r["switches"] >= 1 and r["predictions"] > 0    # AES sampled JPEG, then switched
    # the standalone runtimes are cached: a second run reuses them
    assert len(list(tmp_path.glob("*.json"))) == 2
