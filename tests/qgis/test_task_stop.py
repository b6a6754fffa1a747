"""The plugin's tasks are stopped, not left running, when it goes: cancelled, then waited for (bounded)."""

from __future__ import annotations

import time

from qgis.core import QgsApplication, QgsTask

from stormwater_plugin.gui.task_stop import stop_tasks


class _Busy(QgsTask):
    """Python work that checks for cancel between steps, as the plugin's tasks do."""

    def __init__(self) -> None:
        super().__init__("busy", QgsTask.Flag.CanCancel)
        self.steps = 0

    def run(self) -> bool:
        while not self.isCanceled():
            sum(range(20000))
            self.steps += 1
        return False


def test_a_running_task_has_stopped_when_stop_tasks_returns(qgis_app):
    task = _Busy()
    QgsApplication.taskManager().addTask(task)
    deadline = time.monotonic() + 10
    while task.status() != QgsTask.TaskStatus.Running and time.monotonic() < deadline:
        time.sleep(0.01)
    assert task.status() == QgsTask.TaskStatus.Running
    stop_tasks([None, task])
    assert task.status() in (QgsTask.TaskStatus.Terminated, QgsTask.TaskStatus.Complete) or task.isCanceled()
    steps = task.steps
    time.sleep(0.1)
    assert task.steps == steps  # its run has returned: nothing of it goes on after the plugin is gone
