"""The comment letter as PDF (reportlab), from the same blocks as the DOCX.

The letterhead and signature block are the town template's words when one is given (its layout is Word's,
so the PDF prints its text), else the built-in ones. The closing paragraph and the signature block are
kept on one page, and each page's footer reads "Page N of M".
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

# reportlab at module top: imported only when a letter is written (see letter_docx).
from reportlab.lib import colors
from reportlab.lib.pagesizes import letter as us_letter
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import inch
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import KeepTogether, Paragraph, SimpleDocTemplate, Spacer

from ..services.letter import Letter
from ..services.safe_files import write_bytes
from . import fonts
from .letter_template import LetterTemplate, fill
from .letter_text import letter_blocks, letterhead_lines, placeholder_values, printable, signature_lines
from .pdf import STATUS_HEX

_MARGIN = 0.9 * inch


def _styles() -> dict[str, ParagraphStyle]:
    reg, bold, obl = fonts.register()
    base = ParagraphStyle("lbase", fontName=reg, fontSize=10, leading=13.5, textColor=colors.HexColor("#222222"), spaceAfter=5)
    return {
        "para": ParagraphStyle("lpara", parent=base, spaceAfter=8),
        "head1": ParagraphStyle("lhead1", parent=base, fontName=bold, fontSize=14, leading=17, alignment=1, spaceAfter=1),
        "head": ParagraphStyle("lhead", parent=base, fontSize=9, leading=11, alignment=1, spaceAfter=1),
        "date": ParagraphStyle("ldate", parent=base, spaceBefore=14, spaceAfter=12),
        "address": ParagraphStyle("laddress", parent=base, spaceAfter=12),
        "re": ParagraphStyle("lre", parent=base, fontName=bold, leftIndent=36, firstLineIndent=-36, spaceAfter=12),
        "h1": ParagraphStyle("lh1", parent=base, fontName=bold, fontSize=12, leading=15, spaceBefore=12, spaceAfter=4, textColor=colors.HexColor("#1b3a5c")),
        "h2": ParagraphStyle("lh2", parent=base, fontName=bold, fontSize=10.5, leading=14, spaceBefore=6, spaceAfter=3),
        "comment": base,
        "quote": ParagraphStyle("lquote", parent=base, fontName=obl, fontSize=9, leading=12, leftIndent=18, textColor=colors.HexColor("#333333")),
        "method": ParagraphStyle("lmethod", parent=base, fontName=obl, fontSize=9, leading=12, leftIndent=18, textColor=colors.HexColor("#333333")),
        "fix": ParagraphStyle("lfix", parent=base, leftIndent=18),
        "item": ParagraphStyle("litem", parent=base, leftIndent=30, bulletIndent=20, spaceAfter=1),
        "bullet": ParagraphStyle("lbullet", parent=base, leftIndent=12, bulletIndent=2),
        "earlier": ParagraphStyle("learlier", parent=base, fontName=obl, fontSize=9, leading=12, leftIndent=18, textColor=colors.HexColor("#444444")),
        "signature": ParagraphStyle("lsig", parent=base, spaceAfter=0),
        "closing": ParagraphStyle("lclosing", parent=base, spaceBefore=10, spaceAfter=10),
        "footer": ParagraphStyle("lfoot", parent=base, fontSize=8),
    }


def _esc(text: str) -> str:
    return escape(text).replace("\n", "<br/>")


def _numbered_canvas(footer: str, font: str) -> type[Canvas]:
    """A canvas that writes "Page N of M" (and the template's footer text) once the page count is known."""

    class NumberedCanvas(Canvas):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self._pages: list[dict[str, Any]] = []

        def showPage(self) -> None:  # noqa: N802 - reportlab's name
            self._pages.append(dict(self.__dict__))
            self._startPage()

        def save(self) -> None:
            total = len(self._pages)
            for state in self._pages:
                self.__dict__.update(state)
                self.setFont(font, 8)
                self.setFillColor(colors.HexColor("#555555"))
                w = us_letter[0]
                if footer:
                    self.drawCentredString(w / 2, 0.55 * inch, footer)
                self.drawCentredString(w / 2, 0.4 * inch, f"Page {self._pageNumber} of {total}")
                super().showPage()
            super().save()

    return NumberedCanvas


def letter_pdf_bytes(letter: Letter, template: LetterTemplate | None = None) -> bytes:
    """The letter as PDF bytes (US letter)."""
    st = _styles()
    values = placeholder_values(letter)
    story: list[Any] = []
    head = [printable(fill(t, values)) for t in template.letterhead] if template is not None else letterhead_lines(letter)
    for i, line in enumerate(head):
        story.append(Paragraph(_esc(printable(line)), st["head1" if i == 0 else "head"]))
    blocks = letter_blocks(letter)
    for b in blocks[:-1]:
        story.extend(_flowables(b, st))
    sig_lines = [printable(fill(t, values)) for t in template.signature] if template is not None and template.has_body else signature_lines(letter)
    closing = _flowables(blocks[-1], st) + [Spacer(1, 4)] + [Paragraph(_esc(s) or "&nbsp;", st["signature"]) for s in sig_lines]
    story.append(KeepTogether(closing))  # the signature never stands alone on the last page
    footer = " · ".join(printable(fill(t, values)) for t in template.footer if "{{" not in t or "page" not in t.lower()) if template is not None else ""
    out = io.BytesIO()
    doc = SimpleDocTemplate(out, pagesize=us_letter, leftMargin=_MARGIN, rightMargin=_MARGIN, topMargin=0.8 * inch, bottomMargin=0.9 * inch,
                            title=f"Stormwater review comments, {letter.header.application or letter.header.title}",
                            author=printable(letter.header.reviewer) or "stormwater-check")
    doc.build(story, canvasmaker=_numbered_canvas(footer, st["footer"].fontName))
    return out.getvalue()


def _flowables(b: Any, st: dict[str, ParagraphStyle]) -> list[Any]:
    if b.kind == "comment":
        colour = STATUS_HEX.get(b.status, "#222222") if not b.mark else "#222222"
        lead = f'<font color="{colour}"><b>{_esc(b.lead)}.</b></font> '
        body = f"<b>{_esc(b.text)}</b>" if b.mark else _esc(b.text)
        return [Paragraph(lead + body, st["comment"])] + [Paragraph(f"The comment read: {_esc(e)}", st["earlier"]) for e in b.extra]
    if b.kind == "bullet":
        return [Paragraph(_esc(b.text), st["bullet"], bulletText="•")]
    if b.kind == "item":
        return [Paragraph(_esc(b.text), st["item"], bulletText="•")]
    if b.kind == "re":
        return [Paragraph("Re:&nbsp;&nbsp;&nbsp;&nbsp;" + _esc(b.text), st["re"])]
    return [Paragraph(_esc(b.text), st.get(b.kind, st["para"]))]


def write_letter_pdf(letter: Letter, path: Path, template: LetterTemplate | None = None) -> Path:
    """Write ``letter`` to ``path`` (.pdf, US letter, atomically); returns the path."""
    path = Path(path)
    write_bytes(path, letter_pdf_bytes(letter, template))
    return path


__all__ = ["letter_pdf_bytes", "write_letter_pdf"]
