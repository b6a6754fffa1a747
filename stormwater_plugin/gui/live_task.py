"""The live re-check's task: the dock's :class:`~.check_task.CheckTask`, timed in its own thread, keeping the mask drawn.

The benchmark (``benchmarks/bench_live_check.py``) reads :attr:`LiveTask.cpu_s`, the CPU seconds of the task's
thread, against a full check's, and the rules the incremental run took from its basis (``review.basis``).
"""

from __future__ import annotations

import time
import traceback
from typing import Any, Mapping, Sequence

from ..core.model import CheckResult
from ..services.compare import comparable, since_last_review
from ..services.decisions import Override
from ..services.incremental import after_the_check
from ..services.live import changes_since, now_compliant
from .check_task import READ_SHARE, CheckTask
from .gc_pause import frozen_heap
from .live_layers import LiveLayers, ShownLayer, plan_layers
from .slope_mask import carry_masks


class LiveTask(CheckTask):
    """A :class:`~.check_task.CheckTask` whose thread's CPU time is kept (:attr:`cpu_s`, seconds)."""

    cpu_s: float = 0.0
    #: The inputs of the findings shown (``dock.snap.inputs``): their slope mask is kept when the edit leaves the DEM
    #: window and the plan's bounds as they were (the mask is drawn again only when it may differ).
    shown: Any = None
    #: The last check the reviewer ran (its document and result) and the decisions when the task started: the marks
    #: (what changed since that check, the devices that now comply) are made here, off the main thread.
    full_doc: Mapping[str, Any] | None = None
    full_result: CheckResult | None = None
    overrides: Sequence[Override] = ()
    #: The marks made: (the comparison or ``None``, finding key to its mark, "DW-1 now meets every setback"…).
    marks: tuple[Any, dict[str, str], list[str]] | None = None
    #: Whether the use case was given the previous review to compare with (``review.comparison``).
    compares: bool = False
    #: The memo the read converted through (``gui.live_plan``): what it reused and converted, handed on once shown.
    memo: Any = None
    #: What the result layers shown held when the run started (``live_layers.shown_now``; ``None``: the group is replaced).
    shown_layers: tuple[ShownLayer, ...] | None = None
    #: The result layers' changes made in the task (``live_layers.plan_layers``); ``None``: the dock makes them.
    live_layers: LiveLayers | None = None

    def run(self) -> bool:  # noqa: D401 - QgsTask API
        """The check task's run, timed; then the result layers' changes and the marks."""
        t0 = time.thread_time()
        try:
            ok = super().run()
            if ok and self.review is not None and self.result is not None and self.snapshot is not None and not self.isCanceled():
                with frozen_heap():
                    self._after_the_check()
            return ok
        except Exception:  # noqa: BLE001 - the marks are an aid: the dock makes them again when they are missing
            self.marks = None
            return self.result is not None
        finally:
            self.cpu_s = time.thread_time() - t0

    def _after_the_check(self) -> None:
        """The result layers' changes and the marks, in the heap frozen again (:mod:`.gc_pause`) now that it holds what the check
        made: the young collections these set off walk only what they make. Left young, the check's objects (all alive, kept with
        the review) were walked once more at every live edit by the first young collection after the check (~0.2 ms)."""
        assert self.review is not None and self.result is not None and self.snapshot is not None  # run() asked
        try:
            # through the check's derived values (their geometries' WKB: the rows' keys), not settled again
            with after_the_check(self.review.basis):
                self.live_layers = plan_layers(self.result, self.snapshot.inputs, self.snapshot.crs, self.shown_layers)
        except Exception:  # noqa: BLE001 - the dock draws the layers from the result when they are missing
            self.live_layers = None
            traceback.print_exc()
        if not self.isCanceled():
            self.marks = self._marks(self.review, self.result)

    def _marks(self, review: Any, result: CheckResult) -> tuple[Any, dict[str, str], list[str]]:
        # the document the dock will show with its decisions (Review.decided: decided again only when they changed meanwhile)
        given = tuple(self.overrides)
        doc = review.document if given == review.overrides else review.document.decided(given)
        # what the comparison reads of its findings.json, under the rule renames of the pack the review applied
        cmp = changes_since(self.full_doc, comparable(doc), getattr(review, "pack", None))
        return cmp, since_last_review(cmp) if cmp else {}, now_compliant(self.full_result, result)

    #: The progress shown in steps of this many percent: a live run lasts tens of milliseconds, and each report is a signal
    #: to the main thread and a call into QGIS (~8 us of the task's thread each; the engine reports before each rule).
    PROGRESS_STEP: float = 10.0
    #: Cancel is asked when this many seconds have passed since it was last asked (and at the first report): each ask is a
    #: call into QGIS, where the thread may give up the interpreter, and most rules of a live run are taken from the last check.
    CANCEL_POLL_S: float = 0.005
    _shown_step: int = -1
    _asked_at: float = -1.0

    def _read_progress(self, fraction: float) -> None:
        """The read's progress, in steps of :attr:`PROGRESS_STEP` as the check's (the read reports a dozen times in ~3 ms)."""
        self._show(1 + (READ_SHARE - 1) * fraction)

    def _progress(self, fraction: float) -> bool:
        """Report progress in steps of :attr:`PROGRESS_STEP`; ``False`` stops the engine when the run was cancelled (a newer edit)."""
        self._show(READ_SHARE + (95 - READ_SHARE) * fraction)
        now = time.monotonic()
        if now - self._asked_at < self.CANCEL_POLL_S:
            return True
        self._asked_at = now
        return not self.isCanceled()

    def _show(self, value: float) -> None:
        """``setProgress(value)`` when ``value`` enters another step of :attr:`PROGRESS_STEP` (the read's and the check's share them)."""
        step = int(value // self.PROGRESS_STEP)
        if step != self._shown_step:
            self._shown_step = step
            self.setProgress(value)

    def _prepare_layers(self, result: CheckResult) -> None:
        if self.shown is not None and self.snapshot is not None:
            carry_masks(self.shown, self.snapshot.inputs)
        super()._prepare_layers(result)
