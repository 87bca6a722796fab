"""ERCBench-style programs (aes, sha1, nlm2, raytrace, jpeg) and WP against outside facts: the
FIPS-197 AES test vector through the GPU kernels, JPEG's transform pair as a working codec, and
the CTAs per SM the SRTF table (and OWL, for WP) reports on the GTX 480, from our kernels'
ptxas register counts and shared memory under the model's occupancy rule."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from gpusched.config.presets import GTX480
from ptx.host import Context
from sim.cta import occupancy_limit
from sim.workload.kernel import Kernel
from workloads import programs
from workloads.programs.aes import aes, cipher
from workloads.programs.jpeg import jpeg


def test_aes_kernels_reproduce_fips197_appendix_c1():
    key, plain = bytes(range(16)), bytes.fromhex("00112233445566778899aabbccddeeff")
    t = cipher.tables()
    keys = cipher.expand_key(key)
    ctx = Context(progress=False)
    mod = ctx.load_ptx(Path(aes.__file__).with_suffix(".ptx"))
    data = ctx.to_device(np.frombuffer(plain * 64, np.uint32))
    ct, back = ctx.empty(256, np.uint32), ctx.empty(256, np.uint32)
    mod.launch("aesEncrypt128", grid=(1,), block=(256,),
               args=(ctx.to_device(t["te"]), ctx.to_device(t["sbox"]), ctx.to_device(keys), data, ct))
    mod.launch("aesDecrypt128", grid=(1,), block=(256,),
               args=(ctx.to_device(t["td"]), ctx.to_device(t["inv_sbox"]),
                     ctx.to_device(cipher.decryption_keys(keys)), ct, back))
    assert ct.get().tobytes() == bytes.fromhex("69c4e0d86a7b0430d8cdb78070b4c55a") * 64
    assert back.get().tobytes() == plain * 64


def test_jpeg_transform_pair_is_a_working_codec():
    out, _ = programs.run_functional("jpeg", 0, 1 / 16)
    img = jpeg.inputs(0, 1 / 16)["image"].astype(np.float64)
    psnr = 10 * np.log10(255 ** 2 / np.mean((out["decoded"] - img) ** 2))
    assert psnr > 25                                        # quality-50 tables on 1/f texture
    assert (out["coefficients"] == 0).mean() > 0.5          # quantisation zeroes most of them


def _resident(name: str, kernel: str, block: tuple[int, int, int]) -> int:
    info = json.loads(Path(programs.HERE / name / f"{name}.ptxas.json").read_text())[kernel]
    k = Kernel(name=kernel, grid=(10_000, 1, 1), block=block, regs_per_thread=info["registers"],
               smem_per_cta=info["shared"], stream=None)     # type: ignore[arg-type]
    return occupancy_limit(GTX480.sm, k, GTX480.sm.count).limit


@pytest.mark.parametrize("name,kernel,block", [
    ("sha1", "sha1_kernel", (64, 1, 1)), ("nlm2", "nlm2", (8, 8, 1)),
    ("raytrace", "render", (16, 8, 1)), ("jpeg", "jpeg_dct", (64, 1, 1)),
    ("jpeg", "jpeg_idct", (64, 1, 1))])
def test_resident_ctas_on_gtx480_match_srtf(name, kernel, block):
    want = programs.load(name).INFO["paper_values"]["srtf"][kernel]["resident_ctas"]
    assert _resident(name, kernel, block) == want


def test_wp_fits_six_warps_per_core_as_owl_reports():
    warps = _resident("wp", "wp_microphysics", (8, 8, 1)) * 2
    assert warps == programs.load("wp").INFO["paper_values"]["owl"]["resident_warps"]
