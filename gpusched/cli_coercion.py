"""Start-up: skip typer's pydantic coercion for values that already have their parameter's type.

Newer typer (the ``typer._coercion`` layer) coerces every parameter value, defaults included,
through a pydantic ``TypeAdapter``; building the first one imports pydantic (≈ 50 ms, a third of
``gpusched run``'s start-up). A value that already is a plain ``str``/``int``/``float`` for a
parameter of exactly that type (every ``str`` option, every default), or a sequence of ``str``
for a ``list[str]`` option, comes out of the adapter unchanged (a list for the sequence), so
``use_light_coercion`` returns it directly and builds typer's own coercion, lazily, only for
any other value (``--seed 7`` is a string for an int: typer parses it and words its errors).
Older typer, without that layer, is left as it is.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, get_args, get_origin

_PLAIN = (str, int, float)


def _unchanged(annotation: Any, value: Any) -> tuple[bool, Any]:
    """(True, result) when typer's adapter would return ``value`` as it is (or as a list)."""
    if annotation in _PLAIN and type(value) is annotation:
        return True, value
    if (get_origin(annotation) is list and get_args(annotation) == (str,)
            and isinstance(value, (list, tuple)) and all(type(v) is str for v in value)):
        return True, list(value)
    return False, None


def use_light_coercion() -> None:
    """Install the pass-through in front of typer's coercion (idempotent)."""
    try:
        from typer import _coercion, core
    except ImportError:
        return
    build = getattr(core, "build_runtime_param", None)
    base = getattr(_coercion, "RuntimeParam", None)
    if build is None or base is None or getattr(build, "light", False):
        return

    @dataclass(frozen=True)
    class LightRuntimeParam(base):  # type: ignore[misc, valid-type]
        descriptor: Any = None

        def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
            same, out = _unchanged(self.annotation, value)
            if same:
                return out
            full = self.__dict__.get("_full")
            if full is None:
                full = build(self.descriptor)
                object.__setattr__(self, "_full", full)
            return full._coerce_value(value, param=param, ctx=ctx)

    def light_build(descriptor: Any) -> Any:
        if descriptor.file_annotation is not None:
            return build(descriptor)
        return LightRuntimeParam(parameter_info=descriptor.parameter_info,
                                 annotation=descriptor.annotation, descriptor=descriptor)

    light_build.light = True  # type: ignore[attr-defined]
    core.build_runtime_param = light_build
