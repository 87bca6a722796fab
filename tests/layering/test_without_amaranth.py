"""The model, the config and every policy run with Amaranth unimportable (a twin-only run needs
no RTL tool): each check is a fresh interpreter whose import of ``amaranth`` fails."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

BLOCK_AMARANTH = textwrap.dedent("""
    import sys

    class NoAmaranth:
        def find_spec(self, name, path=None, target=None):
            if name == "amaranth" or name.startswith("amaranth."):
                raise ImportError(f"{name} is blocked by the test")

    sys.meta_path.insert(0, NoAmaranth())
""")


def python(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", BLOCK_AMARANTH + textwrap.dedent(code)],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_the_blocker_blocks():
    r = python("import amaranth")
    assert r.returncode == 1 and "blocked by the test" in r.stderr


def test_run_with_the_onac_controller_from_the_cli():
    # the ONAC controller's config check reads the block's spec (hdl/params/swm.py), not its RTL
    r = python("""
        from gpusched.cli import main
        sys.argv = ["gpusched", "run", "--preset", "tiny", "--workload", "mem_stream",
                    "--scale", "0.25", "--sm-controller", "onac", "--json"]
        main()
    """)
    assert r.returncode == 0, r.stderr[-2000:]
    assert '"cycles"' in r.stdout


def test_every_preset_validates_and_every_policy_module_imports():
    r = python("""
        import importlib
        from gpusched.config import PRESETS, get_preset, validate
        from sim.policies.discover import policy_modules
        for name in PRESETS:
            validate(get_preset(name))
        mods = policy_modules()
        for m in mods:
            importlib.import_module(m)
        import sim.run
        print(len(mods), "policy modules")
    """)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "policy modules" in r.stdout
