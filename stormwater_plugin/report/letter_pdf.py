"""The comment letter as PDF (reportlab), from the same blocks as the DOCX."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

# reportlab at module top: imported only when a letter is written (see letter_docx).
from reportlab.lib import colors
from reportlab.lib.pagesizes import letter as us_letter
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import inch
from reportlab.platypus import Paragraph, SimpleDocTemplate, Spacer

from ..core.printable import printable_text
from ..services.letter import Letter
from . import fonts
from .letter_text import letter_blocks
from .pdf import STATUS_HEX


def _styles() -> dict[str, ParagraphStyle]:
    reg, bold, obl = fonts.register()
    base = ParagraphStyle("lbase", fontName=reg, fontSize=10, leading=13.5, textColor=colors.HexColor("#222222"), spaceAfter=5)
    return {
        "para": base,
        "title": ParagraphStyle("ltitle", parent=base, fontName=bold, fontSize=16, leading=20, spaceAfter=8),
        "meta": ParagraphStyle("lmeta", parent=base, spaceAfter=0),
        "h1": ParagraphStyle("lh1", parent=base, fontName=bold, fontSize=12.5, leading=16, spaceBefore=12, spaceAfter=4, textColor=colors.HexColor("#1b3a5c")),
        "h2": ParagraphStyle("lh2", parent=base, fontName=bold, fontSize=10.5, leading=14, spaceBefore=8, spaceAfter=3),
        "comment": base,
        "quote": ParagraphStyle("lquote", parent=base, fontName=obl, fontSize=9, leading=12, leftIndent=18, textColor=colors.HexColor("#333333")),
        "fix": ParagraphStyle("lfix", parent=base, leftIndent=18),
        "bullet": ParagraphStyle("lbullet", parent=base, leftIndent=12, bulletIndent=2),
        "earlier": ParagraphStyle("learlier", parent=base, fontName=obl, fontSize=9, leading=12, leftIndent=18, textColor=colors.HexColor("#444444")),
    }


def _esc(text: str) -> str:
    return escape(text).replace("\n", "<br/>")


def write_letter_pdf(letter: Letter, path: Path) -> Path:
    """Write ``letter`` to ``path`` (.pdf, US letter); returns the path."""
    st = _styles()
    story: list[Any] = []
    for b in letter_blocks(letter):
        if b.kind == "meta":
            label, _, value = b.text.partition(": ")
            story.append(Paragraph(f"<b>{_esc(label)}:</b> {_esc(value)}", st["meta"]))
        elif b.kind == "comment":
            colour = STATUS_HEX.get(b.status, "#222222") if not b.mark else "#222222"
            lead = f'<font color="{colour}"><b>{_esc(b.lead)}.</b></font> '
            body = f"<b>{_esc(b.text)}</b>" if b.mark else _esc(b.text)
            story.append(Paragraph(lead + body, st["comment"]))
            for earlier in b.extra:
                story.append(Paragraph(f"The comment read: {_esc(earlier)}", st["earlier"]))
        elif b.kind == "bullet":
            story.append(Paragraph(_esc(b.text), st["bullet"], bulletText="•"))
        else:
            story.append(Paragraph(_esc(b.text), st.get(b.kind, st["para"])))
            if b.kind == "title":
                story.append(Spacer(1, 4))
    path = Path(path)
    doc = SimpleDocTemplate(str(path), pagesize=us_letter, leftMargin=0.9 * inch, rightMargin=0.9 * inch, topMargin=0.8 * inch, bottomMargin=0.8 * inch,
                            title=letter_blocks(letter)[0].text, author=printable_text(letter.header.reviewer) or "stormwater-check")
    doc.build(story)
    return path


__all__ = ["write_letter_pdf"]
