"""Real CUDA programs as workloads. A host program is a Python file with

    def main(ctx, seed: int = 0, scale: float = 1.0) -> dict | None

that loads PTX (``ctx.load_ptx``), allocates device memory and launches kernels on the PTX front
end (``ptx.host.Context``), reading results between launches as the application does. Every
launch becomes one kernel of the workload, its instruction streams compiled into the trace cache
(``program_trace``). A run of a program is cached as a whole too, keyed by the program's files
(its ``.py``/``.ptx`` and those beside it), the front end's code, seed, scale and the SASS
family: sweep points and repeated runs reuse one functional execution (docs/ptx.md).
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from gpusched.config import ConfigError

from ptx.host import FRONT_END_DIGEST

from .kernel import Kernel, Workload
from .program_trace import sink_factory
from .trace_store import CompiledKernel, cache_root

PROGRAM_PREFIX = "program:"
MANIFEST_VERSION = 1


@dataclass
class ProgramRun:
    workload: Workload
    outputs: dict = field(default_factory=dict)
    cached: bool = False


def suite_dir() -> Path | None:
    """The folder of the project's program suite (``workloads/programs``), if installed."""
    spec = importlib.util.find_spec("workloads")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0]) / "programs"


def program_path(name: str) -> Path:
    """``program:NAME`` (a suite program) or ``program:FILE.py`` → the host program's file."""
    if name.startswith(PROGRAM_PREFIX):
        name = name[len(PROGRAM_PREFIX):]
    p = Path(name)
    if p.suffix == ".py":
        if not p.is_file():
            raise ConfigError("--program", name, "no such host program file")
        return p
    d = suite_dir()
    if d is not None and (d / name / f"{name}.py").is_file():
        return d / name / f"{name}.py"
    known = sorted(x.name for x in d.iterdir() if (x / f"{x.name}.py").is_file()) if d and d.is_dir() else []
    raise ConfigError("--program", name, "expected a host program FILE.py or a suite program ("
                      + (", ".join(known) or "none installed") + ")")


def load_module(path: Path):
    spec = importlib.util.spec_from_file_location(f"gpusched_program_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)     # type: ignore[union-attr]
    except SyntaxError as e:
        raise ConfigError(f"{path}:{e.lineno}", e.msg, "expected a Python host program") from None
    if not callable(getattr(module, "main", None)):
        raise ConfigError(str(path), "no main()", "expected def main(ctx, seed=0, scale=1.0)")
    return module


def files_digest(path: Path) -> str:
    """What a program's results depend on besides seed and scale: its folder's .py/.ptx/.json
    files, the suite's shared input generators (``common/``) and the front end's code."""
    h = hashlib.sha256(FRONT_END_DIGEST.encode())
    common = path.parent.parent / "common"
    for d in [path.parent] + ([common] if common.is_dir() else []):
        for f in sorted(d.iterdir()):
            if f.suffix in (".py", ".ptx", ".json") and f.is_file():
                h.update(f.name.encode() + f.read_bytes())
    return h.hexdigest()


def program_key(path: Path, seed: int, scale: float, family: str) -> str:
    h = hashlib.sha256(f"{MANIFEST_VERSION}|{seed}|{scale!r}|{family}|".encode())
    h.update(files_digest(path).encode())
    return h.hexdigest()


def kernel_of(folder: Path, arrival: int = 0) -> Kernel:
    """The model's kernel for one launch's compiled folder."""
    ck = CompiledKernel(folder)
    m = ck.meta
    return Kernel(name=m["headers"]["kernel name"], grid=tuple(m["grid"]), block=tuple(m["block"]),
                  regs_per_thread=m["nregs"], smem_per_cta=m["shmem"], stream=ck.stream,
                  arrival=arrival,
                  meta={"trace": str(folder), "warp_insts": m["warp_insts"],
                        "thread_insts": m["thread_insts"], "source": m["source"],
                        "ptx_statics": m.get("ptx_statics", [])})


def workload_of(folders: list[Path], name: str) -> Workload:
    kernels = [kernel_of(f) for f in folders]
    return Workload(name=name, kernels=kernels, description=f"CUDA program {name} (PTX front end)",
                    meta={"warp_insts": sum(k.meta["warp_insts"] for k in kernels),
                          "thread_insts": sum(k.meta["thread_insts"] for k in kernels),
                          "program": name})


def run_program(name: str, seed: int = 0, scale: float = 1.0, family: str = "volta",
                root: Path | None = None, progress: bool = True) -> ProgramRun:
    """Run (or find cached) the host program ``name``; its launches as a workload."""
    from ptx.host import Context
    path = program_path(name)
    root = cache_root() if root is None else root
    key = program_key(path, seed, scale, family)
    manifest = root / "programs" / f"{key[:40]}.json"
    label = path.stem
    try:
        saved = json.loads(manifest.read_text())
        folders = [Path(f) for f in saved["launches"]]
        if all((f / "meta.json").is_file() for f in folders):
            return ProgramRun(workload_of(folders, label), {}, cached=True)
    except (OSError, ValueError, KeyError, TypeError):
        pass
    module = load_module(path)
    ctx = Context(family=family, sink_factory=sink_factory(root), progress=progress)
    outputs = module.main(ctx, seed=seed, scale=scale) or {}
    if not ctx.launches:
        raise ConfigError(str(path), "no kernel launches", "expected main() to launch kernels")
    folders = [Path(r.handle) for r in ctx.launches]
    manifest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=manifest.parent, prefix=".tmp-")
    with os.fdopen(fd, "w") as f:
        json.dump({"program": str(path), "seed": seed, "scale": scale, "family": family,
                   "launches": [str(x) for x in folders]}, f)
    os.replace(tmp, manifest)
    return ProgramRun(workload_of(folders, label), outputs)
