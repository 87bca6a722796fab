"""Output paths checked before a long run, and operating-system errors as one line.

``check_output_file`` / ``check_output_dir`` run when a command reads its options, so a bad
``--profile-plot`` path costs no simulation: a path that is a directory (or a file where a
directory is needed), or a missing parent, is bad input (``ConfigError``, exit 2); a folder on a
read-only filesystem, one the user may not write, or a full filesystem is a resource that failed
(an ``OSError`` naming the folder, exit 1). Either way one line names the path and the system's
reason.

``describe`` turns an ``OSError`` that reached the command line into that line and exit code.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

from gpusched.config import ConfigError

# errors of a path the user named wrongly (exit 2); any other OSError is a resource (exit 1)
BAD_PATH = (errno.ENOENT, errno.ENOTDIR, errno.EISDIR, errno.ENAMETOOLONG, errno.ELOOP,
            errno.EEXIST)


def _reason(code: int) -> str:
    return os.strerror(code)


def check_writable_dir(folder: Path, option: str) -> None:
    """``folder`` exists, is a directory, and a file can be created in it on a filesystem with
    free space."""
    if not folder.exists():
        raise ConfigError(option, str(folder), f"{_reason(errno.ENOENT)}: create the folder first")
    if not folder.is_dir():
        raise ConfigError(option, str(folder), _reason(errno.ENOTDIR))
    import tempfile
    try:
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as e:
        raise OSError(e.errno, e.strerror, str(folder)) from None
    try:
        st = os.statvfs(folder)
    except OSError:
        return
    if st.f_bavail == 0 and st.f_blocks > 0:
        raise OSError(errno.ENOSPC, _reason(errno.ENOSPC), str(folder))


def check_output_file(path: str | None, option: str, make_parents: bool = False) -> None:
    """``path`` can be written as a file: not a directory; its folder exists (or, with
    ``make_parents``, can be created: no file in the way) and takes a new file."""
    if path is None:
        return
    p = Path(path)
    if p.is_dir():
        raise ConfigError(option, path, f"{_reason(errno.EISDIR)}: give a file name")
    folder = p.parent if str(p.parent) else Path(".")
    if make_parents:
        folder = _nearest_existing(folder, option, path)
    elif not folder.exists():
        raise ConfigError(option, path, f"{_reason(errno.ENOENT)}: the folder {folder} "
                          "does not exist")
    elif not folder.is_dir():
        raise ConfigError(option, path, f"{_reason(errno.ENOTDIR)}: {folder} is a file")
    check_writable_dir(folder, option)


def check_output_dir(path: str | None, option: str) -> None:
    """``path`` can be a folder of outputs: a directory or creatable (no file in the way), on a
    filesystem that takes new files."""
    if path is None:
        return
    p = Path(path)
    if p.exists() and not p.is_dir():
        raise ConfigError(option, path, f"{_reason(errno.ENOTDIR)}: a file is in the way")
    check_writable_dir(_nearest_existing(p, option, path), option)


def _nearest_existing(folder: Path, option: str, path: str) -> Path:
    """The nearest existing ancestor of ``folder`` (itself included); a file there is bad input."""
    for d in (folder, *folder.parents):
        if d.exists():
            if not d.is_dir():
                raise ConfigError(option, path, f"{_reason(errno.ENOTDIR)}: {d} is a file")
            return d
    return Path(".")


def describe(e: OSError, what: str | None = None) -> tuple[int, str]:
    """(exit code, one line) for an OSError: the path (or ``what``, e.g. stdout) and the
    system's reason; 2 for a path named wrongly, 1 for a resource that failed."""
    where = e.filename if e.filename is not None else what
    reason = e.strerror or str(e) or type(e).__name__
    line = f"{where}: {reason}" if where else reason
    if e.filename2 is not None:
        line += f" (and {e.filename2})"
    return (2 if e.errno in BAD_PATH else 1), line
