"""Per-project settings of the review dock: every per-application field and the review kept with the project.

Each value lives in the project (``QgsProject`` entries under the plugin's
scope), is cleared for a new project and restored with its own.
"""

from __future__ import annotations

import json
import traceback
from typing import TYPE_CHECKING, Any

from qgis.core import Qgis, QgsMessageLog, QgsProject, QgsSettings

from ..services.saved_review import save_review
from .dock_view import LOG_TAG
from .role_form import SCOPE

if TYPE_CHECKING:  # the mixins are parts of one QDockWidget (ReviewDock); typed as such
    from qgis.PyQt.QtWidgets import QDockWidget as _Base
else:
    _Base = object


#: The reviewer's name: a user setting (who sits at this QGIS), kept across applications and projects.
REVIEWER_KEY = "stormwater_review/reviewer_name"


def user_reviewer() -> str:
    """The reviewer's name the user last typed (``""`` before they did)."""
    return str(QgsSettings().value(REVIEWER_KEY, "") or "").strip()


def remember_reviewer(name: str) -> None:
    """Keep ``name`` as the user's reviewer name (empty names are not kept)."""
    if name.strip():
        QgsSettings().setValue(REVIEWER_KEY, name.strip())


class ProjectStore(_Base):
    """The dock's per-project settings and the saved review, read from and written to the project."""

    _restoring: bool
    _kept_this_result: bool
    #: The review kept but not yet written into the project's entry: (review, decisions, inputs, moves, working CRS, first keeping).
    _unwritten_review: tuple[Any, list[Any], dict[str, Any], list[Any], Any, bool] | None

    def _clear_application_fields(self) -> None:
        for edit in (self.site_parcel, self.reference, self.accuracy, self.dem_accuracy):
            edit.clear()
        self.reviewer.setText(user_reviewer())  # the person reviewing stays; the application's values go
        self.project_class.setCurrentIndex(0)
        self.device_type.setCurrentIndex(0)
        self.roles.z_units.setCurrentIndex(0)

    def restore_settings(self) -> None:
        """Restore the choices stored in the project, else guess the layers."""
        project = QgsProject.instance()
        j, ok = project.readEntry(SCOPE, "jurisdiction", "")
        if ok and self.jurisdiction.findData(j) >= 0:
            self.jurisdiction.setCurrentIndex(self.jurisdiction.findData(j))
        c, ok = project.readEntry(SCOPE, "class", "")
        if ok:
            self.project_class.setCurrentIndex(max(0, self.project_class.findData(c)) if c else 0)
        # each field shows its project's value, empty when the project has none (never the last application's)
        for edit, name in ((self.site_parcel, "site_parcel"), (self.reviewer, "reviewer"), (self.reference, "reference"),
                           (self.accuracy, "accuracy"), (self.dem_accuracy, "dem_accuracy")):
            value, ok = project.readEntry(SCOPE, name, "")
            edit.setText(value if ok else "")
        if not self.reviewer.text().strip():  # an application naming no reviewer: the user's own name
            self.reviewer.setText(user_reviewer())
        t, ok = project.readEntry(SCOPE, "device_type", "")
        self.device_type.setCurrentIndex(max(0, self.device_type.findData(t)) if ok and t else 0)
        unresolved = self.roles.restore(project)
        if unresolved:
            self.roles.guess(project, unresolved)
        self.overrides.load()
        if self.overrides.error:
            self.message(self.tr("The reviewer decisions stored in the project could not be read: {0}").format(self.overrides.error), Qgis.MessageLevel.Warning, 0)
        if self.result is not None:
            self.refresh_review()

    def save_settings(self) -> None:
        """Store the choices in the project (saved with it)."""
        project = QgsProject.instance()
        project.writeEntry(SCOPE, "jurisdiction", self.jurisdiction.currentData())
        project.writeEntry(SCOPE, "class", self.project_class.currentData() or "")
        project.writeEntry(SCOPE, "site_parcel", self.site_parcel.text().strip())
        project.writeEntry(SCOPE, "device_type", self.device_type.currentData() or "")
        self._save_review_fields()
        self.roles.save(project)

    def _save_application_fields(self, *_args: object) -> None:
        """Store every per-application field as the dock shows it (connected to ``QgsProject.writeProject``).

        QgsProject writes its entries after emitting ``writeProject``, so a value changed after
        the last run (the DEM unit, an accuracy, the device type…) is saved with the project,
        not only when the check runs. The roles are left as they were saved: a
        role whose layer was removed keeps its saved layer id, so it stays flagged.
        """
        try:
            project = QgsProject.instance()
            project.writeEntry(SCOPE, "jurisdiction", self.jurisdiction.currentData())
            project.writeEntry(SCOPE, "class", self.project_class.currentData() or "")
            project.writeEntry(SCOPE, "site_parcel", self.site_parcel.text().strip())
            project.writeEntry(SCOPE, "device_type", self.device_type.currentData() or "")
            project.writeEntry(SCOPE, "z_units", self.roles.z_unit() or "")
            self._save_review_fields()
        except RuntimeError:  # widgets already deleted (plugin unloading): a slot must never raise
            pass
        try:
            self.write_review()
        except Exception:  # the review could not be written: the fields above are saved, it stays to write, and the log says why
            QgsMessageLog.logMessage(traceback.format_exc(), LOG_TAG, Qgis.MessageLevel.Critical)

    def _remember_reviewer(self) -> None:
        """The reviewer typed their name: kept as a user setting for the next applications."""
        try:
            remember_reviewer(self.reviewer.text())
        except RuntimeError:  # the widget is already deleted (plugin unloading)
            pass

    def _save_review_fields(self) -> None:
        project = QgsProject.instance()
        project.writeEntry(SCOPE, "reviewer", self.reviewer.text().strip())
        project.writeEntry(SCOPE, "reference", self.reference.text().strip())
        project.writeEntry(SCOPE, "accuracy", self.accuracy.text().strip())
        project.writeEntry(SCOPE, "dem_accuracy", self.dem_accuracy.text().strip())

    def _keep_review(self) -> None:
        """Keep the current result's review with the project (saved with it); the one it replaces becomes the previous review.

        A result's first keeping writes at once, so the review it replaces is read as it was
        shown. Later changes of the same result (a live re-check, a decision, its moves) only
        mark the project changed and are written when someone reads the entries:
        :meth:`write_review` runs when the project is saved, when the register saves the
        application and when the plugin unloads. Each change would otherwise serialise the
        whole review on the main thread at every live edit.
        """
        if self.result is None or self.snap is None:
            return
        if self._restoring:  # the review shown was just read from the project: nothing to write (and no serialising on the main thread)
            self._kept_this_result = True
            return
        first = not self._kept_this_result
        if first:  # a change of the review this result replaces, not yet written: written first, so it becomes the previous review
            self.write_review()
        # what the entry is made of, taken now: a later result, decision or setting is not this review's
        self._unwritten_review = (self.session.review, list(self.overrides.overrides), self._inputs_description(), list(self.moves), self.snap.crs, first)
        self._kept_this_result = True  # decisions and re-checks of this result update it in place; they do not make a "previous" review
        if first:
            self.write_review()
        else:
            QgsProject.instance().setDirty(True)  # as writing the entry would: the project has unsaved changes

    def write_review(self) -> None:
        """Write the review kept with the project into its entry, if a change is not written yet (see :meth:`_keep_review`)."""
        pending = getattr(self, "_unwritten_review", None)
        if pending is None:
            return
        shown, overrides, inputs, moves, crs, first = pending
        project = QgsProject.instance()
        # the review shown, as the report writes it (its decisions, moves and what was read): its own document, not serialised again
        review = shown.with_inputs(inputs).decided(overrides)
        saved = save_review(review, extra={"moves": [m.as_dict() for m in moves], "working_crs_wkt": crs.toWkt()})
        text = json.dumps(saved, ensure_ascii=False)
        if first:  # the result's first keeping: the review it replaces becomes the previous one
            old, ok = project.readEntry(SCOPE, "last_review", "")
            if ok and old:
                project.writeEntry(SCOPE, "previous_review", old)
                self.session.previous_doc = json.loads(old)
        project.writeEntry(SCOPE, "last_review", text)
        self._unwritten_review = None  # written (a review that could not be serialised stays to write)

    def _forget_unwritten_review(self) -> None:
        """The project was cleared: a review not yet written belonged to it and goes with it."""
        self._unwritten_review = None
