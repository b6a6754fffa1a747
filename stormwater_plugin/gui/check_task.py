"""The check as a ``QgsTask``: pure computation in the background, nothing touches QGIS layers."""

from __future__ import annotations

import traceback
from typing import Callable

from qgis.core import QgsTask

from ..core.engine import CheckCancelled
from ..core.errors import StormwaterError
from ..core.model import CheckResult
from ..core.rulepack import load_pack
from ..qgis_bridge.snapshot import Snapshot
from ..services.review import Review, check


class CheckTask(QgsTask):
    """Run the review use case (:func:`~stormwater_plugin.services.review.check`, as the CLI and Processing do) on a snapshot.

    The moves are not looked for here: the dock shows the findings first and
    suggests the moves in its own background task
    (:func:`~stormwater_plugin.services.review.suggest`, as ``check`` does).

    Parameters
    ----------
    snapshot : Snapshot
        Plain-data inputs taken on the main thread.
    jurisdiction : str
        Rule pack to apply.
    on_done : callable
        Called on the main thread from :meth:`finished` with the task; read
        ``result``, ``error`` and ``isCanceled()`` there.
    """

    def __init__(self, snapshot: Snapshot, jurisdiction: str, on_done: Callable[[CheckTask], None]) -> None:
        super().__init__(f"Stormwater review ({jurisdiction})", QgsTask.Flag.CanCancel)
        self.snapshot = snapshot
        self.jurisdiction = jurisdiction
        self.result: CheckResult | None = None
        self.review: Review | None = None
        self.error: str | None = None
        self.details: str = ""
        self._on_done = on_done

    def run(self) -> bool:  # noqa: D401 - QgsTask API
        """Load the pack and run the check; never raises."""
        try:
            self.setProgress(5)
            pack = load_pack(self.jurisdiction)
            if self.isCanceled():
                return False
            self.setProgress(15)
            try:
                review = check(self.snapshot.inputs, pack, crs_name=self.snapshot.inputs.crs_name, moves=False, progress=self._progress)
            except CheckCancelled:
                return False
            if self.isCanceled():
                return False
            self.review = review
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

    def _progress(self, fraction: float) -> bool:
        """Report progress between rules; ``False`` stops the engine when Cancel was pressed."""
        self.setProgress(15 + 80 * fraction)
        return not self.isCanceled()

    def finished(self, ok: bool) -> None:  # noqa: D401 - QgsTask API
        """Hand the outcome to the dock (main thread)."""
        try:
            self._on_done(self)
        except Exception:  # never let a slot exception reach QGIS's task manager
            traceback.print_exc()
