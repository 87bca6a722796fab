"""The reliability probe of issue 37: each case run as a user would, one table row each (exit
status and the last line of output), for docs/reliability.md's before/after table.

    python tests/reliability/probe.py [--root CHECKOUT] [--only GROUP ...] > rows.md
    python tests/reliability/probe.py --merge BEFORE.md[,MORE.md] AFTER.md[,MORE.md] > table.md

``--root`` runs the gpusched of another checkout (the one before the fixes) with this
interpreter. Cases that need Verilator, Yosys or a mount are reported as skipped where the
machine lacks them. A case prints what the user sees; the tests assert the behaviour.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

HERE = Path(__file__).resolve()
ROOT = HERE.parents[2]
ROWS: list[tuple[str, str, str, str]] = []


def cli(root: Path, tag: str | None = None) -> list[str]:
    return [sys.executable, "-c", f"import sys; sys.path.insert(0, {str(root)!r}); "
            "from gpusched.cli import main; main()"]


class Probe:
    def __init__(self, root: Path, work: Path):
        self.root, self.work = root, work
        self.cache = work / "cache"            # GPUSCHED_CACHE of every case but the cold ones

    def env(self, **extra) -> dict:
        env = dict(os.environ)
        env["PYTHONPATH"] = str(self.root)
        for name in ("GPUSCHED_DB", "GPUSCHED_RESULTS", "GPUSCHED_PLUGINS"):
            env.pop(name, None)
        env.update(GPUSCHED_CACHE=str(self.cache), GPUSCHED_TRACE_CACHE=str(self.cache / "traces"))
        env.update({k: str(v) for k, v in extra.items()})
        return {k: v for k, v in env.items() if v != "<unset>"}

    def run(self, *args, env=None, stdout=None, timeout=600, cwd=None) -> subprocess.CompletedProcess:
        return subprocess.run([*cli(self.root), *map(str, args)], capture_output=stdout is None,
                              stdout=stdout, stderr=subprocess.PIPE if stdout else None,
                              text=True, env=env or self.env(), timeout=timeout,
                              cwd=cwd or self.work)


def last_line(r) -> str:
    """What the user sees last: the last stderr line on failure, else the last stdout line."""
    err = [l for l in (r.stderr or "").strip().splitlines() if l.strip()]
    out = [l for l in (r.stdout or "").strip().splitlines() if l.strip()]
    if "Traceback" in (r.stderr or ""):
        return f"traceback … {err[-1] if err else ''}"
    if r.returncode != 0 and err:
        return err[-1]
    notes = [_reason(l) for l in err if "gpusched: cache:" in l] + \
        [l for l in err if "warning" in l][-1:]
    return " → ".join(notes + out[-1:]) if notes or out else (err[-1] if err else "(no output)")


def _reason(cache_line: str) -> str:
    """``gpusched: cache: PATH: WHY; rebuilding it`` → ``cache: WHY, rebuilt``."""
    why = cache_line.split(": ", 3)[-1].replace("; rebuilding it", "")
    return f"cache: {why}, rebuilt"


def row(item: str, case: str, status, line: str) -> None:
    line = line.replace("|", "\\|").strip()
    if len(line) > 150:
        line = line[:147] + "…"
    ROWS.append((item, case, str(status), line))
    print(f"| {item} | {case} | {status} | {line} |", flush=True)


# ---- 1. caches -----------------------------------------------------------------------------------
def trace_dir(work: Path) -> Path:
    d = work / "trace"
    if not d.exists():
        code = ("from sim.run import load_workload; from sim.workload.tracegen import write_trace_dir; "
                f"write_trace_dir({str(d)!r}, load_workload('mixed_like', scale=0.05))")
        subprocess.run([sys.executable, "-c", code], check=True, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    return d


def run_summary(r) -> str:
    if r.returncode != 0:
        return last_line(r)
    try:
        res = json.loads(r.stdout)
        text = f"{res['cycles']:,} cycles, {res['warp_insts']:,} warp insts"
    except (ValueError, KeyError):
        return last_line(r)
    notes = [_reason(l) for l in r.stderr.splitlines() if "gpusched: cache:" in l]
    return " → ".join(notes + [text])


def case_traces(p: Probe) -> None:
    d = trace_dir(p.work)
    damages = {
        "true run (cold cache)": None,
        "random bytes over index.bin": lambda e: (e / "index.bin").write_bytes(os.urandom((e / "index.bin").stat().st_size)),
        "stream.bin truncated to half": lambda e: os.truncate(e / "stream.bin", (e / "stream.bin").stat().st_size // 2),
        "garbage meta.json": lambda e: (e / "meta.json").write_bytes(b"\x00garbage{"),
        "flipped bytes in stream.bin": lambda e: _flip(e / "stream.bin"),
        'meta.json = {"statics": []}': lambda e: (e / "meta.json").write_text('{"statics": []}'),
        "foreign entry (another kernel's)": "foreign",
        "partial entry (index.bin missing)": lambda e: (e / "index.bin").unlink(),
    }
    for case, damage in damages.items():
        cache = p.work / f"tc-{uuid.uuid4().hex[:6]}"
        env = p.env(GPUSCHED_TRACE_CACHE=cache)
        first = p.run("run", "--preset", "tiny", "--trace", d, "--json", env=env)
        if damage is not None:
            entries = sorted((e for e in cache.iterdir() if e.is_dir() and e.name[0] != "."
                              and e.name not in ("stat", "digests")), key=lambda e: e.stat().st_size)
            big = max(entries, key=lambda e: (e / "stream.bin").stat().st_size)
            if damage == "foreign":
                other = next(e for e in entries if e != big)
                shutil.rmtree(big)
                shutil.copytree(other, big)
            else:
                damage(big)
            r = p.run("run", "--preset", "tiny", "--trace", d, "--json", env=env)
        else:
            r = first
        row("1 caches", f"trace cache: {case}", r.returncode, run_summary(r))
    env = p.env(GPUSCHED_TRACE_CACHE="<unset>", GPUSCHED_CACHE=p.work / "moved", HOME=p.work / "home")
    r = p.run("run", "--preset", "tiny", "--trace", d, "--json", env=env)
    where = "under $GPUSCHED_CACHE" if (p.work / "moved" / "traces").exists() else (
        "under $HOME/.cache" if (p.work / "home").exists() else "elsewhere")
    row("1 caches", "GPUSCHED_CACHE=DIR moves the trace cache", r.returncode, f"compiled traces {where}")


def _flip(path: Path) -> None:
    data = bytearray(path.read_bytes())
    for i in range(8, len(data), max(1, len(data) // 8)):
        data[i] ^= 0x5A
    path.write_bytes(bytes(data))


def case_area(p: Probe) -> None:
    args = ["area", "warp_sched", "--param", "policy=lrr", "--param", "W=4", "--liberty", "ge", "--json"]
    first = p.run(*args)
    row("1 caches", "area: true result (cold)", first.returncode, last_line(first))
    pristine = p.work / "area-pristine"
    for kind in ("area", "area_index"):
        shutil.copytree(p.cache / kind, pristine / kind, dirs_exist_ok=True)
    for kind, damage in (("area_index", b""), ("area_index", b"[1,2,3]"), ("area", b"{\"cells\": 1"),
                         ("area_index", "digit")):
        for k in ("area", "area_index"):
            shutil.rmtree(p.cache / k)
            shutil.copytree(pristine / k, p.cache / k)
        for f in (p.cache / kind).rglob("*.json"):
            if damage == "digit":
                f.write_bytes(f.read_bytes().replace(b'"flops": ', b'"flops": 1', 1))
            else:
                f.write_bytes(damage)
        if kind == "area":     # the index answers first: remove it so the result entry is read
            for f in (p.cache / "area_index").rglob("*.json"):
                f.unlink()
        r = p.run(*args)
        label = "a digit inserted in 'flops'" if damage == "digit" else repr(damage.decode())
        row("1 caches", f"area: {kind} entry = {label}", r.returncode, last_line(r))


def case_verilog(p: Probe) -> None:
    cache = p.work / "vcache"            # its own cache: the damage stays there (before the fix)
    env = p.env(GPUSCHED_CACHE=cache)
    args = ["cosim", "warp_sched", "--param", "policy=gto", "--param", "W=8", "--cycles", "2000"]
    r = p.run(*args, env=env)
    row("1 caches", "cosim: cold build", r.returncode, last_line(r))
    for f in (cache / "verilog").rglob("*.v"):
        f.write_text(f.read_text()[: len(f.read_text()) // 2])
    for b in (cache / "verilator_build").iterdir():
        if b.is_dir():
            shutil.rmtree(b)
    r = p.run(*args, env=env)
    row("1 caches", "cosim: cached Verilog cut in half", r.returncode, last_line(r))
    for b in (cache / "verilator_build").iterdir():
        exe = [f for f in b.rglob("warp_sched*") if f.is_file() and os.access(f, os.X_OK)]
        for f in exe:
            f.write_bytes(os.urandom(4096))
    r = p.run(*args, env=env)
    row("1 caches", "cosim: Verilator binary overwritten", r.returncode, last_line(r))


# ---- 2. signals ----------------------------------------------------------------------------------
def tagged(tag: str) -> list[tuple[int, str]]:
    """Live processes whose environment carries ``tag`` (every descendant inherits it)."""
    out = []
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            if f"GPUSCHED_PROBE_TAG={tag}".encode() not in (proc / "environ").read_bytes():
                continue
            stat = (proc / "stat").read_text()
            if stat[stat.rindex(")") + 2] == "Z":
                continue
            cmd = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode()[:60]
            out.append((int(proc.name), cmd))
        except (OSError, ValueError):
            continue
    return out


def signal_case(p: Probe, label: str, args: list, ready, sig: int, temp_globs: list[Path],
                env_extra: dict | None = None, wait: float = 120) -> None:
    tag = uuid.uuid4().hex
    env = p.env(GPUSCHED_PROBE_TAG=tag, **(env_extra or {}))
    before = {t for g in temp_globs for t in g.parent.glob(g.name)} if temp_globs else set()
    restore = (lambda: signal.signal(signal.SIGINT, signal.SIG_DFL)) if sig == signal.SIGINT else None
    proc = subprocess.Popen([*cli(p.root), *map(str, args)], env=env, cwd=p.work, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
                            preexec_fn=restore)
    start = time.monotonic()
    while proc.poll() is None and time.monotonic() - start < wait:
        if ready([c for _, c in tagged(tag)]):
            break
        time.sleep(0.1)
    if proc.poll() is not None:
        out, err = proc.communicate()
        row("2 signals", label, proc.returncode, "finished before the signal: " + (err.strip().splitlines() or [""])[-1])
        return
    os.kill(proc.pid, sig)
    try:
        out, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
    time.sleep(2.0)
    left = tagged(tag)
    temps = {t for g in temp_globs for t in g.parent.glob(g.name)} - before
    lines = [l for l in err.strip().splitlines() if l.strip()]
    text = (lines[-1] if lines else "(no output)")
    if "Traceback" in err:
        text = "traceback … " + text
    names = ", ".join(sorted({c.split()[0].rsplit("/", 1)[-1][:12] for _, c in left}))
    row("2 signals", label, proc.returncode,
        f"left running: {len(left)}" + (f" ({names})" if names else "") +
        f"; temp dirs left: {len(temps)} — {text}")
    for pid, _ in left:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    for t in temps:
        shutil.rmtree(t, ignore_errors=True)


def case_signals(p: Probe) -> None:
    cold = p.work / "cold"
    tmp = Path(tempfile.gettempdir())
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        name = signal.Signals(sig).name
        shutil.rmtree(cold, ignore_errors=True)
        signal_case(p, f"cosim {name} during the Verilator build",
                    ["cosim", "warp_sched", "--param", "policy=lrr", "--param", "W=4", "--cycles", "1000"],
                    lambda cmds: any("cc1plus" in c or "g++" in c or "verilator_bin" in c for c in cmds), sig,
                    [tmp / "gpusched_cosim_*"], env_extra={"GPUSCHED_CACHE": cold})
        signal_case(p, f"cosim {name} during the simulation",
                    ["cosim", "warp_sched", "--param", "policy=gto", "--param", "W=8", "--cycles", "100000000"],
                    lambda cmds: any(c.startswith(str(p.cache)) or "/warp_sched" in c.split()[0] for c in cmds
                                     if "python" not in c.split()[0]), sig, [tmp / "gpusched_cosim_*"])
        signal_case(p, f"area {name} while Yosys runs",
                    ["area", "cta_sched", "--param", "policy=steal", "--param", "C=8", "--liberty", "ge", "--flat"],
                    lambda cmds: sum("pyosys" in c or "yowasp" in c for c in cmds) >= 1, sig,
                    [p.cache / "yosys" / "tmp*"])
        signal_case(p, f"prove {name} while the solver runs",
                    ["prove", "cta_sched", "--engine", "bmc", "--depth", "40"],
                    lambda cmds: any("smtbmc" in c or "boolector" in c or "z3" in c for c in cmds), sig,
                    [p.cache / "formal" / "tmp*"])


# ---- 3. paths and resources ------------------------------------------------------------------
def mount_tmpfs(where: Path, opts: str) -> bool:
    where.mkdir(parents=True, exist_ok=True)
    return subprocess.run(["mount", "-t", "tmpfs", "-o", opts, "tmpfs", str(where)],
                          capture_output=True).returncode == 0


def case_paths(p: Probe) -> None:
    run = ["run", "--preset", "tiny", "--workload", "mixed_like", "--scale", "0.05",
           "--profile", "warp-states"]
    (p.work / "adir").mkdir(exist_ok=True)
    (p.work / "afile").write_text("x")
    cases = [("--profile-plot is a directory", run + ["--profile-plot", p.work / "adir"]),
             ("--profile-plot in a missing folder", run + ["--profile-plot", p.work / "nope" / "x.png"]),
             ("--profile-plot under a file", run + ["--profile-plot", p.work / "afile" / "x.png"]),
             ("sweep --db under a file", ["sweep", _grid(p.work), "--db", p.work / "afile" / "r.sqlite", "-q"]),
             ("results query -o is a directory", ["results", "query", "--db", _store(p), "-o", p.work / "adir"]),
             ("cosim --waves in a missing folder", ["cosim", "warp_sched", "--param", "W=8", "--param", "policy=gto",
                                                   "--cycles", "100", "--waves", p.work / "nope" / "w.vcd"]),
             ("prove --vcd is a directory", ["prove", "warp_sched", "--vcd", p.work / "adir"])]
    for case, args in cases:
        t = time.monotonic()
        r = p.run(*args)
        row("3 paths", case, r.returncode, f"{last_line(r)} ({time.monotonic() - t:.1f} s)")
    with open("/dev/full", "w") as full:
        r = p.run("config", "show", "tiny", stdout=full)
    row("3 paths", "stdout is /dev/full", r.returncode, last_line(r))
    ro, small = p.work / "ro", p.work / "small"
    if mount_tmpfs(ro, "size=4m"):
        try:
            shutil.copy(_store(p), ro / "r.sqlite")
            subprocess.run(["mount", "-o", "remount,ro", str(ro)], check=True)
            r = p.run("results", "query", "--db", ro / "r.sqlite", "--format", "csv")
            row("3 paths", "results query on a read-only mount", r.returncode, query_rows(r))
            r = p.run("sweep", _grid(p.work), "--db", ro / "r.sqlite", "-q")
            row("3 paths", "sweep into a store on a read-only mount", r.returncode, last_line(r))
            r = p.run("run", "--preset", "tiny", "--trace", trace_dir(p.work), "--json",
                      env=p.env(GPUSCHED_TRACE_CACHE=ro / "traces"))
            row("3 paths", "trace cache on a read-only mount", r.returncode, last_line(r))
        finally:
            subprocess.run(["umount", str(ro)])
    else:
        row("3 paths", "read-only mount", "-", "skipped: cannot mount here")
    if mount_tmpfs(small, "size=64k"):
        try:
            shutil.copy(_store(p), small / "r.sqlite")
            with open(small / "fill", "wb") as f:
                try:
                    f.write(b"\0" * (1 << 20))
                except OSError:
                    pass
            r = p.run("sweep", _grid(p.work, 30), "--db", small / "r.sqlite", "-q")
            row("3 paths", "sweep into a store on a full disk", r.returncode, last_line(r))
            r = p.run("results", "query", "--db", small / "r.sqlite", "--format", "csv")
            row("3 paths", "results query on a full disk", r.returncode, query_rows(r))
        finally:
            subprocess.run(["umount", str(small)])
    else:
        row("3 paths", "full disk", "-", "skipped: cannot mount here")


def query_rows(r) -> str:
    if r.returncode:
        return last_line(r)
    return f"{len(r.stdout.strip().splitlines()) - 1} stored rows printed (CSV)"


def _grid(work: Path, seeds: int = 2, extra: str = "", params: str = "") -> Path:
    g = work / f"grid-{uuid.uuid4().hex[:6]}.toml"
    g.write_text(f'[sweep]\nname = "g"\npreset = "tiny"\nworkloads = ["mixed_like"]\n'
                 f'seeds = {list(range(seeds))}\n{extra}\n[sweep.params]\nscale = 0.02\n{params}\n')
    return g


def _store(p: Probe) -> Path:
    db = p.work / "store.sqlite"
    if not db.exists():
        p.run("sweep", _grid(p.work), "--db", db, "-q")
    return db


# ---- 4. bounds and strictness ------------------------------------------------------------------
def case_bounds(p: Probe) -> None:
    w = p.work
    g = _grid(w)
    g.write_text(g.read_text().replace("seeds = [0, 1]", "seeds = [100000000000000000000]"))
    big = _grid(w, 1)
    big.write_text(big.read_text().replace("seeds = [0]", "seeds = " + str(list(range(2000)))).replace(
        "[sweep.params]", "[sweep.overrides]\nsm.count = " + str(list(range(1, 201))) + "\n[sweep.params]"))
    cases = [
        ("cosim --cycles 10^12", ["cosim", "warp_sched", "--param", "W=8", "--param", "policy=gto",
                                  "--cycles", str(10 ** 12)], 30),
        ("bench model --repeat 10^9", ["bench", "model", "--repeat", str(10 ** 9)], 30),
        ("grid seed 10^20", ["sweep", g, "--db", w / "seed.sqlite", "-q"], 120),
        ("grid of 400 000 points", ["sweep", big, "--db", w / "big.sqlite", "-q", "--jobs", "1"], 30),
    ]
    for case, args, limit in cases:
        try:
            r = p.run(*args, timeout=limit)
            row("4 bounds", case, r.returncode, last_line(r))
        except subprocess.TimeoutExpired:
            row("4 bounds", case, "still running", f"killed after {limit} s")
    grids = {
        "scale = [0.1, true]": ("", "scale = [0.1, true]"),
        "dual_issue = [true, 1] (overrides)": ("[sweep.overrides]\nsm.dual_issue = [true, 1]\n", ""),
        'quoted and dotted spelling of one key': ('[sweep.overrides]\n"sm.count" = [2]\nsm.count = [4]\n', ""),
        "watchdog = 0 in a grid": ("", "watchdog = [1000, 0]"),
    }
    for case, (over, params) in grids.items():
        g = _grid(w, 1)
        text = g.read_text().replace("scale = 0.02\n", "")
        text = text.replace("[sweep.params]\n", over + "[sweep.params]\nscale = 0.02\n" if "scale" not in params
                            else over + "[sweep.params]\n")
        g.write_text(text + params + "\n")
        r = p.run("sweep", g, "--db", w / f"s-{uuid.uuid4().hex[:4]}.sqlite", "-q")
        row("4 bounds", case, r.returncode, last_line(r))
    bad_lib = w / "bad.lib"
    bad_lib.write_text("library (broken) {\n  cell (x) { area : \n")
    r = p.run("area", "warp_sched", "--param", "W=4", "--param", "policy=lrr", "--liberty", bad_lib)
    row("4 bounds", "malformed liberty file", r.returncode, last_line(r))
    r = p.run("prove", "warp_sched", "--timeout", "nan")
    row("4 bounds", "prove --timeout nan", r.returncode, last_line(r))
    yow = w / "yowasp-cold"
    r = p.run("prove", "warp_sched", "--engine", "bmc", "--depth", "4",
              env=p.env(YOWASP_CACHE_DIR=yow, XDG_CACHE_HOME=w / "xdg-cold", GPUSCHED_SOLVER="boolector"),
              timeout=900)
    row("4 bounds", "first prove --engine bmc on a cold YoWASP cache", r.returncode, last_line(r))
    t = trace_dir(w)
    part = w / "partial-exit"
    shutil.copytree(t, part, dirs_exist_ok=True)
    k = part / "kernel-1.traceg"
    lines = k.read_text().splitlines()
    for i, line in enumerate(lines):
        if " EXIT " in line:
            fields = line.split()
            fields[1] = "0000ffff"
            lines[i] = " ".join(fields)
            break
    k.write_text("\n".join(lines) + "\n")
    r = p.run("run", "--preset", "tiny", "--trace", part, "--json")
    row("4 bounds", "trace: a full warp's EXIT covers lanes 0-15 only", r.returncode,
        ([l for l in r.stderr.splitlines() if "EXIT" in l] or [run_summary(r)])[-1])


# ---- 5. messages ------------------------------------------------------------------------------
def case_messages(p: Probe) -> None:
    w = p.work
    cfg = w / "cfg.toml"
    cfg.write_text('base = "tiny"\n\n[sm]\ncount = 2\n\n[nosuch]\nx = 1\n')
    r = p.run("run", "--preset", cfg, "--workload", "mixed_like", "--scale", "0.02")
    row("5 messages", "unknown TOML section at line 6", r.returncode, last_line(r))
    cfg2 = w / "cfg2.toml"
    cfg2.write_text(f'base = "{cfg.name}"\n')
    r = p.run("run", "--preset", cfg2, "--workload", "mixed_like", "--scale", "0.02")
    row("5 messages", 'base = "cfg.toml"', r.returncode, last_line(r))
    g = _grid(w, 40)
    g.write_text(g.read_text().replace("scale = 0.02", "scale = 0.3"))
    proc = subprocess.Popen([*cli(p.root), "sweep", str(g), "--db", str(w / "nr.sqlite"), "--no-resume",
                             "--jobs", "1", "-q"], env=p.env(), cwd=w, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    time.sleep(6)
    os.kill(proc.pid, signal.SIGTERM)
    out, err = proc.communicate(timeout=60)
    row("5 messages", "sweep --no-resume, then SIGTERM", proc.returncode,
        (err.strip().splitlines() or ["(no output)"])[-1])
    p.run("cosim", "warp_sched", "--param", "W=8", "--param", "policy=gto", "--cycles", "1000")
    r = p.run("cosim", "warp_sched", "--param", "W=8", "--param", "policy=gto", "--cycles", "1000")
    row("5 messages", "cosim with the model already built", r.returncode,
        next((l for l in r.stderr.splitlines() if "build" in l), "(no build announced)"))
    r = p.run("cosim", "warp_sched", "--param", "W=8", "--param", "policy=gto", "--cycles", "3000",
              "--sim", "amaranth")
    said = next((l for l in r.stderr.splitlines() if "cycles/s" in l), "")
    row("5 messages", "--sim amaranth: announced vs measured speed", r.returncode,
        f"{said.strip()} → {last_line(r).split(', ')[-1]}")


def case_background(p: Probe) -> None:
    tests = ["tests/reliability/test_exit_codes.py", "tests/reliability/test_signals.py", "-k",
             "interrupted_exits_130 or (leaves_no_process and 130)"]
    code = "import signal, subprocess, sys; signal.signal(signal.SIGINT, signal.SIG_IGN); " \
           "sys.exit(subprocess.call(sys.argv[1:]))"
    r = subprocess.run([sys.executable, "-c", code, sys.executable, "-m", "pytest", "-q", "-n", "0",
                        "-p", "no:cacheprovider", *tests], cwd=p.root, capture_output=True, text=True,
                       env=dict(os.environ, PYTHONPATH=str(p.root)), timeout=900)
    row("6 shells", "signal tests with SIGINT ignored (a background job)", r.returncode,
        (r.stdout.strip().splitlines() or [""])[-1])


def read_rows(files: str) -> dict:
    """(item, case) → (exit, last line) of probe outputs (comma-separated files; later win)."""
    out = {}
    for name in files.split(","):
        for line in Path(name).read_text().splitlines():
            parts = [p.strip() for p in line.strip().strip("|").split(" | ")]
            if line.startswith("| ") and len(parts) >= 4 and parts[0] != "item":
                out[(parts[0], parts[1])] = (parts[2], " | ".join(parts[3:]))
    return out


def shorten(text: str) -> str:
    """A table cell: work folders, hashes and keys abbreviated."""
    import re
    text = re.sub(r"/tmp/\S*?/w\d?/", "W/", text)
    text = re.sub(r"[0-9a-f]{40,}-v\d", "ENTRY", text)
    text = re.sub(r"_[0-9a-f]{16,24}(\.json)?", r"_KEY\1", text)
    text = re.sub(r"(tc|grid|s)-[0-9a-f]{4,6}", r"\1", text)
    text = text.replace("\\|", "/").replace("|", "/")
    return text if len(text) <= 125 else text[:122].rstrip() + "…"


def merge(before: str, after: str) -> None:
    b, a = read_rows(before), read_rows(after)
    order = ["1 caches", "2 signals", "3 paths", "4 bounds", "5 messages", "6 shells"]
    keys = sorted(set(b) | set(a), key=lambda k: (order.index(k[0]), list(a).index(k) if k in a
                                                  else len(a)))
    print("| item | case | before: exit | before: last line | after: exit | after: last line |")
    print("|---|---|---|---|---|---|")
    for k in keys:
        (bc, bl), (ac, al) = b.get(k, ("-", "")), a.get(k, ("-", ""))
        print(f"| {k[0]} | {k[1]} | {bc} | {shorten(bl)} | {ac} | {shorten(al)} |")


GROUPS = {"traces": case_traces, "area": case_area, "verilog": case_verilog, "signals": case_signals,
          "paths": case_paths, "bounds": case_bounds, "messages": case_messages,
          "background": case_background}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", default=str(ROOT))
    ap.add_argument("--only", nargs="*", default=list(GROUPS))
    ap.add_argument("--work", default=None, help="keep the work folder here (its cache is reused)")
    ap.add_argument("--merge", nargs=2, metavar=("BEFORE", "AFTER"),
                    help="print the before/after table of two probe outputs")
    a = ap.parse_args()
    if a.merge:
        merge(*a.merge)
        return
    work = Path(a.work) if a.work else Path(tempfile.mkdtemp(prefix="gpusched-probe-"))
    work.mkdir(parents=True, exist_ok=True)
    p = Probe(Path(a.root).resolve(), work)
    print("| item | case | exit | last line |\n|---|---|---|---|", flush=True)
    for name in a.only:
        GROUPS[name](p)


if __name__ == "__main__":
    main()
