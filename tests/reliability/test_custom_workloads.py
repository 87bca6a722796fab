"""Custom workloads (``--workload file.py:function``) that are not callables, refuse the seed and
scale keywords, raise, return None, or return nothing to run: one line naming the workload, exit 2
(before: a TypeError/AttributeError traceback, or a silent run of an empty workload)."""

import pytest

from .conftest import one_line_error

MODULE = '''\
from sim.workload.kernel import Kernel, Workload

def returns_none(seed=0, scale=1.0):
    return None

def raises(seed=0, scale=1.0):
    raise RuntimeError("boom")

not_callable = 5

def no_keywords():
    return None

def no_kernels(seed=0, scale=1.0):
    return Workload("empty", [])

def empty_grid(seed=0, scale=1.0):
    return Workload("g", [Kernel("k", (0, 1, 1), (32, 1, 1), 8, 0, lambda cta, warp: iter(()))])

def empty_block(seed=0, scale=1.0):
    return Workload("b", [Kernel("k", (1, 1, 1), (0, 1, 1), 8, 0, lambda cta, warp: iter(()))])
'''


@pytest.mark.parametrize("function, fragment", [
    ("returns_none", "returned NoneType, not a Workload"),
    ("raises", "raised RuntimeError: boom"),
    ("not_callable", "names an object of type int, not a function"),
    ("no_keywords", "must accept the keywords seed= and scale="),
    ("no_kernels", "returned a Workload without kernels"),
    ("empty_grid", "kernel 'k' has grid (0, 1, 1)"),
    ("empty_block", "kernel 'k' has block (0, 1, 1)"),
    ("nosuch", "has no attribute 'nosuch'"),
])
def test_bad_custom_workload_is_one_line_naming_it(cli, tmp_path, function, fragment):
    path = tmp_path / "my_kernels.py"
    path.write_text(MODULE)
    line = one_line_error(cli("run", "--preset", "tiny", "--memory", "fixed",
                              "--workload", f"{path}:{function}"))
    assert f"--workload = '{path}:{function}'" in line and fragment in line


def test_a_module_that_fails_to_import_is_one_line(cli, tmp_path):
    path = tmp_path / "broken.py"
    path.write_text("raise ValueError('half-written module')\n")
    line = one_line_error(cli("run", "--preset", "tiny", "--workload", f"{path}:k"))
    assert "cannot load: ValueError: half-written module" in line
