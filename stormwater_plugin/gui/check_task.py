"""The check as a ``QgsTask``: the one review use case (``services.site_source.check_site``) in the background; nothing touches QGIS layers."""

from __future__ import annotations

import traceback
from dataclasses import dataclass, replace
from typing import Any, Callable

from qgis.core import QgsTask

from ..core.errors import StormwaterError
from ..core.model import CheckResult
from ..qgis_bridge.snapshot import PlannedSiteSource, Snapshot, SnapshotPlan
from ..services.packs import load_pack
from ..services.review import CheckCancelled, Review
from ..services.site_source import ReadSite, ReviewOptions, SiteRead, SiteSource, check_site
from .gc_pause import in_frozen_heap
from .slope_mask import precompute_slope_mask

#: Percent of the progress bar given to reading the layers.
READ_SHARE: float = 40.0


class NoLayerRead(StormwaterError):
    """Not one role layer could be read: there is nothing to check."""


@dataclass
class _SomeLayers:
    """``source``, refusing a read without a single layer (before the engine is asked anything)."""

    source: SiteSource

    def read(self, pack: Any) -> SiteRead:
        site = self.source.read(pack)
        if not site.inputs.layers:
            raise NoLayerRead("no layer was read: choose at least one layer (devices, parcels…) before running the check")
        return site


class _TaskFeedback:
    """The task's Cancel as the ``isCanceled()`` the readers poll."""

    def __init__(self, task: QgsTask) -> None:
        self._task = task

    def isCanceled(self) -> bool:  # noqa: N802 - QGIS API
        return bool(self._task.isCanceled())


class CheckTask(QgsTask):
    """Run the review use case (:func:`~stormwater_plugin.services.site_source.check_site`, as the command line does) in the background.

    The moves are not looked for here (unless ``options`` asks): the dock
    shows the findings first and suggests the moves in its own background
    task (:func:`~stormwater_plugin.services.review.suggest`, as ``check`` does).

    Parameters
    ----------
    source : SiteSource, SnapshotPlan or Snapshot
        The site: a :class:`~stormwater_plugin.qgis_bridge.snapshot.PlannedSiteSource`
        (:meth:`~stormwater_plugin.qgis_bridge.snapshot.QgisSiteSource.plan`, taken on
        the main thread in milliseconds; the layers are then read here, off the main
        thread, with progress and Cancel), a bare plan, or plain inputs already read.
        ``snapshot`` is the :class:`Snapshot` read once the task has run.
    jurisdiction : str
        Rule pack to apply (loaded here unless the plan holds it).
    on_done : callable
        Called on the main thread from :meth:`finished` with the task; read
        ``result``, ``error`` and ``isCanceled()`` there.
    options : ReviewOptions, optional
        The use case's options (accuracy, class, previous review…); the task
        sets the progress, and by default no moves and the completeness list.
    """

    def __init__(self, source: SiteSource | SnapshotPlan | Snapshot, jurisdiction: str, on_done: Callable[[CheckTask], None],
                 options: ReviewOptions | None = None) -> None:
        super().__init__(f"Stormwater review ({jurisdiction})", QgsTask.Flag.CanCancel)
        if isinstance(source, SnapshotPlan):
            source = PlannedSiteSource(source, {})
        self.snapshot: Snapshot | None = None
        if isinstance(source, Snapshot):
            self.snapshot = source
            source = ReadSite(SiteRead(source.inputs, source.crs.toWkt(), {}, source))
        self.source: SiteSource = source
        self.options = options if options is not None else ReviewOptions(moves=False, completeness=True)
        self.jurisdiction = jurisdiction
        self.result: CheckResult | None = None
        self.review: Review | None = None
        self.error: str | None = None
        self.details: str = ""
        #: Builds the result layers in the task when set (``(result, inputs, crs) -> layers``); they are in :attr:`layers`.
        self.build_layers: Callable[[CheckResult, Any, Any], list[Any]] | None = None
        self.layers: list[Any] = []
        self._on_done = on_done

    @in_frozen_heap  # the collections in this thread do not walk the project's long-lived objects
    def run(self) -> bool:  # noqa: D401 - QgsTask API
        """Read and review the site through the use case; never raises."""
        try:
            self.setProgress(1)
            planned = getattr(self.source, "snapshot_plan", None)
            pack = planned.pack if planned is not None and planned.pack is not None else load_pack(self.jurisdiction)
            if self.isCanceled():
                return False
            source = self.source
            if isinstance(source, PlannedSiteSource):  # the task's Cancel and progress for the read, held by this call only (no cycle to the task)
                source = replace(source, feedback=_TaskFeedback(self), progress=self._read_progress)
            try:
                done = check_site(_SomeLayers(source), pack, replace(self.options, progress=self._progress))
            except CheckCancelled:
                return False
            snap = done.site.source
            if self.isCanceled() or not isinstance(snap, Snapshot):
                return False
            self.snapshot = snap
            self._prepare_layers(done.review.result)
            if self.build_layers is not None:  # the live re-check: its result layers made here, off the main thread
                self.layers = self.build_layers(done.review.result, snap.inputs, snap.crs)
            self.review = done.review
            self.result = done.review.result
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

    def _prepare_layers(self, result: CheckResult) -> None:
        """What the result layers compute from plain data, done here rather than on the main thread (the slope mask)."""

        assert self.snapshot is not None
        precompute_slope_mask(self.snapshot.inputs, result.jurisdiction)

    def _read_progress(self, fraction: float) -> None:
        self.setProgress(1 + (READ_SHARE - 1) * fraction)

    def _progress(self, fraction: float) -> bool:
        """Report progress between rules; ``False`` stops the engine when Cancel was pressed."""
        self.setProgress(READ_SHARE + (95 - READ_SHARE) * fraction)
        return not self.isCanceled()

    def finished(self, ok: bool) -> None:  # noqa: D401 - QGIS API
        """Hand the outcome to the dock (main thread)."""
        try:
            self._on_done(self)
        except Exception:  # never let a slot exception reach QGIS's task manager
            traceback.print_exc()
