"""Each workload test compiles traces into its own cache folder (never the user's)."""

import pytest


@pytest.fixture(autouse=True)
def trace_cache(tmp_path_factory, monkeypatch):
    d = tmp_path_factory.mktemp("trace-cache")
    monkeypatch.setenv("GPUSCHED_TRACE_CACHE", str(d))
    return d
