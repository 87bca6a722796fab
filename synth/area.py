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
A design whose RTLIL holds identical submodules (cta_sched steal's per-CU units) is synthesised
hierarchically when the fast ABC script runs: the copies are merged into one module, which Yosys
and ABC map once, and ``stat -top`` counts it per instance (``hier`` in the result = copies
merged; µm² +1.9 % over the flattened flow at C=4, +1.2 % at C=15; kernel_sched MPMax's
per-kernel search: +0.6 % at K=8: docs/area.md; ``--flat``
keeps the flat flow).

Results are cached twice: by block, parameters and hdl sources (no elaboration needed), and by
a hash of the RTLIL, the scripts and the library (its content, not its path); both are sealed
one-file entries (``gpusched.cache``): a damaged or foreign one is reported and synthesised
again. Yosys runs natively (pyosys) or as YoWASP (synth/yosys.py); the ABC scripts and their
measurements: docs/area.md.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import re
import shutil
import tempfile
import time
import zlib
from pathlib import Path

from cosim.build import cache_dir, rtlil_for
from gpusched.blocks import BlockSpec
from gpusched.cache import problem, publish, read_json, report, seal, write_json
from gpusched.config import ConfigError
from synth.yosys import Progress, run_yosys

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


def _liberty_in(workdir: Path, src: Path) -> Path:
    """The liberty decompressed once into a sealed folder of ``workdir`` named by the source's
    content (hard-linked into each Yosys run's folder: YoWASP only sees files below its cwd)."""
    digest = _file_digest(src)
    entry = workdir / f"lib_{digest[:16]}"
    key = f"liberty sha256={digest}"
    if entry.exists():
        why = problem(entry, key)
        if why is None:
            return entry / "cells.lib"
        report(entry, why)
    data = _liberty_text(src)
    tmp = Path(tempfile.mkdtemp(dir=workdir, prefix=".lib-"))
    try:
        (tmp / "cells.lib").write_bytes(data)
        seal(tmp, key)
        publish(tmp, entry, key)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return entry / "cells.lib"


def _liberty_text(src: Path) -> bytes:
    """The liberty file's bytes, after a structural check (bad input, exit 2, instead of a
    Yosys parse error after minutes of synthesis): it decompresses, starts with a
    ``library (…)`` group, and its braces balance outside strings and comments."""
    def bad(why: str) -> ConfigError:
        return ConfigError("--liberty", str(src), f"not a liberty file: {why}")
    raw = src.read_bytes()
    if src.suffix == ".gz":
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError, zlib.error) as e:
            raise bad(f"gzip data does not decompress ({e})") from None
    head = re.sub(rb"/\*.*?\*/|//[^\n]*", b"", raw[:1 << 16], flags=re.S)
    if not re.match(rb"\s*library\s*\(", head):
        raise bad("it does not start with a 'library (NAME) {' group")
    opened, closed = raw.count(b"{"), raw.count(b"}")
    if opened != closed:        # braces in strings or comments are rare: look closer only now
        text = re.sub(rb'"(?:[^"\\]|\\.)*"|/\*.*?\*/|//[^\n]*', b"", raw, flags=re.S)
        opened, closed = text.count(b"{"), text.count(b"}")
    if opened == 0 or opened != closed:
        raise bad(f"{opened:,} '{{' against {closed:,} '}}' (a cut or damaged file)")
    return raw


def _file_digest(path: Path) -> str:
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


# ABC scripts (files in the Yosys working dir). Area: one fast AIG rewrite (&dc2) and
# area-oriented mapping (&nf with the delay constraint relaxed). Yosys' default script adds
# &fraig, scorr, dc2, dretime and &dch choices: within ~1 % of this script's area where both
# finish, but &dch alone ran > 10 min on the 275 k-node AIG of cta_sched C=15 steal
# (measurements in docs/area.md). Depth: a delay-oriented mapping of the same generic netlist.
AREA_ABC_SCRIPT = "strash\n&get -n\n&dc2\n&nf -R 1000\n&put\n"
ABC_MODES = ("auto", "fast", "yosys")   # yosys = Yosys' own default ABC script
# auto: Yosys' default script up to this many generic cells (every block at the papers' sizes
# but cta_sched steal C=15, whose figures stay as before), the fast script above it: the fast
# script's area differs by -4 .. +10 % per block (docs/area.md), too much to switch everywhere.
# A block whose spec names a script (``extra["abc"]``: a mode, or a function of the parameters;
# kernel_sched's deep-arithmetic policies) gets it under auto at every size.
AUTO_FAST_CELLS = 60_000
DEPTH_ABC_SCRIPT = "strash\nbalance\nmap\n"
FLOW_VERSION = "5"     # bump when the flow changes in a way the script text does not show
ENTRY_FORMAT = "sealed-1"     # the cache entries' own format (gpusched.cache one-file entries)


def _scripts(top: str, liberty: str, lib_file: str | None,
             abc: str = "fast", hier: bool = False) -> tuple[str, dict[str, str]]:
    """The generic synthesis script, then two scripts run side by side on its netlist: area
    mapping, and a separate delay-oriented mapping for depth. ``hier``: keep the module
    hierarchy through generic synthesis and area mapping (stats summed over instances with
    ``stat -top``); depth is still measured on the flattened netlist.

    Area recovery happily turns a log-depth prefix tree into a ripple chain, so ``depth`` is
    measured on its own mapping of the same generic netlist: AIG balancing followed by
    delay-oriented mapping to 2-input gates.
    """
    stat_top = f" -top {top}" if hier else ""
    generic = [f"read_rtlil design.il", f"hierarchy -top {top}",
               f"synth{'' if hier else ' -flatten'} -top {top} -noabc",
               f"tee -q -o generic.json stat -json{stat_top}", "write_rtlil generic.il"]
    area = ["read_rtlil generic.il"]
    script = " -script area.abc" if abc == "fast" else ""
    if liberty == "sky130hd":
        area += [f"dfflibmap -liberty {lib_file}", f"abc -liberty {lib_file}{script}",
                 "opt_clean", f"tee -q -o mapped.json stat -json{stat_top} -liberty {lib_file}"]
    else:
        area += ["dfflegalize -cell $_DFF_P_ 01", f"abc -g {ABC_GATES}{script}",
                 "opt_clean", f"tee -q -o mapped.json stat -json{stat_top}"]
    depth = ["read_rtlil generic.il"] + (["flatten", "opt_clean"] if hier else []) + [
             "dfflegalize -cell $_DFF_P_ 01",
             f"abc -g {ABC_GATES} -script depth.abc", "opt_clean", "tee -q -o ltp.txt ltp -noff"]
    text = lambda lines: "\n".join(lines + [""])
    return text(generic), {"area": text(area), "depth": text(depth)}


def merge_replicas(text: str) -> tuple[str, int]:
    """Merge identical RTLIL modules: every instance of a copy is pointed at the first module
    with that body and the copies are dropped. Returns the text and how many were dropped."""
    mods = re.findall(r"^((?:attribute [^\n]*\n)*)module (\S+)\n(.*?^end\n)", text, re.S | re.M)
    first: dict[str, str] = {}
    alias: dict[str, str] = {}
    for attrs, name, body in mods:
        if body in first:
            alias[name] = first[body]
            text = text.replace(f"{attrs}module {name}\n{body}", "", 1)
        else:
            first[body] = name
    if not alias:
        return text, 0
    pattern = re.compile(r"^(\s*cell )(\S+)( )", re.M)
    text = pattern.sub(lambda m: m.group(1) + alias.get(m.group(2), m.group(2)) + m.group(3), text)
    return text, len(alias)


def _module_stats(path: Path) -> dict:
    data = json.loads(path.read_text())
    if "design" in data and data["design"].get("num_submodules"):
        design = dict(data["design"])
        names = {k.lstrip("\\") for k in data.get("modules", {})}
        design["num_cells_by_type"] = {k: v for k, v in design["num_cells_by_type"].items()
                                       if k.lstrip("\\") not in names}
        return design
    mods = data.get("modules", {})
    return next(iter(mods.values())) if mods else data.get("design", {})


def _cells_by_type(stats: dict) -> dict[str, int]:
    """Cells per type; ``$scopeinfo`` (a hierarchy annotation, no hardware) left out."""
    return {k: int(v) for k, v in stats.get("num_cells_by_type", {}).items() if k != "$scopeinfo"}


def _lib_id(lib_src: Path | None) -> str:
    """The library as a cache key: its path and the SHA-256 of its content."""
    return "none" if lib_src is None else f"{lib_src} sha256={_file_digest(lib_src)}"


def _index_key(spec: BlockSpec, params: dict, liberty: str, lib_src, abc: str) -> str:
    """Cache key computed without elaborating the design: block, parameters, library, flow and
    the hash of every hdl source (any hdl edit misses; the RTLIL-keyed cache then still hits if
    this block's netlist did not change)."""
    from cosim.build import hdl_fingerprint
    parts = [spec.name, json.dumps(params, sort_keys=True), liberty, abc, _lib_id(lib_src),
             FLOW_VERSION, ENTRY_FORMAT, AREA_ABC_SCRIPT, DEPTH_ABC_SCRIPT, hdl_fingerprint()]
    return hashlib.sha256("\x00".join(parts).encode()).hexdigest()[:24]


def area(spec: BlockSpec, params: dict, liberty: str = "sky130hd", progress=None,
         abc: str = "auto", status: Progress | None = None, hier: bool = True) -> dict:
    """Synthesise (or read from cache) and return cells, ge, um2, flops, depth, liberty, params.

    ``progress(text)`` is told once before a synthesis that is not cached; ``status(tool,
    seconds, step)`` about twice a second while Yosys runs. ``abc``: ``fast`` (our script),
    ``yosys`` (Yosys' default, slow on large blocks) or ``auto`` (the block's ``extra["abc"]``
    if it names one for these parameters, else by size: AUTO_FAST_CELLS); the
    result's ``abc`` names the script that ran. Two caches: an index by (block, parameters,
    hdl sources) answers without elaborating the design; behind it, results keyed by the RTLIL.
    ``hier=False`` flattens even a design with replicated submodules (the reference for the
    hierarchical flow's 2 % check).
    """
    custom = liberty not in LIBERTIES and liberty.endswith((".lib", ".lib.gz"))
    if liberty not in LIBERTIES and not custom:
        raise ConfigError("--liberty", liberty, "allowed: " + ", ".join(LIBERTIES) + " or a .lib[.gz] file")
    if abc not in ABC_MODES:
        raise ConfigError("--abc", abc, "allowed: " + ", ".join(ABC_MODES))
    if abc == "auto":
        pref = spec.extra.get("abc", "auto")
        abc = pref(params) if callable(pref) else pref
    lib_src = liberty_source(liberty if custom else None) if liberty != "ge" else None
    mode = "ge" if lib_src is None else "sky130hd"
    flat = "" if hier else "flat_"
    index = (cache_dir("area_index") / f"{spec.name}_{Path(liberty).name}_{abc}_{flat}"
             f"{_index_key(spec, params, liberty, lib_src, abc)}.json")
    index_key = index.stem
    found = read_json(index, index_key)
    if found is not None:
        return found
    lib_path = _liberty_in(cache_dir("yosys"), lib_src) if lib_src is not None else None
    if status:
        status("amaranth", 0.0, "elaborating to RTLIL")
    text, top = rtlil_for(spec, params)
    merged_text, merged = merge_replicas(text) if hier and abc != "yosys" else (text, 0)
    key = hashlib.sha256((text + str(_scripts(top, mode, "LIB", abc, merged > 0)) + AREA_ABC_SCRIPT
                          + DEPTH_ABC_SCRIPT + FLOW_VERSION + ENTRY_FORMAT + _lib_id(lib_src)
                          ).encode()).hexdigest()[:24]
    cached = cache_dir("area") / f"{top}_{Path(liberty).name}_{abc}_{flat}{key}.json"
    result = read_json(cached, key)
    if result is None:
        if progress is not None:
            progress(f"synthesising {top} with Yosys (seconds to minutes; cached afterwards)")
        result = _synthesise(spec, params, liberty, text, top, lib_src, lib_path, custom, abc,
                             status, merged, merged_text)
        write_json(cached, key, result)
    write_json(index, index_key, result)
    return result


def _synthesise(spec: BlockSpec, params: dict, liberty: str, text: str, top: str, lib_src,
                lib_path: Path | None, custom: bool, abc: str, status: Progress | None,
                merged: int = 0, merged_text: str = "") -> dict:
    """Run the flow on ``text``, or hierarchically on ``merged_text`` when ``merged`` > 0 copies
    were merged and the fast ABC script runs: with Yosys' default script the hierarchical area
    was 3 % above the flattened one (cta_sched steal C=4, docs/area.md), so a design that
    ``auto`` maps with that script is synthesised flat."""
    work_root = cache_dir("yosys")
    lib_file = "cells.lib" if lib_path is not None else None
    mode = "ge" if lib_src is None else "sky130hd"
    with tempfile.TemporaryDirectory(dir=work_root) as tmp:
        work = Path(tmp)
        (work / "design.il").write_text(merged_text if merged else text)
        (work / "area.abc").write_text(AREA_ABC_SCRIPT)
        (work / "depth.abc").write_text(DEPTH_ABC_SCRIPT)
        if lib_path:  # YoWASP sees the cwd subtree only: hard-link the shared copy in
            os.link(lib_path, work / lib_file)
        generic_ys, _ = _scripts(top, mode, lib_file, abc, merged > 0)
        start = time.monotonic()
        run_yosys({"generic": generic_ys}, work, status, start)
        generic = _cells_by_type(_module_stats(work / "generic.json"))
        if abc == "auto":
            abc = "fast" if sum(generic.values()) > AUTO_FAST_CELLS else "yosys"
            if merged and abc == "yosys":
                merged = 0
                (work / "design.il").write_text(text)
                run_yosys({"generic": _scripts(top, mode, lib_file, abc)[0]}, work, status, start)
                generic = _cells_by_type(_module_stats(work / "generic.json"))
        run_yosys(_scripts(top, mode, lib_file, abc, merged > 0)[1], work, status, start)
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
    return {"block": spec.name, "params": params, "liberty": liberty, "abc": abc, "cells": cells,
            "ge": round(ge, 1), "um2": None if um2 is None else round(um2, 1), "flops": flops,
            "depth": depth, "hier": merged}


def _parse_ltp(text: str) -> int:
    m = re.search(r"length=(\d+)", text)
    if not m:
        raise RuntimeError(f"cannot parse ltp output: {text[:200]!r}")
    return int(m.group(1))
