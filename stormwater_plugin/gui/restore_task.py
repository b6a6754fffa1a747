"""The review saved with a project, restored in a ``QgsTask`` (never freeze).

Opening a reviewed project used to read the saved review, re-read every
layer and compute the slope mask on the main thread. Here the main thread
only takes the project's stored text and a :class:`SnapshotPlan` (milliseconds);
the task parses the review, reads the layers through the plan's detached
sources (as the check's task does), computes the slope mask and applies the
decisions. The dock then only adds the result layers.
"""

from __future__ import annotations

import json
import traceback
from typing import Any, Callable, Sequence

from qgis.core import QgsCoordinateReferenceSystem, QgsTask

from ..core.model import CheckResult, SiteInputs
from ..qgis_bridge.snapshot import Snapshot, SnapshotPlan
from ..services.decisions import Override
from ..services.packs import load_pack
from ..services.review import Move, Review, moves_from_dicts, review_of
from ..services.saved_review import load_review
from ..services.site_source import site_completeness
from .check_task import _TaskFeedback
from .gc_pause import in_frozen_heap
from .slope_mask import precompute_slope_mask


class RestoreTask(QgsTask):
    """Parse a saved review and read the layers it is shown over, off the main thread.

    Parameters
    ----------
    text : str
        The project's ``last_review`` entry (a :func:`~stormwater_plugin.core.saved_review.save_review` document as JSON).
    plan : SnapshotPlan or None
        What to read for the geometry of the findings (``None``: the layers cannot be read; the saved working CRS is used).
    overrides : sequence of Override
        The project's decisions (kept for the caller; applied on the main thread through the session).
    on_done : callable
        Called on the main thread with the task from :meth:`finished`; read
        ``result``, ``snapshot``, ``moves``, ``error`` there.
    """

    def __init__(self, text: str, plan: SnapshotPlan | None, overrides: Sequence[Override], on_done: Callable[[RestoreTask], None]) -> None:
        super().__init__("Stormwater review: restoring the saved review", QgsTask.Flag.CanCancel)
        self.text = text
        self.plan = plan
        self.overrides = tuple(overrides)
        self.result: CheckResult | None = None
        self.saved: dict[str, Any] = {}
        self.snapshot: Snapshot | None = None
        self.moves: tuple[Move, ...] = ()
        self.review: Review | None = None
        #: Existing-grade contour features in the project, for the completeness list.
        self.contour_count = 0
        #: The saved review cannot be read (a message for the reviewer), or the task failed.
        self.error: str | None = None
        self.details = ""
        self._on_done = on_done

    @in_frozen_heap  # the collections in this thread do not walk the project's long-lived objects
    def run(self) -> bool:  # noqa: D401 - QgsTask API
        """Parse, read, precompute; never raises."""
        try:
            try:
                self.saved = json.loads(self.text)
                self.result = load_review(self.saved)
            except (ValueError, KeyError, TypeError) as exc:
                self.error = f"{exc}"
                return False
            self.setProgress(20)
            self.moves = moves_from_dicts(self.saved.get("moves") or ())
            snap = self._read()
            if self.isCanceled():
                return False
            self.snapshot = snap
            if snap is not None and snap.inputs.dem is not None:
                precompute_slope_mask(snap.inputs, self.result.jurisdiction)
            if snap is not None:  # the document, serialised here once; the dock only applies the decisions (services.session)
                review = review_of(self.result, crs_name=snap.inputs.crs_name)
                if snap.inputs.layers:  # the completeness list from the layers read, as after a check

                    try:
                        section = site_completeness(snap.inputs, load_pack(self.result.jurisdiction), self.result.project_class, self.contour_count)
                        review = review.with_completeness(section.as_dict())
                    except Exception:  # noqa: BLE001 - the list is an aid beside the restored findings
                        traceback.print_exc()
                self.review = review
            self.setProgress(100)
            return not self.isCanceled()
        except Exception as exc:  # shown in the message bar by the dock
            self.error = f"{type(exc).__name__}: {exc}"
            self.details = traceback.format_exc()
            return False

    def _read(self) -> Snapshot | None:
        """The layers through the plan; else a snapshot without layers in the saved working CRS; ``None`` when that is unknown too."""
        assert self.result is not None
        if self.plan is not None:
            try:
                snap = self.plan.read(_TaskFeedback(self), lambda f: self.setProgress(20 + 60 * f))
                if snap.inputs.layers:
                    return snap
            except Exception:  # the layers may be gone; the table and the saved geometry still show
                pass
        crs = QgsCoordinateReferenceSystem.fromWkt(str(self.saved.get("working_crs_wkt") or ""))
        if not crs.isValid():
            return None
        inputs = SiteInputs(layers={}, dem=None, unit_to_ft=float(self.result.unit_to_ft or 1.0), crs_name=str(self.saved.get("working_crs", "")))
        return Snapshot(inputs, crs, "saved")

    def finished(self, ok: bool) -> None:  # noqa: D401 - QgsTask API
        try:
            self._on_done(self)
        except Exception:  # never let a slot exception reach the task manager
            traceback.print_exc()
