"""Batch screening, the worker side: what each worker process (or Dask worker) runs.

:func:`run_partition` checks a partition's sites with
:func:`~stormwater_plugin.services.batch_run.check_sites` and, when it shares
this file system, writes each site's findings.json itself;
:func:`watch_parent` makes a worker exit when the batch process dies.

Spawned workers import this module to unpickle :func:`run_partition`: it
imports only the core, the services, numpy, shapely and the writer's row
helpers (pyproj when a DEM is sampled), never the reader's file stack.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

from ..services.batch_plan import Partition
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


def watch_parent(parent_pid: int, period_s: float = 0.5) -> None:
    """Exit this worker as soon as ``parent_pid`` is gone (the batch was killed, even by ``kill -9``).

    The process pool's initializer, and the LocalCluster workers' (:class:`~.batch_dask.ParentWatch`).
    """

    def watch() -> None:
        while True:
            time.sleep(period_s)
            if os.getppid() != parent_pid:
                os._exit(3)

    threading.Thread(target=watch, name="stormwater-parent-watch", daemon=True).start()


__all__ = ["run_partition", "watch_parent"]
