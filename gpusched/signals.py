"""Signals as exceptions, and child processes that never outlive the command.

While ``signals_raise()`` is active, SIGTERM and SIGHUP raise ``Terminated`` in the main thread
(as SIGINT raises KeyboardInterrupt), so every ``finally`` and context manager runs: temporary
folders are removed and children stopped. The command line exits 128 + the signal's number
(143 SIGTERM, 129 SIGHUP; 130 for SIGINT). A signal the shell ignores (SIGHUP under ``nohup``,
SIGINT in a background job) stays ignored.

A child that starts children of its own (``make`` → Verilator → the C++ compiler,
``yosys-smtbmc`` → the solver, the Yosys worker) is started in a process group of its own by
``run`` or ``popen``; when the command stops early (any exception, a signal among them) the
whole group is ended — SIGTERM, then SIGKILL after ``GRACE_S``.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
from typing import Iterator

GRACE_S = 2.0
REDELIVER_S = 0.01
RAISING = (signal.SIGTERM, signal.SIGHUP)


class Terminated(BaseException):
    """SIGTERM or SIGHUP arrived (``signum``): unwind like Ctrl-C, exit ``128 + signum``."""

    def __init__(self, signum: int):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum

    @property
    def exit_code(self) -> int:
        return 128 + self.signum


def _raise(signum, frame):
    raise Terminated(signum)


def _redeliver(hook_args) -> None:
    """``sys.unraisablehook``: a signal's exception raised where Python cannot propagate it (a
    ``__del__`` or weakref callback, such as the import system's module-lock cleanup) would be
    printed as "Exception ignored" and lost; deliver the signal again instead, a moment later
    from another thread (delivered at once, its handler would raise inside this hook), so that
    it raises at an ordinary point of the main thread."""
    exc = hook_args.exc_value
    if isinstance(exc, (Terminated, KeyboardInterrupt)):
        sig = exc.signum if isinstance(exc, Terminated) else signal.SIGINT
        again = threading.Timer(REDELIVER_S, os.kill, (os.getpid(), sig))
        again.daemon = True
        again.start()
    else:
        sys.__unraisablehook__(hook_args)


def _exit_now(signum, frame):
    """After the command: a signal ends the process at once with 128 + its number (what is
    printed is flushed first), as it would have inside the command."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(128 + signum)


@contextlib.contextmanager
def signals_raise(final: bool = False) -> Iterator[None]:
    """SIGTERM and SIGHUP raise ``Terminated`` inside the block (main thread only; a signal
    that is ignored stays ignored); a signal that arrives inside a destructor or callback is
    delivered again (``_redeliver``), never lost. ``final`` (the command line's outermost
    block): after the block a signal exits with 128 + its number at once instead of the old
    disposition (which would end the process by the signal while it prints or exits)."""
    old = {}
    hook = sys.unraisablehook
    if threading.current_thread() is threading.main_thread():
        for sig in RAISING:
            if signal.getsignal(sig) is not signal.SIG_IGN:
                old[sig] = signal.signal(sig, _raise)
        sys.unraisablehook = _redeliver
    try:
        yield
    finally:
        for sig, handler in old.items():
            signal.signal(sig, _exit_now if final else handler)
        sys.unraisablehook = hook


def stop(proc: subprocess.Popen) -> None:
    """End ``proc``'s process group (started by ``popen``): SIGTERM, SIGKILL after GRACE_S."""
    for sig, wait_s in ((signal.SIGTERM, GRACE_S), (signal.SIGKILL, GRACE_S)):
        try:
            os.killpg(proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            break
        try:
            proc.wait(timeout=wait_s)
        except subprocess.TimeoutExpired:
            continue
        try:                       # the leader is gone: its children may still be in the group
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        break
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=GRACE_S)


def popen(cmd: list[str], **kwargs) -> subprocess.Popen:
    """``subprocess.Popen`` in a new process group (pass it to ``stop`` or use ``child``)."""
    return subprocess.Popen(cmd, start_new_session=True, **kwargs)


@contextlib.contextmanager
def child(cmd: list[str], **kwargs) -> Iterator[subprocess.Popen]:
    """A ``popen`` child whose process group is ended if the block exits by an exception."""
    proc = popen(cmd, **kwargs)
    try:
        yield proc
    except BaseException:
        stop(proc)
        raise


def run(cmd: list[str], **kwargs) -> subprocess.CompletedProcess:
    """``subprocess.run`` (no ``check``, no ``input``) in a process group of its own, ended if
    the wait is interrupted."""
    capture = kwargs.pop("capture_output", False)
    if capture:
        kwargs.setdefault("stdout", subprocess.PIPE)
        kwargs.setdefault("stderr", subprocess.PIPE)
    timeout = kwargs.pop("timeout", None)
    with child(cmd, **kwargs) as proc:
        out, err = proc.communicate(timeout=timeout)
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err)
