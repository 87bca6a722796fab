"""The import layers (docs/architecture.md "The layers"): every import of every module of the
project, read from the source, goes to its own layer or one below.

    3 top         the CLI, sweeps, reports (gpusched.cli, .commands, .experiment, …), experiments/,
                  workloads/ (programs written against the public API, gpusched.cuda)
    2 RTL tools   cosim/, synth/, formal/, the block registry gpusched.blocks
    1 model, RTL  sim/, hdl/, ptx/
    0 foundation  gpusched.config, the small utilities beside it, the block specs (hdl.params,
                  hdl.ikra.params): they import nothing of the project above them, and no Amaranth

Imports under ``if TYPE_CHECKING:`` are annotations only and do not count; imports inside
functions count (a lazy import is still a dependency).
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("gpusched", "sim", "hdl", "cosim", "synth", "formal", "ptx", "workloads", "experiments")

FOUNDATION = ("gpusched", "gpusched.config", "gpusched.cache", "gpusched.signals",
              "gpusched.paths", "gpusched.limits", "hdl", "hdl.params", "hdl.ikra",
              "hdl.ikra.params")
RTL_TOOLS = ("cosim", "synth", "formal", "gpusched.blocks")
MODEL = ("sim", "hdl", "ptx")

# Known upward edges still to remove, each with its reason; a new one fails the test.
DEBTS = {
    ("sim.multiprog.standalone", "gpusched.experiment.fingerprint"):
        "the standalone-trace cache is keyed by the whole-model fingerprint of the sweep code",
}


def _within(module: str, prefixes: tuple[str, ...]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def layer(module: str) -> int:
    """The layer of a module by its dotted name (a package's ``__init__`` is the package)."""
    if module in FOUNDATION or _within(module, ("gpusched.config", "hdl.params")):
        return 0
    if _within(module, RTL_TOOLS):
        return 2
    if _within(module, MODEL):
        return 1
    return 3            # the rest of gpusched (CLI, commands, experiment, …), experiments/, workloads/


def _modules():
    for pkg in PACKAGES:
        for path in sorted((ROOT / pkg).rglob("*.py")):
            name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            yield name.removesuffix(".__init__"), path


def _is_type_checking(node: ast.If) -> bool:
    t = node.test
    return (isinstance(t, ast.Name) and t.id == "TYPE_CHECKING") or \
        (isinstance(t, ast.Attribute) and t.attr == "TYPE_CHECKING")


def imports(path: Path, module: str) -> list[str]:
    """Every module ``path`` imports (absolute names; relative imports resolved)."""
    out: list[str] = []
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child):
                for sub in child.orelse:
                    visit(sub)
                continue
            if isinstance(child, ast.Import):
                out.extend(a.name for a in child.names)
            elif isinstance(child, ast.ImportFrom):
                if child.level:
                    base = package.split(".")
                    base = base[:len(base) - child.level + 1]
                    prefix = ".".join(base)
                    if child.module:
                        out.append(f"{prefix}.{child.module}")
                    else:
                        out.extend(f"{prefix}.{a.name}" for a in child.names)
                else:
                    out.append(child.module or "")
                    out.extend(f"{child.module}.{a.name}" for a in child.names)
            visit(child)

    visit(ast.parse(path.read_text(), str(path)))
    return out


def _project_target(name: str) -> str | None:
    """``name`` as a module of the project (``from pkg import mod`` names a module too)."""
    if name.split(".")[0] not in PACKAGES:
        return None
    while name and not ((ROOT / (name.replace(".", "/") + ".py")).exists()
                        or (ROOT / name.replace(".", "/") / "__init__.py").exists()):
        name = name.rpartition(".")[0]
    return name or None


@functools.lru_cache(maxsize=1)
def upward_edges() -> dict[tuple[str, str], str]:
    edges = {}
    for module, path in _modules():
        for name in imports(path, module):
            if layer(module) == 0 and name.split(".")[0] == "amaranth":
                edges[module, name] = "amaranth"
            target = _project_target(name)
            if target is not None and layer(target) > layer(module):
                edges[module, target] = f"layer {layer(module)} -> {layer(target)}"
    return edges


def test_no_import_goes_up_a_layer():
    found = upward_edges()
    new = {e: why for e, why in found.items() if e not in DEBTS}
    assert not new, "imports going up a layer:\n" + "\n".join(
        f"  {a} -> {b} ({why})" for (a, b), why in sorted(new.items()))


def test_the_listed_debts_still_exist():
    """A debt paid off is taken off the list (so the list stays the truth)."""
    found = upward_edges()
    assert not [e for e in DEBTS if e not in found]


@pytest.mark.parametrize("module, target, expected", [
    ("sim.gpu", "gpusched.commands.run_cmd", True),         # the model reaching for the CLI
    ("gpusched.config.validate", "sim.policies.warp_sched", True),
    ("gpusched.config.validate", "hdl.onac_parts.swm", True),
    ("hdl.params.swm", "cosim.specs.onac", True),
    ("sim.gpu", "gpusched.config", False),
    ("gpusched.commands.run_cmd", "sim.run", False),
    ("cosim.provider", "sim.blocks.provider", False),
])
def test_the_layer_map_calls_an_upward_edge_upward(module, target, expected):
    assert (layer(target) > layer(module)) is expected
