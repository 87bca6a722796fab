"""Read the counterexample VCD written by yosys-smtbmc: chosen signals, one value per step."""

from __future__ import annotations

from pathlib import Path
from typing import Optional


def read_trace(path: Path, names: list[str]) -> dict[str, list[Optional[int]]]:
    """Values of the dotted signal ``names`` (scope path below ``top``, e.g. ``dut.grant``) at
    each solver step (the ``smt_step`` counter); ``None`` for an x / z value."""
    ids: dict[str, str] = {}          # vcd id → dotted name (wanted ones only)
    step_id = None
    scope: list[str] = []
    wanted = set(names)
    values: dict[str, Optional[int]] = {}
    steps: dict[int, dict[str, Optional[int]]] = {}
    lines = path.read_text().splitlines()
    body = 0
    for body, line in enumerate(lines):
        tok = line.split()
        if not tok:
            continue
        if tok[0] == "$scope":
            scope.append(tok[2])
        elif tok[0] == "$upscope":
            scope.pop()
        elif tok[0] == "$var":
            dotted = ".".join(scope[1:] + [tok[4]])
            if tok[4] == "smt_step":
                step_id = tok[3]
            elif dotted in wanted:
                ids[tok[3]] = dotted
        elif tok[0] == "$enddefinitions":
            break
    step = 0
    for line in lines[body + 1:]:
        if not line or line[0] in "#$":
            continue
        if line[0] in "bB":
            raw, ident = line[1:].split()
        else:
            raw, ident = line[0], line[1:]
        val = None if any(c in raw for c in "xXzZ") else int(raw, 2)
        if ident == step_id:
            step = val or 0
        elif ident in ids:
            values[ids[ident]] = val
            steps.setdefault(step, {})
        steps[step] = dict(values)
    n = max(steps) + 1 if steps else 0
    out = {name: [] for name in names}
    last: dict[str, Optional[int]] = {}
    for s in range(n):
        last.update(steps.get(s, {}))
        for name in names:
            out[name].append(last.get(name))
    return out
