"""One streaming pass over an Accel-Sim ``.traceg`` (tracer versions 3–5; 1–2 read as Accel-Sim
does): validate every line and write the compact compiled form that ``trace_store`` reads.

Compiled form (a folder): ``meta.json`` (headers, the static-instruction table — one entry per
distinct (opcode, registers, width, pc, next pc), so a kernel's code is stored once — counts and
the notes the reader warns about), ``index.bin`` (per warp: CTA, warp, byte offset, instruction
count) and ``stream.bin`` (per warp, chunks of at most ``CHUNK_INSTS`` instructions: static ids
and masks as uint32 arrays, per memory instruction a base address and a stride, or the listed
addresses when the lanes are not evenly spaced). Memory stays bounded by one chunk plus the
static table and the per-warp index, whatever the trace size.

Every malformed input is a ``ConfigError("file:line", text, "expected …")``; see
docs/validation.md for the list of checks.
"""

from __future__ import annotations

import json
import lzma
from array import array
from itertools import islice, repeat
from operator import itemgetter
from pathlib import Path
from typing import IO, Any

from gpusched.config import ConfigError

from .chunk_writer import CHUNK_INSTS, ChunkWriter
from .kernel import Op
from .opcodes import FAMILY_OF_VERSION, NO_UNIT, base_opcode, classify
from .trace_line import parse_instruction

FORMAT_VERSION = 2              # 2: entries sealed (gpusched.cache); the partial-EXIT note
MAX_THREADS_PER_BLOCK = 1024     # CUDA limit
KNOWN_HEADERS = ("kernel name", "kernel id", "grid dim", "block dim", "shmem", "nregs",
                 "cuda stream id", "binary version", "enable lineinfo", "nvbit version",
                 "accelsim tracer version", "shmem base_addr", "local mem base_addr")
SUPPORTED_TRACER_VERSIONS = (3, 4, 5)
STRUCTURE = "expected '#BEGIN_TB', 'thread block = x,y,z', 'warp = N', 'insts = K' or '#END_TB'"
# fields of a parsed line (TraceCompiler._parse) and of a (line number, raw line) item
_MASK, _MEM, _CORE_ID, _IS_EXIT, _PC = (itemgetter(i) for i in range(1, 6))
_RAW = itemgetter(1)


def open_trace(path: Path) -> IO[bytes]:
    """A ``.traceg`` or ``.traceg.xz`` file as a binary line stream."""
    return lzma.open(path, "rb") if path.name.endswith(".xz") else open(path, "rb")


def _dim3(text: str, where: str, limit: int) -> tuple[int, int, int]:
    parts = text.strip().strip("()").split(",")
    try:
        dims = tuple(int(p) for p in parts)
    except ValueError:
        dims = ()
    if len(dims) != 3 or min(dims) < 1 or max(dims) > limit:
        raise ConfigError(where, text.strip(), f"expected '(x,y,z)' with integers 1..{limit}")
    return dims  # type: ignore[return-value]


class TraceCompiler:
    """Compiles one ``.traceg`` into ``out`` (see the module docstring)."""

    def __init__(self, path: Path, out: Path):
        self.path, self.out = path, out
        self.headers: dict[str, str] = {}
        self.header_lines: dict[str, int] = {}
        self.notes: list[list] = []            # [kind, where, text]: warnings for the reader
        self.statics: list[list] = []
        self.sid_of: dict[tuple, int] = {}      # (core id, next pc, last) → static id
        self.core_ids: dict[tuple, int] = {}    # static core → a small int (cheap to hash)
        self.unknown: dict[str, int] = {}      # opcode → dynamic count (not in the family table)
        self.no_unit: dict[str, int] = {}      # texture / tensor opcodes → dynamic count
        self.memo: dict[bytes, tuple] = {}     # non-memory raw line → its _parse result
        self.op_memo: dict[str, tuple[Op, bool]] = {}
        self.lanes_not_exited: list = []       # [warps, first (line, warp, exit mask, lanes)]

    def where(self, lineno: int) -> str:
        return f"{self.path}:{lineno}"

    # -- header ---------------------------------------------------------------------------
    def _header(self, lines) -> int:
        """Read ``-key = value`` lines up to ``#BEGIN_TB``; return its line number."""
        lineno = 1
        for lineno, raw in lines:
            s = self._text(raw, lineno).strip()
            if s.startswith("#BEGIN_TB"):
                self._check_header()
                return lineno
            if s.startswith("-"):
                if "=" not in s:
                    raise ConfigError(self.where(lineno), s, "expected '-key = value'")
                key, value = s[1:].split("=", 1)
                key = " ".join(key.lower().split())
                self.headers[key], self.header_lines[key] = value.strip(), lineno
                if key not in KNOWN_HEADERS:
                    self.notes.append(["header", self.where(lineno), f"unknown header '-{key}'"])
            elif s and not s.startswith("#"):
                raise ConfigError(self.where(lineno), s,
                                  "expected a '-key = value' header or '#BEGIN_TB'")
        self._check_header()
        raise ConfigError(self.where(lineno), "end of file",
                          "expected at least one '#BEGIN_TB' thread block")

    def _num(self, key: str, default: int, hi: int) -> int:
        v = self.headers.get(key)
        if v is None:
            return default
        try:
            n = int(v, 16) if v.lower().startswith("0x") else int(v)
        except ValueError:
            n = -1
        if not 0 <= n <= hi:
            raise ConfigError(self.where(self.header_lines[key]), v,
                              f"expected an integer 0..{hi} for '-{key}'")
        return n

    def _check_header(self) -> None:
        for key in ("grid dim", "block dim"):
            if key not in self.headers:
                raise ConfigError(self.where(1), f"no '-{key}' header", f"expected '-{key} = (x,y,z)'")
        self.grid = _dim3(self.headers["grid dim"], self.where(self.header_lines["grid dim"]),
                          (1 << 31) - 1)
        self.block = _dim3(self.headers["block dim"], self.where(self.header_lines["block dim"]),
                           MAX_THREADS_PER_BLOCK)
        bx, by, bz = self.block
        if bx * by * bz > MAX_THREADS_PER_BLOCK:
            raise ConfigError(self.where(self.header_lines["block dim"]), self.headers["block dim"],
                              f"expected at most {MAX_THREADS_PER_BLOCK} threads per block")
        self.warps_per_cta = -(-bx * by * bz // 32)
        self.nregs = self._num("nregs", 0, 255)
        self.shmem = self._num("shmem", 0, 1 << 20)
        self.lineinfo = self._num("enable lineinfo", 0, 1)
        self.binary_version = self._num("binary version", 0, 1000)
        self.tracer_version = self._num("accelsim tracer version", 4, 1000)
        if self.tracer_version not in SUPPORTED_TRACER_VERSIONS:
            self.notes.append(["tracer", self.where(self.header_lines["accelsim tracer version"]),
                               f"Accel-Sim tracer version {self.tracer_version} (this reader "
                               f"follows versions 3-5)"])
        self.skip = self.lineinfo + (4 if self.tracer_version < 3 else 0)
        self.imm = self.tracer_version >= 5          # every line ends with an immediate
        self.family = FAMILY_OF_VERSION.get(self.binary_version)

    def _text(self, raw: bytes, lineno: int) -> str:
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            raise ConfigError(self.where(lineno), raw[:60].decode("utf-8", "replace").strip(),
                              "expected UTF-8 text") from None

    # -- body -----------------------------------------------------------------------------
    def run(self) -> dict[str, Any]:
        self.out.mkdir(parents=True, exist_ok=True)
        index = array("Q")
        with open_trace(self.path) as src, open(self.out / "stream.bin", "wb") as f:
            lines = enumerate(src, 1)
            self._header(lines)
            self.w = ChunkWriter(f)
            n_tbs = self._body(lines, index)
            self.w.flush()
        with open(self.out / "index.bin", "wb") as f:
            index.tofile(f)
        meta = {"format": FORMAT_VERSION, "source": str(self.path), "headers": self.headers,
                "grid": list(self.grid), "block": list(self.block), "nregs": self.nregs,
                "shmem": self.shmem, "binary_version": self.binary_version,
                "family": self.family, "statics": self.statics, "unknown_opcodes": self.unknown,
                "no_unit_opcodes": self.no_unit, "notes": self.notes, "thread_blocks": n_tbs,
                "warps": len(index) // 4, "warp_insts": self.w.warp_insts,
                "thread_insts": self.w.thread_insts}
        (self.out / "meta.json").write_text(json.dumps(meta))
        return meta

    def _body(self, lines, index: array) -> int:
        gx, gy, gz = self.grid
        wpc = self.warps_per_cta
        seen_ctas: set[int] = set()
        in_tb, cta, warp, lineno = True, -1, -1, 0
        warps_here: set[int] = set()
        last_insts: tuple[int, int] | None = None
        for lineno, raw in lines:
            s = raw.strip()
            if not s or (s[:1] == b"#" and s not in (b"#BEGIN_TB", b"#END_TB")):
                continue
            if s == b"#BEGIN_TB":
                if in_tb:
                    raise ConfigError(self.where(lineno), "#BEGIN_TB", "expected '#END_TB' first")
                in_tb, cta, warp, warps_here = True, -1, -1, set()
                continue
            if not in_tb:
                raise ConfigError(self.where(lineno), self._text(s, lineno), "expected '#BEGIN_TB'")
            if s == b"#END_TB":
                if cta < 0:
                    raise ConfigError(self.where(lineno), "#END_TB", "expected 'thread block = x,y,z' first")
                in_tb = False
                continue
            text = self._text(s, lineno)
            key, _, value = text.partition("=")
            key = key.strip()
            if key == "thread block":
                x, y, z = self._ints(value, 3, lineno, "expected 'thread block = x,y,z'")
                if not (x < gx and y < gy and z < gz):
                    raise ConfigError(self.where(lineno), text.strip(),
                                      f"expected a thread block inside the grid {self.grid}")
                cta = x + gx * (y + gy * z)
                if cta in seen_ctas:
                    raise ConfigError(self.where(lineno), text.strip(), "expected each thread block once")
                seen_ctas.add(cta)
                warps_here = set()
            elif key == "warp" and cta >= 0:
                (warp,) = self._ints(value, 1, lineno, "expected 'warp = N'")
                if warp >= wpc:
                    raise ConfigError(self.where(lineno), text.strip(),
                                      f"expected a warp id below {wpc}: '-block dim = "
                                      f"{self.headers['block dim']}' has {wpc} warps")
                if warp in warps_here:
                    raise ConfigError(self.where(lineno), text.strip(), "expected each warp once per thread block")
                warps_here.add(warp)
            elif key == "insts" and warp >= 0:
                (n,) = self._ints(value, 1, lineno, "expected 'insts = K'")
                index.extend((cta, warp, self.w.offset, 0))
                last_insts = (n, lineno)
                index[-1], lineno = self._warp(lines, n, lineno, warp)
                warp = -1
            elif text[:1] in "0123456789abcdefABCDEF" and last_insts:
                raise ConfigError(self.where(lineno), text.strip(), f"{STRUCTURE}; the warp before "
                                  f"has more instruction lines than 'insts = {last_insts[0]}' "
                                  f"(line {last_insts[1]})")
            else:
                raise ConfigError(self.where(lineno), text.strip(), STRUCTURE)
        if in_tb:
            raise ConfigError(self.where(lineno), "end of file", "expected '#END_TB'")
        if len(seen_ctas) != gx * gy * gz:
            raise ConfigError(self.where(self.header_lines["grid dim"]), self.headers["grid dim"],
                              f"expected all {gx * gy * gz} thread blocks of the grid in the file, "
                              f"found {len(seen_ctas)}")
        if self.lanes_not_exited:
            count, (line, warp, exited, lanes) = self.lanes_not_exited
            self.notes.append(["exit", self.where(line), f"{count:,} warp(s) have lanes that "
                               f"never execute EXIT (first: warp {warp} here, EXIT lanes "
                               f"{exited:#010x} of {lanes:#010x}); the model ends such a warp "
                               "at its last instruction, Accel-Sim would wait for the other "
                               "lanes forever"])
        missing = gx * gy * gz * wpc - len(index) // 4
        if missing:
            self.notes.append(["warps", str(self.path), f"{missing} of {gx * gy * gz * wpc} warps "
                               "are absent from the file; each runs just EXIT"])
        return len(seen_ctas)

    def _ints(self, value: str, k: int, lineno: int, expected: str) -> tuple[int, ...]:
        try:
            vals = tuple(int(p) for p in value.strip().split(","))
        except ValueError:
            vals = ()
        if len(vals) != k or min(vals) < 0 or max(vals) >= 1 << 32:
            raise ConfigError(self.where(lineno), value.strip(), expected)
        return vals

    def _warp(self, lines, n: int, at: int, warp: int) -> tuple[int, int]:
        """Compile one warp's ``n`` instruction lines; return (instructions written, last line).
        An instruction's static id depends on the next one's pc, so the lines are read and
        paired in segments of at most ``CHUNK_INSTS`` (C-level ``map``/``zip`` over the lines, no
        Python step per line that was seen before; memory stays bounded by one segment)."""
        w = self.w
        pending = None          # the last line read, waiting for the next pc
        got, exited, lineno = 0, 0, at
        while got < n:
            seg, lineno = self._lines(lines, min(n - got, CHUNK_INSTS), at, warp, n, got)
            got += len(seg)
            if True in map(_IS_EXIT, seg):
                for h in seg:
                    if h[4]:
                        exited |= h[1]      # the lanes some EXIT line covers
            if pending is not None:
                seg.insert(0, pending)
            pending = seg.pop()
            if not seg:
                continue
            pcs = list(map(_PC, seg))
            pcs.append(pending[5])
            sids = list(map(self.sid_of.get, zip(map(_CORE_ID, seg), pcs[1:], repeat(False))))
            if None in sids:
                for i, sid in enumerate(sids):
                    if sid is None:
                        sids[i] = self._sid(seg[i][0], pcs[i + 1], False)
            w.extend(sids, list(map(_MASK, seg)), list(map(_MEM, seg)))
        if pending is None:                                  # 'insts = 0': a bare EXIT
            w.add(self._sid(("EXIT", Op.EXIT, (), (), 4, 0, False), 8, True), 0xFFFFFFFF, None)
            w.flush()
            return 1, lineno
        if exited:
            self._check_lanes_exit(exited, warp, lineno)
        core, mask, mem = pending[:3]
        w.add(self._sid(core, core[5] + 8, True), mask, mem)
        written = n
        if core[1] != Op.EXIT:                               # the model needs a final EXIT
            w.add(self._sid(("EXIT", Op.EXIT, (), (), 4, core[5] + 8, False), core[5] + 16, True),
                  mask, None)
            written += 1
        w.flush()                                            # a warp's chunks are its own
        return written, lineno

    def _lines(self, lines, k: int, at: int, warp: int, n: int, got: int) -> tuple[list[tuple], int]:
        """The next ``k`` instruction lines of a warp of ``n`` (``got`` read before), blank
        lines skipped, parsed (see ``_parse``; known lines from the memo); the number of the
        last line read."""
        memo = self.memo
        hits: list[tuple] = []
        lineno = at
        while len(hits) < k:
            items = list(islice(lines, k - len(hits)))
            if not items:
                raise ConfigError(self.where(at), "end of file", f"expected {n} instruction "
                                  f"lines for warp {warp} ('insts = {n}'), found {got + len(hits)}")
            lineno = items[-1][0]
            found = list(map(memo.get, map(_RAW, items)))
            blank, i = 0, -1
            for _ in range(found.count(None)):  # the lines not in the memo, found by C scans
                i = found.index(None, i + 1)
                ln, raw = items[i]
                s = raw.strip()
                if s:
                    found[i] = self._parse(raw, s, ln, n, got + len(hits) + i - blank, at, warp)
                else:
                    found[i] = ()               # a blank line: dropped below
                    blank += 1
            hits += [h for h in found if h] if blank else found
        return hits, lineno

    def _check_lanes_exit(self, exited: int, warp: int, lineno: int) -> None:
        """Every thread of the warp must pass an EXIT (a predicated EXIT's mask covers its
        whole active mask); note a warp whose EXIT lines leave some of its lanes out."""
        bx, by, bz = self.block
        lanes = (1 << min(32, bx * by * bz - 32 * warp)) - 1
        if exited & lanes != lanes:
            if not self.lanes_not_exited:
                self.lanes_not_exited = [0, (lineno, warp, exited, lanes)]
            self.lanes_not_exited[0] += 1

    def _parse(self, raw: bytes, s: bytes, lineno: int, n: int, got: int, at: int,
               warp: int) -> tuple:
        """Line ``raw`` (``s`` stripped) → (static core, mask, addresses, core id, is EXIT, pc);
        kept in the memo by its raw bytes when it has no addresses and nothing to count."""
        text = self._text(s, lineno).strip()
        try:
            opcode, dst, src, width, pc, mask, mem = parse_instruction(text, self.where(lineno), self.skip,
                                                                   self.imm)
        except ConfigError:
            if text.startswith(("#", "warp", "insts", "thread block")):
                raise ConfigError(self.where(lineno), text,
                                  f"expected {n} instruction lines for warp {warp} "
                                  f"('insts = {n}' at line {at}), found {got}") from None
            raise
        known = self.op_memo.get(opcode)
        if known is None:
            known = self.op_memo[opcode] = classify(opcode, self.family)
        op, ok = known
        base = base_opcode(opcode)
        flagged = not ok or base in NO_UNIT
        if flagged:
            counts = self.unknown if not ok else self.no_unit
            if len(counts) < 1000 or base in counts:
                counts[base] = counts.get(base, 0) + 1
        if mem is not None and op not in (Op.LDG, Op.STG, Op.LDS, Op.STS, Op.ATOM):
            mem = None                    # addresses on a non-memory op (e.g. CCTL): not modelled
        core = (opcode, op, dst, src, width, pc, mem is not None)
        core_id = self.core_ids.get(core)
        if core_id is None:
            core_id = self.core_ids[core] = len(self.core_ids)
        hit = (core, mask, mem, core_id, op == Op.EXIT, pc)
        if mem is None and not flagged:
            if len(self.memo) >= 1 << 16:
                self.memo.clear()
            self.memo[raw] = hit
        return hit

    def _sid(self, core: tuple, next_pc: int, last: bool) -> int:
        """The static id of ``core`` followed by ``next_pc``; counts the instance."""
        core_id = self.core_ids.get(core)
        if core_id is None:
            core_id = self.core_ids[core] = len(self.core_ids)
        key = (core_id, next_pc, last)
        sid = self.sid_of.get(key)
        if sid is None:
            opcode, op, dst, src, width, pc, has_mem = core
            if op == Op.EXIT and not last:
                op = Op.BRA           # a partial EXIT the warp continues after: a control op
            sid = self.sid_of[key] = len(self.statics)
            self.statics.append([opcode, int(op), list(dst), list(src), width, pc, next_pc, has_mem])
        return sid
