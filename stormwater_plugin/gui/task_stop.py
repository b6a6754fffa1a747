"""Stopping the plugin's background tasks when it goes (unload, QGIS closing): cancel, then wait a bounded time.

A cancelled ``QgsTask`` whose Python ``run`` is still going when QGIS exits runs on after the interpreter and the
task manager start tearing down, and QGIS can crash on the way out (seen once on QGIS 3.44 under load: the suggested
moves still running after unload). So each running task is waited for, up to :data:`WAIT_MS`; ``waitForFinished``
releases Python's lock, so the task's own thread can reach its next cancel check meanwhile.
"""

from __future__ import annotations

from typing import Any, Iterable

from qgis.core import QgsTask

#: Longest wait for one cancelled task, milliseconds (a check or the moves stop at their next step, well within it).
WAIT_MS = 5000


def stop_tasks(tasks: Iterable[Any]) -> None:
    """Cancel every task of ``tasks`` (``None`` skipped), then wait for those still running, at most :data:`WAIT_MS` each."""
    running = []
    for task in tasks:
        if task is None:
            continue
        try:
            task.cancel()
            if isinstance(task, QgsTask) and task.status() == QgsTask.TaskStatus.Running:
                running.append(task)  # not a QgsTask (the layout export's steps on the main thread): cancelled is stopped
        except RuntimeError:  # its C++ object is gone: it finished and the manager deleted it
            continue
    for task in running:
        try:
            task.waitForFinished(WAIT_MS)
        except RuntimeError:
            pass
