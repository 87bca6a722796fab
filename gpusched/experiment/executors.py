"""Where points run: in this process, in a local process pool, or on a Dask cluster.

Every executor yields ``(point, outcome)`` as results arrive and never writes the store: the
sweep's parent process does, one transaction per result.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import socket
from collections import deque
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Iterable, Iterator, Protocol

from gpusched.config import ConfigError

from .point import Point
from .runners import Outcome, execute, load_plugins


class Executor(Protocol):
    def run(self, points: Iterable[Point]) -> Iterator[tuple[Point, Outcome]]: ...


def _lost(point: Point, why: str) -> Outcome:
    return Outcome(point.key, "failed", None, why, 0.0, socket.gethostname())


class SerialExecutor:
    """One point after another in this process (``--jobs 1``; easiest to debug)."""

    def __init__(self, plugins: tuple[str, ...] = ()):
        self.plugins = tuple(plugins)

    def run(self, points: Iterable[Point]) -> Iterator[tuple[Point, Outcome]]:
        load_plugins(list(self.plugins))
        for p in points:
            yield p, execute(p.inputs(), self.plugins)


class PoolExecutor:
    """A local process pool (forkserver: workers start clean and import the plugins).

    Points are pulled from ``points`` only as workers free up (a sweep claims each point as it
    is pulled). At most ``2 × jobs`` points are in flight, so a worker that dies (out of memory,
    segfault) costs only those points — recorded as failed — and the pool is rebuilt for the
    rest. When the sweep stops early (Ctrl-C, SIGTERM, an error) the workers are terminated, and
    workers whose sweep was killed outright (SIGKILL) end themselves (``_worker_init``), so no
    process is left holding the terminal or a pipe."""

    def __init__(self, jobs: int | None = None, plugins: tuple[str, ...] = ()):
        self.jobs = jobs or os.cpu_count() or 1
        self.plugins = tuple(plugins)

    def _pool(self) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(self.jobs, mp_context=multiprocessing.get_context("forkserver"),
                                   initializer=_worker_init, initargs=(self._alive_r,))

    def run(self, points: Iterable[Point]) -> Iterator[tuple[Point, Outcome]]:
        load_plugins(list(self.plugins))  # fail fast on a bad plugin name, before forking
        self._alive_r, alive_w = multiprocessing.Pipe(duplex=False)   # see _worker_init
        source, retry, in_flight = iter(points), deque(), {}
        pool, broken, exhausted, finished = self._pool(), False, False, False
        try:
            while True:
                if broken and not in_flight:
                    pool.shutdown(wait=True)
                    pool, broken = self._pool(), False
                while not broken and len(in_flight) < 2 * self.jobs:
                    p = retry.popleft() if retry else next(source, None)
                    if p is None:
                        exhausted = True
                        break
                    try:
                        in_flight[pool.submit(execute, p.inputs(), self.plugins)] = p
                    except BrokenProcessPool:
                        retry.appendleft(p)
                        broken = True
                if not in_flight:
                    if exhausted and not retry:
                        break
                    continue
                done, _ = wait(in_flight, return_when=FIRST_COMPLETED)
                for fut in done:
                    p = in_flight.pop(fut)
                    try:
                        outcome = fut.result()
                    except BrokenProcessPool as e:
                        broken = True
                        outcome = _lost(p, f"worker process died (BrokenProcessPool: {e})")
                    except Exception as e:  # e.g. a result that failed to unpickle
                        outcome = _lost(p, f"pool task failed: {type(e).__name__}: {e}")
                    yield p, outcome
            finished = True
        finally:
            if finished:
                pool.shutdown(wait=True)
            else:
                _stop(pool)
            alive_w.close()
            self._alive_r.close()


def _stop(pool: ProcessPoolExecutor) -> None:
    """Terminate a pool's workers now (their points are not recorded: a resume reruns them)."""
    procs = list((getattr(pool, "_processes", None) or {}).values())
    for proc in procs:
        with contextlib.suppress(Exception):
            proc.terminate()
    pool.shutdown(wait=False, cancel_futures=True)
    for proc in procs:
        with contextlib.suppress(Exception):
            proc.join(2.0)
            if proc.is_alive():
                proc.kill()
                proc.join(2.0)
    # let the pool's manager thread finish closing its wake-up pipe before the interpreter
    # exits: CPython's exit hook otherwise may write to it while it closes (EBADF traceback)
    manager = getattr(pool, "_executor_manager_thread", None)
    if manager is not None:
        manager.join(5.0)


def _worker_init(sweep_alive) -> None:
    """In each pool worker: die with the sweep. ``sweep_alive`` is the read end of a pipe whose
    write end only the sweep process holds; the kernel closes it when the sweep dies in any way
    (even SIGKILL, even while the sweep lingers as a zombie), and a thread blocked on it exits
    the worker. Workers cannot rely on their parent: that is the forkserver, which itself
    only exits once every worker has."""
    import threading

    def watch() -> None:
        try:
            sweep_alive.recv()
        except (EOFError, OSError):
            pass
        os._exit(1)
    threading.Thread(target=watch, name="gpusched-sweep-watch", daemon=True).start()


class DaskExecutor:
    """Points as tasks on a Dask cluster: ``address`` is ``tcp://host:port``, or ``local`` for
    a LocalCluster of ``jobs`` worker processes; or pass a ready ``client`` (tests)."""

    def __init__(self, address: str | None = None, jobs: int | None = None,
                 plugins: tuple[str, ...] = (), client=None):
        self.address, self.jobs, self.plugins, self.client = address, jobs, tuple(plugins), client

    def _connect(self):
        from distributed import Client, LocalCluster
        if self.address == "local":
            cluster = LocalCluster(n_workers=self.jobs or os.cpu_count() or 1,
                                   threads_per_worker=1, dashboard_address=None)
            return Client(cluster), cluster
        try:
            return Client(self.address, timeout="10s"), None
        except (OSError, TimeoutError) as e:
            raise ConfigError("--scheduler", self.address, f"cannot connect: {e}") from None

    def run(self, points: Iterable[Point]) -> Iterator[tuple[Point, Outcome]]:
        from distributed import as_completed
        load_plugins(list(self.plugins))
        client, cluster = (self.client, None) if self.client is not None else self._connect()
        futures = {client.submit(execute, p.inputs(), self.plugins, pure=False): p
                   for p in points}
        try:
            for fut in as_completed(futures):
                p = futures[fut]
                try:
                    outcome = fut.result()
                except Exception as e:  # KilledWorker, lost worker, unpicklable result
                    outcome = _lost(p, f"dask task failed: {type(e).__name__}: {e}")
                yield p, outcome
        finally:
            client.cancel(list(futures))
            if self.client is None:
                client.close()
                if cluster is not None:
                    cluster.close()


MAX_JOBS = 1024      # local worker processes (each holds a model; a larger pool only thrashes)


def make_executor(jobs: int | None, scheduler: str | None, plugins: tuple[str, ...]) -> Executor:
    """``--scheduler`` → Dask; ``--jobs 1`` → in process; otherwise a local pool."""
    if jobs is not None and not 1 <= jobs <= MAX_JOBS:
        raise ConfigError("--jobs", jobs, f"expected 1 to {MAX_JOBS} worker processes")
    if scheduler:
        return DaskExecutor(scheduler, jobs, plugins)
    if jobs == 1:
        return SerialExecutor(plugins)
    return PoolExecutor(jobs, plugins)
