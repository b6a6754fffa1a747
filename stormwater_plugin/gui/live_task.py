"""The live re-check's task (issue 39): the dock's :class:`~.check_task.CheckTask`, timed in its own thread, keeping the mask drawn.

The benchmark (``benchmarks/bench_live_check.py``) reads :attr:`LiveTask.cpu_s`, the CPU seconds of the task's
thread, against a full check's, and the rules the incremental run took from its basis (``review.basis``).
"""

from __future__ import annotations

import time
from typing import Any

from ..core.model import CheckResult
from .check_task import CheckTask
from .slope_mask import carry_masks


class LiveTask(CheckTask):
    """A :class:`~.check_task.CheckTask` whose thread's CPU time is kept (:attr:`cpu_s`, seconds)."""

    cpu_s: float = 0.0
    #: The inputs of the findings shown (``dock.snap.inputs``): their slope mask is kept when the edit leaves the DEM
    #: window and the plan's bounds as they were (the mask is drawn again only when it may differ).
    shown: Any = None

    def run(self) -> bool:  # noqa: D401 - QgsTask API
        """The check task's run, timed."""
        t0 = time.thread_time()
        try:
            return super().run()
        finally:
            self.cpu_s = time.thread_time() - t0

    def _prepare_layers(self, result: CheckResult) -> None:
        if self.shown is not None and self.snapshot is not None:
            carry_masks(self.shown, self.snapshot.inputs)
        super()._prepare_layers(result)
