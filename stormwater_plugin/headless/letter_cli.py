"""``stormwater-check letter REVIEW_DIR [--previous EARLIER_DIR] --out LETTER.docx``: the reviewer's comment letter.

REVIEW_DIR is a check's ``--out`` folder (its findings.json, decisions applied). Writes the DOCX, a PDF
beside it (same name, ``.pdf``) and ``letter.json`` in REVIEW_DIR, which the next round's letter reads to
keep every comment's number. The composition is :func:`stormwater_plugin.services.letter.compose_letter`,
the same the dock calls. The three files are written together (:mod:`stormwater_plugin.report.letter_files`).

``--template TOWN.docx`` lays the letter out in the town's own letterhead and signature block (the
placeholders are listed in :mod:`stormwater_plugin.report.letter_template`). ``--comment-edits EDITS.json``
applies the reviewer's edits (reword, drop, add, mark; :mod:`stormwater_plugin.services.letter_edits`), the
same document the dock stores with the round; the edits applied are written back into ``letter.json``
(``edits``), and ``--write-edits FILE`` writes them as an edits document the dock can import.
"""

from __future__ import annotations

import datetime as _dt
import json
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import click

from ..core.printable import printable_changed
from ..core.rulepack import JURISDICTIONS, load_pack
from ..services.letter import LetterError, LetterHeader, compose_letter
from ..services.letter_edits import CommentEdit, CommentEditError, dumps_edits, edits_from
from ..services.optional import MissingLibrary, require
from ..services.output_manifest import OutputFolderError
from ..services.safe_files import write_text
from .command_line import Command, namespace, out_option
from .compare_cli import read_previous
from .errors import fail
from .reader import InputError

LETTER_JSON = "letter.json"


@click.command(cls=Command, help="Write the reviewer's comment letter (DOCX and PDF) from a check's output folder: numbered comments grouped by "
               "code section; on a resubmission (--previous) each earlier comment marked addressed, not addressed or partly addressed. "
               "REVIEW: the check's output folder (or its findings.json).")
@click.argument("review", type=Path)
@click.option("--previous", type=Path, metavar="EARLIER_DIR", help="the earlier round's output folder (its findings.json and letter.json)")
@out_option("the letter; a PDF is written beside it", metavar="LETTER.docx")
@click.option("--town", default="", help="the town or agency writing")
@click.option("--application", default="", metavar="REF", help="the application's reference number")
@click.option("--applicant", default="")
@click.option("--address", default="", help="the property's address")
@click.option("--mailing-address", default="", metavar="LINES", help="the applicant's mailing address (lines separated by ';')")
@click.option("--reviewer", default="", metavar="NAME")
@click.option("--reviewer-title", default="", metavar="TITLE", help="the signer's title (Town Engineer)")
@click.option("--date", default="", help="the letter's date, ISO 8601 (default: today); printed December 5, 2026")
@click.option("--template", type=Path, metavar="TOWN.docx", help="the town's letter template (letterhead, signature block, placeholders)")
@click.option("--comment-edits", type=Path, metavar="EDITS.json", help="the reviewer's edits of the comments (reword, drop, add, mark)")
@click.option("--write-edits", type=Path, metavar="EDITS.json", help="write the edits applied (with the round) to this file")
@click.option("--comments", type=Path, metavar="COMMENTS.json",
              help='the reviewer\'s own comments and conditions: {"comments": [{"text": ..., "section": ...}], "conditions": [...]}')
def command(**values: Any) -> int:
    """Write the letter; exit 0 when no comment requiring a change stays open, 1 otherwise."""
    return main(namespace(values))


def _read_json(path: Path, what: str) -> Any:
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise InputError(f"{path}: cannot read {what} ({exc.strerror})") from exc
    except ValueError as exc:
        raise InputError(f"{path}: {what} is not JSON ({exc})") from exc


def main(args: SimpleNamespace) -> int:
    """Write the letter; exit 0 when no comment requiring a change stays open, 1 otherwise."""
    notes: list[str] = []
    try:
        doc = read_previous(args.review)
        review_dir = Path(doc["_path"]).parent
        previous_doc = read_previous(args.previous) if args.previous else None
        previous_letter = None
        if previous_doc is not None:
            lj = Path(previous_doc["_path"]).parent / LETTER_JSON
            previous_letter = _read_json(lj, "the earlier letter") if lj.is_file() else None
        extra = _read_json(args.comments, "the comments file") if args.comments else {}
        if not isinstance(extra, dict):
            raise InputError(f"{args.comments}: give an object with 'comments' and 'conditions'")
        edits: list[CommentEdit] = []
        if args.comment_edits:
            try:
                _round_of_edits, edits = edits_from(_read_json(args.comment_edits, "the comment edits"))
            except CommentEditError as exc:
                raise InputError(f"{args.comment_edits}: {exc}") from exc
        template = None
        if args.template:
            require("docx", "reading a letter template")
            # lazy: python-docx is needed only for a template
            from ..report.letter_template import LetterTemplateError, read_template

            try:
                template = read_template(args.template)
            except LetterTemplateError as exc:
                raise InputError(str(exc)) from exc
        jur = str(doc.get("jurisdiction") or "")
        title = load_pack(jur).title if jur in JURISDICTIONS else str((doc.get("rule_pack") or {}).get("title") or jur)
        header = LetterHeader(
            title=title,
            town=args.town,
            application=args.application,
            applicant=args.applicant,
            address=args.address,
            mailing_address=args.mailing_address,
            parcel=str(doc.get("site_parcel") or ""),
            reviewer=args.reviewer,
            reviewer_title=args.reviewer_title,
            date=args.date or _dt.date.today().isoformat(),
        )
        try:
            letter = compose_letter(doc, header, previous_doc=previous_doc, previous_letter=previous_letter,
                                    reviewer_comments=list(extra.get("comments") or []), conditions=list(extra.get("conditions") or []),
                                    edits=edits)
        except (LetterError, ValueError) as exc:
            raise InputError(str(exc)) from exc
        changed = [name for name in ("town", "application", "applicant", "address", "reviewer") if printable_changed(getattr(args, name))]
        if changed:  # the letter's blocks pass through printable_text; the reviewer is told which values it changed
            sys.stderr.write(f"stormwater-check letter: note: control characters (a line break, a NUL, a terminal escape) removed from "
                             f"{', '.join('--' + n for n in changed)}\n")
        out = Path(args.out)
        if out.suffix.lower() != ".docx":
            raise InputError(f"--out {out}: give a .docx path (the PDF is written beside it)")
        require("docx", "the letter")
        require("reportlab", "the letter's PDF")
        # lazy: python-docx and reportlab are needed only here
        from ..report.letter_files import write_letter_files

        try:
            # over the files the folders' manifests say the tool wrote only; an earlier release's letter said so
            write_letter_files(letter, out, [review_dir / LETTER_JSON], template, notes=notes)
            if args.write_edits:
                write_text(args.write_edits, dumps_edits(letter.edits, letter.header.round))
        except OSError as exc:
            raise InputError(f"{exc.filename or out}: cannot write the letter ({exc.strerror})") from exc
    except (InputError, OutputFolderError, MissingLibrary) as exc:
        fail("stormwater-check letter", str(exc))
    for note in notes:
        sys.stderr.write(f"stormwater-check letter: note: {note}\n")
    prior = {m: sum(1 for p in letter.prior if p.mark == m) for m in ("addressed", "partly addressed", "not addressed", "no longer applies")}
    print(f"Round {letter.header.round}: {len(letter.comments)} new comment(s)"
          + (", earlier comments: " + ", ".join(f"{n} {m}" for m, n in prior.items() if n) if letter.prior else "")
          + f"; {letter.open_count} open.")
    for e in letter.stale_edits:
        print(f"Warning: the edit '{e.action}' of comment {e.target} names no comment of this letter: not applied.")
    print(f"Wrote {out}, {out.with_suffix('.pdf')} and {review_dir / LETTER_JSON}")
    return 1 if letter.open_count else 0
