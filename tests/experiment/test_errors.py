"""Bad input → one line on stderr, exit status 2, naming the key and file:line."""

import pytest

GOOD = """\
[sweep]
name = "toy"
kind = "toy"
preset = "tiny"
workloads = ["alpha", "beta"]
seeds = [0, 1]

[sweep.overrides]
"sm.warp_sched" = ["lrr", "gto"]
"""


def line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


@pytest.mark.parametrize("old, new, needle, fragment", [
    ('seeds = [0, 1]', 'seeds = [0, 1]\nworklods = ["alpha"]', "worklods",
     "worklods = ['alpha']: unknown grid key; known: name, kind, preset"),
    ('preset = "tiny"', 'preset = "gtx9000"', "gtx9000", "preset = 'gtx9000': known presets"),
    ('["alpha", "beta"]', '["alpha",\n  "nosuch"]', "nosuch", "workload = 'nosuch': known: alpha"),
    ('["lrr", "gto"]', '["lrr",\n  "xyz"]', "xyz", "sm.warp_sched = 'xyz'"),
    ('"sm.warp_sched"', '"sm.warp_schedd"', "warp_schedd", "sm.warp_schedd = "),
    ('kind = "toy"', 'kind = "toyy"', "toyy", "kind = 'toyy': unknown runner kind"),
    ('seeds = [0, 1]', 'seeds = ["zero"]', "seeds", "seeds = ['zero']: expected an integer"),
])
def test_bad_grid_names_key_and_line(cli, tmp_path, old, new, needle, fragment):
    text = GOOD.replace(old, new)
    path = tmp_path / "grid.toml"
    path.write_text(text)
    r = cli("sweep", path, "--db", tmp_path / "r.sqlite", "--jobs", "1", "-q")
    assert r.returncode == 2, r.stdout + r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    assert f"{path}:{line_of(text, needle)} " in r.stderr and fragment in r.stderr
    assert not (tmp_path / "r.sqlite").exists()  # nothing ran


@pytest.mark.parametrize("old, new, where, fragment", [
    ('name = "toy"', 'name = toy', ":2:8 = 'name = toy'", "malformed TOML: Invalid value"),
    ('["lrr", "gto"]', '["lrr", "gto"', ":9 = '\"sm.warp_sched\" = [\"lrr\", \"gto\"'",
     "malformed TOML: Unclosed array"),
])
def test_malformed_toml_names_line(cli, tmp_path, old, new, where, fragment):
    path = tmp_path / "grid.toml"
    path.write_text(GOOD.replace(old, new))
    r = cli("sweep", path, "-q")
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1
    assert f"{path}{where}" in r.stderr and fragment in r.stderr


@pytest.mark.parametrize("args, fragment", [
    (("report", "nosuch_paper", "--no-run"), "PAPER = 'nosuch_paper': no such experiment; known: "),
    (("report", "baseline_warp", "--no-run", "--catalogue"), "--catalogue = 'baseline_warp': "
     "baseline_warp has no "
     "catalogue variant"),
    (("sweep", "GRID", "--plugin", "no_such_plugin_mod"), "--plugin = 'no_such_plugin_mod'"),
    (("sweep", "GRID", "--jobs", "0"), "--jobs = 0"),
    (("sweep", "nosuch.toml"), "nosuch.toml = '': cannot read grid file"),
    (("results", "query", "--db", "nosuch.sqlite"), "--db = 'nosuch.sqlite': no results store"),
])
def test_bad_command_input_is_one_line(cli, tmp_path, monkeypatch, args, fragment):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "GRID").write_text(GOOD)
    r = cli(*args)
    assert r.returncode == 2, r.stdout + r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and fragment in r.stderr


def test_catalogue_variant_is_the_modules_catalogue(tmp_path, monkeypatch):
    """``--catalogue`` picks the module's CATALOGUE experiment, the default its EXPERIMENT."""
    import sys
    import types

    from gpusched.experiment.registry import get_experiment
    mod = types.ModuleType("toy_paper_variants")
    base = get_experiment("perfsat")
    mod.EXPERIMENT = base
    mod.CATALOGUE = base.__class__(**{**base.__dict__, "name": "perfsat-catalogue"})
    monkeypatch.setitem(sys.modules, "toy_paper_variants", mod)
    assert get_experiment("toy_paper_variants").name == base.name
    assert get_experiment("toy_paper_variants", catalogue=True).name == "perfsat-catalogue"
