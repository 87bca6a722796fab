"""Policy names with parameters: ``family[:arg[:arg…]]``, GPGPU-Sim's syntax
(``two_level_active:6:0:1``), one registry of families per scheduling point.

A family names its positional arguments (an integer with bounds, or one of a few words with
optional numeric aliases as GPGPU-Sim writes them, and a default when it may be left out).
``parse`` turns a name into ``(family, args)`` or raises a one-line ConfigError that names the
bad part; ``usage`` lists a registry by family for ``--help``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from gpusched.config import ConfigError


@dataclass(frozen=True)
class Arg:
    """One positional argument: an ``int`` in [lo, hi], or one of ``words`` (``aliases`` maps
    other spellings, e.g. GPGPU-Sim's numbers, to a word). ``default`` None: required."""
    name: str
    lo: int = 1
    hi: int | None = None
    words: tuple[str, ...] = ()
    aliases: dict[str, str] = field(default_factory=dict)
    default: Any = None
    doc: str = ""

    def allowed(self) -> str:
        if self.words:
            alias = {w: [a for a, t in self.aliases.items() if t == w] for w in self.words}
            return " or ".join(w + (f" ({', '.join(alias[w])})" if alias[w] else "")
                               for w in self.words)
        return f"an integer >= {self.lo}" + (f" and <= {self.hi}" if self.hi is not None else "")

    def convert(self, text: str) -> Any:
        """The argument's value, or ValueError naming what is allowed."""
        if self.words:
            word = self.aliases.get(text, text)
            if word not in self.words:
                raise ValueError(f"<{self.name}> = {text}: allowed: {self.allowed()}")
            return word
        try:
            value = int(text)
        except ValueError:
            raise ValueError(f"<{self.name}> = {text}: expected {self.allowed()}") from None
        if value < self.lo or (self.hi is not None and value > self.hi):
            raise ValueError(f"<{self.name}> = {value}: expected {self.allowed()}")
        return value


@dataclass(frozen=True)
class Family:
    """A policy family: ``name``, its arguments, a one-line doc and a factory; ``extra`` holds
    what the scheduling point needs besides (e.g. a warp scheduler's ``every_cycle``)."""
    name: str
    make: Callable[..., Any]
    doc: str
    args: tuple[Arg, ...] = ()
    extra: dict = field(default_factory=dict)

    def usage(self) -> str:
        """``two_level_active:<N>[:<inner>[:<outer>]]``"""
        required = [a for a in self.args if a.default is None]
        optional = [a for a in self.args if a.default is not None]
        text = ":".join([self.name] + [f"<{a.name}>" for a in required])
        return text + "".join(f"[:<{a.name}>" for a in optional) + "]" * len(optional)


def parse(where: str, text: str, families: dict[str, Family],
          aliases: dict[str, str] | None = None) -> tuple[Family, dict[str, Any]]:
    """``(family, {arg: value})`` for ``text``; ``aliases`` maps old fixed names to new ones
    (``ctas_8`` → ``fixed:8``). Raises ConfigError(where, text, ...) naming the bad part."""
    if not isinstance(text, str) or not text:
        raise ConfigError(where, text, "expected a name: " + ", ".join(usage_list(families)))
    text_ = (aliases or {}).get(text, text)
    name, *given = text_.split(":")
    fam = families.get(name)
    if fam is None:
        raise ConfigError(where, text, "unknown; known: " + ", ".join(usage_list(families)))
    if len(given) > len(fam.args):
        raise ConfigError(where, text, f"{name} takes at most {len(fam.args)} argument(s): "
                                       f"{fam.usage()}")
    args: dict[str, Any] = {}
    for i, a in enumerate(fam.args):
        if i < len(given):
            try:
                args[a.name] = a.convert(given[i])
            except ValueError as e:
                raise ConfigError(where, text, f"{e} (form: {fam.usage()})") from None
        elif a.default is None:
            raise ConfigError(where, text, f"<{a.name}> missing (form: {fam.usage()})")
        else:
            args[a.name] = a.default
    return fam, args


def usage_list(families: dict[str, Family]) -> list[str]:
    return [f.usage() for f in families.values()]


def describe(families: dict[str, Family]) -> str:
    """Several lines for ``--help``: each family's form, doc and arguments."""
    lines = []
    for f in families.values():
        lines.append(f"{f.usage()}: {f.doc}")
        for a in f.args:
            lines.append(f"    <{a.name}>: {a.doc or a.allowed()}"
                         + ("" if a.default is None else f" (default {a.default})"))
    return "\n".join(lines)
