"""Mailing labels for the notification list: ``labels.pdf`` on 30-up US-letter sheets (Avery 5160 and compatibles).

Sheet geometry, as Avery publishes it for 5160: 8.5" × 11" page, 3 columns ×
10 rows of 2.625" × 1" labels, 0.5" top margin, 0.1875" side margin, 2.75"
column pitch (0.125" gutter), 1" row pitch (no gap). Each label holds the
owner's name and the mailing address (street line(s), then "City, ST ZIP"),
set in DejaVu Sans so accented names print as written; text shrinks (down to
6 pt) and wraps to fit, never cut.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

# reportlab at module top: this module is imported only when the report is written (report/package.py)
from reportlab.lib.units import inch
from reportlab.lib.utils import simpleSplit
from reportlab.pdfgen import canvas

from . import fonts


@dataclass(frozen=True)
class LabelSheet:
    """A label sheet layout, in inches."""

    name: str = "Avery 5160 (30 per sheet)"
    page_w: float = 8.5
    page_h: float = 11.0
    cols: int = 3
    rows: int = 10
    label_w: float = 2.625
    label_h: float = 1.0
    top: float = 0.5
    left: float = 0.1875
    pitch_x: float = 2.75
    pitch_y: float = 1.0
    pad_x: float = 0.14
    pad_y: float = 0.08

    @property
    def per_sheet(self) -> int:
        return self.cols * self.rows

    def origin(self, n: int) -> tuple[float, float]:
        """Lower-left corner (inches from the page's lower left) of label ``n`` on its sheet, filled row by row."""
        i = n % self.per_sheet
        r, c = divmod(i, self.cols)
        x = self.left + c * self.pitch_x
        y = self.page_h - self.top - (r + 1) * self.label_h - r * (self.pitch_y - self.label_h)
        return x, y


AVERY_5160 = LabelSheet()


def address_lines(mailing: str) -> list[str]:
    """Split the one-line mailing address ("street, city, ST ZIP") into label lines.

    The last two comma-separated parts (city and "ST ZIP") share the last
    line; everything before is one line per part.
    """
    parts = [p.strip() for p in str(mailing or "").split(",") if p.strip()]
    if len(parts) >= 3:
        return parts[:-2] + [f"{parts[-2]}, {parts[-1]}"]
    return parts


def label_blocks(rows: Sequence[Mapping[str, Any]]) -> tuple[list[list[str]], list[str]]:
    """Text lines of each label, and the owners left out for want of a mailing address.

    Parameters
    ----------
    rows : sequence of mapping
        Notification rows (owner, mailing_address), in mailing order.
    """
    blocks: list[list[str]] = []
    skipped: list[str] = []
    for r in rows:
        owner = str(r.get("owner") or "").strip()
        mail = str(r.get("mailing_address") or "").strip()
        if not mail:
            skipped.append(owner or "(owner not recorded)")
            continue
        blocks.append(([owner] if owner else ["Current Owner"]) + address_lines(mail))
    return blocks, skipped


def _fit(lines: list[str], width_pt: float, height_pt: float) -> tuple[float, list[tuple[str, bool]]]:
    """Largest font size (10 pt down to 6 pt) at which the wrapped lines fit; (size, [(text, is_name)])."""
    size = 10.0
    wrapped: list[tuple[str, bool]] = []
    while size >= 6.0:
        wrapped = []
        for i, line in enumerate(lines):
            font = fonts.BOLD if i == 0 else fonts.REGULAR
            wrapped += [(w, i == 0) for w in (simpleSplit(line, font, size, width_pt) or [""])]
        if len(wrapped) * size * 1.18 <= height_pt:
            return size, wrapped
        size -= 0.5
    return 6.0, wrapped


def write_labels(rows: Sequence[Mapping[str, Any]], path: Path, sheet: LabelSheet = AVERY_5160, guides: bool = False) -> dict[str, Any]:
    """Write ``labels.pdf``.

    Parameters
    ----------
    rows : sequence of mapping
        Notification rows (owner, mailing_address), in the order to print.
    path : Path
        Output file.
    sheet : LabelSheet
        The label layout (Avery 5160 by default).
    guides : bool
        Draw the label outlines (for a test print on plain paper).

    Returns
    -------
    dict
        ``labels`` (count), ``pages``, ``skipped`` (owners without a mailing address).
    """
    fonts.register()
    blocks, skipped = label_blocks(rows)
    c = canvas.Canvas(str(path), pagesize=(sheet.page_w * inch, sheet.page_h * inch))
    c.setTitle("Neighbour notification labels")
    c.setSubject(sheet.name)
    w = (sheet.label_w - 2 * sheet.pad_x) * inch
    h = (sheet.label_h - 2 * sheet.pad_y) * inch
    pages = 0
    if not blocks:
        c.setFont(fonts.REGULAR, 9)
        c.drawString(0.6 * inch, 0.3 * inch, "No owner to notify has a mailing address: no labels.")
        c.showPage()
        pages = 1
    for n, lines in enumerate(blocks):
        if n and n % sheet.per_sheet == 0:
            c.showPage()
        if n % sheet.per_sheet == 0:
            pages += 1
            if guides:
                c.setStrokeColorRGB(0.75, 0.75, 0.75)
                c.setLineWidth(0.3)
                for k in range(sheet.per_sheet):
                    x0, y0 = sheet.origin(k)
                    c.roundRect(x0 * inch, y0 * inch, sheet.label_w * inch, sheet.label_h * inch, 0.0625 * inch)
        x0, y0 = sheet.origin(n)
        size, wrapped = _fit(lines, w, h)
        lead = size * 1.18
        block_h = len(wrapped) * lead
        # Centre the block vertically; baselines sit ~0.8 of the leading below each line's top.
        top = y0 * inch + sheet.pad_y * inch + (h + block_h) / 2
        c.setFillColorRGB(0, 0, 0)
        for i, (text, is_name) in enumerate(wrapped):
            c.setFont(fonts.BOLD if is_name else fonts.REGULAR, size)
            c.drawString((x0 + sheet.pad_x) * inch, top - i * lead - size * 0.95, text)
    if blocks:
        c.showPage()
    c.save()
    return {"labels": len(blocks), "pages": pages, "skipped": skipped}
