"""Batch screening, where the work runs: the worker's entry point and the executors.

Partitions (:class:`~stormwater_plugin.services.batch_plan.Partition`) run on
a :class:`concurrent.futures.ProcessPoolExecutor` (spawned processes), in this
process, or on Dask's distributed scheduler (a LocalCluster, a scheduler
address or a connected client); each worker calls :func:`run_partition`,
which checks the sites with
:func:`~stormwater_plugin.services.batch_run.check_sites` and, when it shares
this file system, writes each site's findings.json itself.

Workers watch their parent: when the batch process dies (even by ``kill -9``)
they exit within a second.

Spawned workers import this module to unpickle :func:`run_partition`: it
imports only the core, the services, numpy, shapely and the writer's row
helpers (pyproj when a DEM is sampled), never the reader's file stack.
"""

from __future__ import annotations

import concurrent.futures
import logging
import multiprocessing
import os
import threading
import time
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

from ..services.batch_plan import BatchError, Partition
from ..services.batch_run import SiteOutcome, check_sites
from .batch_io import map_row, write_site


def run_partition(part: Partition) -> list[SiteOutcome]:
    """Check every site of a partition; one :class:`SiteOutcome` per site, errors included.

    Runs in a worker process (or Dask worker). With ``part.write_to`` each
    site's findings.json is written as soon as it is checked and the outcome
    carries its hash instead of the document.
    """
    out: list[SiteOutcome] = []
    for outcome in check_sites(part, map_row):
        if part.write_to is not None and outcome.document:
            outcome.sha256 = write_site(Path(part.write_to), part.folders[outcome.site_id], outcome)
            outcome.document = ""
        out.append(outcome)
    return out


def _watch_parent(parent_pid: int, period_s: float = 0.5) -> None:
    """Pool initializer: exit this worker as soon as ``parent_pid`` is gone (the batch was killed, even by ``kill -9``)."""

    def watch() -> None:
        while True:
            time.sleep(period_s)
            if os.getppid() != parent_pid:
                os._exit(3)

    threading.Thread(target=watch, name="stormwater-parent-watch", daemon=True).start()


def executor_map(partitions: Sequence[Partition], workers: int, scheduler: Any) -> tuple[Iterator[list[SiteOutcome]], Callable[[], None], str]:
    """Run ``run_partition`` on every partition; yields results as they complete.

    Returns the iterator, a close function and a description of the engine.
    """
    if scheduler is not None:
        return _dask_map(partitions, workers, scheduler)
    if workers <= 1 or len(partitions) <= 1:
        return (run_partition(p) for p in partitions), (lambda: None), "this process"
    # spawn: safe whatever threads this process runs (QGIS, Dask, a test runner).
    pool = concurrent.futures.ProcessPoolExecutor(max_workers=min(workers, len(partitions)), mp_context=multiprocessing.get_context("spawn"),
                                                  initializer=_watch_parent, initargs=(os.getpid(),))
    futures = [pool.submit(run_partition, p) for p in partitions]

    def results() -> Iterator[list[SiteOutcome]]:
        for fut in concurrent.futures.as_completed(futures):
            yield fut.result()

    def close() -> None:
        for fut in futures:
            fut.cancel()
        pool.shutdown(wait=True)

    return results(), close, f"ProcessPoolExecutor, {min(workers, len(partitions))} processes"


def _dask_map(partitions: Sequence[Partition], workers: int, scheduler: Any) -> tuple[Iterator[list[SiteOutcome]], Callable[[], None], str]:
    try:  # optional: dask (the 'batch' extra)
        from distributed import Client, LocalCluster, as_completed
    except ImportError as exc:  # pragma: no cover - depends on the installation
        raise BatchError("--scheduler needs Dask's distributed scheduler: pip install 'dask[distributed]' (the 'batch' extra)") from exc
    cluster = None
    own_client = True
    if isinstance(scheduler, Client):
        client, own_client = scheduler, False
        what = f"Dask scheduler {client.scheduler.address if client.scheduler else '?'}"
    elif str(scheduler) == "local":
        cluster = LocalCluster(n_workers=max(1, workers), threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=logging.ERROR)
        client = Client(cluster)
        what = f"Dask LocalCluster, {max(1, workers)} worker processes"
    else:
        try:
            client = Client(str(scheduler), timeout=20)
        except Exception as exc:
            raise BatchError(f"--scheduler {scheduler}: cannot reach the Dask scheduler ({exc}); start one with 'dask scheduler' or use --scheduler local") from exc
        what = f"Dask scheduler {scheduler}"
    futures = [client.submit(run_partition, p, pure=False) for p in partitions]

    def results() -> Iterator[list[SiteOutcome]]:
        for fut in as_completed(futures):
            yield fut.result()

    def close() -> None:
        for fut in futures:
            fut.cancel()
        if own_client:
            client.close()
        if cluster is not None:
            cluster.close()

    return results(), close, what


def worker_count(workers: int, scheduler: Any) -> int:
    """Workers, for the default tile size: a connected Dask client's thread count, else ``workers``."""
    n_workers = workers
    if scheduler is not None and not isinstance(scheduler, str):
        try:
            n_workers = max(1, sum(scheduler.nthreads().values()))
        except Exception:
            n_workers = workers
    return n_workers



__all__ = ["executor_map", "run_partition", "worker_count"]
