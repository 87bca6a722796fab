"""Wave dumps of a cosim run: FST or VCD by the file's suffix, internal nets hidden unless asked.

Amaranth's Verilog names its internal nets ``$1``, ``$auto$…``; a viewer shows them as noise and
the pyvcd reader (the VCD parser gpusched installs) rejects them, as it rejects Verilator's
``$rootio`` scope. So: for Verilator the internal nets' declarations are wrapped in
``/*verilator tracing_off*/`` (both formats), and a VCD is rewritten afterwards: ``$rootio``
becomes ``rootio``, remaining ``$`` names (Icarus, or ``internal=True``) get a ``_`` prefix in
place of the ``$`` or are dropped with their value changes.
"""

from __future__ import annotations

import re
from pathlib import Path

from gpusched.config import ConfigError

FORMATS = {".fst": "fst", ".vcd": "vcd"}
_DECL = re.compile(r"^(\s*)(wire|reg|logic)\b[^;]*\\\$\S*\s*(=[^;]*)?;\s*$")


def wave_format(path: str, sim: str) -> str:
    """``fst`` or ``vcd`` from the file name; FST needs Verilator."""
    fmt = FORMATS.get(Path(path).suffix.lower())
    if fmt is None:
        raise ConfigError("--waves", path, "the file name must end in .fst or .vcd")
    if fmt == "fst" and sim != "verilator":
        raise ConfigError("--waves", path, f"FST needs --sim verilator ({sim} writes .vcd)")
    return fmt


# The two LZ4 calls Verilator's FST writer makes (LZ4 1.x public API): declared here so that FST
# tracing builds against the system's runtime liblz4.so.1 without LZ4's development package.
LZ4_DECLARATIONS = """#ifndef GPUSCHED_LZ4_H
#define GPUSCHED_LZ4_H
#ifdef __cplusplus
extern "C" {
#endif
int LZ4_compressBound(int inputSize);
int LZ4_compress_default(const char *src, char *dst, int srcSize, int dstCapacity);
#ifdef __cplusplus
}
#endif
#endif
"""


def fst_build_args(build_dir: Path) -> list[str]:
    """Verilator arguments for FST tracing: ``--trace-fst`` and, when LZ4's header or link name
    is missing, a declarations header and a link name for the runtime library in ``build_dir``."""
    import ctypes.util
    args = ["--trace-fst"]
    support = build_dir / "lz4_support"
    support.mkdir(parents=True, exist_ok=True)
    if not Path("/usr/include/lz4.h").exists():
        (support / "lz4.h").write_text(LZ4_DECLARATIONS)
        args += ["-CFLAGS", f"-I{support}"]
    if ctypes.util.find_library("lz4") is None or not any(
            Path(d, "liblz4.so").exists() for d in ("/usr/lib", "/usr/lib/x86_64-linux-gnu",
                                                     "/usr/lib/aarch64-linux-gnu", "/usr/local/lib")):
        runtime = _lz4_runtime()
        link = support / "liblz4.so"
        if not link.exists():
            link.symlink_to(runtime)
        args += ["-LDFLAGS", f"-L{support} -Wl,-rpath,{runtime.parent}"]
    return args


def _lz4_runtime() -> Path:
    import ctypes.util
    name = ctypes.util.find_library("lz4")
    for d in ("/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib", "/lib",
              "/usr/local/lib"):
        for candidate in ([name] if name else []) + ["liblz4.so.1"]:
            if Path(d, candidate).exists():
                return Path(d, candidate)
    raise ConfigError("--waves", ".fst", "Verilator's FST writer needs the LZ4 library "
                      "(Debian: liblz4-1), which is not installed; write a .vcd instead")


def hide_internal_nets(verilog: str) -> str:
    """The same Verilog with Verilator tracing switched off around internal-net declarations."""
    out = []
    for line in verilog.splitlines(keepends=True):
        if _DECL.match(line):
            out.append("/*verilator tracing_off*/\n" + line + "/*verilator tracing_on*/\n")
        else:
            out.append(line)
    return "".join(out)


def clean_vcd(src: Path, dest: Path, internal: bool = False) -> None:
    """Copy a VCD so that pyvcd reads it: ``$rootio`` → ``rootio``; ``$``-named variables
    dropped (with their value changes) unless ``internal``, then renamed ``_…``."""
    header, body = src.read_text().split("$enddefinitions", 1)
    kept_lines, dropped, kept_ids = [], set(), set()
    for line in header.splitlines():
        words = line.split()
        if words[:2] == ["$scope", "module"] and len(words) > 2 and words[2].startswith("$"):
            line = line.replace(words[2], words[2][1:], 1)
        elif words[:1] == ["$var"] and len(words) >= 5:
            code, ref = words[3], words[4]
            if ref.startswith("$"):
                if not internal:
                    dropped.add(code)
                    continue
                line = line.replace(" " + ref, " _" + ref[1:], 1)
            kept_ids.add(code)
        kept_lines.append(line)
    gone = dropped - kept_ids          # a code shared with a kept variable stays
    out = ["\n".join(kept_lines), "$enddefinitions"]
    if not gone:
        out.append(body)
    else:
        rows = []
        for line in body.splitlines(keepends=True):
            s = line.strip()
            if s and s[0] in "01xzXZ" and s[1:] in gone:
                continue
            if s and s[0] in "bBrR" and s.split()[-1] in gone:
                continue
            rows.append(line)
        out.append("".join(rows))
    dest.write_text("".join(out))
