"""Model fingerprints: a hash of the code a run point executes, so a stored result is reused
exactly as long as that code is unchanged (docs/experiments.md, "Run points and keys").

The code a point executes is the import closure of its roots — every ``import`` statement of a
module, at top level or inside a function, and ``importlib.import_module("literal")``, followed
through project modules — where the roots are:

- the module of its runner kind (``model``: gpusched/experiment/runners.py, which reaches
  ``sim.run`` and all the GPU model; an experiment's kind: its module, e.g.
  experiments/owl_runs.py, kept apart from the report so editing tables and plots re-runs
  nothing);
- the module of a ``module:function`` workload, a ``file.py:function`` workload's file, or a
  CUDA program's host file (``program:``; the front end, ``ptx/``, is reached through
  ``sim.workload.program``);
- the policy modules the registries discover (sim/policies/discover.py) that the point selects:
  a family named by one of its inputs (``sm.warp_sched = "youngest"``, ``cta_scheduler =
  "…"``, any override or parameter value) or by its configuration's ``sm.warp_sched``.

A project module is one whose file lies outside the Python installation (standard library and
site-packages): every package of the repository, a new package as soon as anything imports it,
plugin modules. Files are hashed by module name and content, so two clones of one commit agree.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import importlib.util
import inspect
import re
import sysconfig
from pathlib import Path

_INSTALLED = tuple(str(Path(p).resolve()) for p in {
    sysconfig.get_paths()[k] for k in ("stdlib", "platstdlib", "purelib", "platlib")})


_REPOSITORY = Path(__file__).resolve().parents[2]


@functools.cache
def _top_location(top: str) -> Path | None:
    """The package directory or module file of a top-level project module; None for modules
    of the Python installation, built-in ones and names that do not import. The repository's
    own packages come first: under pytest, ``tests/`` is on ``sys.path`` and its ``tests/ptx``
    package would otherwise stand for the front end."""
    for local in (_REPOSITORY / top, _REPOSITORY / f"{top}.py"):
        if (local / "__init__.py").is_file() or (local.suffix == ".py" and local.is_file()):
            return local.resolve()
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    if spec.origin in (None, "built-in", "frozen"):
        locations = list(spec.submodule_search_locations or [])
        return _project(Path(locations[0])) if len(locations) == 1 else None
    origin = _project(Path(spec.origin))
    if origin is None:
        return None
    return origin.parent if spec.submodule_search_locations is not None else origin


def _project(path: Path) -> Path | None:
    resolved = path.resolve()
    return None if str(resolved).startswith(_INSTALLED) else resolved


def module_file(name: str) -> Path | None:
    """The source file of project module ``name`` (a package's ``__init__.py``), or None."""
    top, *rest = name.split(".")
    loc = _top_location(top)
    if loc is None:
        return None
    if loc.is_file():
        return loc if not rest else None
    base = loc.joinpath(*rest)
    for candidate in (base.with_name(base.name + ".py") if rest else None,
                      base / "__init__.py"):
        if candidate is not None and candidate.is_file():
            return candidate
    return None


_Parsed = tuple[frozenset[str], str, frozenset[str]]
_PARSED: dict[tuple[Path, str], tuple[tuple[int, int], _Parsed]] = {}
_NAME = re.compile(r"[A-Za-z_]\w*")


def _parse(path: Path, module: str) -> _Parsed:
    """(the module names ``path`` imports, the sha256 of its content, the policy-like names its
    string literals hold: ``"owl_blp"`` and ``"fixed:4"`` give owl_blp and fixed), cached by
    file stamp (``module`` places its relative imports)."""
    st = path.stat()
    stamp = (st.st_mtime_ns, st.st_size)
    cached = _PARSED.get((path, module))
    if cached is not None and cached[0] == stamp:
        return cached[1]
    data = path.read_bytes()
    names: set[str] = set()
    literals: set[str] = set()
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(data, filename=str(path))):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".") if package else []
                parts = parts[:len(parts) - (node.level - 1)]
                base = ".".join([*parts, *([base] if base else [])])
            if base:
                names.add(base)
                names.update(f"{base}.{a.name}" for a in node.names)
        elif (isinstance(node, ast.Call) and _is_import_module(node.func) and node.args
              and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
            names.add(node.args[0].value)
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            head = node.value.split(":")[0]
            if _NAME.fullmatch(head):
                literals.add(head)
    result = (frozenset(names), hashlib.sha256(data).hexdigest(), frozenset(literals))
    _PARSED[(path, module)] = (stamp, result)
    return result


def _is_import_module(func: ast.expr) -> bool:
    return (isinstance(func, ast.Attribute) and func.attr == "import_module") or \
        (isinstance(func, ast.Name) and func.id == "import_module")


def closure(roots: tuple[str, ...], root_files: tuple[str, ...] = ()) -> dict[str, str]:
    """Module name → sha256 of its source, for every project module the roots (module names,
    and files by path) import, directly or not. Importing ``a.b.c`` runs the packages ``a`` and
    ``a.b`` first: their ``__init__`` files are hashed, but what they import counts only where
    the code imports it itself (``gpusched.experiment``'s ``__init__`` re-exports the store and
    the reports, which no run executes)."""
    out: dict[str, str] = {}
    followed: set[str] = set()
    todo: list[tuple[str, Path, bool]] = []

    def want(name: str, follow: bool) -> None:
        parts = name.split(".")
        for i in range(1, len(parts) + 1):
            sub = ".".join(parts[:i])
            last = i == len(parts)
            if (sub in followed or (sub in out and not (follow and last))
                    or (path := module_file(sub)) is None):
                continue
            out.setdefault(sub, "")
            if follow and last:
                followed.add(sub)
            todo.append((sub, path, follow and last))

    for name in roots:
        want(name, True)
    for f in root_files:
        path = Path(f).resolve()
        label = f"file:{path.name}"
        out[label] = ""
        todo.append((label, path, True))
    while todo:
        name, path, follow = todo.pop()
        imports, digest, _ = _parse(path, "" if name.startswith("file:") else name)
        out[name] = digest
        if follow:
            for imported in imports:
                want(imported, True)
    return out


def kind_root(kind: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(module names, files) where runner kind ``kind``'s run function is defined."""
    from .runners import get_kind
    run = get_kind(kind).run
    module = getattr(run, "__module__", None)
    if module and module != "__main__" and module_file(module) is not None:
        return (module,), ()
    try:
        return (), (inspect.getsourcefile(run) or "",)
    except TypeError:
        return (), ()


def workload_root(workload: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The module or file a ``module:function`` / ``file.py:function`` workload comes from, or
    a CUDA program's host file (``program:NAME|FILE.py``: what it imports counts too)."""
    if workload.startswith("program:"):
        try:
            from sim.workload.program import program_path
            return (), (str(program_path(workload)),)
        except Exception:                   # a bad name: the grid check reports it
            return (), ()
    if workload.startswith("trace:") or ":" not in workload:
        return (), ()
    mod = workload.rpartition(":")[0]
    if mod.endswith(".py"):
        return ((), (mod,)) if Path(mod).is_file() else ((), ())
    return (mod,), ()


def selected_policy_modules(point, candidates: dict[str, set[str]],
                            kind_files: tuple[Path, ...] = ()) -> tuple[str, ...]:
    """The discovered policy modules (``candidates``: module → family names) the point selects:
    a family (``name`` or ``name:args``) named by one of its override or parameter values, by
    its configuration's ``sm.warp_sched``, or by a string literal of its runner kind's module
    (a kind that maps its own parameters to policies, as experiments/owl.py does)."""
    names = {str(v).split(":")[0] for v in (*point.overrides.values(), *point.params.values())
             if isinstance(v, str)}
    names.add(_configured_warp_scheduler(point.preset, tuple(sorted(
        (k, str(v)) for k, v in point.overrides.items()))))
    for path in kind_files:
        names |= _parse(path, "")[2]
    return tuple(sorted(m for m, fams in candidates.items() if fams & names))


@functools.lru_cache(maxsize=256)
def _configured_warp_scheduler(preset: str, overrides: tuple[tuple[str, str], ...]) -> str:
    """The family name of ``sm.warp_sched`` once the preset and overrides are applied ("" when
    they do not make a valid configuration: such a point cannot run the model)."""
    from gpusched.config import resolve_config
    from gpusched.config import ConfigError
    from .point import override_strings
    try:
        cfg = resolve_config(preset, override_strings(dict(overrides)))
    except (ConfigError, OSError, ValueError):
        return ""
    return str(cfg.sm.warp_sched).split(":")[0]


def point_fingerprint(point) -> str:
    """16 hex digits over the code ``point`` executes (module docstring)."""
    from sim.policies.discover import names_by_module
    mods, files = kind_root(point.kind)
    w_mods, w_files = workload_root(point.workload)
    kind_files = tuple(p for p in (*map(module_file, mods), *map(Path, files)) if p is not None)
    roots = mods + w_mods + selected_policy_modules(point, names_by_module(), kind_files)
    return _digest(tuple(sorted(set(roots))), tuple(sorted(set(files + w_files))))


def whole_model_fingerprint() -> str:
    """16 hex digits over the GPU model with every discovered policy (for caches of runs that
    are not run points, e.g. sim/multiprog/standalone.py)."""
    from sim.policies.discover import policy_modules
    return _digest(("gpusched.experiment.runners", "sim.run", *policy_modules()), ())


@functools.lru_cache(maxsize=1024)
def _digest(roots: tuple[str, ...], files: tuple[str, ...]) -> str:
    """Cached per process, like the code it hashes: a sweep sees one model from start to end
    (``clear_caches`` after editing sources in-process, as tests do)."""
    h = hashlib.sha256()
    for name, digest in sorted(closure(roots, files).items()):
        h.update(f"{name}={digest}\n".encode())
    return h.hexdigest()[:16]


def clear_caches() -> None:
    """Forget cached closures and configurations (after sources changed in this process)."""
    _digest.cache_clear()
    _configured_warp_scheduler.cache_clear()
    _top_location.cache_clear()
    _PARSED.clear()
