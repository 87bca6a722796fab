"""Accel-Sim trace import (trace version 4): ``read_trace_dir(path) -> Workload``.

A trace directory holds ``kernelslist.g`` (one ``kernel-N.traceg`` per line, Memcpy lines are
skipped) and one file per kernel: ``-key = value`` headers (grid dim, block dim, shmem, nregs,
…; unknown headers ignored), ``#`` comments, then per thread block ``#BEGIN_TB``,
``thread block = x,y,z``, per warp ``warp = N``, ``insts = K`` and K instruction lines, ``#END_TB``.

Instruction line: ``pc mask ndst [dst regs] opcode nsrc [src regs] mem_width [fmt addrs]``, pc and
mask in hex; registers R0–R254 → 0–254, P0–P7 → 256–263; RZ/R255, PT and uniform registers
(UR*, UP*) are dropped (no dependences through them). Address forms when mem_width > 0:
``0 a0 a1 …`` (one hex address per active lane), ``1 base stride`` (first active lane at base,
each next active lane +stride; the tracer uses it for contiguous masks), ``2 base d1 d2 …``
(each next active lane = previous + delta), as in Accel-Sim's trace parser.

Files can be gigabytes, so each kernel file is indexed once (byte offset, count and line
number of every warp's instructions; built on the first ``stream`` call) and a stream then reads
its warp's lines in bounded chunks, opening the file per chunk so thousands of live streams hold
no file handles. A warp missing from the trace yields just EXIT, and a warp whose trace does not
end in EXIT gets one appended (the GPU model needs it). Malformed input raises
``ConfigError("file:line", text, "expected …")``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

from gpusched.config import ConfigError

from .kernel import Instr, Kernel, Op, Workload
from .opcodes import op_of

CHUNK_BYTES = 1 << 16
LINE_FORMAT = "expected 'pc mask ndst [regs] opcode nsrc [regs] mem_width [fmt addresses]'"


def read_trace_dir(path: str | Path) -> Workload:
    """Read an Accel-Sim trace directory; kernels in ``kernelslist.g`` order, streamed lazily."""
    d = Path(path)
    listing = d / "kernelslist.g"
    if not listing.is_file():
        raise ConfigError(str(d), "no kernelslist.g", "expected an Accel-Sim trace directory")
    kernels = []
    for lineno, raw in enumerate(listing.read_text().splitlines(), 1):
        s = raw.strip()
        if not s or s.startswith("#") or s.lower().startswith("memcpy"):
            continue
        if not s.endswith(".traceg"):
            raise ConfigError(f"{listing}:{lineno}", s,
                              "expected 'kernel-N.traceg' or a Memcpy line")
        f = Path(s) if Path(s).is_absolute() else d / s
        if not f.is_file():
            raise ConfigError(f"{listing}:{lineno}", s, "expected an existing .traceg file")
        kernels.append(TraceKernel(f).kernel())
    if not kernels:
        raise ConfigError(str(listing), "no kernels", "expected at least one kernel-N.traceg line")
    return Workload(name=d.name, kernels=kernels, description=f"Accel-Sim traces from {d}")


def _dim3(text: str, where: str) -> tuple[int, int, int]:
    parts = text.strip().strip("()").split(",")
    try:
        dims = tuple(int(p) for p in parts)
    except ValueError:
        dims = ()
    if len(dims) != 3 or min(dims) < 1:
        raise ConfigError(where, text.strip(), "expected '(x,y,z)' with positive integers")
    return dims  # type: ignore[return-value]


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


def parse_line(line: str, where: str, lineinfo: bool = False,
               ops: dict[str, Op] | None = None) -> Instr:
    """One trace-v4 instruction line → ``Instr`` (``next_pc`` is fixed up by the caller);
    ``ops`` caches opcode → op class across calls."""
    t = line.split()
    if lineinfo and t:
        t = t[1:]
    try:
        pc, mask, nd = int(t[0], 16), int(t[1], 16), int(t[2])
        opcode = t[3 + nd]
        ns = int(t[4 + nd])
        j = 5 + nd + ns
        width = int(t[j])
        if min(nd, ns) < 0:
            raise ValueError
    except (ValueError, IndexError):
        raise ConfigError(where, line.strip(), LINE_FORMAT) from None
    dst = _regs(t[3:3 + nd], where, line.strip())
    src = _regs(t[5 + nd:j], where, line.strip())
    op = ops.get(opcode) if ops is not None else None
    if op is None:
        op = op_of(opcode)
        if ops is not None:
            ops[opcode] = op
    rest = t[j + 1:]
    if width <= 0:
        if rest:
            raise ConfigError(where, line.strip(), "expected nothing after mem_width 0")
        return Instr(op, dst, src, None, 4, mask, pc)
    return Instr(op, dst, src, _addresses(rest, mask, where, line.strip()), width, mask, pc)


def _addresses(rest: list[str], mask: int, where: str, line: str) -> tuple[int, ...]:
    n = mask.bit_count()
    fmt = rest[0] if rest else ""
    try:
        if fmt == "0" and len(rest) == 1 + n:
            return tuple(int(a, 16) for a in rest[1:])
        if fmt == "1" and len(rest) == 3:
            base, stride = int(rest[1], 16), int(rest[2])
            return tuple(base + i * stride for i in range(n))
        if fmt == "2" and len(rest) == 1 + max(n, 1):
            out, a = [int(rest[1], 16)], int(rest[1], 16)
            for d in rest[2:]:
                a += int(d)
                out.append(a)
            return tuple(out[:n])
    except ValueError:
        raise ConfigError(where, line,
                          "expected hex addresses and decimal strides/deltas") from None
    raise ConfigError(where, line, f"expected address info '0 a…'×{n}, '1 base stride' or "
                                   f"'2 base' + {max(n - 1, 0)} deltas for {n} active lanes")


class TraceKernel:
    """One ``.traceg`` file: header parsed at once, warp index built lazily, lazy streams."""

    def __init__(self, path: Path):
        self.path = path
        self.headers: dict[str, str] = {}
        self.body_offset = 0
        self.body_line = 1
        self._index: dict[int, dict[int, tuple[int, int, int, int]]] | None = None
        self.bytes_read = 0          # bytes read by streams (not by indexing); for tests/stats
        self._ops: dict[str, Op] = {}
        self._read_header()

    def _where(self, lineno: int) -> str:
        return f"{self.path}:{lineno}"

    def _read_header(self) -> None:
        with open(self.path, "rb") as f:
            lineno, offset = 0, 0
            for raw in f:
                lineno += 1
                s = raw.decode("utf-8", "replace").strip()
                if s.startswith("-"):
                    if "=" not in s:
                        raise ConfigError(self._where(lineno), s, "expected '-key = value'")
                    key, value = s[1:].split("=", 1)
                    self.headers[key.strip().lower()] = value.strip()
                elif s and not s.startswith("#"):
                    raise ConfigError(self._where(lineno), s,
                                      "expected a '-key = value' header or '#BEGIN_TB'")
                elif s.startswith("#BEGIN_TB"):
                    break
                offset += len(raw)
            self.body_offset, self.body_line = offset, lineno
        for key in ("grid dim", "block dim"):
            if key not in self.headers:
                raise ConfigError(self._where(1), f"no '-{key}' header",
                                  f"expected '-{key} = (x,y,z)'")
        self.grid = _dim3(self.headers["grid dim"], self._where(1))
        self.block = _dim3(self.headers["block dim"], self._where(1))
        self.lineinfo = self.headers.get("enable lineinfo", "0").strip() not in ("0", "")

    def kernel(self) -> Kernel:
        h = self.headers

        def num(key: str, default: int = 0) -> int:
            v = h.get(key, str(default)).strip()
            try:
                return int(v, 16) if v.lower().startswith("0x") else int(v)
            except ValueError:
                raise ConfigError(self._where(1), h[key],
                                  f"expected an integer for '-{key}'") from None
        return Kernel(name=h.get("kernel name", self.path.stem), grid=self.grid, block=self.block,
                      regs_per_thread=num("nregs"), smem_per_cta=num("shmem"), stream=self.stream,
                      meta={"trace": str(self.path), "kernel id": h.get("kernel id", "")})

    def index(self) -> dict[int, dict[int, tuple[int, int, int, int]]]:
        """CTA linear id → warp → (byte offset, byte end, instruction count, first line no)."""
        if self._index is None:
            self._index = self._build_index()
        return self._index

    def _build_index(self) -> dict:
        gx, gy, _ = self.grid
        index: dict[int, dict[int, tuple[int, int, int, int]]] = {}
        cta = warp = None
        with open(self.path, "rb") as f:
            f.seek(self.body_offset)
            offset, lineno = self.body_offset, self.body_line - 1
            while True:
                raw = f.readline()
                if not raw:
                    break
                lineno += 1
                offset += len(raw)
                s = raw.strip()
                if not s or (s.startswith(b"#") and s != b"#END_TB"):
                    continue
                text = s.decode("utf-8", "replace")
                key, _, value = text.partition("=")
                key = key.strip()
                if s == b"#END_TB":
                    cta = None
                elif key == "thread block":
                    x, y, z = self._tb(value, lineno)
                    cta = x + gx * (y + gy * z)
                    index.setdefault(cta, {})
                elif key == "warp" and cta is not None:
                    warp = self._int(value, lineno, "expected 'warp = N'")
                elif key == "insts" and cta is not None and warp is not None:
                    n = self._int(value, lineno, "expected 'insts = K'")
                    start, first = offset, lineno + 1
                    for _ in range(n):
                        line = f.readline()
                        if not line:
                            raise ConfigError(self._where(lineno), "end of file",
                                              f"expected {n} instruction lines for warp {warp}")
                        offset += len(line)
                        lineno += 1
                    index[cta][warp] = (start, offset, n, first)
                    warp = None
                else:
                    raise ConfigError(self._where(lineno), text,
                                      "expected 'thread block = x,y,z', 'warp = N', 'insts = K' "
                                      "or '#END_TB'")
        return index

    def _int(self, value: str, lineno: int, expected: str) -> int:
        try:
            n = int(value.strip())
        except ValueError:
            n = -1
        if n < 0:
            raise ConfigError(self._where(lineno), value.strip(), expected)
        return n

    def _tb(self, value: str, lineno: int) -> tuple[int, int, int]:
        parts = value.strip().split(",")
        try:
            x, y, z = (int(p) for p in parts)
        except ValueError:
            raise ConfigError(self._where(lineno), value.strip(),
                              "expected 'thread block = x,y,z'") from None
        return x, y, z

    def _lines(self, start: int, end: int) -> Iterator[bytes]:
        """The lines of byte range [start, end), read in chunks with the file closed between."""
        pos, carry = start, b""
        while pos < end:
            with open(self.path, "rb") as f:
                f.seek(pos)
                chunk = f.read(min(CHUNK_BYTES, end - pos))
            if not chunk:
                break
            pos += len(chunk)
            self.bytes_read += len(chunk)
            lines = (carry + chunk).split(b"\n")
            carry = lines.pop()
            yield from lines
        if carry:
            yield carry

    def stream(self, cta: int, warp: int) -> Iterator[Instr]:
        """Warp ``warp`` of CTA ``cta``, parsed lazily; ``next_pc`` = the next line's pc."""
        entry = self.index().get(cta, {}).get(warp)
        if entry is None:
            yield Instr(Op.EXIT)
            return
        start, end, n, lineno = entry
        pending = None
        for i, raw in enumerate(self._lines(start, end)):
            try:
                ins = parse_line(raw.decode("utf-8", "replace"), "", self.lineinfo, self._ops)
            except ConfigError as e:
                raise ConfigError(self._where(lineno + i), e.value, e.allowed) from None
            if pending is not None:
                pending.next_pc = ins.pc
                yield pending
            pending = ins
        if pending is None:
            yield Instr(Op.EXIT)
            return
        yield pending
        if pending.op != Op.EXIT:
            yield Instr(Op.EXIT, mask=pending.mask, pc=pending.next_pc)
