"""``from gpusched import cuda``: run real CUDA kernels from their PTX, then on the GPU model.

    ctx = cuda.Context()                       # functional device memory, deterministic addresses
    mod = ctx.load_ptx("k.ptx")                # ctx.compile("k.cu") when nvcc is installed
    x = ctx.to_device(a); y = ctx.empty(n, np.float32); y.get()
    mod.launch("saxpy", grid=(g,), block=(256,), args=(np.int32(n), np.float32(2), x, y))
    ctx.write_trace("DIR")                     # Accel-Sim traces of every launch so far
    ctx.simulate(preset="gtx480", warp_scheduler="gto")   # the timing model -> run statistics

The front end is ``ptx`` (docs/ptx.md); each launch's instruction streams go to the trace cache,
keyed by the PTX, the launch and its input data, so timing runs reuse one execution.
"""

from __future__ import annotations

from pathlib import Path

from ptx.errors import LaunchError, MemoryFault, PTXDeadlock, PTXError, UnsupportedError
from ptx.host import FAMILY_VERSION, Context as _FrontEnd, DeviceArray

__all__ = ["Context", "DeviceArray", "PTXError", "UnsupportedError", "LaunchError",
           "MemoryFault", "PTXDeadlock"]


class Context(_FrontEnd):
    """The front end's context whose launches also become GPU-model kernels."""

    def __init__(self, family: str = "volta", cache: str | Path | None = None, progress: bool = True):
        from sim.workload.program_trace import sink_factory
        super().__init__(family, sink_factory(None if cache is None else Path(cache)), progress)

    def folders(self) -> list[Path]:
        return [Path(r.handle) for r in self.launches]

    def workload(self, name: str = "program"):
        """Every launch so far, in order, as a ``sim`` workload."""
        from sim.workload.program import workload_of
        if not self.launches:
            raise LaunchError("no kernel launched yet: nothing to simulate or trace")
        return workload_of(self.folders(), name)

    def write_trace(self, directory: str | Path, predicates: bool = False,
                    address_format: str | int = "auto") -> Path:
        """Accel-Sim traces (tracer version 4) of every launch so far: ``kernelslist.g`` and one
        ``kernel-N.traceg`` each. ``predicates=False`` (default) leaves the P registers out, as
        the NVBit tracer does; True keeps them, so ``gpusched run --trace`` sees every
        dependence ``simulate`` does."""
        from sim.workload.program_trace import write_accelsim
        if not self.launches:
            raise LaunchError("no kernel launched yet: nothing to write")
        return write_accelsim(self.folders(), directory, self.family, predicates, address_format)

    def simulate(self, preset: str = "gtx480", memory: str = "hierarchy", seed: int = 0,
                 overrides: list[str] | tuple = (), **policies) -> dict:
        """The GPU model on every launch so far; ``policies``: warp_scheduler (a name, as
        ``--warp-scheduler``), cta_scheduler, kernel_scheduler, cta_limit, sm_controller."""
        from gpusched.config import resolve_config
        from sim.run import simulate
        sets = list(overrides)
        ws = policies.pop("warp_scheduler", None)
        if ws is not None:
            sets.append(f"sm.warp_sched={ws}")
        cfg = resolve_config(preset, sets)
        return simulate(cfg, self.workload(), seed=seed, memory=memory, **policies)


FAMILIES = tuple(FAMILY_VERSION)
