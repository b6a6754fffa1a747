"""The review dock: choose the rule pack and layers, run the check, read and locate findings, decide, export.

Also the siting aid (where may a device go, suggested moves), the
reviewer's decisions kept in the project and the report package
with a print layout.
"""

from __future__ import annotations

from typing import Any

from qgis.core import QgsProject
from qgis.PyQt.QtWidgets import QWidget

from ..services.session import ReviewSession
from .check_task import CheckTask
from .dock_controller import FINDING_CHANGING_WARNINGS, DockController
from .dock_view import LOG_TAG, MIN_VIEW_FT, DockView
from .envelope_task import SitingTask
from .overrides_ui import OverrideStore
from .project_store import ProjectStore

__all__ = ["ReviewDock", "LOG_TAG", "MIN_VIEW_FT", "FINDING_CHANGING_WARNINGS"]


class ReviewDock(DockController, ProjectStore, DockView):
    """Dock widget holding the whole review workflow.

    The view (:mod:`.dock_view`: widgets and layout), the controller
    (:mod:`.dock_controller`: the workflow) and the project store
    (:mod:`.project_store`: per-project settings) are its parts; this class
    builds them in order and connects them to the project.

    Parameters
    ----------
    iface : QgisInterface
        For the map canvas and the message bar.
    """

    def __init__(self, iface: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.iface = iface
        self.setObjectName("StormwaterReviewDock")
        self.setWindowTitle(self.tr("Stormwater site-plan review"))
        self.task: CheckTask | None = None
        self.envelope_task: SitingTask | None = None
        self.moves_task: SitingTask | None = None
        self.export_task: Any = None
        self.restore_task: Any = None
        #: What is reviewed (result, snapshot, moves, review document, comparison, generation); the widgets observe it.
        self.session = ReviewSession()
        self.overrides = OverrideStore()
        self._restoring = False
        self._kept_this_result = False
        self._unwritten_review = None
        #: Whether the result shown is a live re-check's (edits not yet saved in the layers), not a check run or restored.
        self.showing_live = False
        #: Set by the register panel when the saved review is of an earlier round than the package (shown until a check runs).
        self.outdated_note = ""

        self._build_settings()
        self._build_layers()
        self._build_run_buttons()
        self._build_siting()
        self._build_findings()
        self._build_decisions()
        from .register_panel import RegisterPanel  # the applications, next / previous, the comment letter

        self.register_panel = RegisterPanel(self)
        self._lay_out()
        from .live_check import LiveCheck  # the findings follow the edits

        self.live = LiveCheck(self)
        self.live.attach()
        self.session.subscribe(self._session_changed)
        self.restore_settings()
        self._project_read_review()
        QgsProject.instance().readProject.connect(self._project_read)
        QgsProject.instance().cleared.connect(self._project_cleared)
        QgsProject.instance().writeProject.connect(self._save_application_fields)
