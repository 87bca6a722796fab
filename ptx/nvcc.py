"""Regenerate PTX from CUDA C with nvcc (``make ptx``; runs and tests never need it).

    python -m ptx.nvcc DIR_OR_FILE.cu ...

For each ``X.cu``: ``nvcc -ptx -arch=compute_75 -O3`` → ``X.ptx``, and ``ptxas -v`` for sm_75 →
``X.ptxas.json`` (registers, shared, local and stack bytes per kernel), which the front end
reads for occupancy. nvcc comes from ``pip install nvidia-cuda-nvcc`` (CUDA 13) or a system
CUDA; it needs gcc as host compiler and no GPU.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from .errors import PTXError

ARCH = "compute_75"
SASS_ARCH = "sm_75"
NVCC_FLAGS = ("-O3", "-std=c++17")


def tool(name: str) -> str:
    """Path of an nvcc-wheel or system CUDA tool (nvcc, ptxas)."""
    found = shutil.which(name)
    if found:
        return found
    try:
        import nvidia.cuda_nvcc as wheel            # the PyPI wheel's layout
        cand = Path(list(wheel.__path__)[0]) / "bin" / name
        if cand.is_file():
            return str(cand)
    except ImportError:
        pass
    raise PTXError(f"{name} not found: pip install nvidia-cuda-nvcc (or put CUDA's bin on PATH)")


def compile_ptx(cu: Path, out: Path | None = None, arch: str = ARCH, flags=NVCC_FLAGS) -> Path:
    out = cu.with_suffix(".ptx") if out is None else out
    env = dict(os.environ)
    r = subprocess.run([tool("nvcc"), "-ptx", f"-arch={arch}", *flags, str(cu), "-o", str(out)],
                       capture_output=True, text=True, env=env)
    if r.returncode != 0:
        first = next((ln for ln in r.stderr.splitlines() if "error" in ln), r.stderr.strip()[:200])
        raise PTXError(f"{cu}: nvcc failed: {first}")
    return out


_ENTRY = re.compile(r"Compiling entry function '([^']+)'")
_USED = re.compile(r"Used (\d+) registers")
_SMEM = re.compile(r"(\d+) bytes smem")
_STACK = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")


def ptxas_info(ptx: Path, arch: str = SASS_ARCH) -> dict:
    """Per kernel: registers, static shared bytes, stack and spill bytes, as ptxas reports."""
    r = subprocess.run([tool("ptxas"), f"-arch={arch}", "-v", str(ptx), "-o", os.devnull],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise PTXError(f"{ptx}: ptxas failed: {r.stderr.strip()[:200]}")
    out: dict = {}
    cur = None
    for line in r.stderr.splitlines():
        if (m := _ENTRY.search(line)):
            cur = out.setdefault(m.group(1), {"arch": arch, "registers": 0, "shared": 0,
                                              "stack": 0, "spill_stores": 0})
        elif cur is not None and (m := _STACK.search(line)):
            cur["stack"], cur["spill_stores"] = int(m.group(1)), int(m.group(2))
        elif cur is not None and (m := _USED.search(line)):
            cur["registers"] = int(m.group(1))
            if (s := _SMEM.search(line)):
                cur["shared"] = int(s.group(1))
    return out


def build(cu: Path) -> tuple[Path, Path]:
    ptx = compile_ptx(cu)
    side = cu.with_suffix(".ptxas.json")
    side.write_text(json.dumps(ptxas_info(ptx), indent=1, sort_keys=True) + "\n")
    return ptx, side


def main(argv: list[str]) -> int:
    sources: list[Path] = []
    for a in argv or ["."]:
        p = Path(a)
        sources += sorted(p.rglob("*.cu")) if p.is_dir() else [p]
    for cu in sources:
        try:
            ptx, _ = build(cu)
        except PTXError as e:
            print(f"ptx: error: {e}", file=sys.stderr)
            return 2
        print(f"{cu} -> {ptx.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
