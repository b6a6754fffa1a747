"""The batch on a Dask LocalCluster killed by ``kill -9`` leaves no worker running (issue 22, item 8).

The process pool's workers watch their parent; the LocalCluster's worker
processes do the same: a worker plugin (``headless.batch_dask.ParentWatch``)
starts the same watch in each. (distributed also ends a nanny's worker when
its parent's pipe closes; the watch does not depend on that.)
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .synthetic_town import write_town

ROOT = Path(__file__).resolve().parents[2]


def _has_distributed() -> bool:
    try:
        import distributed  # noqa: F401
    except ImportError:
        return False
    return True


def _parents() -> dict[int, int]:
    """Every live process's parent pid, from /proc."""
    out = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                stat = (d / "stat").read_text()
            except OSError:
                continue
            out[int(d.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    return out


def _descendants(pid: int) -> list[int]:
    parents = _parents()
    found, todo = [], [pid]
    while todo:
        p = todo.pop()
        kids = [c for c, pp in parents.items() if pp == p]
        found.extend(kids)
        todo.extend(kids)
    return found


def _alive(pid: int) -> bool:
    try:
        state = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc")
@pytest.mark.skipif(not _has_distributed(), reason="Dask's distributed scheduler is not installed (the 'batch' extra)")
def test_kill_9_of_a_batch_on_a_local_cluster_leaves_no_worker_running(tmp_path: Path) -> None:
    folder = tmp_path / "town"
    write_town(folder, 60, cell=2.0, cols=10)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-m", "stormwater_plugin", "batch", str(folder / "town.gpkg"), "--dem", str(folder / "dem.tif"),
                             "--jurisdiction", "lgpc", "--workers", "2", "--scheduler", "local", "--sites-per-partition", "1", "--quiet",
                             "--out", str(tmp_path / "o")], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 180
    # The cluster is up once a site has been written by a worker.
    while time.monotonic() < deadline and proc.poll() is None and not any((tmp_path / "o" / "sites").glob("*/findings.json")):
        time.sleep(0.2)
    if proc.poll() is not None:
        pytest.skip("the batch finished before its workers could be seen")
    workers = _descendants(proc.pid)
    assert len(workers) >= 2, workers
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline and any(_alive(p) for p in workers):
        time.sleep(0.2)
    left = [p for p in workers if _alive(p)]
    for p in left:
        try:
            os.kill(p, signal.SIGKILL)
        except ProcessLookupError:
            pass
    assert not left, f"processes of the batch still running 15 s after it was killed: {left}"


@pytest.mark.skipif(not _has_distributed(), reason="Dask's distributed scheduler is not installed (the 'batch' extra)")
def test_each_local_cluster_worker_process_runs_the_parent_watch() -> None:
    import threading

    import distributed

    from stormwater_plugin.headless.batch_dask import ParentWatch, _register

    def threads() -> list[str]:
        return [t.name for t in threading.enumerate()]

    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with distributed.Client(cluster) as client:
            _register(client, ParentWatch(os.getpid()))
            names = client.run(threads)
    assert len(names) == 2
    assert all("stormwater-parent-watch" in n for n in names.values()), names


@pytest.mark.skipif(not _has_distributed(), reason="Dask's distributed scheduler is not installed (the 'batch' extra)")
def test_a_worker_whose_parent_is_not_the_batch_is_left_alone() -> None:
    import threading

    from stormwater_plugin.headless.batch_dask import ParentWatch

    before = sum(t.name == "stormwater-parent-watch" for t in threading.enumerate())
    ParentWatch(os.getpid()).setup(None)  # this process's parent is not this process: no watch (a remote scheduler's worker)
    assert sum(t.name == "stormwater-parent-watch" for t in threading.enumerate()) == before
