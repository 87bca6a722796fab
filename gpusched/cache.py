"""Where gpusched's caches live, and sealed entries: a cache that can never give a wrong answer.

Every cache is a folder of ``cache_root()`` — ``$GPUSCHED_CACHE``, else
``$XDG_CACHE_HOME/gpusched``, else ``~/.cache/gpusched`` — one sub-folder per kind (``traces``,
``verilog``, ``verilator_build``, ``area``, ``area_index``, ``yosys``, ``formal``).

An entry carries the key it was built for and a SHA-256 of its content, so a damaged,
truncated, foreign (built for another key) or partial (never sealed) entry is detected,
reported in one line on stderr (``report``) and rebuilt — never read:

- a folder entry: the writer fills a temporary folder, ``seal(folder, key)`` writes
  ``SEAL`` (the key, each file's size and SHA-256) last, and ``publish(tmp, entry, key)``
  renames it into place atomically; ``problem(folder, key)`` says what is wrong with an entry
  (None: sound) and ``verified`` is its boolean. A folder that must be built where it stays
  (a Verilator build) is sealed in place after the build and checked the same way.
- a one-file JSON entry: ``write_json(path, key, value)`` (temp file + rename) and
  ``read_json(path, key)`` → the value, or None when missing or damaged (reported).

Verification hashes an entry's files once per process; later checks compare the files' size,
mtime and inode with the ones hashed (a few ``stat`` calls), so a long sweep or a warp stream
pays nothing per read.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path
from typing import Any

SEAL = "SEAL"        # the manifest file of a sealed folder


def cache_root() -> Path:
    """The folder holding every gpusched cache (see the module docstring)."""
    env = os.environ.get("GPUSCHED_CACHE")
    if env:
        return Path(env)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "gpusched"


def report(path: Path, why: str) -> None:
    """The one stderr line for an entry that is not used: what it is and that it is rebuilt."""
    print(f"gpusched: cache: {path}: {why}; rebuilding it", file=sys.stderr, flush=True)


def _file_sha256(path: Path) -> str:
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def _stamp(path: Path) -> tuple[int, int, int]:
    st = path.stat()
    return st.st_size, st.st_mtime_ns, st.st_ino


def _files(folder: Path) -> list[str]:
    """Every regular file below ``folder`` but the seal, as sorted relative POSIX paths."""
    out = []
    for dirpath, _, names in os.walk(folder):
        for name in names:
            p = Path(dirpath) / name
            if p.is_file() and not p.is_symlink():
                out.append(p.relative_to(folder).as_posix())
    return sorted(n for n in out if n != SEAL)


def seal(folder: Path, key: str) -> None:
    """Write ``folder/SEAL``: ``key`` and the size and SHA-256 of each file. Written last and
    atomically: an entry without it is partial."""
    files = {n: [(folder / n).stat().st_size, _file_sha256(folder / n)] for n in _files(folder)}
    _write_atomic(folder / SEAL, json.dumps({"key": key, "files": files}, sort_keys=True))


# folder → (key, stamps of its files when they were last hashed and found sound): checked once
# per process, then only by stat (see the module docstring)
_SOUND: dict[str, tuple[str, dict[str, tuple[int, int, int]]]] = {}


def problem(folder: Path, key: str) -> str | None:
    """What makes ``folder`` unusable as the entry for ``key``, or None when it is sound."""
    try:
        seal_text = (folder / SEAL).read_text()
    except FileNotFoundError:
        return "not sealed (a partial entry: an interrupted build, or an older gpusched's)"
    except (OSError, UnicodeDecodeError) as e:
        return f"unreadable seal ({type(e).__name__}: {e})"
    try:
        manifest = json.loads(seal_text)
        found_key, files = manifest["key"], manifest["files"]
        sizes = {str(n): int(s) for n, (s, _) in files.items()}
        digests = {str(n): str(h) for n, (_, h) in files.items()}
    except (ValueError, KeyError, TypeError, AttributeError, OverflowError):
        return "damaged seal (does not decode)"
    if found_key != key:
        return "built for another key (a foreign entry)"
    if any(Path(n).is_absolute() or ".." in Path(n).parts for n in sizes):
        return "damaged seal (names a file outside the entry)"
    stamps: dict[str, tuple[int, int, int]] = {}
    try:
        for name, size in sizes.items():
            p = folder / name
            if not p.is_file():
                return f"{name} is missing"
            stamps[name] = _stamp(p)
            if stamps[name][0] != size:
                return (f"{name} has {stamps[name][0]:,} bytes, {size:,} when sealed "
                        "(truncated or overwritten)")
        if _SOUND.get(str(folder)) == (key, stamps):
            return None
        for name, digest in digests.items():
            if _file_sha256(folder / name) != digest:
                return f"{name} does not match its checksum (damaged)"
    except OSError as e:                 # removed or unreadable while being checked
        return f"unreadable ({type(e).__name__}: {e})"
    _SOUND[str(folder)] = (key, stamps)
    return None


def verified(folder: Path, key: str) -> bool:
    """``folder`` is a sound entry for ``key`` (see ``problem``)."""
    return problem(folder, key) is None


def publish(tmp: Path, entry: Path, key: str) -> Path:
    """Move the sealed folder ``tmp`` to ``entry`` atomically (rename) and return ``entry``. An
    unsound entry in the way is moved aside and removed; when another process published a sound
    one meanwhile, that one is kept and ``tmp`` removed."""
    import shutil
    import uuid
    for _ in range(3):
        try:
            os.rename(tmp, entry)
            return entry
        except OSError:
            if not entry.exists():
                raise
        if verified(entry, key):
            shutil.rmtree(tmp, ignore_errors=True)
            return entry
        aside = entry.with_name(f".unsound-{entry.name}-{uuid.uuid4().hex[:8]}")
        try:
            os.rename(entry, aside)
        except FileNotFoundError:
            continue                      # another process moved it first
        shutil.rmtree(aside, ignore_errors=True)
    raise OSError(f"could not publish {entry}: other processes keep replacing it")


def _write_atomic(path: Path, text: str) -> None:
    """``text`` into ``path`` through a temporary file in the same folder and a rename."""
    import tempfile
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        os.fchmod(fd, 0o644)          # as a plain write would leave it (mkstemp makes 0600)
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _json_digest(key: str, value: Any) -> str:
    text = key + "\0" + json.dumps(value, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def write_json(path: Path, key: str, value: Any) -> None:
    """A one-file entry: ``value`` with its key and checksum, written atomically."""
    path.parent.mkdir(parents=True, exist_ok=True)
    _write_atomic(path, json.dumps({"key": key, "sha256": _json_digest(key, value),
                                    "value": value}))


def read_json(path: Path, key: str) -> Any | None:
    """The value of the one-file entry ``path`` for ``key``; None when there is none, or when it
    is damaged, truncated or foreign (then reported: the caller rebuilds it)."""
    try:
        text = path.read_bytes().decode()
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as e:
        report(path, f"unreadable ({type(e).__name__})")
        return None
    try:
        entry = json.loads(text)
        found_key, digest, value = entry["key"], entry["sha256"], entry["value"]
    except (ValueError, KeyError, TypeError):
        report(path, "damaged (does not decode as a sealed entry)")
        return None
    if found_key != key:
        report(path, "built for another key (a foreign entry)")
        return None
    if digest != _json_digest(key, value):
        report(path, "does not match its checksum (damaged)")
        return None
    return value
