"""``gpusched verify``: the registry of long checks that stay out of the default test suite.

Each check is a named function returning True on success; ``gpusched verify`` runs them all (or
those named), prints a line each and exits 1 if any failed. Today: the formal proofs of every
block at depth 20
(cta_sched 12) and each block's mutant caught.
"""

from __future__ import annotations

from typing import Callable, List, Optional

import typer

from gpusched.config import ConfigError


def _checks() -> dict[str, Callable[[], bool]]:
    from formal import proof_blocks
    from gpusched.commands.prove_cmd import prove_block
    checks: dict[str, Callable[[], bool]] = {}
    for block in proof_blocks():
        checks[f"prove-{block}"] = lambda b=block: prove_block(b, None)
        checks[f"mutant-{block}"] = lambda b=block: prove_block(b, None, mutant=True)
    return checks


def verify_cmd(names: Optional[List[str]] = typer.Argument(None, help="checks to run (default all)"),
               list_only: bool = typer.Option(False, "--list", help="list the checks and exit")):
    """Run the long checks (formal proofs to depth 20, mutants caught)."""
    checks = _checks()
    if list_only:
        for name in checks:
            typer.echo(name)
        return
    for name in names or []:
        if name not in checks:
            raise ConfigError("NAMES", name, "known checks: " + ", ".join(checks))
    failed = []
    for name in names or list(checks):
        typer.echo(f"== {name}")
        if not checks[name]():
            failed.append(name)
    typer.echo(f"verify: {len(names or checks) - len(failed)} passed, {len(failed)} failed"
               + (": " + ", ".join(failed) if failed else ""))
    if failed:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.command("verify")(verify_cmd)
