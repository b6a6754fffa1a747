"""``stormwater-check letter REVIEW_DIR [--previous EARLIER_DIR] --out LETTER.docx``: the reviewer's comment letter.

REVIEW_DIR is a check's ``--out`` folder (its findings.json, decisions applied). Writes the DOCX, a PDF
beside it (same name, ``.pdf``) and ``letter.json`` in REVIEW_DIR, which the next round's letter reads to
keep every comment's number. The composition is :func:`stormwater_plugin.services.letter.compose_letter`,
the same the dock calls.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import sys
from pathlib import Path
from typing import Any, Sequence

from ..core.printable import printable_changed
from ..core.rulepack import JURISDICTIONS, load_pack
from ..services.letter import LetterError, LetterHeader, compose_letter
from .compare_cli import read_previous
from .errors import fail
from .reader import InputError

LETTER_JSON = "letter.json"


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="stormwater-check letter",
        description="Write the reviewer's comment letter (DOCX and PDF) from a check's output folder: numbered comments grouped by code "
        "section; on a resubmission (--previous) each earlier comment marked addressed, not addressed or partly addressed.",
    )
    p.add_argument("review", type=Path, help="the check's output folder (or its findings.json)")
    p.add_argument("--previous", type=Path, metavar="EARLIER_DIR", help="the earlier round's output folder (its findings.json and letter.json)")
    p.add_argument("--out", type=Path, required=True, metavar="LETTER.docx", help="the letter; a PDF is written beside it")
    p.add_argument("--town", default="", help="the town or agency writing")
    p.add_argument("--application", default="", metavar="REF", help="the application's reference number")
    p.add_argument("--applicant", default="")
    p.add_argument("--address", default="", help="the property's address")
    p.add_argument("--reviewer", default="", metavar="NAME")
    p.add_argument("--date", default="", help="the letter's date (default: today)")
    p.add_argument("--comments", type=Path, metavar="COMMENTS.json",
                   help='the reviewer\'s own comments and conditions: {"comments": [{"text": ..., "section": ...}], "conditions": [...]}')
    return p


def _read_json(path: Path, what: str) -> Any:
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise InputError(f"{path}: cannot read {what} ({exc.strerror})") from exc
    except ValueError as exc:
        raise InputError(f"{path}: {what} is not JSON ({exc})") from exc


def main(argv: Sequence[str]) -> int:
    """Write the letter; exit 0 when no comment requiring a change stays open, 1 otherwise."""
    args = _parser().parse_args(list(argv))
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
        jur = str(doc.get("jurisdiction") or "")
        title = load_pack(jur).title if jur in JURISDICTIONS else str((doc.get("rule_pack") or {}).get("title") or jur)
        header = LetterHeader(
            title=title,
            town=args.town,
            application=args.application,
            applicant=args.applicant,
            address=args.address,
            parcel=str(doc.get("site_parcel") or ""),
            reviewer=args.reviewer,
            date=args.date or _dt.date.today().isoformat(),
        )
        try:
            letter = compose_letter(doc, header, previous_doc=previous_doc, previous_letter=previous_letter,
                                    reviewer_comments=list(extra.get("comments") or []), conditions=list(extra.get("conditions") or []))
        except (LetterError, ValueError) as exc:
            raise InputError(str(exc)) from exc
        changed = [name for name in ("town", "application", "applicant", "address", "reviewer") if printable_changed(getattr(args, name))]
        if changed:  # the letter's blocks pass through printable_text; the reviewer is told which values it changed (issue 35)
            sys.stderr.write(f"stormwater-check letter: note: control characters (a line break, a NUL, a terminal escape) removed from "
                             f"{', '.join('--' + n for n in changed)}\n")
        out = Path(args.out)
        if out.suffix.lower() != ".docx":
            raise InputError(f"--out {out}: give a .docx path (the PDF is written beside it)")
        try:
            # lazy: python-docx and reportlab are needed only here
            from ..report.letter_docx import write_letter_docx
            from ..report.letter_pdf import write_letter_pdf
        except ImportError as exc:
            raise InputError(f"writing the letter needs {exc.name or 'python-docx'} (Debian: apt-get install python3-docx python3-reportlab)") from exc
        try:
            out.parent.mkdir(parents=True, exist_ok=True)
            write_letter_docx(letter, out)
            write_letter_pdf(letter, out.with_suffix(".pdf"))
            (review_dir / LETTER_JSON).write_text(json.dumps(letter.as_dict(), indent=2, ensure_ascii=False), encoding="utf-8")
        except OSError as exc:
            raise InputError(f"{exc.filename or out}: cannot write the letter ({exc.strerror})") from exc
    except InputError as exc:
        fail("stormwater-check letter", str(exc))
    prior = {m: sum(1 for p in letter.prior if p.mark == m) for m in ("addressed", "partly addressed", "not addressed", "no longer applies")}
    print(f"Round {letter.header.round}: {len(letter.comments)} new comment(s)"
          + (", earlier comments: " + ", ".join(f"{n} {m}" for m, n in prior.items() if n) if letter.prior else "")
          + f"; {letter.open_count} open.")
    print(f"Wrote {out}, {out.with_suffix('.pdf')} and {review_dir / LETTER_JSON}")
    return 1 if letter.open_count else 0
