"""Write the review package of one check: ``report.html``, ``report.pdf``, ``notification.csv``, ``labels.pdf``.

The report model is built once and rendered twice (HTML and PDF); the maps
are drawn once and embedded in both.
"""

from __future__ import annotations

import datetime as _dt
import json
from pathlib import Path
from typing import Any, Mapping

from ..core.errors import StormwaterError
from ..core.model import CheckResult, FeatureLayer
from ..core.overrides import Override, OverrideError, loads_overrides
from ..core.rulepack import RulePack
from ..services.findings_doc import FindingsDocument
from ..services.optional import missing_message
from ..services.review import Review
from . import fonts
from .model import build_report_model, review_document
from .notification_csv import write_csv

REPORT_FILES: tuple[str, ...] = ("report.html", "report.pdf", "notification.csv", "labels.pdf")


class ReportError(RuntimeError, StormwaterError):
    """The report could not be written (a missing library or font); the message says what to install."""


def load_overrides_file(path: Path) -> list[Override]:
    """Read a sidecar overrides file.

    Raises
    ------
    OverrideError
        When the file is missing, not JSON, or an entry is unusable; the
        message names the file and the entry.
    """
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise OverrideError(f"{path}: overrides file not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise OverrideError(f"{path}: cannot be read ({exc})") from None
    return loads_overrides(text, str(path))


def write_report_package(
    result: CheckResult,
    layers: Mapping[str, FeatureLayer],
    unit_to_ft: float,
    out_dir: Path,
    *,
    doc: FindingsDocument | Mapping[str, Any],
    reviewer: str = "",
    reference: str = "",
    report_date: _dt.date | str | None = None,
    pack: RulePack | None = None,
) -> dict[str, Any]:
    """Write the four report files into ``out_dir``.

    Parameters
    ----------
    result : CheckResult
        The engine's result (finding geometries and display zones for the maps).
    layers : mapping of role to FeatureLayer
        The input layers in the working CRS.
    unit_to_ft : float
        Working-CRS unit in feet.
    out_dir : Path
        Output folder (exists).
    doc : FindingsDocument or mapping
        The review's document (with keys, decisions, stale decisions); a findings.json object made in this process is
        read into it.
    reviewer, reference : str
        For the header.
    report_date : date or str, optional
        Defaults to today.
    pack : RulePack, optional
        The pack the check applied (the inventory's rules); without it, the document's jurisdiction's pack.

    Returns
    -------
    dict
        ``files`` (paths written), ``model`` (the report model), ``labels``
        (count, pages, owners skipped for want of an address).

    Raises
    ------
    ReportError
        When jinja2, matplotlib, reportlab or the DejaVu font is missing.
    """
    document = review_document(doc)
    model = build_report_model(result, layers, unit_to_ft, doc=document, reviewer=reviewer, reference=reference, report_date=report_date, pack=pack)
    files: list[Path] = [write_csv(model["notification"]["rows"], out_dir / "notification.csv")]
    try:
        # lazy, each just before its use: matplotlib, jinja2 and reportlab are optional for a plain check, and a
        # missing one becomes a ReportError after the files before it are written (as it always was)
        from .maps import render_figures

        figures = render_figures(result, model, layers, unit_to_ft, [str(f.effective_status) for f in document.findings])
        # lazy: jinja2
        from .html import write_html

        files.append(write_html(model, figures, out_dir / "report.html"))
        # lazy: reportlab
        from .pdf import write_pdf

        files.append(write_pdf(model, figures, out_dir / "report.pdf"))
        # lazy: reportlab
        from .labels import write_labels

        labels = write_labels(model["notification"]["rows"], out_dir / "labels.pdf")
        files.append(out_dir / "labels.pdf")
    except ModuleNotFoundError as exc:
        raise ReportError(f"{missing_message(str(exc.name), 'the report')}; or pass --no-report\nfindings.json and findings.gpkg were written") from None
    except fonts.FontMissing as exc:
        raise ReportError(f"{exc}; or pass --no-report\nfindings.json and findings.gpkg were written") from None
    return {"files": files, "model": model, "labels": labels}


def comparison_line(cmp: Mapping[str, Any]) -> str:
    """One console line: what changed since the last review."""
    c = cmp.get("counts") or {}
    line = (f"Since the last review: {c.get('resolved', 0)} resolved, {c.get('new', 0)} new, {c.get('still_open', 0)} still open, "
            f"{c.get('changed', 0)} changed; decisions {c.get('decisions_carried_over', 0)} carried over, "
            f"{c.get('decisions_to_review_again', 0)} to review again, {c.get('decisions_stale', 0)} stale")
    if cmp.get("project_class"):
        line += f"; class {cmp['project_class']['old']} → {cmp['project_class']['new']}"
    notes = [str(n) for n in cmp.get("notes") or []]  # an earlier release's review matched without keys
    return line + "." + "".join(f" Note: {n}." for n in notes)


def summary_lines(info: Mapping[str, Any] | None, doc: FindingsDocument, out_dir: Path | None) -> list[str]:
    """Console lines about overrides and the report files, for the CLI's summary (``doc``: the review's document)."""
    lines: list[str] = []
    oc = doc.decisions.counts.as_dict()
    if oc.get("overridden") or oc.get("stale"):
        lines.append(
            f"Reviewer decisions: {oc.get('overridden', 0)} finding(s) accepted or waived "
            f"({oc.get('violations_overridden', 0)} violation(s)); {oc.get('violations_unresolved', 0)} violation(s) remain without a decision."
        )
    for s in doc.decisions.stale:
        lines.append(f"Stale override (matches no finding; not applied): {s.get('key')} [{s.get('decision')}: {s.get('reason')}]")
    if oc.get("status_changed"):
        lines.append(f"{oc['status_changed']} override(s) were made when their finding had another status; see the report.")
    cmp = doc.comparison
    if cmp:
        lines.append(comparison_line(cmp))
    if info is not None and out_dir is not None:
        lines.append("Report: " + ", ".join(str(out_dir / n) for n in REPORT_FILES))
        lab = info.get("labels") or {}
        if lab.get("skipped"):
            lines.append(f"No mailing address for {len(lab['skipped'])} owner(s); no label printed for: {', '.join(lab['skipped'])}")
    return lines


def finish_check(
    review: Review,
    layers: Mapping[str, FeatureLayer],
    unit_to_ft: float,
    out_dir: Path,
    *,
    reviewer: str = "",
    reference: str = "",
    make_report: bool = True,
    shown_dir: Path | None = None,
) -> list[str]:
    """After ``findings.json`` is written: write ``compare.json`` (when the review has a comparison) and the report package.

    Parameters
    ----------
    review : Review
        The review: its ``document`` is what the report reads (decisions applied,
        moves and comparison added), its ``result`` gives the maps their geometry.

    shown_dir : Path, optional
        The folder the console lines name (the run's output folder when
        ``out_dir`` is the private folder it is written in first); ``out_dir`` by default.

    Returns
    -------
    list of str
        The console lines to add to the summary.
    """
    if review.comparison is not None:
        (out_dir / "compare.json").write_text(json.dumps(review.comparison, indent=2, ensure_ascii=False), encoding="utf-8")
    info = None
    if make_report:
        info = write_report_package(review.result, layers, unit_to_ft, out_dir, doc=review.document, reviewer=reviewer, reference=reference,
                                    pack=review.pack)
    return summary_lines(info, review.document, (shown_dir or out_dir) if make_report else None)
