"""Reviewer decisions in the dock: kept in the QGIS project, applied with :mod:`stormwater_plugin.core.overrides`.

The decisions live in the project entry ``stormwater_review/overrides`` as the
same JSON as the CLI's ``--overrides`` sidecar file, so they travel with the
``.qgz`` and can be exported to (or imported from) a file. Nothing here
decides how a decision applies: :func:`~stormwater_plugin.core.overrides.annotate_document`
(through :meth:`~stormwater_plugin.services.review.Review.decided`, the one place decisions are applied) matches
decisions to findings and finds the stale ones.
"""

from __future__ import annotations

import datetime as _dt
from typing import Any

from qgis.core import QgsProject
from qgis.PyQt.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from ..services.decisions import (
    Override,
    OverrideError,
    dumps_overrides,
    loads_overrides,
    make_override,
    remove_override,
    set_override,
)
from .role_form import SCOPE

ENTRY = "overrides"


class OverrideStore:
    """The reviewer's decisions of one project.

    Parameters
    ----------
    project : QgsProject, optional
        Where they are stored (the current project by default).
    """

    def __init__(self, project: QgsProject | None = None) -> None:
        self._project = project
        self.overrides: list[Override] = []
        self.error: str | None = None

    @property
    def project(self) -> QgsProject:
        return self._project or QgsProject.instance()

    def load(self) -> list[Override]:
        """Read the decisions stored in the project (an unreadable entry is kept in ``error``, never lost silently)."""
        text, ok = self.project.readEntry(SCOPE, ENTRY, "")
        self.error = None
        self.overrides = []
        if ok and text.strip():
            try:
                self.overrides = loads_overrides(text, "project entry stormwater_review/overrides")
            except OverrideError as exc:
                self.error = str(exc)
        return self.overrides

    def save(self) -> None:
        """Write the decisions into the project (saved with the .qgz)."""
        self.project.writeEntry(SCOPE, ENTRY, dumps_overrides(self.overrides) if self.overrides else "")

    def clear(self) -> None:
        self.overrides = []
        self.error = None

    def decide(self, key: str, decision: str, reason: str, reviewer: str, status: str | None, also_remove: str | None = None) -> Override:
        """Record a decision on the finding ``key`` (replacing an earlier one on it) and save.

        ``also_remove`` is the key of the earlier decision when it was made
        under another key that followed the finding (a qualified key).

        Raises
        ------
        OverrideError
            When the decision, reason or reviewer is unusable.
        """
        o = make_override(key, decision, reason, reviewer, _dt.date.today().isoformat(), status)
        kept = remove_override(self.overrides, also_remove) if also_remove and also_remove != key else self.overrides
        self.overrides = set_override(kept, o)
        self.save()
        return o

    def clear_decision(self, *keys: str) -> bool:
        """Remove the decisions on ``keys``; ``True`` when one was removed."""
        before = len(self.overrides)
        for k in keys:
            if k:
                self.overrides = remove_override(self.overrides, k)
        self.save()
        return len(self.overrides) != before

    def import_text(self, text: str, source: str) -> int:
        """Merge the decisions of a sidecar file (the file's decision wins on a key); returns how many were read."""
        new = loads_overrides(text, source)
        merged = list(self.overrides)
        for o in new:
            merged = set_override(merged, o)
        self.overrides = merged
        self.save()
        return len(new)

    def export_text(self) -> str:
        return dumps_overrides(self.overrides)


class DecisionDialog(QDialog):
    """Ask for the reason and the reviewer's name of a decision; OK only when both are given."""

    def __init__(self, decision: str, finding_text: str, reviewer: str = "", reason: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        verb = self.tr("Accept") if decision == "accepted" else self.tr("Waive")
        self.setWindowTitle(self.tr("{0} finding").format(verb))
        intro = QLabel(finding_text)
        intro.setWordWrap(True)
        hint = QLabel(
            self.tr("Accepted: the condition is acceptable as it is (e.g. a sliver from inexact tax-parcel lines, verified in the field).")
            if decision == "accepted"
            else self.tr("Waived: the requirement is set aside (e.g. a variance granted; give its number).")
        )
        hint.setWordWrap(True)
        self.reason = QPlainTextEdit(reason)
        self.reason.setPlaceholderText(self.tr("Reason, e.g. 'Variance ZBA-2026-14 granted 2026-03-02'"))
        self.reason.setFixedHeight(70)
        self.reviewer = QLineEdit(reviewer)
        self.reviewer.setPlaceholderText(self.tr("Reviewer's name"))
        form = QFormLayout()
        form.addRow(self.tr("Reason"), self.reason)
        form.addRow(self.tr("Reviewer"), self.reviewer)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        lay.addWidget(intro)
        lay.addWidget(hint)
        lay.addLayout(form)
        lay.addWidget(self.buttons)
        self.reason.textChanged.connect(self._update)
        self.reviewer.textChanged.connect(self._update)
        self._update()

    def _update(self, *_a: Any) -> None:
        ok = bool(self.reason.toPlainText().strip()) and bool(self.reviewer.text().strip())
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(ok)

    def values(self) -> tuple[str, str]:
        return self.reason.toPlainText().strip(), self.reviewer.text().strip()


def ask_decision(parent: QWidget | None, decision: str, finding_text: str, reviewer: str = "", reason: str = "") -> tuple[str, str] | None:
    """Show :class:`DecisionDialog`; ``(reason, reviewer)`` or ``None`` when cancelled."""
    dlg = DecisionDialog(decision, finding_text, reviewer, reason, parent)
    if dlg.exec() != QDialog.DialogCode.Accepted:
        return None
    return dlg.values()
