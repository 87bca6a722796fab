"""Property-based fuzzing (hypothesis) of everything a user feeds gpusched: ``--set`` overrides,
config .toml files, sweep grids, Accel-Sim traces and model runs — valid inputs mutated at random. The outcome is
always a success or exit 2 with one line naming the place; never a traceback, a hang, or a
different amount of work (a run's warp-instruction count does not depend on the config).

Each property runs twice: a fast, derandomized slice in the default suite (a few seconds) and a
long random one behind ``--runslow`` and ``gpusched verify fuzz-inputs`` (400 examples each, or
``$GPUSCHED_FUZZ_EXAMPLES``). Outcomes are tallied by class; ``-s`` prints the table,
and ``$GPUSCHED_FUZZ_REPORT=FILE`` writes it as JSON:

    GPUSCHED_FUZZ_REPORT=fuzz.json python -m pytest tests/reliability/test_fuzz.py --runslow -s
"""

import contextlib
import io
import json
import os
import re
import sqlite3
import tempfile
import tomllib
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpusched.config import GPUConfig, dumps_toml, get_preset, preset_names
from gpusched.config.validate import _walk

FAST = settings(max_examples=12, derandomize=True, database=None, deadline=None,
                suppress_health_check=list(HealthCheck))
LONG = settings(max_examples=int(os.environ.get("GPUSCHED_FUZZ_EXAMPLES", 400)), database=None,
                deadline=None, suppress_health_check=list(HealthCheck))
OUTCOMES: Counter = Counter()
ERROR_LINE = re.compile(r"^gpusched: error: \S.* = .*: \S")


def gpusched(*args) -> tuple[int, str, str]:
    """The CLI in this process: (exit status, stdout, stderr)."""
    from gpusched.cli import main
    out, err = io.StringIO(), io.StringIO()
    code = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main([str(a) for a in args])
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else 1
    return code, out.getvalue(), err.getvalue()


def outcome(prop: str, code: int, err: str, place: str | None = None, allowed=(0, 2)) -> str:
    """Classify one run; fail on anything but the allowed codes, or a bad-input exit that is not
    one line naming the place."""
    assert "Traceback" not in err, err
    assert code in allowed, (code, err[-3000:])
    if code == 2:
        lines = err.strip().splitlines()
        assert len(lines) == 1 and ERROR_LINE.match(lines[0]), err
        if place is not None:
            assert place in lines[0], (place, lines[0])
        allowed_text = re.sub(r"^gpusched: error: .*? = .*?: ", "", lines[0])
        kind = "exit 2: " + re.sub(r"\d+", "N", allowed_text)[:50]
    else:
        kind = f"exit {code}"
    OUTCOMES[(prop, kind)] += 1
    return kind


@pytest.fixture(scope="module", autouse=True)
def report_outcomes():
    yield
    if not OUTCOMES:
        return
    props = sorted({p for p, _ in OUTCOMES})
    print("\nfuzz outcomes:")
    for prop in props:
        rows = {k: n for (p, k), n in OUTCOMES.items() if p == prop}
        print(f"  {prop}: {sum(rows.values())} cases")
        for kind, n in sorted(rows.items(), key=lambda kv: -kv[1]):
            print(f"    {n:6d}  {kind}")
    if os.environ.get("GPUSCHED_FUZZ_REPORT"):
        Path(os.environ["GPUSCHED_FUZZ_REPORT"]).write_text(json.dumps(
            {p: {k: n for (q, k), n in OUTCOMES.items() if q == p} for p in props}, indent=1))


def both(prop, *strategies, fast_examples: int = 12):
    """The fast slice (default suite) and the long one (``--runslow``) of a property."""
    fast = settings(FAST, max_examples=fast_examples)
    return fast(given(*strategies)(prop)), pytest.mark.slow(LONG(given(*strategies)(prop)))


# ---- --set overrides ------------------------------------------------------------------------

FIELDS = [(path, type(value)) for path, value, _ in _walk(GPUConfig())]
NUMBER_TEXT = ["0", "-1", "1", "2", "3", "4", "7", "8", "64", "65", "1024", "4096", "65536",
               "1e400", "-1e400", "nan", "inf", "-inf", "1.5", "0x10", "2**3", "99999999999999999999",
               "1e12", "1e13", "", "abc", "true", " 5 "]


@st.composite
def override(draw) -> str:
    path, typ = draw(st.sampled_from(FIELDS))
    if draw(st.integers(0, 9)) == 0:
        path = draw(st.sampled_from([path + "x", path.replace(".", "..", 1), "nosuch." + path,
                                     path.split(".")[0]]))
    if typ is bool:
        value = draw(st.sampled_from(["true", "false", "1", "0", "yes", "maybe", ""]))
    elif typ is str:
        value = draw(st.sampled_from(["lrr", "gto", "socgpu", "inorder", "write_back", "fifo",
                                      "frfcfs", "x", ""]) | st.text(max_size=6))
    else:
        value = draw(st.sampled_from(NUMBER_TEXT) | st.integers(-10, 10**6).map(str)
                     | st.floats().map(repr))
    return f"{path}={value}" if draw(st.integers(0, 19)) else path + value


def _overrides(sets):
    code, out, err = gpusched("config", "show", "tiny", *[a for s in sets for a in ("--set", s)])
    outcome("--set overrides", code, err)
    if code == 0:
        tomllib.loads(out)            # what it prints is a valid config file again


test_overrides_fast, test_overrides_long = both(_overrides,
                                                st.lists(override(), min_size=1, max_size=4))


# ---- config .toml files ---------------------------------------------------------------------

TOKENS = ["0", "-1", "1e400", "nan", "inf", '"x"', "[1, 2]", "true", "{}", "99999999999999999999",
          '""', '["tiny"]', "1.5", "65", "2147483648"]


@st.composite
def mutated_toml(draw, base: str) -> bytes:
    lines = base.splitlines()
    for _ in range(draw(st.integers(0, 3))):
        if not lines:
            break
        i = draw(st.integers(0, len(lines) - 1))
        op = draw(st.sampled_from(["delete", "duplicate", "value", "rename", "bytes", "truncate"]))
        if op == "delete":
            del lines[i]
        elif op == "duplicate":
            lines.insert(i, lines[i])
        elif op == "value" and "=" in lines[i]:
            lines[i] = lines[i].split("=")[0] + "= " + draw(st.sampled_from(TOKENS))
        elif op == "rename" and "=" in lines[i]:
            lines[i] = lines[i].replace(" =", "x =", 1)
        elif op == "bytes":
            text = "\n".join(lines).encode()
            at = draw(st.integers(0, len(text)))
            return text[:at] + draw(st.binary(min_size=1, max_size=4)) + text[at:]
        elif op == "truncate":
            text = "\n".join(lines).encode()
            return text[:draw(st.integers(0, len(text)))]
    return "\n".join(lines).encode()


@st.composite
def config_file(draw) -> bytes:
    name = draw(st.sampled_from(preset_names()))
    if draw(st.booleans()):
        base = f'preset = "{name}"\n[sm]\ncount = 4\nwarp_sched = "lrr"\n[l1]\nhit_latency = 10\n'
    else:
        base = dumps_toml(get_preset(name))
    return draw(mutated_toml(base))


def _config_files(content):
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "c.toml"
        path.write_bytes(content)
        code, out, err = gpusched("config", "show", path)
    outcome("config .toml files", code, err, place=str(path))


test_config_files_fast, test_config_files_long = both(_config_files, config_file())


# ---- sweep grids ----------------------------------------------------------------------------

GRID = """[sweep]
name = "fuzz"
kind = "toy"
preset = "tiny"
workloads = ["alpha", "beta", "boom"]
seeds = [0, 1]

[sweep.overrides]
"sm.warp_sched" = ["lrr", "gto"]
"sm.count" = [2, 4]

[sweep.params]
delay = 0.0
"""


def _grids(content):
    import toy_kinds  # noqa: F401  (the toy runner kind)
    from gpusched.experiment.grid import load_grid
    with tempfile.TemporaryDirectory() as d:
        path, db = Path(d) / "g.toml", Path(d) / "r.sqlite"
        path.write_bytes(content)
        code, out, err = gpusched("sweep", path, "--plugin", "toy_kinds", "--db", db,
                                  "--jobs", "1", "-q")
        outcome("sweep grids", code, err, place=str(path), allowed=(0, 1, 2))
        if code in (0, 1):   # no silently dropped or duplicated work: one row per distinct point
            want = {p.key for p in load_grid(path).points()}
            with sqlite3.connect(db) as c:
                got = {k for (k,) in c.execute("SELECT key FROM runs")}
            assert got == want
            assert f"{len(want)} points" in out


test_grids_fast, test_grids_long = both(_grids, mutated_toml(GRID), fast_examples=6)


# ---- model runs: the amount of work does not depend on the config ---------------------------

WORKLOADS = ["mem_stream", "compute_only", "mixed_like", "cache_gto"]
_BASELINE: dict = {}


@st.composite
def model_run(draw) -> list[str]:
    count = draw(st.integers(1, 4))
    sets = draw(st.sampled_from([2, 4, 8, 16]))
    args = ["--set", f"sm.count={count}", "--set", f"sm.warp_sched={draw(st.sampled_from(['lrr', 'gto']))}",
            "--set", f"sm.subcores={draw(st.sampled_from([1, 2]))}",
            "--set", f"l1.sets={sets}", "--set", f"l1.size_bytes={sets * 4 * 128}",
            "--set", f"units.alu_latency={draw(st.integers(1, 40))}",
            "--memory", draw(st.sampled_from(["fixed", "hierarchy"])),
            "--cta-scheduler", draw(st.sampled_from(["rr", "ikra_rr", "ikra_steal", "ikra_chunk"])),
            "--cta-limit", draw(st.sampled_from(["max_occupancy", "perf_sat"])),
            "--kernel-scheduler", draw(st.sampled_from(["fifo", "sm_partition"]))]
    if draw(st.integers(0, 4)) == 0:     # now and then an input the model must refuse
        args += ["--set", draw(override())]
    return args


def _model_runs(workload, seed, args):
    common = ["run", "--preset", "tiny", "--workload", workload, "--scale", "0.05",
              "--seed", seed, "--json"]
    key = (workload, seed)
    if key not in _BASELINE:
        code, out, err = gpusched(*common, "--memory", "fixed")
        assert code == 0, err
        _BASELINE[key] = json.loads(out)["warp_insts"]
    code, out, err = gpusched(*common, *args)
    outcome("model runs", code, err, allowed=(0, 2))
    if code == 0:
        assert json.loads(out)["warp_insts"] == _BASELINE[key]


test_model_runs_fast, test_model_runs_long = both(
    _model_runs, st.sampled_from(WORKLOADS), st.integers(0, 3), model_run(), fast_examples=4)


# ---- Accel-Sim traces: a run does the trace's work, or stops with one line naming the file -----

_TRACE: dict = {}
INSTS = re.compile(rb"^insts = (\d+)\s*$", re.M)


def _trace_files() -> dict[str, bytes]:
    """A small catalogue workload written once by the project's trace writer."""
    if not _TRACE:
        from sim.run import load_workload
        from sim.workload.tracegen import write_trace_dir
        with tempfile.TemporaryDirectory() as d:
            write_trace_dir(d, load_workload("mixed_like", scale=0.02))
            _TRACE.update({p.name: p.read_bytes() for p in Path(d).iterdir()})
    return _TRACE


@st.composite
def mutated_trace(draw) -> tuple[str, bytes]:
    """One kernel file of the trace with a few lines deleted, duplicated, changed or garbled."""
    files = _trace_files()
    name = draw(st.sampled_from(sorted(n for n in files if n.endswith(".traceg"))))
    lines = files[name].decode().splitlines()
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, len(lines) - 1))
        op = draw(st.sampled_from(["delete", "duplicate", "token", "bytes", "truncate"]))
        if op == "delete":
            del lines[i]
        elif op == "duplicate":
            lines.insert(i, lines[i])
        elif op == "token" and lines[i].split():
            words = lines[i].split()
            words[draw(st.integers(0, len(words) - 1))] = draw(st.sampled_from(
                ["0", "-1", "ffffffff", "0x1", "FOOBAR", "R999", "99999999999", "=", "LDG.E",
                 "1,1,1", "(1,1,1)", "1000000000", "\u00e9"]))
            lines[i] = " ".join(words)
        elif op in ("bytes", "truncate"):
            text = "\n".join(lines).encode()
            at = draw(st.integers(0, len(text)))
            tail = text[at:] if op == "bytes" else b""
            return name, text[:at] + draw(st.binary(min_size=1, max_size=3)) + tail
    return name, ("\n".join(lines) + "\n").encode()


def _traces(mutation):
    name, content = mutation
    with tempfile.TemporaryDirectory() as d:
        for n, data in _trace_files().items():
            (Path(d) / n).write_bytes(content if n == name else data)
        work = sum(int(k) for n, data in _trace_files().items() if n.endswith(".traceg")
                   for k in INSTS.findall(content if n == name else data))
        code, out, err = gpusched("run", "--preset", "tiny", "--trace", d, "--memory", "fixed",
                                  "--json")
    outcome("traces", code, err, place=d)
    if code == 0:
        assert json.loads(out)["warp_insts"] == work


test_traces_fast, test_traces_long = both(_traces, mutated_trace(), fast_examples=8)


def test_the_long_slices_run_in_gpusched_verify():
    from gpusched.commands.verify_cmd import _checks
    assert "fuzz-inputs" in _checks()


# ---- cache files: a damaged entry is reported and rebuilt, never read -----------------------

_CLEAN: dict = {}


def _clean_cache() -> tuple[Path, tuple[int, int]]:
    """A compiled-trace cache of the fuzz trace and the run's (cycles, warp insts) from it."""
    if not _CLEAN:
        d = Path(tempfile.mkdtemp(prefix="gpusched-fuzz-cache-"))
        for n, data in _trace_files().items():
            (d / "trace").mkdir(exist_ok=True)
            (d / "trace" / n).write_bytes(data)
        _CLEAN["dir"] = d
        _CLEAN["result"] = _cached_run(d / "trace", d / "cache")[0]
    return _CLEAN["dir"], _CLEAN["result"]


def _cached_run(trace: Path, cache: Path) -> tuple[tuple[int, int], str]:
    old = os.environ.get("GPUSCHED_TRACE_CACHE")
    os.environ["GPUSCHED_TRACE_CACHE"] = str(cache)
    try:
        code, out, err = gpusched("run", "--preset", "tiny", "--trace", trace, "--memory",
                                  "fixed", "--json")
    finally:
        if old is None:
            os.environ.pop("GPUSCHED_TRACE_CACHE")
        else:
            os.environ["GPUSCHED_TRACE_CACHE"] = old
    assert code == 0 and "Traceback" not in err, err
    res = json.loads(out)
    return (res["cycles"], res["warp_insts"]), err


CACHE_FILES = ["meta.json", "index.bin", "stream.bin", "SEAL"]


@st.composite
def cache_damage(draw) -> tuple:
    """Which kernel's entry, which file, and how: bytes flipped, cut, grown, replaced, removed,
    or the whole entry swapped with another kernel's."""
    op = draw(st.sampled_from(["flip", "cut", "grow", "replace", "remove", "swap", "json"]))
    return (draw(st.integers(0, 4)), draw(st.sampled_from(CACHE_FILES)), op,
            draw(st.integers(0, 1 << 16)), draw(st.binary(min_size=1, max_size=16)))


def _damage(entry: Path, others: list[Path], name: str, op: str, at: int, data: bytes) -> bool:
    """Apply one damage; False when it left the entry as it was (cut at its own length)."""
    import shutil
    path = entry / name
    old = path.read_bytes()
    if op == "swap":
        other = next((o for o in others if o != entry and o.name != entry.name), None)
        if other is None or (other / "stream.bin").read_bytes() == (entry / "stream.bin").read_bytes():
            return False
        shutil.rmtree(entry)
        shutil.copytree(other, entry)
        return True
    if op == "remove":
        path.unlink()
        return True
    if op == "flip":
        buf = bytearray(old)
        if not buf:
            return False
        for i, b in enumerate(data):
            buf[(at + 131 * i) % len(buf)] ^= b or 1
        new = bytes(buf)
    elif op == "cut":
        new = old[:at % (len(old) + 1)]
    elif op == "grow":
        new = old + data
    elif op == "json":
        new = json.dumps({"statics": [], "key": data.hex(), "files": {}}).encode()
    else:
        new = data
    path.write_bytes(new)
    return new != old


def _caches(damage):
    import shutil
    which, name, op, at, data = damage
    src, clean = _clean_cache()
    with tempfile.TemporaryDirectory() as d:
        cache = Path(d) / "cache"
        shutil.copytree(src / "cache", cache)
        entries = sorted(e for e in cache.iterdir() if e.is_dir() and e.name != "digests")
        changed = _damage(entries[which % len(entries)], entries, name, op, at, data)
        got, err = _cached_run(src / "trace", cache)
        reports = [line for line in err.splitlines() if line.startswith("gpusched: cache:")]
        assert got == clean, (damage, err)            # the clean run's numbers, always
        assert len(reports) == (1 if changed else 0), (damage, err)
        kind = f"{op} {name}: " + ("reported, rebuilt" if reports else "unchanged")
        OUTCOMES[("cache files", kind)] += 1
        got, err = _cached_run(src / "trace", cache)
        assert got == clean and "gpusched: cache:" not in err   # sound again


test_caches_fast, test_caches_long = both(_caches, cache_damage(), fast_examples=8)


@st.composite
def one_file_entry(draw) -> bytes:
    value = {"cells": 35, "ge": 48.0, "flops": 2, "depth": 9}
    from gpusched.cache import _json_digest
    good = json.dumps({"key": "k", "sha256": _json_digest("k", value), "value": value}).encode()
    op = draw(st.sampled_from(["flip", "cut", "insert", "random"]))
    at = draw(st.integers(0, len(good)))
    if op == "flip":
        i = at % len(good)
        return good[:i] + bytes([good[i] ^ draw(st.integers(1, 255))]) + good[i + 1:]
    if op == "cut":
        return good[:at]
    if op == "insert":
        return good[:at] + draw(st.binary(min_size=1, max_size=4)) + good[at:]
    return draw(st.binary(max_size=64))


def _one_file_entries(content):
    """A one-file entry (area results) reads back as what was written, or as missing with one
    report line; never as another value."""
    import io
    from gpusched.cache import read_json
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "e.json"
        path.write_bytes(content)
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            got = read_json(path, "k")
    assert got in (None, {"cells": 35, "ge": 48.0, "flops": 2, "depth": 9}), got
    assert len(err.getvalue().splitlines()) == (1 if got is None else 0), err.getvalue()
    OUTCOMES[("one-file cache entries", "read back whole" if got else "reported, rebuilt")] += 1


test_one_file_entries_fast, test_one_file_entries_long = both(_one_file_entries,
                                                              one_file_entry(), fast_examples=30)


# ---- output paths on the command line ---------------------------------------------------------

PARTS = ["adir", "afile", "missing", "..", ".", "x.csv", "é ü.csv", "a" * 300, "", "adir/",
         "afile/x.csv", "missing/x.csv", "adir/x.csv"]


@st.composite
def output_path(draw) -> str:
    return "/".join(draw(st.lists(st.sampled_from(PARTS), min_size=1, max_size=3)))


_STORE: dict = {}


def _paths(rel):
    """``results query -o PATH`` for any path shape: written (exit 0), or one line naming the
    path: exit 2 for a path named wrongly, 1 for a resource."""
    import toy_kinds  # noqa: F401
    if not _STORE:
        d = Path(tempfile.mkdtemp(prefix="gpusched-fuzz-store-"))
        g = d / "g.toml"
        g.write_text(GRID)
        gpusched("sweep", g, "--plugin", "toy_kinds", "--db", d / "r.sqlite", "--jobs", "1", "-q")
        _STORE["db"] = d / "r.sqlite"
    with tempfile.TemporaryDirectory() as d:
        (Path(d) / "adir").mkdir()
        (Path(d) / "afile").write_text("x")
        path = str(Path(d) / rel) if rel else ""
        code, out, err = gpusched("results", "query", "--db", _STORE["db"], "-o", path,
                                  "--format", "csv")
        assert "Traceback" not in err and code in (0, 1, 2), (code, err)
        if code:
            lines = err.strip().splitlines()
            assert len(lines) == 1 and lines[0].startswith("gpusched: error:"), err
            kind = f"exit {code}: " + re.sub(r".*: ", "", lines[0])[:40]
        else:
            assert Path(path).is_file() and Path(path).read_text().startswith("key,")
            kind = "exit 0: written"
        OUTCOMES[("output paths", kind)] += 1


test_paths_fast, test_paths_long = both(_paths, output_path(), fast_examples=12)
