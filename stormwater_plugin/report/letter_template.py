"""A town's letter template (DOCX): its letterhead, signature block and footer, with placeholders.

A town supplies a Word document made as it makes its letters. The letter's body goes where a paragraph
holds only ``{{body}}``; what the template has before it (and in its page header) is the letterhead, what
follows it the signature block. Anywhere in the document, its headers and footers, these placeholders are
replaced (letter case as written, spaces inside the braces allowed):

==================  ==================================================================
``{{town}}``        the town or agency writing
``{{date}}``        the letter's date, US style (``December 5, 2026``)
``{{reviewer}}``    the reviewer who signs
``{{reviewer_title}}`` the reviewer's title (``Town Engineer``)
``{{application}}`` the application's reference number
``{{applicant}}``   the applicant
``{{property}}``    the property's address
``{{parcel}}``      the tax parcel
``{{regulation}}``  the regulation reviewed against
``{{round}}``       the review round (1, 2, …)
``{{page}}``        the page number (a Word field)
``{{pages}}``       the number of pages (a Word field)
==================  ==================================================================

A placeholder left unknown stays as written, so a misspelt one shows in the letter rather than vanishing.
Without ``{{body}}`` the body follows the template's text and the built-in signature block closes it; a
template with no page number in any footer gets "Page N of M" in its footer. Without a template the
built-in letterhead (the town, "Stormwater site plan review") and signature block are used.

A template that cannot be read as a DOCX is refused with one line naming it (:class:`LetterTemplateError`).
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Mapping

from ..core.errors import StormwaterError

#: The paragraph that marks where the letter's body goes.
BODY = "body"
PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_]+)\s*\}\}")
_PAGE_FIELDS = {"page": "PAGE", "pages": "NUMPAGES"}


class LetterTemplateError(ValueError, StormwaterError):
    """A letter template that cannot be used (one line, naming the file)."""


@dataclass(frozen=True)
class LetterTemplate:
    """A town's template, read and checked once.

    Attributes
    ----------
    path : Path
        Where it was read from (for messages).
    data : bytes
        The DOCX itself: each letter opens its own copy.
    letterhead, signature, footer : tuple of str
        The template's text before ``{{body}}`` (page header first), after it, and in its footers, with the
        placeholders still in: what the PDF prints in the same places.
    has_body : bool
        Whether the template marks where the body goes.
    """

    path: Path
    data: bytes
    letterhead: tuple[str, ...]
    signature: tuple[str, ...]
    footer: tuple[str, ...]
    has_body: bool

    def open(self) -> Any:
        """A fresh python-docx Document of the template."""
        from docx import Document

        return Document(io.BytesIO(self.data))


def read_template(path: Path) -> LetterTemplate:
    """Read and check a town's letter template.

    Raises
    ------
    LetterTemplateError
        The file cannot be read, or is not a Word document (.docx).
    """
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise LetterTemplateError(f"letter template {path}: cannot be read ({exc.strerror or exc})") from exc
    try:
        from docx import Document

        doc = Document(io.BytesIO(data))
    except ImportError:
        raise
    except Exception as exc:  # python-docx raises zip, XML, key and package errors alike for a damaged file
        reason = (str(exc).splitlines() or [type(exc).__name__])[0]
        raise LetterTemplateError(f"letter template {path}: not a readable Word document (.docx): {reason}") from exc
    before: list[str] = []
    after: list[str] = []
    has_body = False
    for section in doc.sections:
        before += [p.text for p in section.header.paragraphs if p.text.strip()]
    for p in doc.paragraphs:
        if _is_body(p.text):
            has_body = True
        elif p.text.strip():
            (after if has_body else before).append(p.text)
    footer = [p.text for s in doc.sections for p in s.footer.paragraphs if p.text.strip()]
    return LetterTemplate(path, data, tuple(before), tuple(after), tuple(footer), has_body)


def _is_body(text: str) -> bool:
    m = PLACEHOLDER.fullmatch(text.strip())
    return m is not None and m.group(1).lower() == BODY


def fill(text: str, values: Mapping[str, str]) -> str:
    """``text`` with each known placeholder replaced (page fields excepted: they are Word's)."""
    def one(m: re.Match[str]) -> str:
        name = m.group(1).lower()
        return values[name] if name in values else m.group(0)

    return PLACEHOLDER.sub(one, text)


def _paragraphs(doc: Any) -> Iterator[Any]:
    """Every paragraph of the document: body, tables, headers and footers."""
    def walk(container: Any) -> Iterator[Any]:
        yield from container.paragraphs
        for table in getattr(container, "tables", []):
            for row in table.rows:
                for cell in row.cells:
                    yield from walk(cell)

    yield from walk(doc)
    for s in doc.sections:
        parts = [s.header, s.footer]
        if s.different_first_page_header_footer:
            parts += [s.first_page_header, s.first_page_footer]
        for part in parts:
            if not part.is_linked_to_previous:
                yield from walk(part)


def add_field(paragraph: Any, instruction: str) -> None:
    """Append a Word field (``PAGE``, ``NUMPAGES``) to ``paragraph``."""
    from docx.oxml import OxmlElement
    from docx.oxml.ns import qn

    fld = OxmlElement("w:fldSimple")
    fld.set(qn("w:instr"), f" {instruction} ")
    r = OxmlElement("w:r")
    t = OxmlElement("w:t")
    t.text = "1"
    r.append(t)
    fld.append(r)
    paragraph._p.append(fld)


def fill_document(doc: Any, values: Mapping[str, str]) -> bool:
    """Replace the placeholders everywhere in ``doc``; returns whether a page-number field was placed.

    A paragraph holding a placeholder is rewritten as one run in the formatting of its first run (Word may
    split ``{{town}}`` over several runs); a paragraph without one is left exactly as the town made it.
    """
    page_field = False
    for p in _paragraphs(doc):
        text = p.text
        if "{{" not in text or _is_body(text):
            continue
        filled = fill(text, values)
        pieces = re.split(r"(\{\{\s*(?:page|pages)\s*\}\})", filled, flags=re.IGNORECASE)
        runs = list(p.runs)
        if not runs:
            continue
        runs[0].text = pieces[0]
        for r in runs[1:]:
            r.text = ""
        for piece in pieces[1:]:
            m = PLACEHOLDER.fullmatch(piece)
            if m and m.group(1).lower() in _PAGE_FIELDS:
                add_field(p, _PAGE_FIELDS[m.group(1).lower()])
                page_field = True
            elif piece:
                p.add_run(piece)
    return page_field


def has_page_field(doc: Any) -> bool:
    """Whether any footer or header already shows a page number (a Word PAGE field)."""
    for s in doc.sections:
        for part in (s.header, s.footer):
            xml = part._element.xml
            if "PAGE" in xml and ("fldSimple" in xml or "instrText" in xml):
                return True
    return False


def body_anchor(doc: Any) -> Any | None:
    """The template's ``{{body}}`` paragraph, or None."""
    return next((p for p in doc.paragraphs if _is_body(p.text)), None)


__all__ = ["BODY", "LetterTemplate", "LetterTemplateError", "add_field", "body_anchor", "fill", "fill_document", "has_page_field", "read_template"]
