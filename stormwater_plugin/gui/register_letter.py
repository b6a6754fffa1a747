"""The register panel's comment letter: compose, edit the comments, write (a mixin of :class:`~.register_panel.RegisterPanel`).

With an application open, the letter goes to ``REGISTER/reviews/<id>/letter-round<N>.docx`` (no dialog), its
previous round is the application's previous review and letter, and the letter is recorded in the application's
saved state; the reviewer's edits of the round are applied.
"""

from __future__ import annotations

import datetime as _dt
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from qgis.core import Qgis
from qgis.PyQt.QtWidgets import QFileDialog

from ..services.application_state import save_application_state
from ..services.letter import Letter, LetterError, LetterHeader, compose_letter
from ..services.letter_edits import CommentEdit
from ..services.output_manifest import OutputFolderError
from ..services.packs import JURISDICTIONS, load_pack
from ..services.register import Application, Register, RegisterError
from .letter_edits_ui import CommentEditsDialog, CommentEditStore

if TYPE_CHECKING:  # a mixin of the panel, a QWidget (typed as such)
    from qgis.PyQt.QtWidgets import QWidget as _Base
else:
    _Base = object


class RegisterLetter(_Base):
    """The comment letter of the panel's current review."""

    if TYPE_CHECKING:  # the panel's own attributes and methods
        register: Register | None
        dock: Any
        comment_edits: CommentEditStore

        def current(self) -> Application | None: ...

    def _letter_inputs(self) -> tuple[LetterHeader, dict[str, Any] | None, Any, dict[str, Any]]:
        """The header, previous review, previous letter and saved state of the current review's letter."""
        doc = self.dock.document  # the review shown, typed
        app = self.current()
        # the saved state as the panel reads it (letters by round, each a letter.json document)
        state: dict[str, Any] = self.register.load_state(app.id) if app is not None and self.register is not None else {}
        previous_doc = self.dock.previous_doc
        previous_letter = None
        if app is not None and app.round > 1:
            previous_letter = (state.get("letters") or {}).get(str(app.round - 1))
            if previous_letter is None and app.previous_output and self.register is not None:
                lj = self.register.resolve(app.previous_output) / "letter.json"
                if lj.is_file():
                    previous_letter = json.loads(lj.read_text(encoding="utf-8"))
        elif app is not None:
            previous_doc = None  # round 1: no earlier letter, whatever earlier check the project kept
        jur = doc.jurisdiction if doc is not None else ""
        extra = self.register.extra if self.register is not None else {}
        header = LetterHeader(
            title=load_pack(jur).title if jur in JURISDICTIONS else jur,
            town=self.register.town if self.register is not None else "",
            application=(app.reference or app.id) if app is not None else self.dock.reference.text().strip(),
            applicant=app.applicant if app else "", address=app.address if app else "",
            mailing_address=str(app.extra.get("mailing_address") or "") if app else "",
            parcel=(app.parcel if app and app.parcel else str((doc.site_parcel if doc is not None else None) or "")),
            reviewer=self.dock.reviewer.text().strip() or (app.reviewer if app else ""),
            reviewer_title=str(extra.get("reviewer_title") or ""),
            date=_dt.date.today().isoformat(),
        )
        return header, previous_doc, previous_letter, state

    def _letter_round(self, previous_letter: Any) -> int:
        app = self.current()
        if app is not None:
            return app.round
        return int((previous_letter or {}).get("header", {}).get("round", 0)) + 1 if previous_letter else (2 if self.dock.previous_doc else 1)

    def compose_current(self, edits: list[CommentEdit] | None = None) -> Letter:
        """The letter of the current review, with ``edits`` (the stored edits of its round when None)."""
        header, previous_doc, previous_letter, _state = self._letter_inputs()
        if edits is None:
            edits = self.comment_edits.for_round(self._letter_round(previous_letter))
        document = self.dock.document
        if document is None:
            raise LetterError("no review to write a letter from: run the check first")
        return compose_letter(document, header, previous_doc=previous_doc, previous_letter=previous_letter, edits=edits)

    def edit_comments(self, show: bool = True) -> CommentEditsDialog | None:
        """The dialog of the letter's comments (reword, drop, add); shown modal unless ``show`` is False (tests)."""
        document = self.dock.document  # the review shown, typed
        if document is None:
            self.dock.message(self.dock.tr("Run the check first: the comments come from the current review."), Qgis.MessageLevel.Info)
            return None
        _h, _pd, previous_letter, _s = self._letter_inputs()
        features = [dict(layer=str(r.get("layer")), id=str(r.get("id"))) for r in document.inventory if r.get("on_site")]
        try:
            dialog = CommentEditsDialog(lambda e: self.compose_current(e), self.comment_edits, self._letter_round(previous_letter), features, self)
        except (LetterError, ValueError) as exc:
            self.dock.message(self.dock.tr("The letter's comments could not be composed: {0}").format(exc), Qgis.MessageLevel.Critical, 0)
            return None
        if show:
            dialog.exec()
        return dialog

    def _template(self) -> Any:
        """The town's letter template named in the register (``letter_template``, relative to it), or None."""
        name = str((self.register.extra if self.register is not None else {}).get("letter_template") or "")
        if not name or self.register is None:
            return None
        from ..report.letter_template import read_template  # lazy: python-docx (optional) loads only when a letter is written

        return read_template(self.register.resolve(name))

    def write_letter(self, path: str | None = None) -> Path | None:
        """Write the comment letter of the current review (DOCX and a PDF beside it); returns the DOCX path.

        With an application open, the letter goes to ``REGISTER/reviews/<id>/letter-round<N>.docx`` (no dialog)
        and its previous round is the application's previous review and letter. The reviewer's edits of this
        round (:meth:`edit_comments`) are applied. The DOCX, the PDF and letter.json are written together.
        """

        if self.dock.document is None:
            self.dock.message(self.dock.tr("Run the check first: the letter is written from the current review."), Qgis.MessageLevel.Info)
            return None
        app = self.current()
        if path is None:
            if app is not None and self.register is not None:
                path = str(self.register.state_dir(app.id) / f"letter-round{app.round}.docx")
            else:
                path, _ = QFileDialog.getSaveFileName(self, self.dock.tr("Comment letter"), "letter.docx", self.dock.tr("Word document (*.docx)"))
                if not path:
                    return None
        self.comment_edits.load()
        if self.comment_edits.error:
            self.dock.message(self.dock.tr("The comment edits stored in the project could not be read: {0}").format(self.comment_edits.error),
                              Qgis.MessageLevel.Warning, 0)
        try:
            _h, _pd, _pl, state = self._letter_inputs()
            letter = self.compose_current()
            # lazy: python-docx and reportlab (optional) load only when a letter is written
            from ..report.letter_files import write_letter_files
            from ..report.letter_template import LetterTemplateError

            out = Path(path)
            try:
                template = self._template()
            except LetterTemplateError as exc:
                self.dock.message(str(exc), Qgis.MessageLevel.Critical, 0)
                return None
            write_letter_files(letter, out, [out.with_suffix(".json")], template)
        except ImportError as exc:
            self.dock.message(self.dock.tr("Writing the letter needs {0} (Debian: apt-get install python3-docx python3-reportlab)").format(exc.name),
                              Qgis.MessageLevel.Critical, 0)
            return None
        except (LetterError, ValueError, OSError, OutputFolderError) as exc:  # OutputFolderError: a same-named file the tool did not write
            self.dock.message(self.dock.tr("The letter could not be written: {0}").format(exc), Qgis.MessageLevel.Critical, 0)
            return None
        if app is not None and self.register is not None:
            letters = dict(state.get("letters") or {})
            letters[str(app.round)] = letter.as_dict()
            try:
                save_application_state(self.register, app.id, {"letters": letters})
            except (RegisterError, OSError) as exc:
                self.dock.message(self.dock.tr("The letter was written but not recorded for {0}: {1}").format(app.id, exc), Qgis.MessageLevel.Warning, 0)
        if letter.stale_edits:
            self.dock.message(self.dock.tr("{0} comment edit(s) name no comment of this letter and were not applied.").format(len(letter.stale_edits)),
                              Qgis.MessageLevel.Warning)
        self.dock.message(self.dock.tr("Comment letter (round {0}, {1} new comment(s), {2} open) written to {3} and its PDF.").format(
            letter.header.round, len(letter.comments), letter.open_count, out), Qgis.MessageLevel.Success)
        return out
