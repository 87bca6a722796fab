"""Read GPGPU-Sim / Accel-Sim option files (``gpgpusim.config``, ``trace.config``, the Booksim
``*.icnt`` interconnect file) into ``option → (value, file:line)``.

Option files: ``-name value`` pairs separated by white space; ``#`` starts a comment to the end
of the line; a double-quoted value may span lines (``-gpgpu_dram_timing_opt "nbk=16:…"``). As in
GPGPU-Sim's option parser, a later occurrence of an option (in the same or a later file) wins.
Booksim files: ``name = value;`` lines, ``//`` comments.
"""

from __future__ import annotations

import re
from pathlib import Path

from .errors import ConfigError

Options = dict[str, tuple[str, str]]


def _read_text(path: Path) -> str:
    try:
        raw = path.read_bytes()
    except OSError as e:
        raise ConfigError(str(path), "", f"cannot read: {e.strerror}") from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        line = raw[:e.start].count(b"\n") + 1
        raise ConfigError(f"{path}:{line}", raw[e.start:e.start + 1],
                          "not UTF-8 text: expected a GPGPU-Sim option file") from None


def read_options(path: str | Path, into: Options | None = None) -> Options:
    """The options of one GPGPU-Sim option file, added to (and overriding) ``into``."""
    p = Path(path)
    text = _read_text(p)
    out: Options = {} if into is None else into
    tokens: list[tuple[str, int]] = []          # (token, line)
    i, line, n = 0, 1, len(text)
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            i += 1
        elif c.isspace():
            i += 1
        elif c == "#":
            while i < n and text[i] != "\n":
                i += 1
        elif c == '"':
            end = text.find('"', i + 1)
            if end < 0:
                raise ConfigError(f"{p}:{line}", text[i:i + 40].split("\n")[0],
                                  "expected a closing '\"'")
            tokens.append((" ".join(text[i + 1:end].split()), line))
            line += text.count("\n", i, end)
            i = end + 1
        else:
            start = i
            while i < n and not text[i].isspace() and text[i] != "#":
                i += 1
            tokens.append((text[start:i], line))
    k = 0
    while k < len(tokens):
        name, at = tokens[k]
        if not name.startswith("-") or len(name) < 2:
            raise ConfigError(f"{p}:{at}", name, "expected an option like -gpgpu_n_clusters "
                                                 "followed by its value")
        if k + 1 >= len(tokens) or (tokens[k + 1][0].startswith("-")
                                    and not _is_number(tokens[k + 1][0])):
            raise ConfigError(f"{p}:{at}", name, "expected a value after the option")
        out[name] = (tokens[k + 1][0], f"{p}:{at}")
        k += 2
    return out


def _is_number(text: str) -> bool:
    try:
        float(text)
        return True
    except ValueError:
        return False


def read_booksim(path: str | Path) -> Options:
    """The ``name = value;`` settings of a Booksim interconnect file."""
    p = Path(path)
    out: Options = {}
    for lineno, raw in enumerate(_read_text(p).splitlines(), 1):
        s = raw.split("//", 1)[0].strip()
        if not s:
            continue
        m = re.fullmatch(r"([A-Za-z_][\w]*)\s*=\s*([^;]*);?", s)
        if m is None:
            raise ConfigError(f"{p}:{lineno}", s, "expected 'name = value;'")
        out[m.group(1)] = (m.group(2).strip(), f"{p}:{lineno}")
    return out
