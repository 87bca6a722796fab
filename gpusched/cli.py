"""The ``gpusched`` command line and its exit codes.

Exit status: 0 success, 1 a check that failed (lockstep mismatch, failed sweep points) or a
resource that failed (disk full, read-only filesystem: one line naming the path and the system's
reason), 2 bad input (one line on stderr naming the field, the value and what is allowed),
3 deadlock, 130 interrupted (Ctrl-C), 143 terminated (SIGTERM), 129 hung up (SIGHUP); on a
signal, child processes are ended and temporary folders removed (``gpusched.signals``).

Sub-commands live in small modules in ``gpusched/commands/``; every module there has
``register(app)`` and is discovered by name, so adding a command touches no shared file.

Usage errors are recognised by their class names (``UsageError``, ``Exit``, ``Abort``) rather
than by ``isinstance`` against one package: typer raises its bundled copy of click's exceptions
(``typer._click``) in newer versions and click's own in older ones, and both must give exit 2.
"""

from __future__ import annotations

import os
import re
import sys

import typer

from gpusched.cli_coercion import use_light_coercion
from gpusched.config import ConfigError
from gpusched.signals import Terminated, signals_raise

EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT, EXIT_DEADLOCK, EXIT_INTERRUPTED = 0, 1, 2, 3, 130
EXIT_TERMINATED = 143

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  help="GPU scheduler hardware research: RTL, twins, GPU model, cosim, area.")


@app.callback()
def _root() -> None:
    # a callback keeps the app a group of sub-commands when only one is registered (_register)
    pass


def _register(args: list[str]) -> None:
    """Register the sub-commands. When the command line names a command that has a module of
    its own name (``gpusched run`` → run_cmd), only that module is imported: start-up time
    (every module together imports the experiment, pydantic and jschon stacks). Otherwise, and
    for help, all of them."""
    import importlib
    import pkgutil

    import gpusched.commands
    names = sorted(info.name for info in pkgutil.iter_modules(gpusched.commands.__path__))
    first = next((a for a in args if not a.startswith("-")), None)
    if first is not None and first + "_cmd" in names:
        importlib.import_module(f"gpusched.commands.{first}_cmd").register(app)
        known = [c.name for c in app.registered_commands] + [g.name for g in app.registered_groups]
        if first in known:
            return
        app.registered_commands.clear()
        app.registered_groups.clear()
    for name in names:
        importlib.import_module(f"gpusched.commands.{name}").register(app)


def _click_kind(e: BaseException) -> str | None:
    """'usage', 'exit', 'abort' or 'click' for click/typer exceptions (either package), else None."""
    for cls in type(e).__mro__:
        if not cls.__module__.split(".")[0] in ("click", "typer"):
            continue
        if cls.__name__ == "NoArgsIsHelpError":
            return "help"
        if cls.__name__ in ("UsageError", "BadParameter", "MissingParameter", "NoSuchOption",
                            "BadOptionUsage", "BadArgumentUsage"):
            return "usage"
        if cls.__name__ == "Exit":
            return "exit"
        if cls.__name__ == "Abort":
            return "abort"
        if cls.__name__ == "ClickException":
            return "click"
    return None


def _raw_value(opts: list[str], argv: list[str]) -> str | None:
    """The text the user gave for an option (``--seed abc`` or ``--seed=abc``), if any."""
    for i, arg in enumerate(argv):
        for opt in opts:
            if arg == opt and i + 1 < len(argv):
                return argv[i + 1]
            if arg.startswith(opt + "="):
                return arg[len(opt) + 1:]
    return None


def usage_line(e: BaseException, argv: list[str]) -> str:
    """One line for a usage error: ``gpusched run: error: --seed = 'abc': <why> (see … --help)``."""
    ctx = getattr(e, "ctx", None)
    path = getattr(ctx, "command_path", None) or "gpusched"
    message = " ".join(str(e.format_message()).split())  # type: ignore[attr-defined]
    param = getattr(e, "param", None)
    opts = [o for o in getattr(param, "opts", []) if o.startswith("-")]
    raw = _raw_value(opts, argv) if opts else None
    if raw is not None:
        message = re.sub(r"^Invalid value for '[^']*': ", "", message)
        message = f"{opts[-1]} = {raw!r}: {message}"
    message = re.sub(r"^Invalid value: ", "", message)     # a command's own BadParameter
    return f"{path}: error: {message} (see '{path} --help')"


def show_flags_without_a_type() -> None:
    """In ``--help``, print no type for a flag: typer 0.29 shows ``--json <bool>``, which reads
    as an option taking a value (``--json true`` is then an extra argument). Idempotent."""
    try:
        from typer.core import TyperOption
    except ImportError:
        return
    shown = TyperOption.display_type_rich
    if getattr(shown, "flags_without_type", False):
        return

    def display_type_rich(self, ctx):
        return None if self.is_flag and self.metavar is None else shown(self, ctx)
    display_type_rich.flags_without_type = True         # type: ignore[attr-defined]
    TyperOption.display_type_rich = display_type_rich   # type: ignore[method-assign]


def main(argv: list[str] | None = None) -> None:
    """Entry point: run the app and turn every outcome into one of the documented exit codes."""
    args = list(sys.argv[1:] if argv is None else argv)
    use_light_coercion()
    show_flags_without_a_type()
    try:
        with signals_raise(final=True):
            _register(args)
            code = app(args=args, prog_name="gpusched", standalone_mode=False)
    except ConfigError as e:
        print(f"gpusched: error: {e}", file=sys.stderr)
        sys.exit(EXIT_BAD_INPUT)
    except KeyboardInterrupt:
        print("gpusched: interrupted", file=sys.stderr)
        sys.exit(EXIT_INTERRUPTED)
    except Terminated as e:
        print(f"gpusched: terminated ({e})", file=sys.stderr)
        sys.exit(e.exit_code)
    except OSError as e:         # a resource or a path: one line naming it and the reason
        _exit_os_error(e)
    except Exception as e:
        if type(e).__module__ == "ptx.errors":    # the PTX front end: bad input 2, deadlock 3
            print(f"gpusched: error: {e}", file=sys.stderr)
            sys.exit(e.exit_code)                   # type: ignore[attr-defined]
        kind = _click_kind(e)
        if kind == "help":  # bare `gpusched` or `gpusched config`: the help, then one error line
            typer.echo(str(e.format_message()))  # type: ignore[attr-defined]
            path = getattr(getattr(e, "ctx", None), "command_path", "gpusched")
            print(f"{path}: error: missing command (one of those listed above)", file=sys.stderr)
            sys.exit(EXIT_BAD_INPUT)
        if kind == "usage":
            print(usage_line(e, args), file=sys.stderr)
            sys.exit(EXIT_BAD_INPUT)
        if kind == "exit":
            sys.exit(getattr(e, "exit_code", EXIT_FAILED))
        if kind == "abort":
            sys.exit(EXIT_INTERRUPTED)
        if kind == "click":
            print(f"gpusched: error: {e.format_message()}", file=sys.stderr)  # type: ignore[attr-defined]
            sys.exit(getattr(e, "exit_code", EXIT_FAILED))
        raise
    try:
        sys.stdout.flush()       # here, not at exit: a full disk under stdout is one line too
    except OSError as e:
        _exit_os_error(e, "stdout")
    # Without standalone mode typer returns the code of a raised Exit (and a command's return
    # value otherwise): an int is an exit status, anything else means success.
    sys.exit(code if isinstance(code, int) and not isinstance(code, bool) else EXIT_OK)


def _exit_os_error(e: OSError, what: str | None = None) -> None:
    """One line naming the path (or stdout) and the system's reason; exit 2 or 1 (paths.py)."""
    from gpusched.paths import describe
    if what is None and e.filename is None and _stdout_failed(e):
        what = "stdout"
    if what == "stdout":    # the interpreter's own flush at exit would fail again
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError):
            pass
    code, line = describe(e, what)
    print(f"gpusched: error: {line}", file=sys.stderr)
    sys.exit(code)


def _stdout_failed(e: OSError) -> bool:
    """Whether an OSError that names no file came from writing stdout: a closed pipe, or no
    space where stdout goes (a full filesystem, /dev/full)."""
    import errno
    import stat
    if isinstance(e, BrokenPipeError):
        return True
    if e.errno != errno.ENOSPC:
        return False
    try:
        fd = sys.stdout.fileno()
        st = os.fstat(fd)
        if stat.S_ISCHR(st.st_mode):
            return (os.major(st.st_rdev), os.minor(st.st_rdev)) == (1, 7)    # /dev/full
        return os.fstatvfs(fd).f_bavail == 0
    except (OSError, ValueError):
        return False
