"""Batch screening on Dask's distributed scheduler (optional: the 'batch' extra).

Imported only when a scheduler is given (:func:`~.batch_exec.executor_map`);
LocalCluster workers unpickle :class:`ParentWatch` from here.
"""

from __future__ import annotations

import logging
import os
from typing import Any, Callable, Iterator, Sequence

from distributed import Client, LocalCluster, WorkerPlugin, as_completed

from ..services.batch_plan import BatchError, Partition
from ..services.batch_run import SiteOutcome
from .batch_worker import run_partition, watch_parent


class ParentWatch(WorkerPlugin):
    """A worker plugin: a worker whose parent is the batch process exits as soon as that process is gone.

    The process pool's watch (:func:`~.batch_worker.watch_parent`) in each
    LocalCluster worker process; a worker elsewhere (another parent: a remote
    scheduler's) is left alone.

    Parameters
    ----------
    parent_pid : int
        The batch process.
    """

    name = "stormwater-parent-watch"

    def __init__(self, parent_pid: int) -> None:
        self.parent_pid = int(parent_pid)

    def setup(self, worker: Any) -> None:
        if os.getppid() == self.parent_pid:
            watch_parent(self.parent_pid)


def _register(client: Any, plugin: WorkerPlugin) -> None:
    """Register a worker plugin on every current and future worker (``register_plugin`` from distributed 2023.9.2, else the older call)."""
    register = getattr(client, "register_plugin", None) or client.register_worker_plugin
    register(plugin, name=ParentWatch.name)


def dask_map(partitions: Sequence[Partition], workers: int, scheduler: Any) -> tuple[Iterator[list[SiteOutcome]], Callable[[], None], str]:
    """Run ``run_partition`` on every partition on Dask; (results as they complete, close, the engine's description).

    ``scheduler`` is ``"local"`` (a :class:`distributed.LocalCluster` of
    ``workers`` processes, each watching this process: :class:`ParentWatch`),
    a scheduler address, or a connected :class:`distributed.Client`.
    """
    cluster = None
    own_client = True
    if isinstance(scheduler, Client):
        client, own_client = scheduler, False
        what = f"Dask scheduler {client.scheduler.address if client.scheduler else '?'}"
    elif str(scheduler) == "local":
        cluster = LocalCluster(n_workers=max(1, workers), threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=logging.ERROR)
        client = Client(cluster)
        # Its worker processes are this process's children: each exits when this process dies, even by kill -9.
        _register(client, ParentWatch(os.getpid()))
        what = f"Dask LocalCluster, {max(1, workers)} worker processes"
    else:
        try:
            client = Client(str(scheduler), timeout=20)
        except Exception as exc:  # distributed raises OSError, TimeoutError or its own CommClosedError: all one answer
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


__all__ = ["ParentWatch", "dask_map"]
