"""CLI sub-commands; each module has ``register(app)``."""

DB_HELP = ("results file (default $GPUSCHED_DB, else $GPUSCHED_RESULTS/gpusched.sqlite, else "
           "results/gpusched.sqlite of the project: see gpusched.experiment.store.default_db)")


def stdout_console():
    """A rich console for tables on stdout: piped into a log or file it is 160 columns wide
    (rich's 80-column default would squeeze wide tables into unreadable truncated cells)."""
    import sys

    from rich.console import Console
    return Console(width=None if sys.stdout.isatty() else 160)
