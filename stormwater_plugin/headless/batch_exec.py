"""Batch screening, where the work runs: the executors.

Partitions (:class:`~stormwater_plugin.services.batch_plan.Partition`) run on
a :class:`concurrent.futures.ProcessPoolExecutor` (spawned processes), in this
process, or on Dask's distributed scheduler (:mod:`.batch_dask`: a
LocalCluster, a scheduler address or a connected client); each worker calls
:func:`~.batch_worker.run_partition`.

Workers watch their parent: when the batch process dies (even by ``kill -9``)
they exit within a second (:func:`~.batch_worker.watch_parent`).
"""

from __future__ import annotations

import concurrent.futures
import multiprocessing
import os
from typing import Any, Callable, Iterator, Sequence

from ..services.batch_plan import Partition
from ..services.batch_run import SiteOutcome
from ..services.optional import require
from .batch_worker import run_partition, watch_parent


def executor_map(partitions: Sequence[Partition], workers: int, scheduler: Any) -> tuple[Iterator[list[SiteOutcome]], Callable[[], None], str]:
    """Run ``run_partition`` on every partition; yields results as they complete.

    Returns the iterator, a close function and a description of the engine.
    """
    if scheduler is not None:
        require("distributed", "--scheduler")
        # lazy, optional: Dask's distributed scheduler (the 'batch' extra)
        from .batch_dask import dask_map

        return dask_map(partitions, workers, scheduler)
    if workers <= 1 or len(partitions) <= 1:
        return (run_partition(p) for p in partitions), (lambda: None), "this process"
    # spawn: safe whatever threads this process runs (QGIS, Dask, a test runner).
    pool = concurrent.futures.ProcessPoolExecutor(max_workers=min(workers, len(partitions)), mp_context=multiprocessing.get_context("spawn"),
                                                  initializer=watch_parent, initargs=(os.getpid(),))
    futures = [pool.submit(run_partition, p) for p in partitions]

    def results() -> Iterator[list[SiteOutcome]]:
        for fut in concurrent.futures.as_completed(futures):
            yield fut.result()

    def close() -> None:
        for fut in futures:
            fut.cancel()
        pool.shutdown(wait=True)

    return results(), close, f"ProcessPoolExecutor, {min(workers, len(partitions))} processes"


def worker_count(workers: int, scheduler: Any) -> int:
    """Workers, for the default tile size: a connected Dask client's thread count, else ``workers``."""
    n_workers = workers
    if scheduler is not None and not isinstance(scheduler, str):
        try:
            n_workers = max(1, sum(scheduler.nthreads().values()))
        except Exception:  # a client that cannot answer (closed, not a Dask client): the asked count sizes the tiles
            n_workers = workers
    return n_workers



__all__ = ["executor_map", "worker_count"]
