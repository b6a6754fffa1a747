"""The check as a ``QgsTask``: pure computation in the background, nothing touches QGIS layers."""

from __future__ import annotations

import traceback
from typing import Any, Callable

from qgis.core import QgsTask

from ..core.errors import StormwaterError
from ..core.model import CheckResult
from ..qgis_bridge.snapshot import Snapshot, SnapshotPlan
from ..services.packs import load_pack
from ..services.review import CheckCancelled, Review, check
from .gc_pause import in_frozen_heap
from .slope_mask import precompute_slope_mask

#: Percent of the progress bar given to reading the layers.
READ_SHARE: float = 40.0


def submission_completeness(inputs: Any, pack: Any, project_class: str | None, contour_count: int = 0) -> dict[str, Any] | None:
    """The document's ``completeness`` section (issue 27), as the command line computes it; ``None`` when it cannot be (never fails a check)."""
    from ..services.completeness import check_completeness  # lazy: only when a check has run

    try:
        return check_completeness(pack, inputs.layers, project_class, has_dem=inputs.dem is not None, contour_count=contour_count).as_dict()
    except Exception:  # noqa: BLE001 - the list is an aid beside the findings
        traceback.print_exc()
        return None


class _TaskFeedback:
    """The task's Cancel as the ``isCanceled()`` the readers poll."""

    def __init__(self, task: QgsTask) -> None:
        self._task = task

    def isCanceled(self) -> bool:  # noqa: N802 - QGIS API
        return bool(self._task.isCanceled())


class CheckTask(QgsTask):
    """Run the review use case (:func:`~stormwater_plugin.services.review.check`, as the CLI and Processing do) on a snapshot.

    The moves are not looked for here: the dock shows the findings first and
    suggests the moves in its own background task
    (:func:`~stormwater_plugin.services.review.suggest`, as ``check`` does).

    Parameters
    ----------
    snapshot : Snapshot or SnapshotPlan
        Plain-data inputs, or the plan of reading them
        (:func:`~stormwater_plugin.qgis_bridge.snapshot.plan_snapshot`, taken on
        the main thread in milliseconds): the layers are then read here, off
        the main thread, with progress and Cancel; ``snapshot`` is the
        :class:`Snapshot` read once the task has run.
    jurisdiction : str
        Rule pack to apply.
    on_done : callable
        Called on the main thread from :meth:`finished` with the task; read
        ``result``, ``error`` and ``isCanceled()`` there.
    """

    def __init__(self, snapshot: Snapshot | SnapshotPlan, jurisdiction: str, on_done: Callable[[CheckTask], None]) -> None:
        super().__init__(f"Stormwater review ({jurisdiction})", QgsTask.Flag.CanCancel)
        self.plan = snapshot if isinstance(snapshot, SnapshotPlan) else None
        self.snapshot: Snapshot | None = snapshot if isinstance(snapshot, Snapshot) else None
        self.jurisdiction = jurisdiction
        self.result: CheckResult | None = None
        self.review: Review | None = None
        self.error: str | None = None
        self.details: str = ""
        #: Existing-grade contour features in the project (a ``contours`` layer), for the completeness list.
        self.contour_count = 0
        self._on_done = on_done

    @in_frozen_heap  # the collections in this thread do not walk the project's long-lived objects (issue 24 item 5)
    def run(self) -> bool:  # noqa: D401 - QgsTask API
        """Load the pack and run the check; never raises."""
        try:
            self.setProgress(1)
            if not self._read():
                return False
            assert self.snapshot is not None
            pack = load_pack(self.jurisdiction)
            if self.isCanceled():
                return False
            self.setProgress(READ_SHARE)
            try:
                review = check(self.snapshot.inputs, pack, crs_name=self.snapshot.inputs.crs_name, moves=False, progress=self._progress)
            except CheckCancelled:
                return False
            if self.isCanceled():
                return False
            self._prepare_layers(review.result)
            section = submission_completeness(self.snapshot.inputs, pack, review.result.project_class, self.contour_count)
            self.review = review.with_section("completeness", section) if section is not None else review
            self.result = review.result
            self.setProgress(100)
            return True
        except StormwaterError as exc:  # the project's own error: its message says what is wrong
            self.error = str(exc) or type(exc).__name__
            self.details = traceback.format_exc()
            return False
        except Exception as exc:  # shown in the message bar by the dock
            self.error = f"{type(exc).__name__}: {exc}"
            self.details = traceback.format_exc()
            return False

    def _read(self) -> bool:
        """Read the layers of the plan (this thread); ``False`` when cancelled or when no layer was read."""
        if self.plan is None:
            return True
        snap = self.plan.read(_TaskFeedback(self), lambda f: self.setProgress(1 + (READ_SHARE - 1) * f))
        if self.isCanceled():
            return False
        self.snapshot = snap
        if not snap.inputs.layers:
            self.error = "no layer was read: choose at least one layer (devices, parcels…) before running the check"
            return False
        return True

    def _prepare_layers(self, result: CheckResult) -> None:
        """What the result layers compute from plain data, done here rather than on the main thread (the slope mask)."""

        assert self.snapshot is not None
        precompute_slope_mask(self.snapshot.inputs, result.jurisdiction)

    def _progress(self, fraction: float) -> bool:
        """Report progress between rules; ``False`` stops the engine when Cancel was pressed."""
        self.setProgress(READ_SHARE + (95 - READ_SHARE) * fraction)
        return not self.isCanceled()

    def finished(self, ok: bool) -> None:  # noqa: D401 - QgsTask API
        """Hand the outcome to the dock (main thread)."""
        try:
            self._on_done(self)
        except Exception:  # never let a slot exception reach QGIS's task manager
            traceback.print_exc()
