"""The one TOML reader of the project's input files (configs and sweep grids): every problem is
one ``ConfigError`` naming the file (and the line where there is one)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from .errors import ConfigError


def read_toml(path: str | Path, what: str) -> tuple[dict, str]:
    """The table and the text of the TOML file ``path``; ``what`` names the kind of file in
    the messages ("config file", "grid file")."""
    path = str(path)
    try:
        raw = Path(path).read_bytes()
    except OSError as e:
        raise ConfigError(path, "", f"cannot read {what}: {e.strerror}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        line = raw[:e.start].count(b"\n") + 1
        raise ConfigError(f"{path}:{line}", raw[e.start:e.start + 1],
                          f"not UTF-8 text: a {what} is TOML, UTF-8 encoded") from None
    try:
        return tomllib.loads(text), text
    except tomllib.TOMLDecodeError as e:
        raise toml_error(path, text, e) from None


def toml_error(path: str, text: str, e: tomllib.TOMLDecodeError) -> ConfigError:
    """``file:line:col = '<the line>': malformed TOML: <reason>`` (end of file → last line)."""
    message = str(e)
    lines = text.splitlines() or [""]
    m = re.search(r"at line (\d+), column (\d+)", message)
    if m:
        line, where = int(m.group(1)), f"{path}:{m.group(1)}:{m.group(2)}"
    else:
        line = max((i for i, t in enumerate(lines, 1) if t.strip()), default=1)
        where = f"{path}:{line}"
    reason = re.sub(r" [(]at (line|end).*", "", message)
    return ConfigError(where, lines[min(line, len(lines)) - 1].strip(), f"malformed TOML: {reason}")
