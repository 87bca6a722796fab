"""Policy modules the registries find by themselves.

A module under ``sim/policies/`` or ``sim/blocks/`` that declares, at top level,

    POLICY_FAMILIES = {"warp_scheduler": [Family("youngest", ...)]}

adds its families to those scheduling points' registries (``warp_scheduler``,
``kernel_scheduler``, ``cta_scheduler``, ``cta_limit``, ``sm_controller``). Adding a policy is
then one new file and no registry edit, so no code that other policies' runs execute changes and
their stored results stay valid (gpusched/experiment/fingerprint.py).
"""

from __future__ import annotations

import functools
import importlib
import re
from pathlib import Path

from sim.policies.names import Family

KINDS = ("warp_scheduler", "kernel_scheduler", "cta_scheduler", "cta_limit", "sm_controller")
PACKAGES = ("sim.policies", "sim.blocks")
_DECLARES = re.compile(r"^POLICY_FAMILIES\s*[:=]", re.MULTILINE)
_SIM = Path(__file__).resolve().parents[1]


@functools.cache
def policy_modules() -> tuple[str, ...]:
    """The modules that declare ``POLICY_FAMILIES``, sorted (found by reading their text:
    importing every block twin to look would be slow)."""
    found = []
    for package in PACKAGES:
        base = _SIM.parent / package.replace(".", "/")
        for path in sorted(base.rglob("*.py")):
            if _DECLARES.search(path.read_text(encoding="utf-8")):
                rel = path.relative_to(_SIM.parent).with_suffix("")
                found.append(".".join(p for p in rel.parts if p != "__init__"))
    return tuple(sorted(found))


@functools.cache
def discovered() -> dict[str, dict[str, tuple[Family, str]]]:
    """kind → family name → (family, the module declaring it)."""
    out: dict[str, dict[str, tuple[Family, str]]] = {k: {} for k in KINDS}
    for name in policy_modules():
        declared = getattr(importlib.import_module(name), "POLICY_FAMILIES", {})
        for kind, families in declared.items():
            if kind not in out:
                raise ValueError(f"{name}.POLICY_FAMILIES: unknown kind {kind!r}; known: "
                                 + ", ".join(KINDS))
            for fam in families:
                if fam.name in out[kind]:
                    raise ValueError(f"{name}.POLICY_FAMILIES: {kind} {fam.name!r} is declared "
                                     f"by {out[kind][fam.name][1]} too")
                out[kind][fam.name] = (fam, name)
    return out


def families(kind: str) -> dict[str, Family]:
    """The discovered families of one scheduling point, by name."""
    return {n: fam for n, (fam, _) in discovered()[kind].items()}


def names_by_module() -> dict[str, set[str]]:
    """Each discovering module → the family names it declares (all kinds)."""
    out: dict[str, set[str]] = {}
    for per_kind in discovered().values():
        for fam_name, (_, module) in per_kind.items():
            out.setdefault(module, set()).add(fam_name)
    return out
