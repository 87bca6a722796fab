"""The ``gpusched`` command line. Bad input → one line on stderr and exit status 2.

Sub-commands live in small modules in ``gpusched/commands/``; every module there has
``register(app)`` and is discovered by name, so adding a command touches no shared file.
"""

from __future__ import annotations

import sys

import typer

from gpusched.config import ConfigError

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  help="GPU scheduler hardware research: RTL, twins, GPU model, cosim, area.")

def _register() -> None:
    import importlib
    import pkgutil

    import gpusched.commands
    for info in sorted(pkgutil.iter_modules(gpusched.commands.__path__), key=lambda i: i.name):
        importlib.import_module(f"gpusched.commands.{info.name}").register(app)


def main(argv: list[str] | None = None) -> None:
    """Entry point: run the app, turning ConfigError into one line and exit 2."""
    _register()
    try:
        app(args=argv, standalone_mode=False)
    except ConfigError as e:
        print(f"gpusched: error: {e}", file=sys.stderr)
        sys.exit(2)
    except typer.Exit as e:
        sys.exit(e.exit_code)
    except Exception as e:  # click usage errors carry their own exit code
        import click
        if isinstance(e, click.ClickException):
            e.show()
            sys.exit(e.exit_code)
        if isinstance(e, click.exceptions.Abort):
            sys.exit(130)
        raise
