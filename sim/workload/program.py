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
from dataclasses import dataclass, field
from pathlib import Path

from gpusched.cache import read_json, write_json
from gpusched.config import ConfigError

from .kernel import Kernel, Workload
from .trace_store import CompiledKernel, cache_root, verified

PROGRAM_PREFIX = "program:"
MANIFEST_VERSION = 3        # 2: sealed (gpusched.cache), each launch with its seal key; 3: local
                            # accesses recorded in the tracer's form


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


def split_options(name: str) -> tuple[str, dict[str, str]]:
    """``program:NAME:key=value,key=value`` → (``program:NAME``, options). The options are
    keywords of the program's ``main`` (its ``INFO["options"]``, e.g. DeepBench's train and
    inference shapes as separate runs); a name without them has none."""
    base, sep, tail = name.rpartition(":")
    if not sep or "=" not in tail or base in ("", PROGRAM_PREFIX.rstrip(":")):
        return name, {}
    options = {}
    for item in tail.split(","):
        key, eq, value = item.partition("=")
        if not eq or not key.strip() or not value.strip():
            raise ConfigError("--program", name, "options are key=value[,key=value]")
        options[key.strip()] = value.strip()
    return base, options


def check_options(module, name: str, options: dict[str, str]) -> None:
    """Each option a key of the program's ``INFO["options"]`` with one of its choices."""
    declared = getattr(module, "INFO", {}).get("options", {})
    name = split_options(name)[0]
    for key, value in options.items():
        if key not in declared:
            raise ConfigError(f"{name}:{key}", value, "known options: "
                              + (", ".join(declared) or "none"))
        if value not in declared[key]:
            raise ConfigError(f"{name}:{key}", value, "one of " + ", ".join(declared[key]))


def program_path(name: str) -> Path:
    """``program:NAME`` (a suite program) or ``program:FILE.py`` → the host program's file
    (options after the name, ``split_options``, do not change the file)."""
    name = split_options(name)[0]
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
    from ptx.host import FRONT_END_DIGEST      # here, not at the top: a trace run loads no numpy
    h = hashlib.sha256(FRONT_END_DIGEST.encode())
    common = path.parent.parent / "common"
    for d in [path.parent] + ([common] if common.is_dir() else []):
        for f in sorted(d.iterdir()):
            if f.suffix in (".py", ".ptx", ".json") and f.is_file():
                h.update(f.name.encode() + f.read_bytes())
    return h.hexdigest()


def program_key(path: Path, seed: int, scale: float, family: str,
                options: dict[str, str] | None = None) -> str:
    extra = "".join(f"|{k}={v}" for k, v in sorted((options or {}).items()))
    h = hashlib.sha256(f"{MANIFEST_VERSION}|{seed}|{scale!r}|{family}{extra}|".encode())
    h.update(files_digest(path).encode())
    return h.hexdigest()


def kernel_of(folder: Path, arrival: int = 0,
              relocate: tuple[int, int, int] | None = None) -> Kernel:
    """The model's kernel for one launch's compiled folder (``relocate``: CompiledKernel's)."""
    ck = CompiledKernel(folder, relocate)
    m = ck.meta
    return Kernel(name=m["headers"]["kernel name"], grid=tuple(m["grid"]), block=tuple(m["block"]),
                  regs_per_thread=m["nregs"], smem_per_cta=m["shmem"], stream=ck.stream,
                  arrival=arrival,
                  meta={"trace": str(folder), "warp_insts": m["warp_insts"], "cuda stream": "0",
                        "thread_insts": m["thread_insts"], "source": m["source"],
                        "ptx_statics": m.get("ptx_statics", []),
                        "profile": m.get("profile", {}), "local_pcs": ck.local_pcs})


def workload_of(folders: list[Path], name: str) -> Workload:
    kernels = [kernel_of(f) for f in folders]
    return Workload(name=name, kernels=kernels, description=f"CUDA program {name} (PTX front end)",
                    meta={"warp_insts": sum(k.meta["warp_insts"] for k in kernels),
                          "thread_insts": sum(k.meta["thread_insts"] for k in kernels),
                          "program": name})


def run_program(name: str, seed: int = 0, scale: float = 1.0, family: str = "volta",
                root: Path | None = None, progress: bool = True) -> ProgramRun:
    """Run (or find cached) the host program ``name`` (with its options, ``split_options``);
    its launches as a workload."""
    from ptx.host import Context

    from .program_trace import launch_seal, sink_factory
    path = program_path(name)
    options = split_options(name)[1]
    if options:
        check_options(load_module(path), name, options)
    root = cache_root() if root is None else root
    key = program_key(path, seed, scale, family, options)
    manifest = root / "programs" / f"{key[:40]}.json"
    label = path.stem + "".join(f",{k}={v}" for k, v in options.items())
    saved = read_json(manifest, key)           # sealed: a damaged one reads as missing
    if saved is not None:
        folders = [Path(f) for f, _ in saved["launches"]]
        if all(verified(Path(f), seal_key) for f, seal_key in saved["launches"]):
            return ProgramRun(workload_of(folders, label), {}, cached=True)
    module = load_module(path)
    ctx = Context(family=family, sink_factory=sink_factory(root), progress=progress)
    outputs = module.main(ctx, seed=seed, scale=scale, **options) or {}
    if not ctx.launches:
        raise ConfigError(str(path), "no kernel launches", "expected main() to launch kernels")
    folders = [Path(r.handle) for r in ctx.launches]
    write_json(manifest, key, {"program": str(path), "seed": seed, "scale": scale,
                               "family": family, "options": options, "launches": [
                                   [str(r.handle), launch_seal(r.info.key)] for r in ctx.launches]})
    return ProgramRun(workload_of(folders, label), outputs)
