"""The reviewer's edits of the comment letter in the dock: reword, drop with a reason, add, before the DOCX is written.

The edits are kept in the project entry ``stormwater_review/comment_edits`` (beside the decisions, saved with
the application in the register), as the document ``stormwater-check letter --comment-edits`` reads
(:mod:`stormwater_plugin.services.letter_edits`). The dialog lists the letter as it would be written now
(numbers, status, words), so the reviewer edits what the applicant will read.
"""

from __future__ import annotations

from typing import Any, Callable

from qgis.core import QgsProject
from qgis.PyQt.QtCore import Qt
from qgis.PyQt.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QHBoxLayout,
    QHeaderView,
    QInputDialog,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
)

from ..services.letter import Letter
from ..services.letter_edits import CommentEdit, CommentEditError, dumps_edits, loads_edits, remove_edit, set_edit
from .role_form import SCOPE

ENTRY = "comment_edits"
REF_ROLE = Qt.ItemDataRole.UserRole + 21
COLUMNS = ("No.", "Status", "Comment", "Edit")


class CommentEditStore:
    """The reviewer's edits of one project's letter, for one round.

    Parameters
    ----------
    project : QgsProject, optional
        Where they are stored (the current project by default).
    """

    def __init__(self, project: QgsProject | None = None) -> None:
        self._project = project
        self.edits: list[CommentEdit] = []
        self.round: int | None = None
        self.error: str | None = None

    @property
    def project(self) -> QgsProject:
        return self._project or QgsProject.instance()

    def load(self) -> list[CommentEdit]:
        """Read the edits stored in the project (an unreadable entry is kept in ``error``, never lost silently)."""
        text, ok = self.project.readEntry(SCOPE, ENTRY, "")
        self.error = None
        self.edits, self.round = [], None
        if ok and text.strip():
            try:
                self.round, self.edits = loads_edits(text)
            except CommentEditError as exc:
                self.error = str(exc)
        return self.edits

    def for_round(self, round_no: int) -> list[CommentEdit]:
        """The edits of letter round ``round_no`` (edits of an earlier round are already in its letter.json)."""
        self.load()
        return list(self.edits) if self.round in (None, round_no) else []

    def save(self, round_no: int) -> None:
        """Write the edits into the project (saved with the .qgz and, with an application open, the register)."""
        self.round = round_no
        self.project.writeEntry(SCOPE, ENTRY, dumps_edits(self.edits, round_no) if self.edits else "")


class CommentEditsDialog(QDialog):
    """The letter's comments as they would be written, with reword, drop, add and undo.

    Parameters
    ----------
    compose : callable
        ``compose(edits) -> Letter``: the letter of the current review with these edits (the register panel's).
    store : CommentEditStore
        Where the edits are kept.
    round_no : int
        The letter's round.
    features : list of dict
        Features a free comment may be attached to (``{"layer", "id"}``), besides the site.
    """

    def __init__(self, compose: Callable[[list[CommentEdit]], Letter], store: CommentEditStore, round_no: int,
                 features: list[dict[str, str]] | None = None, parent: Any = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Comments of the letter"))
        self.compose = compose
        self.store = store
        self.round_no = round_no
        self.features = features or []
        self.edits: list[CommentEdit] = store.for_round(round_no)
        self.letter: Letter | None = None
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(list(COLUMNS))
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setWordWrap(True)
        head = self.table.horizontalHeader()
        head.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        self.info = QLabel()
        self.info.setWordWrap(True)
        buttons = QHBoxLayout()
        for label, slot in ((self.tr("Reword…"), self._reword_selected), (self.tr("Drop…"), self._drop_selected),
                            (self.tr("Add…"), self._add_interactive), (self.tr("Undo edit"), self._undo_selected), (self.tr("Close"), self.accept)):
            b = QPushButton(label)
            b.clicked.connect(lambda _c=False, s=slot: s())
            buttons.addWidget(b)
        lay = QVBoxLayout(self)
        lay.addWidget(self.table, 1)
        lay.addWidget(self.info)
        lay.addLayout(buttons)
        self.resize(900, 500)
        self.refresh()

    # -- the model ------------------------------------------------------------------------------

    def refresh(self) -> None:
        """Compose the letter with the edits and list its comments (dropped ones greyed, with the reason)."""
        self.letter = self.compose(self.edits)
        rows: list[tuple[str, str, str, str, str]] = []
        for p in self.letter.prior:
            c = p.comment
            rows.append((str(c.number), f"round {c.round}: {p.mark}", c.text, _edit_word(c.origin), f"#{c.number}"))
        for c in self.letter.comments:
            rows.append((str(c.number), c.status, c.text, _edit_word(c.origin), c.ref))
        for c in self.letter.fyi:
            rows.append(("—", "for information", c.text, _edit_word(c.origin), c.ref))
        for d in self.letter.dropped:
            rows.append(("", "dropped", d.comment.text, f"dropped: {d.reason}", d.comment.ref if d.comment.ref else f"#{d.comment.number}"))
        self.table.setRowCount(len(rows))
        for i, row in enumerate(rows):
            for j, value in enumerate(row[:4]):
                item = QTableWidgetItem(value)
                item.setData(REF_ROLE, row[4])
                self.table.setItem(i, j, item)
        self.table.resizeRowsToContents()
        stale = len(self.letter.stale_edits)
        self.info.setText(self.tr("{0} edit(s); {1} name no comment of this letter and are not applied.").format(len(self.edits), stale)
                          if stale else self.tr("{0} edit(s).").format(len(self.edits)))

    def _save(self) -> None:
        self.store.edits = list(self.edits)
        self.store.save(self.round_no)
        self.refresh()

    def rows(self) -> list[tuple[str, str, str, str]]:
        """The table as text (number, status, comment, edit), for a reader or a test."""
        return [tuple(self.table.item(i, j).text() for j in range(4)) for i in range(self.table.rowCount())]  # type: ignore[misc]

    def _target(self, ref: str) -> dict[str, Any]:
        return {"number": int(ref[1:])} if ref.startswith("#") else {"ref": ref}

    def reword(self, ref: str, text: str) -> None:
        """Reword the comment named ``ref`` (a ref, or ``#<number>`` for an earlier round's)."""
        self.edits = set_edit(self.edits, CommentEdit("reword", text=text, **self._target(ref)))
        self._save()

    def drop(self, ref: str, reason: str) -> None:
        """Leave the comment named ``ref`` out of the letter, with the reason (kept in letter.json)."""
        self.edits = set_edit(self.edits, CommentEdit("drop", reason=reason, **self._target(ref)))
        self._save()

    def add(self, text: str, feature: dict[str, str] | None = None) -> None:
        """Add a free comment about ``feature`` (``{"layer", "id"}``) or the site (None)."""
        self.edits = set_edit(self.edits, CommentEdit("add", text=text, feature=feature))
        self._save()

    def undo(self, ref: str) -> None:
        """Take back every edit of the comment named ``ref`` (an added comment goes)."""
        self.edits = remove_edit(self.edits, ref)
        self._save()

    # -- the buttons ------------------------------------------------------------------------------

    def _selected_ref(self) -> str | None:
        rows = self.table.selectionModel().selectedRows()
        if not rows:
            return None
        return str(self.table.item(rows[0].row(), 0).data(REF_ROLE) or "") or None

    def _reword_selected(self) -> None:
        ref = self._selected_ref()
        if ref is None:
            return
        row = self.table.selectionModel().selectedRows()[0].row()
        text, ok = QInputDialog.getMultiLineText(self, self.tr("Reword the comment"), self.tr("The comment as the applicant reads it:"),
                                                 self.table.item(row, 2).text())
        if ok and text.strip():
            self.reword(ref, text.strip())

    def _drop_selected(self) -> None:
        ref = self._selected_ref()
        if ref is None:
            return
        reason, ok = QInputDialog.getText(self, self.tr("Drop the comment"), self.tr("Why (kept with the letter, not sent):"))
        if ok and reason.strip():
            self.drop(ref, reason.strip())

    def _add_interactive(self) -> None:
        choices = [self.tr("the site")] + [f"{f['layer']} {f['id']}" for f in self.features]
        where, ok = QInputDialog.getItem(self, self.tr("Add a comment"), self.tr("About:"), choices, 0, False)
        if not ok:
            return
        text, ok = QInputDialog.getMultiLineText(self, self.tr("Add a comment"), self.tr("The comment:"))
        if ok and text.strip():
            i = choices.index(where)
            self.add(text.strip(), self.features[i - 1] if i > 0 else None)

    def _undo_selected(self) -> None:
        ref = self._selected_ref()
        if ref is not None:
            self.undo(ref)


def _edit_word(origin: str) -> str:
    return {"reworded": "reworded", "added": "added"}.get(origin, "")


__all__ = ["CommentEditStore", "CommentEditsDialog", "ENTRY"]
