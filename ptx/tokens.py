"""PTX text → tokens: the lexer under ptx/syntax.py's parser (kinds ``int``, ``hex``, ``f32``,
``f64``, ``flt``, ``id``, ``str``, ``punct``, ``eof``; comments and whitespace dropped, each token
with its line for ``file:line`` errors)."""

from __future__ import annotations

import re

from .errors import PTXError

_TOKEN = re.compile(r"""
    (?P<ws>[ \t\r]+) | (?P<nl>\n) | (?P<lc>//[^\n]*) | (?P<bc>/\*.*?\*/) |
    (?P<str>"(?:[^"\\\n]|\\.)*") |
    (?P<f32>0[fF][0-9a-fA-F]{8}\b) | (?P<f64>0[dD][0-9a-fA-F]{16}\b) |
    (?P<hex>0[xX][0-9a-fA-F]+U?\b) | (?P<flt>\d+\.\d*(?:[eE][+-]?\d+)?) | (?P<int>\d+U?\b) |
    (?P<id>[A-Za-z_$%.][\w$.]*) |
    (?P<punct>[{}()\[\],;:|+\-@!<>=])
""", re.S | re.X)


class Tokens:
    def __init__(self, text: str, path: str):
        self.path = path
        self.toks: list[tuple[str, str, int]] = []
        line = 1
        pos = 0
        for m in _TOKEN.finditer(text):
            if m.start() != pos:
                raise PTXError(f"{path}:{line}: unexpected character {text[pos]!r}")
            pos = m.end()
            kind = m.lastgroup
            s = m.group()
            if kind == "nl":
                line += 1
            elif kind == "bc":
                line += s.count("\n")
            elif kind not in ("ws", "lc"):
                self.toks.append((kind, s, line))
        if pos != len(text):
            raise PTXError(f"{path}:{line}: unexpected character {text[pos]!r}")
        self.i = 0

    def peek(self, k: int = 0) -> tuple[str, str, int]:
        j = self.i + k
        return self.toks[j] if j < len(self.toks) else ("eof", "", self.toks[-1][2] if self.toks else 1)

    def next(self) -> tuple[str, str, int]:
        t = self.peek()
        self.i += 1
        return t

    def expect(self, s: str) -> tuple[str, str, int]:
        t = self.next()
        if t[1] != s:
            raise PTXError(f"{self.path}:{t[2]}: expected '{s}', found '{t[1] or 'end of file'}'")
        return t

    def accept(self, s: str) -> bool:
        if self.peek()[1] == s:
            self.i += 1
            return True
        return False

    def error(self, what: str) -> PTXError:
        t = self.peek()
        return PTXError(f"{self.path}:{t[2]}: {what}, found '{t[1] or 'end of file'}'")


def integer(tok: tuple[str, str, int], path: str) -> int:
    kind, s, line = tok
    if kind == "hex":
        return int(s.rstrip("U"), 16)
    if kind == "int":
        return int(s.rstrip("U"))
    raise PTXError(f"{path}:{line}: expected an integer, found '{s}'")


def skip_balanced(t: Tokens, open_: str, close: str) -> None:
    depth = 0
    while True:
        k, s, _ = t.next()
        if k == "eof":
            raise t.error(f"expected '{close}'")
        depth += s == open_
        depth -= s == close
        if depth == 0:
            return
