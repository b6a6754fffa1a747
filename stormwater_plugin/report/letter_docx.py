"""The comment letter as DOCX (python-docx): what reviewers edit and send.

Numbers are written as text ("Comment 7"), not Word's automatic list numbering, so a comment keeps its
number in every round and when a reviewer deletes one.
"""

from __future__ import annotations

from pathlib import Path

# python-docx at module top: this module is imported only when a letter is written (the letter command and
# the dock's export import it inside the guard that turns a missing package into a LetterWriteError).
from docx import Document
from docx.enum.text import WD_ALIGN_PARAGRAPH
from docx.shared import Pt, RGBColor

from ..core.printable import printable_text
from ..services.letter import Letter
from ..services.presentation import STATUS_COLOURS
from .letter_text import Block, letter_blocks

#: The one palette (services.presentation) for the statuses a comment can have.
_STATUS_RGB = {s: RGBColor.from_string(STATUS_COLOURS[s].lstrip("#").upper()) for s in ("violation", "undetermined", "advisory")}


def _add(doc: object, b: Block) -> None:
    d = doc  # python-docx Document
    if b.kind == "title":
        d.add_heading(b.text, level=0)  # type: ignore[attr-defined]
    elif b.kind == "meta":
        p = d.add_paragraph()  # type: ignore[attr-defined]
        label, _, value = b.text.partition(": ")
        p.add_run(f"{label}: ").bold = True
        p.add_run(value)
        p.paragraph_format.space_after = Pt(0)
    elif b.kind == "h1":
        d.add_heading(b.text, level=1)  # type: ignore[attr-defined]
    elif b.kind == "h2":
        d.add_heading(b.text, level=2)  # type: ignore[attr-defined]
    elif b.kind == "comment":
        p = d.add_paragraph()  # type: ignore[attr-defined]
        lead = p.add_run(b.lead + ". ")
        lead.bold = True
        if b.status in _STATUS_RGB and not b.mark:
            lead.font.color.rgb = _STATUS_RGB[b.status]
        if b.mark:
            p.add_run(b.text).bold = True
            for earlier in b.extra:
                q = d.add_paragraph()  # type: ignore[attr-defined]
                q.paragraph_format.left_indent = Pt(18)
                r = q.add_run(f"The comment read: {earlier}")
                r.italic = True
                r.font.size = Pt(9)
        else:
            p.add_run(b.text)
    elif b.kind == "quote":
        p = d.add_paragraph()  # type: ignore[attr-defined]
        p.paragraph_format.left_indent = Pt(18)
        r = p.add_run(b.text)
        r.italic = True
        r.font.size = Pt(9)
    elif b.kind == "fix":
        p = d.add_paragraph()  # type: ignore[attr-defined]
        p.paragraph_format.left_indent = Pt(18)
        p.add_run(b.text)
    elif b.kind == "bullet":
        d.add_paragraph(b.text, style="List Bullet")  # type: ignore[attr-defined]
    else:
        p = d.add_paragraph()  # type: ignore[attr-defined]
        lines = b.text.split("\n")
        for i, line in enumerate(lines):
            run = p.add_run(line)
            if i < len(lines) - 1:
                run.add_break()
        p.alignment = WD_ALIGN_PARAGRAPH.LEFT


def write_letter_docx(letter: Letter, path: Path) -> Path:
    """Write ``letter`` to ``path`` (.docx); returns the path."""
    doc = Document()
    style = doc.styles["Normal"]
    style.font.name = "DejaVu Sans"
    style.font.size = Pt(10)
    for b in letter_blocks(letter):
        _add(doc, b)
    doc.core_properties.title = letter_blocks(letter)[0].text
    doc.core_properties.author = printable_text(letter.header.reviewer) or "stormwater-check"
    path = Path(path)
    doc.save(str(path))
    return path


__all__ = ["write_letter_docx"]
