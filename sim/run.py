"""One simulation run: build the memory system, the policies and the GPU; return JSON-ready stats.

``simulate`` is the entry point for the CLI, the experiments and the tests. Same config,
workload, seed and policies → byte-identical JSON (``json.dumps(result, sort_keys=True)``).
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import random
from pathlib import Path

from gpusched.config import ConfigError, GPUConfig
from sim.gpu import GPU, Deadlock
from sim.policies import POLICIES, make_policy
from sim.blocks.provider import TWINS, BlockProvider
from sim.stats import collect
from sim.workload.kernel import Workload

MEMORY_KINDS = ("fixed", "hierarchy")
DEFAULT_WATCHDOG = 100_000        # cycles without progress before Deadlock (choice)
DEFAULT_SAMPLE_INTERVAL = 1000    # cycles between occupancy samples (choice)

__all__ = ["simulate", "make_memory", "load_workload", "Deadlock", "BlockProvider",
           "MEMORY_KINDS", "DEFAULT_WATCHDOG"]


def make_memory(cfg: GPUConfig, kind: str = "fixed", blocks: BlockProvider = TWINS):
    """The memory system behind the SMs: ``fixed`` (latency/bandwidth stand-in) or
    ``hierarchy`` (L1/MSHR, interconnect, L2 slices, DRAM banks; its prefetch engines from
    ``blocks``). Imported lazily."""
    if kind == "fixed":
        for section in ("l1", "l2"):        # Perfect-L1/L2 modes live in the hierarchy
            if getattr(cfg, section).perfect:
                raise ConfigError(f"{section}.perfect", True,
                                  "needs --memory hierarchy (the fixed stand-in has no caches)")
        from sim.memory.fixed import FixedMemory
        return FixedMemory(cfg)
    if kind == "hierarchy":
        from sim.memory.hierarchy import MemoryHierarchy
        return MemoryHierarchy(cfg, blocks)
    raise ConfigError("--memory", kind, "allowed: " + ", ".join(MEMORY_KINDS))


TRACE_PREFIX = "trace:"


def trace_dir_of(name: str) -> Path | None:
    """The Accel-Sim trace directory a workload name denotes: ``trace:DIR``, or a directory
    holding ``kernelslist.g``; None for other names."""
    if name.startswith(TRACE_PREFIX):
        return Path(name[len(TRACE_PREFIX):])
    path = Path(name)
    return path if (path / "kernelslist.g").is_file() else None


def load_workload(name: str, seed: int = 0, scale: float = 1.0,
                  preset: str | None = None) -> Workload:
    """A catalogue workload by name; ``program:NAME`` / ``program:FILE.py``, a CUDA program on
    the PTX front end (sim.workload.program); ``module:function`` / ``path/file.py:function``
    returning a Workload (called with ``seed`` and ``scale``), e.g. hand-written kernels; or an Accel-Sim
    trace directory (``trace:DIR`` or a directory with ``kernelslist.g``; seed and scale do not
    apply; ``preset`` names the GPU for the architecture check). One name form for ``gpusched
    run --workload``, sweep grids and experiments."""
    if (trace := trace_dir_of(name)) is not None:
        from sim.workload.accelsim import read_trace_dir
        return read_trace_dir(trace, preset=preset)
    if name.startswith("program:"):
        from sim.workload.opcodes import FAMILY_OF_PRESET
        from sim.workload.program import run_program
        return run_program(name, seed=seed, scale=scale,
                           family=FAMILY_OF_PRESET.get(preset or "", "volta")).workload
    if ":" in name:
        mod, _, fn = name.rpartition(":")
        try:
            if mod.endswith(".py"):
                spec = importlib.util.spec_from_file_location(Path(mod).stem, mod)
                module = importlib.util.module_from_spec(spec)
                spec.loader.exec_module(module)
            else:
                module = importlib.import_module(mod)
            factory = getattr(module, fn)
        except (ImportError, AttributeError, OSError) as e:
            raise ConfigError("--workload", name, f"cannot load: {e}") from None
        except Exception as e:  # the module itself raised while importing
            raise ConfigError("--workload", name, f"cannot load: {type(e).__name__}: {e}") from None
        return _call_factory(name, factory, seed, scale)
    from sim.workload.catalogue import get_workload
    return get_workload(name, seed=seed, scale=scale)


def _call_factory(name: str, factory, seed: int, scale: float) -> Workload:
    """Call a custom workload factory; anything but a Workload with kernels to run is one
    ConfigError naming the workload (not a traceback, not a run of nothing)."""
    if not callable(factory):
        raise ConfigError("--workload", name, f"names an object of type {type(factory).__name__}, not a function "
                          "returning a Workload")
    try:
        inspect.signature(factory).bind(seed=seed, scale=scale)
    except TypeError:
        raise ConfigError("--workload", name, "must accept the keywords seed= and scale=") from None
    except ValueError:          # no signature (a builtin): just call it
        pass
    try:
        wl = factory(seed=seed, scale=scale)
    except ConfigError:
        raise
    except Exception as e:
        raise ConfigError("--workload", name, f"raised {type(e).__name__}: {e}") from None
    if not isinstance(wl, Workload):
        raise ConfigError("--workload", name, f"returned {type(wl).__name__}, not a Workload")
    if not wl.kernels:
        raise ConfigError("--workload", name, "returned a Workload without kernels")
    for k in wl.kernels:
        for what, dims in (("grid", k.grid), ("block", k.block)):
            if len(dims) != 3 or any(not isinstance(d, int) or d < 1 for d in dims):
                raise ConfigError("--workload", name, f"kernel {k.name!r} has {what} {dims}: "
                                  "three integers >= 1 expected")
    return wl


def simulate(cfg: GPUConfig, workload: Workload, seed: int = 0, memory: str | object = "fixed",
             progress=None, *, watchdog: int = DEFAULT_WATCHDOG,
             sample_interval: int = DEFAULT_SAMPLE_INTERVAL, profile: tuple[str, ...] = (),
             sample: str | None = None, blocks: BlockProvider = TWINS,
             **policy_overrides) -> dict:
    """Run ``workload`` on ``cfg`` to completion and return the stats dict (see sim.stats).

    ``memory``: a kind for ``make_memory`` or a ready ``MemorySystem`` object (tests, cosim).

    ``policy_overrides``: ``kernel_scheduler``, ``cta_scheduler``, ``cta_limit``,
    ``sm_controller`` (a registered name, a class/factory taking cfg, or an instance).

    ``blocks``: the block provider (sim/blocks/provider.py) every scheduling point takes its
    blocks from: the twins by default, RTL or lockstep blocks at chosen instances with cosim's
    ``RtlProvider`` (the statistics do not say which: a run with RTL gives the twin run's).

    Raises ``Deadlock`` when the watchdog fires, ConfigError on bad input.

    ``profile``: profilers to attach (``PROFILES``; ``warp-states`` adds the ``warp_states``
    statistic, sim/profile/warp_states.py); off by default, and then costless.

    ``sample``: ``"kernels[:TOL]"`` simulates representative launches and extrapolates the rest
    (sim/sampling.py), ``"waves[:TOL]"`` the first and last waves of long launches
    (sim/sampling_waves.py), ``"kernels,waves"`` both; the result's ``sampling`` key says which
    and how (``"none"``: no sampling, for sweep grids).
    """
    if sample not in (None, "none"):
        from sim import sampling
        spec = sampling.parse(sample)
        if spec.waves is not None and not isinstance(memory, str):
            raise ConfigError("--sample", sample, "waves needs a memory kind (fixed or "
                              "hierarchy): a launch may be simulated twice")
        cta_spec = policy_overrides.get("cta_scheduler")
        if spec.waves is not None and make_policy("cta_scheduler", cta_spec, cfg).chooses_cta_ids:
            raise ConfigError("--sample", sample, f"waves cannot cut launches under the CTA "
                              f"scheduler {cta_spec!r}: it chooses CTA ids itself, so the first "
                              "CTAs by id are not the first waves (use --sample kernels)")
        return sampling.run(spec, cfg, workload, lambda part: simulate(
            cfg, part, seed, memory, progress, watchdog=watchdog, sample_interval=sample_interval,
            profile=profile, blocks=blocks, **policy_overrides))
    unknown = set(policy_overrides) - set(POLICIES)
    if unknown:
        raise ConfigError("policy", ", ".join(sorted(unknown)), "known: " + ", ".join(POLICIES))
    if watchdog < 1:
        raise ConfigError("--watchdog", watchdog, "must be >= 1")
    if sample_interval < 1:
        raise ConfigError("sample_interval", sample_interval, "must be >= 1")
    policies = {kind: make_policy(kind, policy_overrides.get(kind), cfg) for kind in POLICIES}
    mem = make_memory(cfg, memory, blocks) if isinstance(memory, str) else memory
    gpu = GPU(cfg, workload, mem, rng=random.Random(seed), blocks=blocks, watchdog=watchdog,
              sample_interval=sample_interval, **policies)
    profilers = attach_profilers(gpu, profile)
    gpu.run(progress)
    meta = {"preset": cfg.name, "workload": workload.name, "seed": seed,
            "policies": {k: type(p).__name__ for k, p in policies.items()},
            "policy_reports": {k: r for k, p in policies.items() if (r := p.report()) is not None},
            "warp_sched": cfg.sm.warp_sched}
    result = collect(gpu, meta, memory if isinstance(memory, str) else type(memory).__name__)
    for key, prof in profilers.items():
        result[key] = prof.report(gpu.runs, gpu.cycles)
    return result


PROFILES = ("warp-states", "owl")


def attach_profilers(gpu: GPU, names: tuple[str, ...]) -> dict:
    """The profilers ``names`` (``PROFILES``) attached to ``gpu``'s SMs, by statistic key:
    ``warp-states`` → ``warp_states`` (sim/profile/warp_states.py), ``owl`` → ``owl``
    (sim/profile/owl_metrics.py; also on the DRAM's column accesses)."""
    out: dict = {}
    for name in names:
        if name not in PROFILES:
            raise ConfigError("--profile", name, "allowed: " + ", ".join(PROFILES))
        if name == "warp-states" and "warp_states" not in out:
            from sim.profile.warp_states import WarpStateProfiler
            out["warp_states"] = WarpStateProfiler(len(gpu.sms))
        elif name == "owl" and "owl" not in out:
            from sim.profile.owl_metrics import OwlMetricsProfiler
            dram = getattr(gpu.memory, "dram", None)
            prof = OwlMetricsProfiler(gpu.sms, *((len(dram.channels), dram.n_banks) if dram else ()))
            if dram is not None:
                dram.probe = prof
            out["owl"] = prof
    if out:
        from sim.profile.owl_metrics import Profilers
        hook = next(iter(out.values())) if len(out) == 1 else Profilers(list(out.values()))
        for sm in gpu.sms:
            sm.profiler = hook
    return out
