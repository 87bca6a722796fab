"""The state of one chunk of CTAs: registers (special registers included), shared memory per
CTA, local memory per thread, barrier counts and exited threads, and the lookups the
instruction builders use (thread → CTA, lane → thread, one-line fault messages)."""

from __future__ import annotations

import numpy as np

from .errors import MemoryFault
from .values import DTYPE


def _views(buf: np.ndarray) -> dict[int, np.ndarray]:
    return {1: buf, 2: buf.view(np.uint16), 4: buf.view(np.uint32), 8: buf.view(np.uint64)}


class ChunkState:
    def __init__(self, launch, cta_first: int, n_ctas: int):
        prog = launch.prog
        wpc, tpc = launch.wpc, launch.tpc
        self.launch, self.prog = launch, prog
        self.cta_first, self.n_ctas = cta_first, n_ctas
        self.n_warps = n_ctas * wpc
        T = self.n_warps * 32
        self.T = T
        t = np.arange(T, dtype=np.int64)
        self.thread_index = t
        per_cta = wpc * 32
        self.cta_of_thread = (t // per_cta).astype(np.int64)
        lin = t % per_cta
        self.valid = lin < tpc
        self.cta_of_warp = np.arange(self.n_warps) // wpc
        self.gthread = (cta_first * per_cta + t).astype(np.int64)
        self.insts = launch.insts
        bx, by, bz = launch.block
        gx, gy, gz = launch.grid
        cta = cta_first + self.cta_of_thread
        specials = {
            "%tid.x": lin % bx, "%tid.y": (lin // bx) % by, "%tid.z": lin // (bx * by),
            "%ctaid.x": cta % gx, "%ctaid.y": (cta // gx) % gy, "%ctaid.z": cta // (gx * gy),
            "%ntid.x": bx, "%ntid.y": by, "%ntid.z": bz, "%nctaid.x": gx, "%nctaid.y": gy,
            "%nctaid.z": gz, "%laneid": t % 32, "%warpid": lin // 32, "%nwarpid": wpc,
            "%smid": 0, "%nsmid": 1, "%gridid": launch.launch_index,
            "%lanemask_eq": np.left_shift(1, t % 32), "%lanemask_lt": np.left_shift(1, t % 32) - 1,
            "%lanemask_le": np.left_shift(2, t % 32) - 1,
            "%lanemask_ge": ~(np.left_shift(1, t % 32) - 1),
            "%lanemask_gt": ~(np.left_shift(2, t % 32) - 1),
            "%dynamic_smem_size": launch.shared_dynamic,
            "%total_smem_size": prog.dynamic_offset() + launch.shared_dynamic,
            "%globaltimer": 0, "%globaltimer_lo": 0, "%globaltimer_hi": 0}
        self.R: list[np.ndarray] = []
        for name, typ in prog.ops.types.items():
            dt = DTYPE[typ]
            if name in specials:
                v = np.asarray(specials[name]).astype(np.int64).astype(dt)
                self.R.append(np.broadcast_to(v, (T,)) if v.ndim == 0 else v)
            else:
                self.R.append(np.zeros(T, dt))
        self.mem = launch.mem
        self.params = launch.params
        self.smem_size = prog.dynamic_offset() + launch.shared_dynamic
        self.smem_stride = -(-max(self.smem_size, 1) // 16) * 16
        self.shared_views = _views(np.zeros(n_ctas * self.smem_stride, np.uint8))
        self.local_size = prog.local_size
        self.local_stride = max(16, prog.local_size)
        self.local_views = _views(np.zeros(T * self.local_stride if prog.local_size else 16, np.uint8))
        self.const_size = len(launch.const)
        self.const_views = _views(launch.const)
        self.grid_threads = launch.n_ctas * per_cta
        self.live = np.bincount(self.cta_of_thread[self.valid], minlength=n_ctas).astype(np.int64)
        self.arrived: dict[tuple[int, int], int] = {}
        self.expected: dict[tuple[int, int], int | None] = {}
        self.cc = prog.ops.index["%cc"]

    # -- lookups for the builders ---------------------------------------------------------
    def batch_len(self, sel) -> int:
        return sel.stop - sel.start if isinstance(sel, slice) else len(sel)

    def cta_of(self, sel) -> np.ndarray:
        return self.cta_of_thread[sel]

    def lane_thread(self, sel) -> np.ndarray:
        return self.thread_index[sel]

    def global_thread(self, sel) -> np.ndarray:
        return self.gthread[sel]

    def carry(self, sel):
        return self.R[self.cc][sel].astype(np.int64)

    def set_carry(self, sel, m, value) -> None:
        from .values import assign
        assign(self.R[self.cc], sel, m, value.astype(np.uint32))

    def describe(self, thread: int) -> str:
        """'CTA (x,y,z) thread (x,y,z)' of a chunk thread."""
        bx, by, _ = self.launch.block
        gx, gy, _ = self.launch.grid
        cta = self.cta_first + int(self.cta_of_thread[thread])
        lin = thread % (self.launch.wpc * 32)
        return (f"CTA ({cta % gx},{(cta // gx) % gy},{cta // (gx * gy)}) thread "
                f"({lin % bx},{(lin // bx) % by},{lin // (bx * by)})")

    def fault(self, c, sel, lane: int, addr: int, what: str) -> MemoryFault:
        thread = int(self.thread_index[sel][lane])
        pc = self.prog.pc_of_line.get(c.ins.line)
        at = f", PC {pc:#x}" if pc is not None else ""
        return MemoryFault(f"{c.where}: kernel {self.prog.name}{at}, {self.describe(thread)}: "
                           f"{what} at address {addr:#x} ('{c.ins.text}')")

    # -- exits and barriers -----------------------------------------------------------------
    def exit_lanes(self, sel, leaving: np.ndarray) -> None:
        ctas = self.cta_of_thread[sel][leaving]
        self.live -= np.bincount(ctas, minlength=self.n_ctas)

    def arrive(self, sel, lanes: np.ndarray, bid: int, count: int | None) -> None:
        ctas = self.cta_of_thread[sel][lanes]
        for cta, n in zip(*np.unique(ctas, return_counts=True)):
            key = (int(cta), bid)
            self.arrived[key] = self.arrived.get(key, 0) + int(n)
            self.expected[key] = count

    def completed_barriers(self) -> set[tuple[int, int]]:
        out = set()
        for key, n in self.arrived.items():
            want = self.expected[key]
            if n >= (self.live[key[0]] if want is None else want):
                out.add(key)
        return out

    def reset_barriers(self, done: set[tuple[int, int]]) -> None:
        for key in done:
            self.arrived.pop(key, None)
            self.expected.pop(key, None)

    def deadlock_message(self, parked, code) -> str:
        key = min(self.arrived)
        cta, bid = key
        want = self.expected[key]
        want_n = int(self.live[cta]) if want is None else want
        pc = next((b.pc for b in parked if cta in self.cta_of_warp[b.warps]), None)
        where = f"{self.prog.path}:{code[pc].line} " if pc is not None else ""
        c = self.cta_first + cta
        gx, gy, _ = self.launch.grid
        return (f"{where}kernel {self.prog.name}: deadlock at barrier {bid} in CTA "
                f"({c % gx},{(c // gx) % gy},{c // (gx * gy)}): {self.arrived[key]} of {want_n} "
                "threads arrived; the others can never reach it")
