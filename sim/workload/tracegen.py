"""Write Accel-Sim (trace version 4) directories from any ``Kernel``: the inverse of
``accelsim.read_trace_dir``, used by tests (round trip) and to demo the reader.

``address_format``: 'auto' picks the most compact form per instruction (1 = base + stride when
the active lanes are contiguous with a constant stride, else 2 = base + deltas), or force
0 (list every address), 1 (falls back to 2 where not applicable) or 2.

Opcodes are real SASS of every supported family (``opcodes.OP_TO_SASS``; a divide is written as
MUFU.RCP), with the access width in the opcode as Accel-Sim reads it (``LDG.E.64``: 8 bytes);
``family`` sets the ``-binary version`` header (``opcodes.VERSION_OF_FAMILY``).
``predicates=False`` leaves predicate registers (P0–P7) out of the register lists, as a real
NVBit tracer does (Accel-Sim's parser reads only ``R`` registers); the default keeps them, so
traces written before stay byte-identical.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterable

from .kernel import Instr, Kernel, Workload
from .opcodes import OP_TO_SASS, VERSION_OF_FAMILY

TRACE_FORMAT_COMMENT = ("#traces format = [line_num] PC mask dest_num [reg_dests] opcode src_num "
                        "[reg_srcs] mem_width [adrrescompress?] [mem_addresses]")


def reg_name(r: int) -> str:
    return f"P{r - 256}" if r >= 256 else f"R{r}"


def _contiguous(mask: int) -> bool:
    low = mask & -mask
    return mask != 0 and (mask + low) & mask == 0


WIDTH_SUFFIX = {1: ".U8", 2: ".U16", 4: "", 8: ".64", 16: ".128"}   # Accel-Sim reads the width here


def opcode_of(ins: Instr) -> str:
    """The SASS opcode written for ``ins``: its op class's opcode, plus the access width."""
    name = OP_TO_SASS[ins.op]
    if ins.addrs is not None and ins.size != 4:
        if ins.size not in WIDTH_SUFFIX:
            raise ValueError(f"no SASS access width of {ins.size} bytes ({ins!r})")
        name += WIDTH_SUFFIX[ins.size]
    return name


def format_line(ins: Instr, address_format: str | int = "auto", predicates: bool = True,
                opcode: str | None = None) -> str:
    """One instruction as a trace-v4 line (``predicates=False``: without P registers;
    ``opcode``: the SASS opcode to write instead of the op class's)."""
    dst, src = ins.dst, ins.src
    if not predicates:
        dst, src = tuple(r for r in dst if r < 256), tuple(r for r in src if r < 256)
    t = [f"{ins.pc:04x}", f"{ins.mask:08x}", str(len(dst)), *map(reg_name, dst),
         opcode or opcode_of(ins), str(len(src)), *map(reg_name, src)]
    if ins.addrs is None:
        t.append("0")
        return " ".join(t)
    a = ins.addrs
    t.append(str(ins.size))
    deltas = [y - x for x, y in zip(a, a[1:])]
    fmt = str(address_format)
    if fmt == "auto":
        fmt = "1" if a and len(set(deltas)) <= 1 and _contiguous(ins.mask) else "2"
    if fmt == "1" and not (a and len(set(deltas)) <= 1 and _contiguous(ins.mask)):
        fmt = "2"
    if fmt == "0":
        t += ["0", *(f"0x{x:016x}" for x in a)]
    elif fmt == "1":
        t += ["1", f"0x{a[0]:016x}", str(deltas[0] if deltas else 0)]
    else:
        t += ["2", f"0x{a[0]:016x}", *map(str, deltas)]
    return " ".join(t)


SHMEM_BASE, LOCAL_BASE = 0x00007F0000000000, 0x00007F1000000000


def write_kernel(path: Path, kernel: Kernel, kernel_id: int, address_format: str | int = "auto",
                 ctas: Iterable[int] | None = None, family: str = "volta",
                 predicates: bool = True, opcodes: dict[int, str] | None = None,
                 windows: tuple[int, int] = (SHMEM_BASE, LOCAL_BASE)) -> None:
    """Write one ``kernel-N.traceg`` (all CTAs unless ``ctas`` is given). ``opcodes``: the SASS
    opcode of each pc (else the op class's); ``windows``: the shared and local base addresses."""
    gx, gy, gz = kernel.grid
    bx, by, bz = kernel.block
    with open(path, "w") as f:
        f.write(f"-kernel name = {kernel.name}\n-kernel id = {kernel_id}\n"
                f"-grid dim = ({gx},{gy},{gz})\n-block dim = ({bx},{by},{bz})\n"
                f"-shmem = {kernel.smem_per_cta}\n-nregs = {kernel.regs_per_thread}\n"
                f"-binary version = {VERSION_OF_FAMILY[family]}\n-cuda stream id = 0\n"
                f"-shmem base_addr = {windows[0]:#018x}\n-local mem base_addr = {windows[1]:#018x}\n"
                "-nvbit version = 1.5.5\n-accelsim tracer version = 4\n-enable lineinfo = 0\n\n"
                f"{TRACE_FORMAT_COMMENT}\n\n")
        for cta in (range(kernel.n_ctas) if ctas is None else ctas):
            x, y, z = kernel.cta_dim3(cta)
            f.write(f"#BEGIN_TB\n\nthread block = {x},{y},{z}\n\n")
            for w in range(kernel.warps_per_cta()):
                lines = [format_line(ins, address_format, predicates,
                                     opcodes.get(ins.pc) if opcodes else None)
                         for ins in kernel.stream(cta, w)]
                f.write(f"warp = {w}\ninsts = {len(lines)}\n")
                f.write("\n".join(lines))
                f.write("\n\n")
            f.write("#END_TB\n\n")


def write_trace_dir(path: str | Path, workload: Workload | list[Kernel],
                    address_format: str | int = "auto", family: str = "volta",
                    predicates: bool = True) -> Path:
    """Write ``kernelslist.g`` (with a Memcpy line, as real traces have) and one file per kernel."""
    d = Path(path)
    d.mkdir(parents=True, exist_ok=True)
    kernels = workload.kernels if isinstance(workload, Workload) else list(workload)
    listing = ["MemcpyHtoD,0x00007f2000000000,4096"]
    for i, k in enumerate(kernels, 1):
        write_kernel(d / f"kernel-{i}.traceg", k, i, address_format, family=family,
                     predicates=predicates)
        listing.append(f"kernel-{i}.traceg")
    (d / "kernelslist.g").write_text("\n".join(listing) + "\n")
    return d
