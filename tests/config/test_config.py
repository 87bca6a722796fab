"""Presets, TOML round-trip, overrides and one-line validation errors (exit status 2)."""

import subprocess
import sys

import pytest

from gpusched.config import (ConfigError, dumps_toml, get_preset, load_toml, preset_names,
                             with_overrides)


def gpusched(*args):
    return subprocess.run([sys.executable, "-c", "from gpusched.cli import main; main()", *args],
                          capture_output=True, text=True)


@pytest.mark.parametrize("name", ["tiny", "gtx480", "gp102", "ikra_15cu", "thesis"])
def test_presets_are_valid_and_round_trip(name, tmp_path):
    cfg = get_preset(name)
    path = tmp_path / "c.toml"
    path.write_text(dumps_toml(cfg))
    assert load_toml(path) == cfg


def test_preset_values_from_specs():
    g = get_preset("gtx480")      # [SRTF]
    assert (g.sm.count, g.sm.threads_per_sm, g.sm.regs_per_sm, g.sm.max_ctas_per_sm) == (15, 1536, 32768, 8)
    assert g.l2.slices * g.l2.size_per_slice == 768 * 1024
    p = get_preset("gp102")       # [SOCGPU]
    assert (p.sm.count, p.sm.subcores, p.sm.warps_per_sm, p.core_clock_mhz) == (28, 4, 64, 1480.0)
    assert p.l2.slices * p.l2.size_per_slice == 2816 * 1024  # 2.75 MB
    t = get_preset("thesis")      # [THESIS Table 4.3]: 177.4 GB/s
    gbps = t.dram.channels * t.dram.bus_bytes * t.dram.data_rate * t.dram.clock_mhz / 1000
    assert gbps == pytest.approx(177.4, abs=0.1)
    k = get_preset("ikra_15cu")   # [IKRA]
    assert (k.sm.count, k.l1.size_bytes, k.l1.line_bytes, k.l2.slices) == (15, 128 * 1024, 64, 16)


def test_override_applies_and_types():
    cfg = with_overrides(get_preset("tiny"), ["sm.count=4", "l1.write_policy=write_back",
                                              "dram.clock_mhz=800", "sm.dual_issue=true"])
    assert cfg.sm.count == 4 and cfg.l1.write_policy == "write_back"
    assert cfg.dram.clock_mhz == 800.0 and cfg.sm.dual_issue is True


@pytest.mark.parametrize("override, field, fragment", [
    ("sm.count=0", "sm.count", ">= 1"),                             # impossible value
    ("sm.cnt=3", "sm.cnt", "unknown field"),                        # unknown field
    ("nosuch.count=3", "nosuch", "unknown field"),                  # unknown section
    ("sm.count=abc", "sm.count", "expected an integer"),            # wrong type
    ("sm.dual_issue=maybe", "sm.dual_issue", "true or false"),      # wrong type
    ("sm.warps_per_sm=7", "sm.warps_per_sm", "divisible by sm.subcores"),
    ("sm.sms_per_cluster=3", "sm.sms_per_cluster", "must divide sm.count"),
    ("l1.size_bytes=5000", "l1.size_bytes", "sets × l1.ways × l1.line_bytes"),
    ("dram.bank_bit=8", "dram.bank_bit", "overlaps dram.channel_bit"),
    ("kernels.ikra_victim_first=up", "kernels.ikra_victim_first", "right"),
])
def test_bad_override_is_one_line_exit_2(override, field, fragment):
    with pytest.raises(ConfigError) as e:
        with_overrides(get_preset("tiny"), [override])
    assert str(e.value).startswith(field) and fragment in str(e.value)
    r = gpusched("config", "show", "tiny", "--set", override)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and field in lines[0] and fragment in lines[0], r.stderr
    assert r.stdout == ""


def test_a_warp_scheduler_name_is_checked_by_the_model_not_the_config():
    # the names live in the model's registry (sim/policies/warp_sched.py), which the config
    # package does not import: the config takes the string, the GPU and ``config show`` reject it
    from sim.gpu import GPU
    from sim.workload.catalogue import get_workload
    cfg = with_overrides(get_preset("tiny"), ["sm.warp_sched=fifo"])
    with pytest.raises(ConfigError, match="^sm.warp_sched = 'fifo': unknown; known: lrr, gto"):
        GPU(cfg, get_workload("mem_stream"), None, kernel_scheduler=None, cta_scheduler=None,
            cta_limit=None, sm_controller=None, rng=None)
    r = gpusched("config", "show", "tiny", "--set", "sm.warp_sched=fifo")
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 2 and r.stdout == "" and len(lines) == 1
    assert "sm.warp_sched" in lines[0] and "unknown; known: lrr, gto" in lines[0]


def test_bad_toml_file_errors(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("[sm]\ncount = 'four'\n")
    r = gpusched("config", "show", str(bad))
    assert r.returncode == 2 and "sm.count" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    broken = tmp_path / "broken.toml"
    broken.write_text("[sm\ncount = 4\n")
    r = gpusched("config", "show", str(broken))
    assert r.returncode == 2 and "malformed TOML" in r.stderr


def test_toml_with_preset_key(tmp_path):
    f = tmp_path / "mine.toml"
    f.write_text('preset = "gtx480"\n[sm]\ncount = 4\n')
    cfg = load_toml(f)
    assert cfg.sm.count == 4 and cfg.sm.threads_per_sm == 1536


def test_unknown_preset():
    r = gpusched("config", "show", "gtx9000")
    assert r.returncode == 2 and "known presets" in r.stderr
    assert set(preset_names()) >= {"tiny", "gtx480", "gp102", "ikra_15cu", "thesis"}


def test_config_show_comments_every_field_with_its_meaning_and_unit(tmp_path):
    """Each field line is preceded by a comment with its doc (and its [unit] where it has one);
    the commented file loads back to the same config."""
    from gpusched.config.validate import _walk
    text = gpusched("config", "show", "gp102").stdout
    lines = text.splitlines()
    for path, _, f in _walk(get_preset("gp102")):
        if path == "name":
            continue
        key = path.rsplit(".", 1)[-1]
        at = next(i for i, line in enumerate(lines) if line.startswith(f"{key} = ")
                  and _section_of(lines, i) == path.rpartition(".")[0])
        comment = []
        for line in reversed(lines[:at]):
            if not line.startswith("# "):
                break
            comment.insert(0, line[2:])
        joined = " ".join(comment)
        assert f.metadata["doc"].split()[0] in joined, path
        if f.metadata["unit"]:
            assert f"[{f.metadata['unit']}]" in joined, path
    saved = tmp_path / "g.toml"
    saved.write_text(text)
    assert load_toml(saved) == get_preset("gp102")


def _section_of(lines, at):
    for line in reversed(lines[:at]):
        if line.startswith("["):
            return line.split("]")[0].strip("[")
    return ""


def test_partial_toml_needs_a_named_base(tmp_path):
    f = tmp_path / "mine.toml"
    f.write_text('base = "gp102"\n[l1]\nways = 8\n')
    cfg = load_toml(f)
    assert cfg.sm == get_preset("gp102").sm and cfg.l1.ways == 8
    f.write_text("[sm]\ncount = 4\n")
    r = gpusched("config", "show", str(f))
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1
    assert 'base = "NAME"' in r.stderr and "gp102" in r.stderr and "mine.toml:1" in r.stderr


def test_cache_capacity_is_derived_from_its_shape():
    base = get_preset("gp102")
    more_sets = with_overrides(base, ["l1.sets=" + str(base.l1.sets * 2)])
    assert more_sets.l1.size_bytes == 2 * base.l1.size_bytes
    assert with_overrides(base, ["l2.ways=" + str(base.l2.ways * 2)]).l2.size_per_slice \
        == 2 * base.l2.size_per_slice
    half = with_overrides(base, ["l1.size_bytes=" + str(base.l1.size_bytes // 2)])
    assert half.l1.sets == base.l1.sets // 2 and half.l1.ways == base.l1.ways
    with pytest.raises(ConfigError, match="l1.size_bytes"):  # both given and inconsistent
        with_overrides(base, ["l1.sets=" + str(base.l1.sets * 2),
                              "l1.size_bytes=" + str(base.l1.size_bytes)])
    with pytest.raises(ConfigError, match="l1.size_bytes"):  # not a whole number of sets
        with_overrides(base, ["l1.size_bytes=1000"])


def test_preset_error_mentions_toml_paths():
    r = gpusched("run", "--workload", "alpha", "--preset", "gtx9000")
    assert r.returncode == 2 and ".toml" in r.stderr


def test_the_config_knows_the_slice_counts_with_ipoly_tables():
    # validate.py checks dram.partition_map = ipoly against its own list (the config imports
    # nothing of the model); the model's tables are the truth
    from gpusched.config.validate import IPOLY_SLICES
    from sim.memory.dram_map import IPOLY
    assert sorted(IPOLY_SLICES) == sorted(IPOLY)
