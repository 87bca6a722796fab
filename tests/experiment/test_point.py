"""Point keys: stable (documented canonical form, independent of order and process) and
sensitive to every input, the package version and a preset file's content (the code they cover:
test_fingerprint.py)."""

import hashlib
import json
import subprocess
import sys

import gpusched
from gpusched.experiment.fingerprint import point_fingerprint
from gpusched.experiment.point import Point

BASE = Point(preset="gtx480", workload="kmeans", seed=3,
             overrides={"sm.warp_sched": "gto", "sm.count": 4}, params={"scale": 0.5})


def test_key_is_sha256_of_documented_canonical_inputs():
    material = {"inputs": {"kind": "model", "preset": "gtx480", "workload": "kmeans", "seed": 3,
                           "overrides": {"sm.count": 4, "sm.warp_sched": "gto"},
                           "params": {"scale": 0.5}},
                "version": gpusched.__version__, "model_code": point_fingerprint(BASE)}
    text = json.dumps(material, sort_keys=True, separators=(",", ":"))
    assert BASE.key == hashlib.sha256(text.encode()).hexdigest()


def test_key_ignores_dict_order_and_is_equal_in_another_process():
    reordered = Point(preset="gtx480", workload="kmeans", seed=3,
                      overrides={"sm.count": 4, "sm.warp_sched": "gto"}, params={"scale": 0.5})
    assert reordered.key == BASE.key
    code = ("from gpusched.experiment.point import Point; print(Point(preset='gtx480', "
            "workload='kmeans', seed=3, overrides={'sm.count': 4, 'sm.warp_sched': 'gto'}, "
            "params={'scale': 0.5}).key)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == BASE.key


def test_key_changes_with_every_input(monkeypatch):
    o, p = BASE.overrides, BASE.params
    variants = [
        Point(preset="gp102", workload="kmeans", seed=3, overrides=o, params=p),
        Point(preset="gtx480", workload="stream", seed=3, overrides=o, params=p),
        Point(preset="gtx480", workload="kmeans", seed=4, overrides=o, params=p),
        Point(preset="gtx480", workload="kmeans", seed=3,
              overrides={"sm.warp_sched": "lrr", "sm.count": 4}, params=BASE.params),
        Point(preset="gtx480", workload="kmeans", seed=3, overrides={"sm.warp_sched": "gto"},
              params=BASE.params),
        Point(preset="gtx480", workload="kmeans", seed=3, overrides=BASE.overrides,
              params={"scale": 1.0}),
        Point(preset="gtx480", workload="kmeans", seed=3, overrides=BASE.overrides,
              params=BASE.params, kind="toy"),
    ]
    keys = {v.key for v in variants}
    assert len(keys) == len(variants) and BASE.key not in keys
    before = BASE.key
    monkeypatch.setattr(gpusched, "__version__", "9.9.9")
    assert BASE.key != before


def test_key_follows_preset_file_content(tmp_path):
    cfg = tmp_path / "my.toml"
    cfg.write_text('preset = "tiny"\n[sm]\ncount = 2\n')
    p = Point(preset=str(cfg), workload="alpha")
    before = p.key
    cfg.write_text('preset = "tiny"\n[sm]\ncount = 4\n')
    assert p.key != before
