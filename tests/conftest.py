"""Shared pytest options: ``--runslow`` enables soak tests marked ``slow``."""

import subprocess

import pytest


def pytest_addoption(parser):
    parser.addoption("--runslow", action="store_true", help="also run tests marked slow")


def pytest_collection_modifyitems(config, items):
    if config.getoption("--runslow"):
        return
    skip = pytest.mark.skip(reason="slow: run with --runslow (or make test-all)")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def cli(capsys):
    """Run ``gpusched`` in this process (fast): returns a CompletedProcess (code, out, err)."""
    from gpusched.cli import main

    def run(*args):
        capsys.readouterr()
        try:
            main([str(a) for a in args])
            code = 0
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else 1
        out, err = capsys.readouterr()
        return subprocess.CompletedProcess(args, code, out, err)
    return run
