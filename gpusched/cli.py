"""The ``gpusched`` command line. Bad input → one line on stderr and exit status 2.

Sub-commands live in small modules (``gpusched/commands/``) and are registered in ``COMMANDS``.
"""

from __future__ import annotations

import sys

import typer

from gpusched.config import ConfigError

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  help="GPU scheduler hardware research: RTL, twins, GPU model, cosim, area.")

COMMANDS = [
    "gpusched.commands.config_cmd",
    "gpusched.commands.blocks_cmd",
    "gpusched.commands.demo_cmd",
]


def _register() -> None:
    import importlib
    for mod in COMMANDS:
        importlib.import_module(mod).register(app)


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
