"""The comment letter as DOCX (python-docx): what reviewers edit and send.

Numbers are written as text ("Comment 7"), not Word's automatic list numbering, so a comment keeps its
number in every round and when a reviewer deletes one. Formatting is direct (bold, sizes, indents) rather
than by named styles, so a town's template needs no particular style to take the body. The last paragraph
and the signature block are kept on one page (keep-with-next), and every page shows its number.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

# python-docx at module top: this module is imported only when a letter is written (the letter command and
# the dock's export import it inside the guard that turns a missing package into a LetterWriteError).
from docx import Document
from docx.enum.text import WD_ALIGN_PARAGRAPH
from docx.shared import Pt, RGBColor

from ..services.letter import Letter
from ..services.presentation import STATUS_COLOURS
from ..services.safe_files import write_bytes
from .letter_template import LetterTemplate, add_field, body_anchor, fill, fill_document, has_page_field
from .letter_text import Block, letter_blocks, letterhead_lines, placeholder_values, printable, signature_lines

#: The one palette (services.presentation) for the statuses a comment can have.
_STATUS_RGB = {s: RGBColor.from_string(STATUS_COLOURS[s].lstrip("#").upper()) for s in ("violation", "undetermined", "advisory")}
_HEADING_RGB = RGBColor.from_string("1B3A5C")


def _para(d: Any, *, space_after: float = 6, indent: float = 0) -> Any:
    p = d.add_paragraph()
    p.paragraph_format.space_after = Pt(space_after)
    if indent:
        p.paragraph_format.left_indent = Pt(indent)
    return p


def _lines(p: Any, text: str, *, bold: bool = False) -> None:
    lines = text.split("\n")
    for i, line in enumerate(lines):
        run = p.add_run(line)
        run.bold = bold
        if i < len(lines) - 1:
            run.add_break()


def _add(d: Any, b: Block) -> list[Any]:
    """Add block ``b``; returns the paragraphs it made."""
    made: list[Any] = []
    if b.kind in ("h1", "h2"):
        p = _para(d, space_after=3)
        p.paragraph_format.space_before = Pt(12 if b.kind == "h1" else 6)
        p.paragraph_format.keep_with_next = True
        r = p.add_run(b.text)
        r.bold = True
        r.font.size = Pt(12 if b.kind == "h1" else 10.5)
        if b.kind == "h1":
            r.font.color.rgb = _HEADING_RGB
        made.append(p)
    elif b.kind == "comment":
        p = _para(d)
        lead = p.add_run(b.lead + ". ")
        lead.bold = True
        if b.status in _STATUS_RGB and not b.mark:
            lead.font.color.rgb = _STATUS_RGB[b.status]
        if b.mark:
            p.add_run(b.text).bold = True
            made.append(p)
            for earlier in b.extra:
                q = _para(d, indent=18)
                r = q.add_run(f"The comment read: {earlier}")
                r.italic = True
                r.font.size = Pt(9)
                made.append(q)
        else:
            p.add_run(b.text)
            made.append(p)
    elif b.kind in ("quote", "method"):
        p = _para(d, indent=18)
        r = p.add_run(b.text)
        r.italic = True
        r.font.size = Pt(9)
        made.append(p)
    elif b.kind in ("fix", "item"):
        p = _para(d, space_after=2 if b.kind == "item" else 6, indent=18)
        p.add_run(("• " if b.kind == "item" else "") + b.text)
        made.append(p)
    elif b.kind == "bullet":
        p = _para(d, space_after=3, indent=14)
        p.paragraph_format.first_line_indent = Pt(-10)
        p.add_run("• " + b.text)
        made.append(p)
    elif b.kind == "date":
        p = _para(d, space_after=12)
        p.add_run(b.text)
        made.append(p)
    elif b.kind == "re":
        p = _para(d, space_after=12, indent=36)
        p.paragraph_format.first_line_indent = Pt(-36)
        r = p.add_run("Re:\t")
        r.bold = True
        _lines(p, b.text, bold=True)
        made.append(p)
    elif b.kind == "address":
        p = _para(d, space_after=12)
        _lines(p, b.text)
        made.append(p)
    else:  # para, salutation, closing
        p = _para(d, space_after=8)
        if b.kind == "closing":
            p.paragraph_format.space_before = Pt(10)
        _lines(p, b.text)
        p.alignment = WD_ALIGN_PARAGRAPH.LEFT
        made.append(p)
    return made


def _footer_page_numbers(doc: Any) -> None:
    """ "Page N of M" centred in the footer of every section."""
    for s in doc.sections:
        p = s.footer.add_paragraph() if s.footer.paragraphs and s.footer.paragraphs[-1].text.strip() else (
            s.footer.paragraphs[-1] if s.footer.paragraphs else s.footer.add_paragraph())
        p.alignment = WD_ALIGN_PARAGRAPH.CENTER
        p.add_run("Page ").font.size = Pt(8)
        add_field(p, "PAGE")
        p.add_run(" of ").font.size = Pt(8)
        add_field(p, "NUMPAGES")


def _default_document(letter: Letter) -> Any:
    doc = Document()
    style = doc.styles["Normal"]
    style.font.name = "DejaVu Sans"
    style.font.size = Pt(10)
    head = doc.sections[0].header
    lines = letterhead_lines(letter)
    p = head.paragraphs[0]
    p.alignment = WD_ALIGN_PARAGRAPH.CENTER
    r = p.add_run(printable(lines[0]))
    r.bold = True
    r.font.size = Pt(14)
    for line in lines[1:]:
        q = head.add_paragraph()
        q.alignment = WD_ALIGN_PARAGRAPH.CENTER
        q.add_run(printable(line)).font.size = Pt(9)
    return doc


def letter_docx_bytes(letter: Letter, template: LetterTemplate | None = None) -> bytes:
    """The letter as DOCX bytes, in the town's template when one is given, else the built-in layout."""
    values = placeholder_values(letter)
    doc = template.open() if template is not None else _default_document(letter)
    page_field = fill_document(doc, values) if template is not None else False
    anchor = body_anchor(doc) if template is not None else None
    made: list[Any] = []
    for b in letter_blocks(letter):
        made += _add(doc, b)
    closing = made[-1]
    if anchor is not None:
        for p in made:  # the body goes where the template says; what follows the marker is its signature block
            anchor._p.addprevious(p._p)
        signature = []
        sib = anchor._p.getnext()
        while sib is not None and sib.tag.endswith("}p"):
            signature.append(sib)
            sib = sib.getnext()
        anchor._p.getparent().remove(anchor._p)
        _keep_with_next(closing, signature)
    else:
        sig = [_para(doc, space_after=0)] + [_para(doc, space_after=0) for _ in signature_lines(letter)[1:]]
        for p, line in zip(sig, signature_lines(letter)):
            p.add_run(fill(line, values))
        _keep_with_next(closing, [p._p for p in sig])
    if not page_field and not has_page_field(doc):
        _footer_page_numbers(doc)
    doc.core_properties.title = printable(f"Stormwater review comments, {letter.header.application or letter.header.title}")
    doc.core_properties.author = printable(letter.header.reviewer) or "stormwater-check"
    out = io.BytesIO()
    doc.save(out)
    return out.getvalue()


def _keep_with_next(closing: Any, signature: list[Any]) -> None:
    """Keep the closing paragraph and the signature block (all but its last line) with what follows."""
    from docx.text.paragraph import Paragraph

    closing.paragraph_format.keep_with_next = True
    for el in signature[:-1]:
        Paragraph(el, closing._parent).paragraph_format.keep_with_next = True


def write_letter_docx(letter: Letter, path: Path, template: LetterTemplate | None = None) -> Path:
    """Write ``letter`` to ``path`` (.docx, atomically); returns the path."""
    path = Path(path)
    write_bytes(path, letter_docx_bytes(letter, template))
    return path


__all__ = ["letter_docx_bytes", "write_letter_docx"]
