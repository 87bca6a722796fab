"""``gpusched run --preset P (--workload W | --trace DIR) [--set k=v ...] [--seed N] [--json]
[--issue STAGE] [--warp-scheduler NAME] [--memory fixed|hierarchy] [--watchdog N] [--cta-scheduler NAME]
[--kernel-scheduler NAME] [--cta-limit NAME] [--sm-controller NAME] [--profile warp-states
[--profile-plot PNG]] [--rtl BLOCK[@INSTANCE] … [--rtl-sim verilator|amaranth|twin] [--lockstep]]``:
one GPU-model run
(policy names: sim/policies; ``--issue socgpu`` = ``--set sm.issue=socgpu --set sm.ib_entries=8``).

Exit status 2 on bad input (one line), 3 when the deadlock watchdog fires (one line naming the
SM, warp and wait reason), 1 when ``--lockstep`` finds the RTL and the twin differ (the first
differing cycle, its inputs and both outputs).
"""

from __future__ import annotations

import sys
from typing import List, Optional

import typer

from gpusched import jsonout
from gpusched.config import ConfigError


def _policy_help(kind: str) -> str:
    from sim.policies import BASELINES, policy_names
    return f"{' | '.join(policy_names(kind))} (default {BASELINES[kind]})"


def _warp_families():
    from sim.policies.warp_sched import WARP_SCHEDULERS
    return WARP_SCHEDULERS.values()


def run(preset: str = typer.Option("gtx480", "--preset", help="preset name or config .toml"),
        workload: Optional[str] = typer.Option(None, "--workload",
                                               help="catalogue name, module:function / file.py:function, or an "
                                               "Accel-Sim trace directory (as in sweep grids)"),
        trace: Optional[str] = typer.Option(None, "--trace", help="Accel-Sim trace directory"),
        program: Optional[str] = typer.Option(None, "--program", metavar="NAME|FILE.py",
                                              help="a CUDA program run on the PTX front end: a suite "
                                              "program (gpusched workloads --programs) or a host "
                                              "program file with main(ctx, seed, scale) (docs/ptx.md)"),
        set_: Optional[List[str]] = typer.Option(None, "--set", help="section.field=value"),
        issue: Optional[str] = typer.Option(None, "--issue",
                                            help="issue stage: inorder | socgpu (N = 8, the "
                                                 "spec default) | inorder_issue; --set wins"),
        warp_scheduler: Optional[str] = typer.Option(
            None, "--warp-scheduler", metavar="NAME",
            help="warp scheduler (= --set sm.warp_sched=NAME; --set wins): "
                 + "; ".join(f"{f.usage()}: {f.doc}" for f in _warp_families())),
        seed: int = typer.Option(0, "--seed"),
        scale: float = typer.Option(1.0, "--scale", help="workload size factor (catalogue)"),
        memory: str = typer.Option("hierarchy", "--memory",
                                   help="hierarchy (caches, interconnect, DRAM) | fixed (stand-in)"),
        watchdog: int = typer.Option(100_000, "--watchdog", help="cycles without progress → deadlock"),
        cta_scheduler: Optional[str] = typer.Option(None, "--cta-scheduler", help=_policy_help("cta_scheduler")),
        kernel_scheduler: Optional[str] = typer.Option(None, "--kernel-scheduler",
                                                       help=_policy_help("kernel_scheduler")),
        cta_limit: Optional[str] = typer.Option(None, "--cta-limit", help=_policy_help("cta_limit")),
        sm_controller: Optional[str] = typer.Option(None, "--sm-controller", help=_policy_help("sm_controller")),
        profile: Optional[List[str]] = typer.Option(
            None, "--profile", metavar="NAME",
            help="attach a profiler: warp-states (the 8 warp states of [THESIS §5.3] per kernel and "
                 "SM, ALU/MEM load; key warp_states); owl (OWL's CINV, MemoryBlockCycles, "
                 "NoWarpCycles, RBL per bank; key owl)"),
        profile_plot: Optional[str] = typer.Option(
            None, "--profile-plot", metavar="PNG",
            help="with --profile warp-states: write the stacked-area plot of the states over time "
                 "(PNG + PDF)"),
        sample: Optional[str] = typer.Option(
            None, "--sample", metavar="kernels[:TOL],waves[:TOL]",
            help="kernels: simulate representative kernel launches and extrapolate the others "
                 "(groups of launches within TOL, default 0.05); waves: simulate the first and "
                 "last waves of long launches and estimate the CTAs between at the steady rate "
                 "(TOL: the rate windows' agreement, default 0.05); both comma-separated; "
                 "docs/sampling.md; the output says so"),
        rtl: Optional[List[str]] = typer.Option(
            None, "--rtl", metavar="BLOCK[@INSTANCE]",
            help="put the block's RTL at that instance (every instance without @): e.g. "
                 "warp_sched@sm0, cta_sched, owl_prefetch@mc3, kernel_sched (repeatable; "
                 "docs/architecture.md)"),
        rtl_sim: str = typer.Option("verilator", "--rtl-sim",
                                    help="RTL backend: verilator | amaranth | twin (the block's "
                                         "port-level twin through the same ports)"),
        lockstep: bool = typer.Option(False, "--lockstep",
                                      help="with --rtl: compare every RTL cycle with the twin; "
                                           "the first difference exits 1"),
        as_json: bool = typer.Option(False, "--json", help="print one JSON object"),
        fmt: str = typer.Option("table", "--format",
                                help="table | accelsim (Accel-Sim's key = value statistics)")):
    """Simulate a workload on a GPU preset and print the statistics."""
    from gpusched.config import resolve_config
    from sim.run import MEMORY_KINDS, TRACE_PREFIX, Deadlock, load_workload, simulate

    from gpusched.limits import check_seed
    check_seed("--seed", seed)
    stage = [f"sm.issue={issue}"] + (["sm.ib_entries=8"] if issue == "socgpu" else [])
    chosen = [f"sm.warp_sched={warp_scheduler}"] if warp_scheduler else []
    cfg = resolve_config(preset, chosen + (stage if issue else []) + list(set_ or []))
    from sim.policies.warp_sched import check_config
    check_config(cfg)           # the model's own names, before the workload is built
    policies = {k: v for k, v in (("cta_scheduler", cta_scheduler), ("kernel_scheduler", kernel_scheduler),
                                  ("cta_limit", cta_limit), ("sm_controller", sm_controller)) if v}
    if fmt not in ("table", "accelsim"):
        raise ConfigError("--format", fmt, "allowed: table, accelsim")
    if memory not in MEMORY_KINDS:
        raise ConfigError("--memory", memory, "allowed: " + ", ".join(MEMORY_KINDS))
    _check_limits(cfg, policies, watchdog)
    profile = tuple(profile or ())
    if profile_plot is not None and "warp-states" not in profile:
        raise ConfigError("--profile-plot", profile_plot, "needs --profile warp-states")
    from gpusched.paths import check_output_file
    check_output_file(profile_plot, "--profile-plot")     # before the run, not after it
    given = {flag: x for flag, x in (("--workload", workload), ("--trace", trace),
                                     ("--program", program)) if x is not None}
    if not given:
        raise typer.BadParameter("no workload: give --workload NAME (the catalogue: gpusched "
                                 "workloads; or module:function, file.py:function), --trace DIR "
                                 "or --program NAME|FILE.py")
    if len(given) > 1:
        flags = list(given)
        raise ConfigError(flags[1], given[flags[1]],
                          f"give one of --workload, --trace, --program, not {' and '.join(flags)}")
    from sim.workload.accelsim import trace_warnings_to_stderr
    from sim.workload.program import PROGRAM_PREFIX
    with trace_warnings_to_stderr():
        name = TRACE_PREFIX + trace if trace is not None else \
            PROGRAM_PREFIX + program if program is not None else workload
        wl = load_workload(name, seed=seed, scale=scale, preset=cfg.name)
    from gpusched.rtl_opts import rtl_provider, run_with_rtl
    blocks = rtl_provider(rtl, rtl_sim, lockstep)
    import gc
    import time
    gc.freeze()     # modules, config, workload: long-lived, the collector need not scan them
    started = time.perf_counter()
    try:
        with _progress_bar(_cta_total(wl)) as progress:
            result = run_with_rtl(blocks, lambda b: simulate(
                cfg, wl, seed=seed, memory=memory, progress=progress, watchdog=watchdog,
                profile=profile, sample=sample, blocks=b, **policies))
    except Deadlock as e:
        print(f"gpusched: {e}", file=sys.stderr)
        sys.exit(3)
    if profile_plot is not None:
        from gpusched.experiment.profile_plot import plot_warp_states
        plot_warp_states(result["warp_states"], profile_plot, title=f"{wl.name} on {cfg.name}")
    seconds = time.perf_counter() - started
    if as_json or fmt == "accelsim":
        from sim.workload.trace_stats import accelsim_stats, format_accelsim
        result["accelsim"] = accelsim_stats(result, wl, cfg.l1.bypass_global_loads,
                                            cfg.core_clock_mhz)
    if as_json:
        typer.echo(jsonout.dumps(result, sort_keys=True))
    elif fmt == "accelsim":
        typer.echo(format_accelsim(result["accelsim"], {"seconds": seconds,
                                                         "core_clock_mhz": cfg.core_clock_mhz}))
    else:
        _print_summary(result, l1_bypassed=cfg.l1.bypass_global_loads)


def _check_limits(cfg, policies: dict, watchdog: int) -> None:
    """What the model and the blocks would reject mid-run, checked before it starts."""
    from gpusched.config.validate import check_block_limits, check_watchdog
    if watchdog >= 1:
        check_watchdog(cfg, watchdog)
    check_block_limits(cfg, policies)


def _cta_total(wl) -> int | None:
    """CTAs of every kernel of the workload, known before the run starts (None if not)."""
    try:
        return sum(k.n_ctas for k in wl.kernels)
    except (AttributeError, TypeError):
        return None


class _progress_bar:
    """Rich progress on stderr (a terminal only): CTAs done of all CTAs, cycle, instructions."""

    def __init__(self, total: int | None = None):
        self.total = total

    def __enter__(self):
        self.bar = None
        if not sys.stderr.isatty():
            return self
        from rich.console import Console
        from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
        self.bar = Progress(TextColumn("[bold]simulating"), BarColumn(),
                            TextColumn("{task.completed}/{task.total} CTAs"),
                            TextColumn("cycle {task.fields[cycle]:,}  {task.fields[insts]:,} warp-insts"),
                            TimeElapsedColumn(), console=Console(stderr=True), transient=True)
        self.bar.__enter__()
        self.task = self.bar.add_task("run", total=self.total, cycle=0, insts=0)
        return self

    def __call__(self, cycle: int, insts: int, ctas_done: int, ctas_total: int) -> None:
        if self.bar is not None:
            self.bar.update(self.task, completed=ctas_done, total=ctas_total, cycle=cycle, insts=insts)

    def __exit__(self, *exc):
        return self.bar.__exit__(*exc) if self.bar is not None else None


def sampled_lines(s: dict) -> list[str]:
    """The ``sampled:`` lines of a sampled run's text output (docs/sampling.md)."""
    err = s["estimated_error"]
    err_text = f"{err:.1%}" if err is not None else "n/a (no group with two representatives)"
    lines = []
    if "simulated" in s:
        lines.append(f"[bold yellow]sampled[/]: {len(s['simulated'])} of {s['launches']} launches "
                     f"simulated in detail ({s['simulated_warp_insts']:,} warp instructions), "
                     f"{len(s['groups'])} groups (tolerance {s['tolerance']:g}), the others "
                     f"estimated; estimated error {err_text}; other statistics are of the "
                     "simulated launches")
    w = s.get("waves")
    if w is not None:
        cut = ", ".join(f"launch {c['launch']}: {sum(b - a for a, b in c['simulated_ctas'])} of "
                        f"{c['ctas']} CTAs" for c in w["cut"]) or "none"
        full = ", ".join(str(i) for i in w["full"])
        lines.append(f"[bold yellow]sampled[/] (waves, tolerance {w['tolerance']:g}): {cut} "
                     f"simulated, the others at the steady rate ({w['estimated_cycles']:,} "
                     "cycles estimated)" + (f"; not steady, simulated in full: launch {full}"
                                            if full else "")
                     + ("" if "simulated" in s else f"; estimated error {err_text}; other "
                        "statistics are of the simulated CTAs"))
    return lines


def _print_summary(r: dict, l1_bypassed: bool = False) -> None:
    from gpusched.commands import stdout_console
    from rich.table import Table
    console = stdout_console()
    console.print(f"[bold]{r['workload']}[/] on {r['preset']} ({r['memory']['kind']} memory, seed {r['seed']}): "
                  f"{r['cycles']:,} cycles, {r['warp_insts']:,} warp instructions, "
                  f"warp IPC {r['ipc']:.3f}")
    if "sampling" in r:
        for line in sampled_lines(r["sampling"]):
            console.print(line, highlight=False)
    for line in summary_lines(r, l1_bypassed):
        console.print(line, highlight=False, soft_wrap=True)
    kt = Table(title="kernels")
    for col in ("#", "name", "start", "end", "cycles", "warp insts", "warp IPC", "CTAs", "CTAs/SM",
                "limited by"):
        kt.add_column(col, justify="right")
    for k in r["kernels"]:
        kt.add_row(str(k["index"]), k["name"], f"{k['start']:,}", f"{k['end']:,}", f"{k['cycles']:,}",
                   f"{k['warp_insts']:,}", f"{k['ipc']:.3f}", str(k["ctas"]), str(k["occupancy_limit"]),
                   k["occupancy_limiter"])
    console.print(kt)
    total = sum(r["issue"].values()) or 1
    it = Table(title="issue slots (scheduler-cycles)")
    it.add_column("reason")
    it.add_column("count", justify="right")
    it.add_column("share", justify="right")
    for reason, n in r["issue"].items():
        it.add_row(reason, f"{n:,}", f"{100 * n / total:.1f}%")
    console.print(it)
    if "warp_states" in r:
        from gpusched.experiment.profile_plot import summary_table
        console.print(summary_table(r["warp_states"]))
    if "owl" in r:
        from sim.profile.owl_metrics import summary_table as owl_table
        console.print(owl_table(r["owl"]))
    console.print("One slot per scheduler per cycle; 'issued' counts slots, not instructions: a "
                  f"dual-issue slot issues 2 ({r['issue_stage'].get('dual_issues', 0):,} such slots "
                  "here). Definitions: docs/stats.md", highlight=False, soft_wrap=True)


def hit_rate_text(cache: dict, bypassed: bool = False) -> str:
    """A cache's hit rate for people: "bypassed" when global loads skip it, "n/a" when nothing
    looked it up (0 % would claim every access missed)."""
    if bypassed:
        return "bypassed"
    if cache["hits"] + cache["misses"] + cache["merges"] == 0:
        return "n/a (no loads)"
    return f"{cache['hit_rate']:.1%}"


def summary_lines(r: dict, l1_bypassed: bool = False) -> list[str]:
    """Policies in force, a memory summary and total energy, one line each (docs/stats.md)."""
    pol = r["policies"]         # class names: a registered name may be a variant of a class
    lines = [f"policies: warp scheduler {r['warp_sched']} · issue stage {r['issue_stage']['kind']} · "
             f"CTA scheduler {pol['cta_scheduler']} · kernel scheduler {pol['kernel_scheduler']} · "
             f"CTA limit {pol['cta_limit']} · SM controller {pol['sm_controller']}"]
    m, cycles = r["memory"], r["cycles"] or 1
    if "dram" in m:
        d = m["dram"]
        bw = (d["bytes_read"] + d["bytes_written"]) / cycles
        peak = d["peak_bytes_per_cycle"]
        accesses = d["row_hits"] + d["row_closed"] + d["row_conflicts"]
        row_hits = f"{d['row_hit_rate']:.1%}" if accesses else "n/a (no accesses)"
        lines.append(f"memory: L1 hit rate {hit_rate_text(m['l1'], l1_bypassed)}, "
                     f"L2 hit rate {hit_rate_text(m['l2'])}, "
                     f"DRAM {bw:.1f} B/cycle ({bw / peak:.0%} of peak {peak:.1f}), "
                     f"DRAM row-hit rate {row_hits}")
    elif "bytes" in m:
        bw = m["bytes"] / cycles
        lines.append(f"memory: fixed latency {m['latency']} cycles, {bw:.1f} B/cycle "
                     f"of {m['bytes_per_cycle']:.1f}, mean request latency {m['avg_latency']:.0f} cycles")
    e = r.get("energy")
    if e:
        parts = [f"{k[:-3]} {e[k] / 1e6:,.1f}" for k in ("memory_pj", "core_pj", "static_sm_pj",
                                                       "static_uncore_pj") if k in e]
        note = "" if "memory_pj" in e else " (no memory energy: fixed memory)"
        lines.append(f"energy: {e['total_pj'] / 1e6:,.1f} µJ total = {' + '.join(parts)}{note}")
    return lines


def register(app: typer.Typer) -> None:
    app.command("run")(run)
