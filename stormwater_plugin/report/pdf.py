"""The PDF report, drawn with reportlab's platypus from the same report model as the HTML.

US letter, portrait. Every text goes through :func:`_p`, which escapes it
(reportlab paragraphs parse markup) and sets it in DejaVu Sans so names with
accents print as written. Tables repeat their header row when they run onto
the next page.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any, Mapping, Sequence
from xml.sax.saxutils import escape

# reportlab at module top: this module is imported only when the report is written (report/package.py imports it
# there, inside the guard that turns a missing package into a ReportError), never by the plain CLI or the plugin.
from reportlab.lib import colors
from reportlab.lib.pagesizes import letter
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import inch
from reportlab.lib.utils import ImageReader
from reportlab.pdfgen import canvas
from reportlab.platypus import CondPageBreak, Image, KeepTogether, PageBreak, Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

from ..core.limits import value_text
from ..services.presentation import STATUS_AND_DECISION_COLOURS
from . import fonts

#: The one palette (services.presentation), decisions included: the report's tables say a status in the map's colour.
STATUS_HEX: dict[str, str] = STATUS_AND_DECISION_COLOURS
_WIDTH = 7.3 * inch  # the text width on US letter with 0.6 in margins


def _styles() -> dict[str, Any]:
    reg, bold, obl = fonts.register()
    base = ParagraphStyle("base", fontName=reg, fontSize=9, leading=11.5, textColor=colors.HexColor("#222222"))
    return {
        "base": base,
        "title": ParagraphStyle("title", parent=base, fontName=bold, fontSize=17, leading=21, spaceAfter=2),
        "sub": ParagraphStyle("sub", parent=base, fontSize=9.5, textColor=colors.HexColor("#444444"), spaceAfter=8),
        "h2": ParagraphStyle(
            "h2", parent=base, fontName=bold, fontSize=12.5, leading=16, spaceBefore=12, spaceAfter=5, textColor=colors.HexColor("#1b3a5c")
        ),
        "h3": ParagraphStyle("h3", parent=base, fontName=bold, fontSize=10, leading=13, spaceBefore=8, spaceAfter=2),
        "quote": ParagraphStyle(
            "quote",
            parent=base,
            fontName=obl,
            fontSize=8.5,
            leading=10.8,
            leftIndent=10,
            textColor=colors.HexColor("#333333"),
            backColor=colors.HexColor("#f4f4f4"),
            borderPadding=(3, 4, 3, 4),
            spaceBefore=2,
            spaceAfter=6,
        ),
        "cell": ParagraphStyle("cell", parent=base, fontSize=8, leading=9.8),
        "cellb": ParagraphStyle("cellb", parent=base, fontName=bold, fontSize=8, leading=9.8),
        "small": ParagraphStyle("small", parent=base, fontSize=7.5, leading=9.2, textColor=colors.HexColor("#555555")),
        "key": ParagraphStyle("key", parent=base, fontSize=6.5, leading=8, textColor=colors.HexColor("#777777")),
        "note": ParagraphStyle("note", parent=base, fontSize=8.5, leading=10.8, textColor=colors.HexColor("#444444"), spaceAfter=4),
    }


def _p(text: Any, style: Any, markup: str = "") -> Any:
    """A paragraph of plain ``text`` (escaped), optionally wrapped in trusted ``markup`` such as ``<b>%s</b>``."""
    t = escape("" if text is None else str(text)).replace("\n", "<br/>")
    return Paragraph(markup % t if markup else t, style)


def _status(s: str | None, label: str, st: Mapping[str, Any]) -> Any:
    colour = STATUS_HEX.get(s or "", "#222222")
    return _p(label, st["cellb"], f'<font color="{colour}">%s</font>')


def _table(rows: Sequence[Sequence[Any]], widths: Sequence[float], header: bool = True, zebra: bool = True) -> Any:
    # splitInRow: a row taller than a page (a very long message or excerpt) splits across pages instead of failing
    # with LayoutError (reportlab 3.6 and later; older ones keep rows whole).
    try:
        t = Table(list(rows), colWidths=list(widths), repeatRows=1 if header else 0, hAlign="LEFT", splitInRow=1)
    except TypeError:  # pragma: no cover - reportlab before 3.6
        t = Table(list(rows), colWidths=list(widths), repeatRows=1 if header else 0, hAlign="LEFT")
    style = [
        ("GRID", (0, 0), (-1, -1), 0.4, colors.HexColor("#b5b5b5")),
        ("VALIGN", (0, 0), (-1, -1), "TOP"),
        ("LEFTPADDING", (0, 0), (-1, -1), 3),
        ("RIGHTPADDING", (0, 0), (-1, -1), 3),
        ("TOPPADDING", (0, 0), (-1, -1), 2),
        ("BOTTOMPADDING", (0, 0), (-1, -1), 2.5),
    ]
    if header:
        style.append(("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#e6e9ee")))
    if zebra:
        for i in range(1 if header else 0, len(rows)):
            if i % 2 == 0:
                style.append(("BACKGROUND", (0, i), (-1, i), colors.HexColor("#f7f7f7")))
    t.setStyle(TableStyle(style))
    return t


def _image(png: bytes, width: float) -> Any:
    iw, ih = ImageReader(io.BytesIO(png)).getSize()
    return Image(io.BytesIO(png), width=width, height=width * ih / iw)


def _numbered_canvas(footer_left: str) -> Any:
    class NumberedCanvas(canvas.Canvas):
        """Writes "page n of m" once every page is known."""

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self._saved: list[dict[str, Any]] = []

        def showPage(self) -> None:  # noqa: N802 - reportlab's name
            self._saved.append(dict(self.__dict__))
            self._startPage()

        def save(self) -> None:
            total = len(self._saved)
            for state in self._saved:
                self.__dict__.update(state)
                self._footer(total)
                super().showPage()
            super().save()

        def _footer(self, total: int) -> None:
            self.saveState()
            self.setFont(fonts.REGULAR, 7.5)
            self.setFillColorRGB(0.35, 0.35, 0.35)
            self.drawString(0.6 * inch, 0.4 * inch, footer_left)
            self.drawRightString(7.9 * inch, 0.4 * inch, f"page {self._pageNumber} of {total}")
            self.setStrokeColorRGB(0.7, 0.7, 0.7)
            self.setLineWidth(0.4)
            self.line(0.6 * inch, 0.55 * inch, 7.9 * inch, 0.55 * inch)
            self.restoreState()

    return NumberedCanvas


def story(model: Mapping[str, Any], figures: Mapping[str, bytes]) -> list[Any]:
    """The flowables of the report, in the HTML's order."""
    st = _styles()
    out: list[Any] = []
    out += _header_section(model, st, _WIDTH)
    out += _summary_section(model, st, _WIDTH)
    out += _classification_section(model, st, _WIDTH)
    out += _findings_section(model, st, _WIDTH)
    out += _site_map_section(model, figures, st)
    out += _building_sites_section(model, figures, st, _WIDTH)
    out += _inventory_section(model, st, _WIDTH)
    out += _notification_section(model, figures, st, _WIDTH)
    out += _rules_not_checked_section(model, st, _WIDTH)
    out += _decisions_section(model, st, _WIDTH)
    out += accuracy_section(model, st, _WIDTH)
    out += comparison_section(model, st, _WIDTH)
    out += _warnings_section(model, st)
    return out


def _header_section(model: Mapping[str, Any], st: Mapping[str, Any], W: float) -> list[Any]:
    """Title, pack title and the header table (jurisdiction, site, reviewer, inputs, CRS, tool)."""
    h = model["header"]
    out: list[Any] = [_p(model["title"], st["title"]), _p(h["pack_title"], st["sub"])]
    site = (
        h["site_parcel"] + (f" — {h['site_address']}" if h["site_address"] else "") + (f" ({h['site_owner']})" if h["site_owner"] else "")
    )
    rows = [
        ("Jurisdiction", f"{h['jurisdiction']} — {h['jurisdiction_name']}"),
        ("Rule pack", f"{h['pack_title']}, version {h['pack_version']}"),
        *([("Text encoded", h["text_encoded"])] if h.get("text_encoded") else []),
        ("Site parcel", site),
        ("Reviewer", h["reviewer"]),
        ("Date", h["date"]),
        ("Reference", h["reference"]),
        ("Inputs", f"{h['site_package'] or 'layers given one by one'}; DEM: {h['dem']}" + (f" ({h['dem_z']})" if h["dem_z"] else "")),
        ("Working CRS", h["working_crs"]),
        ("Tool", h["tool"]),
    ]
    out.append(_table([[_p(k, st["cellb"]), _p(v, st["cell"])] for k, v in rows], [1.3 * inch, W - 1.3 * inch], header=False, zebra=False))
    return out


def _summary_section(model: Mapping[str, Any], st: Mapping[str, Any], W: float) -> list[Any]:
    """The counts by status, the verdict and the note."""
    s = model["summary"]
    c = s["counts"]
    out: list[Any] = [_p("Summary", st["h2"])]
    out.append(
        _table(
            [
                [_p(x, st["cellb"]) for x in ("Violation", "Undetermined", "Advisory", "Pass", "Reviewer decisions", "Stale overrides")],
                [
                    _status("violation", str(c["violation"]), st),
                    _status("undetermined", str(c["undetermined"]), st),
                    _status("advisory", str(c["advisory"]), st),
                    _status("pass", str(c["pass"]), st),
                    _p(str(s["overridden"]), st["cell"]),
                    _p(str(s["stale_overrides"]), st["cell"]),
                ],
            ],
            [W / 6] * 6,
            zebra=False,
        )
    )
    out.append(_p(s["verdict"], st["base"]))
    out.append(_p(s["note"], st["note"]))
    return out


def _classification_section(model: Mapping[str, Any], st: Mapping[str, Any], W: float) -> list[Any]:
    """The project class, the areas (sq ft) and the classification reasons with the regulation's words."""
    k = model["classification"]
    out: list[Any] = [_p("Project classification", st["h2"])]
    computed = f"; computed: {k['computed_class']}" if k["computed_class"] and k["computed_class"] != k["project_class"] else ""
    # At the precision the class was decided at (core.limits): 1,000.4 sq ft is more than 1,000, and prints so.
    dist = "—" if k["disturbed_sqft"] is None else value_text(float(k["disturbed_sqft"]), "area_sqft")
    imp = "—" if k["new_impervious_sqft"] is None else value_text(float(k["new_impervious_sqft"]), "area_sqft")
    if k.get("question"):
        out.append(_p(k["question"], st["base"], "<b>%s</b>"))
    out.append(
        _p(
            f"Project class: {k['project_class']} ({k['class_source']}{computed}). Land disturbed: {dist}; new impervious: {imp}.",
            st["base"],
        )
    )
    if k["reasons"]:
        rows2: list[list[Any]] = [[_p(x, st["cellb"]) for x in ("Citation", "Status", "Reason and the regulation's words")]]
        for r in k["reasons"]:
            words = [_p(r["message"], st["cell"])]
            if r["excerpt"]:
                words.append(_p(f"“{r['excerpt']}”", st["small"], "<i>%s</i>"))
            rows2.append([_p(r["citation"], st["cell"]), _status(r["status"], r["status_label"], st), words])
        out.append(Spacer(1, 4))
        out.append(_table(rows2, [1.9 * inch, 0.95 * inch, W - 2.85 * inch]))
    return out


def _finding_row(f: Mapping[str, Any], st: Mapping[str, Any]) -> list[Any]:
    """One finding's table row: subject, other, measured, required, status (and decision), message (and decision)."""
    status_cell: list[Any] = [_status(f["status"], f["status_label"], st)]
    text: list[Any] = [_p(f["message"], st["cell"])]
    if f["override"]:
        o = f["override"]
        status_cell.append(_status(f["effective_status"], "→ " + f["effective_label"], st))
        when = f" on {o['date']}" if o.get("date") else ""
        changed = (
            f" (made when the finding was “{o.get('status_when_made')}”; it has changed since)" if o.get("status_changed") else ""
        )
        text.append(_p(f"Reviewer decision: {o['decision']} by {o['reviewer']}{when}: {o['reason']}{changed}", st["small"]))
    return [
        _p(f["subject"], st["cell"]),
        _p(f["other"], st["cell"]),
        _p(f["measured"], st["cell"]),
        _p(f["required"], st["cell"]),
        status_cell,
        text,
    ]


def _findings_section(model: Mapping[str, Any], st: Mapping[str, Any], W: float) -> list[Any]:
    """Findings by rule: each rule's citation, id and excerpt, then a table of its findings."""
    out: list[Any] = [CondPageBreak(2.0 * inch)]
    findings_heading: list[Any] = [_p("Findings by rule", st["h2"])]  # kept with the first rule's heading
    widths = [0.9 * inch, 0.9 * inch, 0.74 * inch, 0.7 * inch, 1.08 * inch]
    widths.append(W - sum(widths))
    sections: list[tuple[list[Any], list[Mapping[str, Any]]]] = [(findings_heading, list(model["rule_groups"]))]
    for cg in model.get("class_groups") or []:
        # the findings of rules that bind only under some possible class, in one section per class
        sections.append(([_p(cg["title"], st["h2"]), _p("The class is not decided (see the question under Project classification): "
                                                        "these rules bind only if the project is of this class.", st["note"])],
                         list(cg["rule_groups"])))
    for findings_heading, rule_groups in sections:
        out.extend(_rule_group_flowables(rule_groups, findings_heading, st, widths))
    if not model["rule_groups"] and not model.get("class_groups"):
        out.append(_p("No finding was produced.", st["base"]))
    return out


def _rule_group_flowables(rule_groups: list[Mapping[str, Any]], findings_heading: list[Any], st: Mapping[str, Any], widths: list[float]) -> list[Any]:
    """Each rule's citation, id and excerpt, then a table of its findings; ``findings_heading`` kept with the first."""
    out: list[Any] = []
    if not rule_groups:
        return list(findings_heading)
    for g in rule_groups:
        head = findings_heading + [_p(g["citation"], st["h3"]), _p(g["rule_id"], st["key"])]
        findings_heading = []
        if g["excerpt"]:
            head.append(_p(f"“{g['excerpt']}”", st["quote"]))
        rows3: list[list[Any]] = [[_p(x, st["cellb"]) for x in ("Subject", "Other", "Measured", "Required", "Status", "Finding")]]
        rows3.extend(_finding_row(f, st) for f in g["findings"])
        if len(rows3) <= 4:
            out.append(KeepTogether(head + [_table(rows3, widths)]))
        else:  # a longer table may split over pages (header row repeated); the heading never sits alone at a page foot
            out.append(CondPageBreak(2.2 * inch))
            out.extend(head)
            out.append(_table(rows3, widths))
    return out


def _site_map_section(model: Mapping[str, Any], figures: Mapping[str, bytes], st: Mapping[str, Any]) -> list[Any]:
    """The site map on a page of its own, with its caption (when the figure was drawn)."""
    fig = next((f for f in model["figures"] if f["id"] == "site_map"), None)
    out: list[Any] = [PageBreak(), _p("Site map", st["h2"])]
    if fig and fig["id"] in figures:
        out.append(_image(figures[fig["id"]], 6.9 * inch))
        out.append(_p(fig["caption"], st["small"]))
    return out


def _building_sites_section(model: Mapping[str, Any], figures: Mapping[str, bytes], st: Mapping[str, Any], W: float) -> list[Any]:
    """Building sites: slope over 100 ft (%), direction (degrees), status, and the slope roses two by two."""
    out: list[Any] = [CondPageBreak(2.5 * inch), _p("Building sites: slope", st["h2"])]
    bs = model["building_sites"]
    if not bs:
        out.append(_p("No building sites were supplied: slope not computed.", st["base"]))
        return out
    rows4: list[list[Any]] = [[_p(x, st["cellb"]) for x in ("Building site", "Slope over 100 ft", "Direction", "Status", "Note")]]
    for b in bs:
        slope = f"{b['slope_100ft_pct']:.1f} %" if b["slope_100ft_pct"] is not None else "slope not computed"
        az = f"{b['azimuth_deg']:.0f}°" if b["azimuth_deg"] is not None else "—"
        label = model["status_labels"].get(b["status"], "—") if b["status"] else "—"
        rows4.append(
            [
                _p(b["id"], st["cell"]),
                _p(slope, st["cell"]),
                _p(az, st["cell"]),
                _status(b["status"], label, st),
                _p(b["message"], st["cell"]),
            ]
        )
    out.append(_table(rows4, [1.2 * inch, 1.3 * inch, 0.8 * inch, 1.0 * inch, W - 4.3 * inch]))
    roses = [figures[b["figure"]] for b in bs if b["figure"] and b["figure"] in figures]
    if roses:
        cells = [_image(png, 3.1 * inch) for png in roses]
        grid = [cells[i : i + 2] + [""] * (2 - len(cells[i : i + 2])) for i in range(0, len(cells), 2)]
        out.append(Table(grid, colWidths=[W / 2] * 2, hAlign="LEFT"))
    return out


def _inventory_section(model: Mapping[str, Any], st: Mapping[str, Any], W: float) -> list[Any]:
    """Features within the inventory radius (ft) of the site parcel; the empty and the absent layers."""
    inv = model["inventory"]
    out: list[Any] = [CondPageBreak(1.8 * inch), _p(f"Inventory within {inv['radius_ft']:g} ft of the site parcel" if inv["radius_ft"] is not None else "Inventory of the surroundings", st["h2"])]
    if not inv["computed"]:
        out.append(_p(f"Not computed: {inv['reason']}.", st["base"]))
        return out
    if inv["rows"]:
        rows5: list[list[Any]] = [[_p(x, st["cellb"]) for x in ("Feature", "Id", "Name / type", "Distance from the site parcel")]]
        for r in inv["rows"]:
            d = "on the site parcel" if r["on_site"] else f"{r['distance_ft']:.1f} ft"
            rows5.append([_p(r["category"], st["cell"]), _p(r["id"], st["cell"]), _p(r["name"], st["cell"]), _p(d, st["cell"])])
        out.append(_table(rows5, [1.9 * inch, 1.4 * inch, 2.2 * inch, W - 5.5 * inch]))
    if inv["empty"]:
        out.append(_p(f"None within {inv['radius_ft']:g} ft (layer supplied): {', '.join(inv['empty'])}.", st["note"]))
    if inv["absent"]:
        out.append(_p(f"Unknown (layer not supplied): {', '.join(inv['absent'])}.", st["note"]))
    return out


def _notification_section(model: Mapping[str, Any], figures: Mapping[str, bytes], st: Mapping[str, Any], W: float) -> list[Any]:
    """Neighbour notification: the owners to notify (distance in ft), those without an address, and the map."""
    n = model["notification"]
    out: list[Any] = [PageBreak(), _p("Neighbour notification", st["h2"])]
    if not n["computed"]:
        why = f": {n['not_computed_reason']}" if n.get("not_computed_reason") else ""
        out.append(
            _p(f"The notification list was not computed{why}. The owners to notify are unknown, not “none”.", st["base"], "<b>%s</b>")
        )
        return out
    out.append(
        _p(
            f"{n['citation']}: notify the {n['scope']}. {len(n['rows'])} owner(s) listed; {len(n['within_radius'])} parcel(s) lie within "
            f"{n['radius_ft']:g} ft. The same list is in notification.csv, and mailing labels in labels.pdf.",
            st["base"],
        )
    )
    if n["missing_address"]:
        out.append(
            _p(
                f"No mailing address recorded (no label printed; look them up): {', '.join(n['missing_address'])}.",
                st["base"],
                "<b>%s</b>",
            )
        )
    if n["rows"]:
        rows6: list[list[Any]] = [[_p(x, st["cellb"]) for x in ("Owner", "Mailing address", "Parcel address", "Parcel id", "Distance")]]
        for r in n["rows"]:
            rows6.append(
                [
                    _p(r["owner"], st["cell"]),
                    _p(r["mailing_address"], st["cell"]),
                    _p(r["parcel_address"], st["cell"]),
                    _p(r["parcel_id"], st["cell"]),
                    _p(f"{r['distance_ft']:.1f} ft", st["cell"]),
                ]
            )
        out.append(Spacer(1, 4))
        out.append(_table(rows6, [1.6 * inch, 2.1 * inch, 1.45 * inch, 1.35 * inch, W - 6.5 * inch]))
    fig = next((f for f in model["figures"] if f["id"] == "notification_map"), None)
    if fig and fig["id"] in figures:
        out.append(CondPageBreak(7.4 * inch))
        out.append(KeepTogether([_p(fig["title"], st["h3"]), _image(figures[fig["id"]], 6.7 * inch), _p(fig["caption"], st["small"])]))
    return out


def _rules_not_checked_section(model: Mapping[str, Any], st: Mapping[str, Any], W: float) -> list[Any]:
    """Rules not checked (and why), rules left to the reviewer, rules not applicable to the project class."""
    out: list[Any] = [CondPageBreak(1.5 * inch), _p("Rules not checked", st["h2"])]
    if model["rules_not_checked"]:
        rows7: list[list[Any]] = [[_p(x, st["cellb"]) for x in ("Citation", "Rule", "Why")]]
        for r in model["rules_not_checked"]:
            rule = [_p(r["title"] or r["rule_id"], st["cell"])] + ([_p(r["rule_id"], st["key"])] if r["title"] else [])
            rows7.append([_p(r["citation"], st["cell"]), rule, _p(r["reason"], st["cell"])])
        out.append(_table(rows7, [1.9 * inch, 2.4 * inch, W - 4.3 * inch]))
    else:
        out.append(
            _p("Every rule of the pack that applies to this project class and can be decided from the plan was checked.", st["base"])
        )
    if model["rules_for_reviewer"]:
        out.append(_p("For the reviewer", st["h3"]))
        out.append(
            _p(
                "The text sets these requirements, but the plan's geometry cannot decide them; they are neither passed nor failed.",
                st["note"],
            )
        )
        rows7b: list[list[Any]] = [[_p(x, st["cellb"]) for x in ("Citation", "Requirement")]]
        for r in model["rules_for_reviewer"]:
            rows7b.append([_p(r["citation"], st["cell"]), [_p(r["title"] or r["rule_id"], st["cell"]), _p(r["rule_id"], st["key"])]])
        out.append(_table(rows7b, [2.4 * inch, W - 2.4 * inch]))
    if model["rules_not_applicable"]:
        out.append(CondPageBreak(1.2 * inch))
        out.append(_p("Not applicable to this project class", st["h3"]))
        rows7c: list[list[Any]] = [[_p(x, st["cellb"]) for x in ("Citation", "Rule", "Why")]]
        for r in model["rules_not_applicable"]:
            rows7c.append([_p(r["citation"], st["cell"]), _p(r["rule_id"], st["cell"]), _p(r["reason"], st["cell"])])
        out.append(_table(rows7c, [1.8 * inch, 3.0 * inch, W - 4.8 * inch]))
    return out


def _decisions_section(model: Mapping[str, Any], st: Mapping[str, Any], W: float) -> list[Any]:
    """Reviewer decisions applied (accepted, waived) and the stale overrides that matched no finding."""
    o = model["overrides"]
    out: list[Any] = [CondPageBreak(1.5 * inch), _p("Reviewer decisions", st["h2"])]
    if o["applied"]:
        rows8: list[list[Any]] = [[_p(x, st["cellb"]) for x in ("Finding", "Computed", "Decision", "Reason", "Reviewer, date")]]
        for a in o["applied"]:
            changed = f" (made when the finding was “{a['status_when_made']}”)" if a.get("status_changed") else ""
            rows8.append(
                [
                    [_p(f"{a['citation']}: {a['message']}", st["cell"]), _p(a["key"], st["key"])],
                    _status(a["status"], a["status_label"], st),
                    _status(a["decision"], a["decision"], st),
                    _p(a["reason"] + changed, st["cell"]),
                    _p(a["reviewer"] + (f", {a['date']}" if a.get("date") else ""), st["cell"]),
                ]
            )
        out.append(_table(rows8, [2.9 * inch, 0.85 * inch, 0.75 * inch, 1.6 * inch, W - 6.1 * inch]))
    else:
        out.append(_p("No finding was accepted or waived.", st["base"]))
    if o["stale"]:
        out.append(_p("Stale overrides", st["h3"]))
        out.append(
            _p("These decisions name findings this run did not produce (the plan or the data changed); they were not applied.", st["note"])
        )
        rows9: list[list[Any]] = [[_p(x, st["cellb"]) for x in ("Key", "Decision", "Reason", "Reviewer, date")]]
        for x in o["stale"]:
            rows9.append(
                [
                    _p(x["key"], st["cell"]),
                    _p(x["decision"], st["cell"]),
                    _p(x["reason"], st["cell"]),
                    _p(x["reviewer"] + (f", {x['date']}" if x.get("date") else ""), st["cell"]),
                ]
            )
        out.append(_table(rows9, [3.1 * inch, 0.8 * inch, 2.0 * inch, W - 5.9 * inch]))
    return out


def _warnings_section(model: Mapping[str, Any], st: Mapping[str, Any]) -> list[Any]:
    """Data warnings, then the closing line (tool, date, how distances are measured)."""
    h = model["header"]
    out: list[Any] = [CondPageBreak(1.2 * inch), _p("Data warnings", st["h2"])]
    if model["warnings"]:
        for w in model["warnings"]:
            out.append(_p("• " + w, st["cell"]))
    else:
        out.append(_p("None.", st["base"]))
    out.append(Spacer(1, 8))
    out.append(
        _p(
            f"Generated by {h['tool']} on {h['date']}. Distances are exact, edge to edge, in feet on the ellipsoid; "
            "rings on the maps are for display only.",
            st["note"],
        )
    )
    return out


def accuracy_section(model: Mapping[str, Any], st: Mapping[str, Any], width: float) -> list[Any]:
    """Findings within the data's stated accuracy, together; and the roles whose accuracy nobody stated."""
    acc = model.get("accuracy") or {}
    out: list[Any] = [CondPageBreak(1.2 * inch), _p("Positional accuracy", st["h2"])]
    stated = ", ".join(f"{r} ±{v:g} ft" for r, v in sorted((acc.get("roles") or {}).items()))
    out.append(_p(
        "A finding whose margin to its limit is smaller than the combined stated accuracy of its two features (root-sum-square, "
        "95% horizontal accuracy) is near the limit: a pass there is undetermined (field-verify), a violation stays a violation. "
        + (f"Stated for this run: {stated}. " if stated else "")
        + (f"No accuracy was stated for: {', '.join(acc['unstated_roles'])} (no adjustment made)." if acc.get("unstated_roles") else ""),
        st["note"]))
    if acc.get("extents"):
        out.append(_p(
            "Features drawn smaller than they are (a point, a line, a polygon under its kind's smallest footprint) are read with their "
            "plausible extents (packs/device_plausibility.json): a distance is the interval from the drawing less the largest reach of both "
            "features to the drawing less the smallest, widened by the stated accuracy; a finding is decided when the whole interval lies on "
            "one side of its limit. Extents used: " + "; ".join(acc["extents"]) + ".", st["note"]))
    near = acc.get("near_limit") or []
    if not near:
        out.append(_p("No finding lies within the stated accuracy of its data.", st["base"]))
        return out
    rows: list[list[Any]] = [[_p(x, st["cellb"]) for x in ("Section", "Device / feature", "Measured / required", "Margin", "Accuracy", "Status")]]
    for r in near:
        rows.append([_p(r["citation"], st["cell"]), _p(f"{r['subject']} / {r['other']}", st["cell"]), _p(f"{r['measured']} / {r['required']}", st["cell"]),
                     _p(r["margin"], st["cell"]), _p("±" + r["accuracy"], st["cell"]), _status(r["status"], r["status_label"], st)])
    out.append(_table(rows, [1.7 * inch, 1.6 * inch, 1.3 * inch, 0.8 * inch, 0.8 * inch, width - 6.2 * inch]))
    return out


def comparison_section(model: Mapping[str, Any], st: Mapping[str, Any], width: float) -> list[Any]:
    """Since the last review: counts, then the resolved, new, still-open and changed findings, and the decisions."""
    cmp = model.get("comparison")
    if not cmp:
        return []
    c = cmp["counts"]
    out: list[Any] = [CondPageBreak(1.5 * inch), _p("Since the last review", st["h2"])]
    head = (f"{c.get('resolved', 0)} resolved, {c.get('new', 0)} new, {c.get('still_open', 0)} still open, {c.get('changed', 0)} changed; "
            f"decisions: {c.get('decisions_carried_over', 0)} carried over, {c.get('decisions_to_review_again', 0)} to review again, "
            f"{c.get('decisions_stale', 0)} stale.")
    if cmp.get("previous"):
        head = f"Compared with {cmp['previous']}: " + head
    if cmp.get("project_class"):
        head += f" The project class changed from {cmp['project_class']['old']} to {cmp['project_class']['new']}."
    out.append(_p(head, st["base"]))
    for m in cmp.get("renamed_features") or []:
        out.append(_p(f"• {m['layer']} {m['old_id']} is now {m['new_id']} (geometry within {m['distance_ft']:g} ft): matched.", st["cell"]))
    for cat, title in (("resolved", "Resolved"), ("new", "New"), ("still_open", "Still open"), ("changed", "Changed")):
        items = cmp.get(cat) or []
        if not items:
            continue
        out.append(_p(f"{title} ({len(items)})", st["h3"]))
        rows: list[list[Any]] = [[_p(x, st["cellb"]) for x in ("Section", "Device / feature", "Before", "Now", "Why")]]
        for r in items:
            rows.append([_p(r["citation"], st["cell"]), _p(f"{r['subject']} / {r['other']}", st["cell"]), _p(r["old"], st["cell"]),
                         _p(r["new"], st["cell"]), _p(r["why"], st["cell"])])
        out.append(_table(rows, [1.6 * inch, 1.7 * inch, 1.2 * inch, 1.2 * inch, width - 5.7 * inch]))
    return out


def write_pdf(model: Mapping[str, Any], figures: Mapping[str, bytes], path: Path) -> Path:
    """Write the report PDF to ``path``."""
    h = model["header"]
    doc = SimpleDocTemplate(
        str(path),
        pagesize=letter,
        leftMargin=0.6 * inch,
        rightMargin=0.6 * inch,
        topMargin=0.6 * inch,
        bottomMargin=0.75 * inch,
        title=f"{model['title']} — {h['site_parcel']}",
        author=h["reviewer"],
        subject=f"{h['pack_title']} — reference {h['reference']}",
        creator=h["tool"],
    )
    footer = f"{model['title']} · site parcel {h['site_parcel']} · ref. {h['reference']} · {h['date']}"
    doc.build(story(model, figures), canvasmaker=_numbered_canvas(footer))
    return path
