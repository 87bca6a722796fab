"""``gpusched prove`` says which sizes it proves, picks cases with --param, names every
counterexample file before it writes one (no Yosys needed here: selection and errors only)."""

import pytest

from formal import cases_for
from gpusched.commands.prove_cmd import select_cases, vcd_names
from gpusched.config import ConfigError


def test_param_picks_the_cases_at_that_policy_or_size():
    gto = select_cases("warp_sched", ["policy=gto"])
    assert [c.label for c in gto] == ["W=4 policy=gto"]
    queues = select_cases("warp_sched", ["N=2"])
    assert queues and all(" N=2 " in f" {c.label} " for c in queues)
    assert len(select_cases("warp_sched", ["W=4"])) == len(cases_for("warp_sched"))


@pytest.mark.parametrize("param,says", [
    ("W=8", "warp_sched is proved at W = 4"),
    ("depth=3", "proofs have no parameter 'depth'"),
    ("policy", "expected name=value")])
def test_a_size_that_is_not_proved_names_the_sizes_that_are(param, says):
    with pytest.raises(ConfigError, match=says):
        select_cases("warp_sched", [param])


def test_several_cases_get_one_named_file_each():
    assert vcd_names("cex.vcd", 1) == ["cex.vcd"]
    assert vcd_names("out/cex.vcd", 3) == ["out/cex-0.vcd", "out/cex-1.vcd", "out/cex-2.vcd"]
    assert vcd_names("trace", 2) == ["trace-0.vcd", "trace-1.vcd"]
    assert vcd_names(None, 2) == [None, None]


def test_cli_rejects_an_unproved_size_with_exit_2(cli):
    r = cli("prove", "warp_sched", "--param", "W=64")
    assert r.returncode == 2 and "proved at W = 4" in r.stderr and r.stdout == ""
