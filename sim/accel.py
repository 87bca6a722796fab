"""Optional compiled build of the model's hottest code with mypyc: the memory model
(``sim.memory``) and the SM core (``sim.warp``, ``sim.subcore``, ``sim.sm_memory``, ``sim.sm``).

Why: these run for every warp instruction and memory request; compiled with mypyc (same source,
type hints used for native attribute and int access) a memory-bound run is about 2x faster
than plain Python. The Python sources stay the single truth: the compiled modules are built from
them into ``.accel/<hash>/`` and used only while that hash still matches the current sources
(``sim.compiled``). An edited file therefore never runs stale compiled code: it falls back to
plain Python until the next build. SOCGPU's sub-core (``sim.issue.socgpu``) stays interpreted and
subclasses the compiled ``SubCore`` (``allow_interpreted_subclasses``).

- ``python -m sim.accel build``  (``make setup`` runs it; needs ``mypy`` and a C compiler)
- ``python -m sim.accel status`` prints whether the compiled modules are in use
- ``GPUSCHED_PURE=1`` forces plain Python (the equivalence test compares both).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from sim.compiled import (ACCEL_ROOT, CORE, HASHED_TOO, PACKAGES, ROOT,  # noqa: F401 (re-exported)
                          active, build_dir, compiled_sources, source_hash, use_compiled)


def build() -> Path:
    """Compile the packages into ``build_dir()`` (in a scratch dir, then moved into place)."""
    dest = build_dir()
    if (dest / "ok").is_file():
        return dest
    srcs = [str(p.relative_to(ROOT)) for p in compiled_sources()]
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out"
        script = (
            "import sys\n"
            "from setuptools import setup\n"
            "from mypyc.build import mypycify\n"
            "tmp, out, *srcs = sys.argv[1:]\n"
            "mods = mypycify(['--ignore-missing-imports', '--follow-imports=silent',\n"
            "                 '--cache-dir', tmp + '/mypy_cache', *srcs], target_dir=tmp + '/c')\n"
            "setup(name='gpusched_accel', ext_modules=mods, script_args=['-q', 'build_ext',\n"
            "      '--build-lib', out, '--build-temp', tmp + '/obj'])\n")
        proc = subprocess.run([sys.executable, "-c", script, tmp, str(out), *srcs], cwd=ROOT,
                              capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError("mypyc build failed:\n" + (proc.stdout + proc.stderr)[-4000:])
        shutil.rmtree(dest, ignore_errors=True)
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(out), str(dest))
    (dest / "ok").write_text("built from " + ", ".join(srcs) + "\n")
    for old in ACCEL_ROOT.iterdir():        # stale builds of earlier sources
        if old != dest and old.is_dir():
            shutil.rmtree(old, ignore_errors=True)
    return dest


def main(argv: list[str]) -> int:
    cmd = argv[0] if argv else "status"
    if cmd == "build":
        try:
            d = build()
        except Exception as e:          # optional speed-up: plain Python still works
            print(f"accel: not built ({str(e).splitlines()[0]}); the model runs as plain Python",
                  file=sys.stderr)
            return 0 if "--optional" in argv else 1
        print(f"accel: compiled {', '.join(PACKAGES + CORE)} into {d}")
        return 0
    if cmd == "status":
        print("accel: compiled modules in use" if active() else
              "accel: plain Python (run `python -m sim.accel build`)")
        return 0
    print("usage: python -m sim.accel build [--optional] | status", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
