"""One Accel-Sim instruction line → its fields, checked (``parse_instruction``).

Line: ``pc mask ndst [dst regs] opcode nsrc [src regs] mem_width [fmt addrs] [imm]``, pc and mask
in hex; registers R0–R254 → 0–254, P0–P7 → 256–263; RZ/R255, PT and uniform registers (UR*, UP*)
are dropped (no dependences through them). Tracer version 5 ends every line with an immediate
(``imm=True``: one trailing decimal integer, read and dropped; Accel-Sim keeps it only for
DEPBAR).

A mask may be 0: the NVBit tracer writes the active mask ANDed with the guard predicate, so an
instruction whose lanes have all exited or are predicated off has mask 0; it still issues (as in
Accel-Sim) but touches no memory.

Address forms when mem_width > 0, as the tracer writes them: ``0 a0 a1 …`` (one hex address per
active lane), ``1 base stride`` (the active lanes, which the tracer makes contiguous, at base +
i·stride), ``2 base d1 d2 …`` (each next active lane = previous + delta); with no active lane
``0``, ``1 base stride`` and ``2 base`` carry no access. The addresses come back as ``(base,
stride)`` when evenly spaced, else ``(tuple, LISTED)``; None for no access.

The access width is read from the opcode as Accel-Sim does (``trace_parser.cc``
``get_datawidth_from_opcode``: the first all-digit token / 8, or ``U<bits>`` / 8, else 4 bytes;
``LDG.E.64`` → 8), not from ``mem_width``, which NVBit can report wrongly.
"""

from __future__ import annotations

from gpusched.config import ConfigError

LISTED = -(1 << 63)              # stride value: this instruction's addresses are listed
ADDRESS_LIMIT = 1 << 64
MAX_MEM_WIDTH = 32               # bytes per lane (Accel-Sim's widest access is 16)
MAX_REGS_PER_INSTR = 32
LINE_FORMAT = "expected 'pc mask ndst [regs] opcode nsrc [regs] mem_width [fmt addresses]'"

REG_NUMBERS: dict[str, int | None] = {
    **{f"R{n}": n for n in range(255)}, **{f"P{n}": 256 + n for n in range(8)},
    "R255": None, "RZ": None, "PT": None}


def _regs(toks: list[str], where: str, line: str) -> tuple[int, ...]:
    """Register tokens → numbers; RZ, PT and uniform registers (UR*, UP*) are dropped."""
    out = []
    for tok in toks:
        r = REG_NUMBERS.get(tok, -1)
        if r == -1:
            if tok.startswith(("UR", "UP")):
                continue
            raise ConfigError(where, line, f"expected a register like R12, P0 or UR4, found {tok!r}")
        if r is not None:
            out.append(r)
    return tuple(out)


def opcode_width(opcode: str) -> int:
    """Bytes per lane of a memory opcode, as Accel-Sim reads it: ``LDG.E.128`` → 16,
    ``STG.E.U8`` → 1, no size token → 4."""
    for tok in opcode.split(".")[1:]:
        if tok.isdigit():
            return int(tok) // 8
        if tok[:1] == "U" and tok[1:].isdigit():
            return int(tok[1:]) // 8
    return 4


def parse_instruction(line: str, where: str, skip: int = 0, imm: bool = False):
    """One instruction line → ``(opcode, dst, src, width, pc, mask, mem)``; ``mem`` is None or
    ``(base, stride)`` with stride ``LISTED`` and base a tuple when lanes are unevenly spaced.
    ``skip`` leading tokens (line number, old tracers' block/warp ids) are ignored; ``imm``: the
    line may end with an immediate (tracer version 5 and later)."""
    t = line.split()[skip:]
    try:
        pc, mask, nd = int(t[0], 16), int(t[1], 16), int(t[2])
        opcode = t[3 + nd]
        ns = int(t[4 + nd])
        j = 5 + nd + ns
        mem_width = int(t[j])
        if min(nd, ns, pc) < 0 or max(nd, ns) > MAX_REGS_PER_INSTR or not opcode[:1].isalpha():
            raise ValueError
        if imm and len(t) == j + 1 + _address_tokens(t[j + 1:j + 2], int(t[1], 16), mem_width) + 1:
            int(t[-1])                  # the immediate (tracer version 5): read and dropped
            t = t[:-1]
    except (ValueError, IndexError):
        raise ConfigError(where, line, LINE_FORMAT) from None
    if not 0 <= mask < 1 << 32:
        raise ConfigError(where, line, "expected a 32-lane mask (at most 8 hex digits)")
    if not 0 <= mem_width <= MAX_MEM_WIDTH:
        raise ConfigError(where, line, f"expected mem_width 0..{MAX_MEM_WIDTH} bytes")
    dst = _regs(t[3:3 + nd], where, line)
    src = _regs(t[5 + nd:j], where, line)
    rest = t[j + 1:]
    if mem_width == 0:
        if rest:
            raise ConfigError(where, line, "expected nothing after mem_width 0")
        return opcode, dst, src, 4, pc, mask, None
    width = opcode_width(opcode)
    if not 0 < width <= MAX_MEM_WIDTH:
        raise ConfigError(where, line, f"expected an access width of 1..{MAX_MEM_WIDTH} bytes "
                                       f"in the opcode")
    return opcode, dst, src, width, pc, mask, _addresses(rest, mask.bit_count(), where, line)


def _address_tokens(fmt: list[str], mask: int, mem_width: int) -> int:
    """How many tokens the address info of a line takes (0 without memory)."""
    if mem_width == 0 or not fmt:
        return 0
    n = mask.bit_count()
    return {"0": 1 + n, "1": 3, "2": 1 + max(n, 1)}.get(fmt[0], 0)


def _addresses(rest: list[str], n: int, where: str, line: str) -> tuple | None:
    fmt = rest[0] if rest else ""
    try:
        if fmt == "0" and len(rest) == 1 + n:
            addrs = [int(a, 16) for a in rest[1:]]
        elif fmt == "1" and len(rest) == 3:
            base, stride = int(rest[1], 16), int(rest[2])
            if n == 0:
                return None
            addrs = [base, base + (n - 1) * stride] if n > 1 else [base]
            _check_range(addrs, where, line)
            return base, stride if n > 1 else 0
        elif fmt == "2" and len(rest) == max(n, 1) + 1:
            a = int(rest[1], 16)
            addrs = [a] if n else []
            for d in rest[2:]:
                a += int(d)
                addrs.append(a)
        else:
            raise ConfigError(where, line, f"expected address info '0 a…'×{n}, '1 base stride' "
                                           f"or '2 base' + {max(n - 1, 0)} deltas for {n} "
                                           "active lanes")
    except ValueError:
        raise ConfigError(where, line, "expected hex addresses and decimal strides/deltas") from None
    if n == 0:
        return None
    _check_range(addrs, where, line)
    if n == 1:
        return addrs[0], 0
    stride = addrs[1] - addrs[0]
    if all(b - a == stride for a, b in zip(addrs, addrs[1:])):
        return addrs[0], stride
    return tuple(addrs), LISTED


def _check_range(addrs: list[int], where: str, line: str) -> None:
    if min(addrs) < 0 or max(addrs) >= ADDRESS_LIMIT:
        raise ConfigError(where, line, "expected addresses within 0..2^64-1")
