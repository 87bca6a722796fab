"""Types and operand access: PTX types → numpy dtypes, immediates, register reads and masked
register writes for a batch of lanes.

Registers are numpy arrays over the threads of a chunk, stored in their declared type
(``.pred`` as bool, ``.f32`` as float32, ``.b32`` as uint32, …). An instruction reads a
register as its own type: same width → a ``view`` (bits unchanged), other widths → integer
truncation or extension as PTX's relaxed type rules say. A batch selects its lanes with a
``slice`` (contiguous warps) or an index array, and ``m`` (bool per lane, or None when all
lanes are active) says which lanes an instruction writes.
"""

from __future__ import annotations

import struct

import numpy as np

from .syntax import TYPES, Imm, Reg

DTYPE = {"pred": np.dtype(bool), "b8": np.dtype(np.uint8), "b16": np.dtype(np.uint16),
         "b32": np.dtype(np.uint32), "b64": np.dtype(np.uint64), "u8": np.dtype(np.uint8),
         "u16": np.dtype(np.uint16), "u32": np.dtype(np.uint32), "u64": np.dtype(np.uint64),
         "s8": np.dtype(np.int8), "s16": np.dtype(np.int16), "s32": np.dtype(np.int32),
         "s64": np.dtype(np.int64), "f16": np.dtype(np.float16), "f16x2": np.dtype(np.uint32),
         "bf16": np.dtype(np.uint16), "f32": np.dtype(np.float32), "f64": np.dtype(np.float64)}
UNSIGNED = {1: np.dtype(np.uint8), 2: np.dtype(np.uint16), 4: np.dtype(np.uint32),
            8: np.dtype(np.uint64)}
SIGNED = {1: np.dtype(np.int8), 2: np.dtype(np.int16), 4: np.dtype(np.int32), 8: np.dtype(np.int64)}
FLOAT = {2: np.dtype(np.float16), 4: np.dtype(np.float32), 8: np.dtype(np.float64)}


def is_float(t: str) -> bool:
    return t in ("f16", "f32", "f64")


def is_signed(t: str) -> bool:
    return t[0] == "s"


def type_of(mods: tuple[str, ...], index: int = -1) -> str | None:
    """The ``index``-th type modifier among ``mods`` (-1: the last one), or None."""
    found = [m for m in mods if m in TYPES]
    if not found:
        return None
    try:
        return found[index]
    except IndexError:
        return None


def immediate(imm: Imm, t: str):
    """An immediate as a numpy scalar of type ``t`` (bits for integer types given a float)."""
    dt = DTYPE[t]
    if t == "pred":
        return np.bool_(bool(imm.value))
    if dt.kind == "f":
        if imm.kind == "int":       # an integer literal in a float op: its value
            return dt.type(float(imm.value))
        return dt.type(imm.value)
    size = dt.itemsize
    if imm.kind == "f32":
        bits = struct.unpack("<I", struct.pack("<f", imm.value))[0]
    elif imm.kind == "f64":
        bits = struct.unpack("<Q", struct.pack("<d", imm.value))[0]
    else:
        bits = int(imm.value)
    bits &= (1 << (8 * size)) - 1
    return np.array(bits, dtype=UNSIGNED[size]).view(dt)[()]


def convert_bits(val, src: np.dtype, dst: np.dtype, signed: bool):
    """Integer value of type ``src`` into a register of ``dst``: same width keeps the bits,
    narrower truncates, wider extends (sign-extends when ``signed``)."""
    if src.itemsize == dst.itemsize:
        return val.view(dst) if isinstance(val, np.ndarray) else np.array(val, src).view(dst)[()]
    if src.kind == "f" or dst.kind == "f":
        ival = np.asarray(val).view(UNSIGNED[src.itemsize]) if src.kind == "f" else np.asarray(val)
        out = ival.astype(UNSIGNED[dst.itemsize]) if dst.itemsize > src.itemsize else \
            ival.astype(UNSIGNED[src.itemsize]).astype(UNSIGNED[dst.itemsize])
        return out.view(dst)
    via = SIGNED[src.itemsize] if signed else UNSIGNED[src.itemsize]
    v = np.asarray(val).view(via) if np.asarray(val).dtype.itemsize == src.itemsize else val
    out = np.asarray(v).astype(SIGNED[dst.itemsize] if signed else UNSIGNED[dst.itemsize])
    return out.view(dst)


class Operands:
    """Register ids of one kernel: every register (and special register) gets an index into
    the chunk's register list ``R``; ``reader``/``writer`` build the accessors."""

    def __init__(self, regs: dict[str, str], specials: dict[str, str]):
        self.types = dict(regs)
        self.types.update(specials)
        self.index = {name: i for i, name in enumerate(self.types)}

    def reg_type(self, r: Reg) -> str:
        return self.types[r.name]

    def reader(self, op, t: str):
        """A function ``(R, sel) -> array | scalar`` reading ``op`` as type ``t``."""
        if isinstance(op, Imm):
            v = immediate(op, t)
            return lambda R, sel: v
        i = self.index[op.name]
        have = DTYPE[self.types[op.name]]
        want = DTYPE[t]
        if have == want:
            return lambda R, sel: R[i][sel]
        if t == "pred" or have == np.dtype(bool):
            return lambda R, sel: R[i][sel].astype(want)
        if have.itemsize == want.itemsize:
            return lambda R, sel: R[i][sel].view(want)
        if want.kind == "f" or have.kind == "f":
            raise TypeError(f"register {op.name} ({self.types[op.name]}) read as .{t}")
        if have.itemsize > want.itemsize:       # truncation: keep the low bits
            return lambda R, sel: R[i][sel].astype(want)
        signed = self.types[op.name][0] == "s"
        via = SIGNED[have.itemsize] if signed else UNSIGNED[have.itemsize]
        return lambda R, sel: R[i][sel].view(via).astype(want)

    def writer(self, op, t: str):
        """A function ``(R, sel, m, val)`` writing value ``val`` (type ``t``) into register
        ``op`` for the lanes ``m`` of ``sel`` (all when m is None)."""
        i = self.index[op.name]
        have = DTYPE[self.types[op.name]]
        want = DTYPE[t]
        if have == want:
            conv = None
        elif have == np.dtype(bool) or t == "pred":
            conv = lambda v: np.asarray(v).astype(have)      # noqa: E731
        elif have.itemsize == want.itemsize:
            conv = lambda v: np.asarray(v, want).view(have)    # noqa: E731
        elif have.kind == "f" or want.kind == "f":
            raise TypeError(f"register {op.name} ({self.types[op.name]}) written as .{t}")
        else:
            signed = t[0] == "s"
            conv = lambda v: convert_bits(np.asarray(v, want), want, have, signed)  # noqa: E731

        def write(R, sel, m, val):
            if conv is not None:
                val = conv(val)
            assign(R[i], sel, m, val)
        return write


def assign(arr: np.ndarray, sel, m, val) -> None:
    """``arr[sel] = val`` on the lanes where ``m`` is true (all lanes when m is None)."""
    if m is None:
        arr[sel] = val
    elif isinstance(sel, slice):
        np.copyto(arr[sel], val, where=m, casting="unsafe")
    else:
        arr[sel[m]] = val[m] if np.ndim(val) else val
