"""A QGIS print layout of one review: the map on the site, a legend, a title and the findings summary.

Added to the project's layout manager (so the reviewer can adjust it in the
layout designer) and exported to PDF with ``QgsLayoutExporter``.

The dock never renders the layout's map on the main thread:
QGIS's layouts are not thread-safe (its own "Export print layout as PDF"
algorithm is ``FlagNoThreading``, and ``QgsMapRendererCustomPainterJob.renderSynchronously``,
which the map item uses when exported, must run on the main thread). So the map
is drawn by QGIS's own background map renderer, :func:`map_render_task`
(``QgsMapRendererTask``: the layers' renderers are prepared on the main thread,
the drawing runs in a task, as the map canvas does), and :func:`layout_for_pdf`
exports a copy of the layout whose map frame shows that drawing. QGIS rasterises
this map at 300 dpi when it exports it anyway (its layers use transparency).
The legend's filter by the map's content is tested in a task too
(:mod:`.legend_filter`), on the same map settings (:func:`map_settings`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from qgis.core import (
    QgsLayoutExporter,
    QgsLayoutItemLabel,
    QgsLayoutItemLegend,
    QgsLayoutItemMap,
    QgsLayoutItemPage,
    QgsLayoutItemPicture,
    QgsLayoutItemScaleBar,
    QgsLayoutPoint,
    QgsLayoutSize,
    QgsLegendStyle,
    QgsMapRendererTask,
    QgsMapSettings,
    QgsPrintLayout,
    QgsProject,
    QgsRasterLayer,
    QgsRectangle,
    QgsUnitTypes,
)
from qgis.PyQt.QtCore import QSizeF, Qt
from qgis.PyQt.QtGui import QFont

from ..qgis_bridge.compat import set_legend_text_size
from ..services.findings_doc import FindingsDocument

#: Millimetres: page margin, title height, width of the right-hand column.
_MARGIN = 10.0
_TITLE_H = 12.0
_SIDE_W = 80.0
#: Height of the findings summary under the map, millimetres.
_SUMMARY_H = 44.0
#: Resolution of the map drawn for layout.pdf, dots per inch (QGIS's default export resolution).
MAP_DPI = 300.0


def layout_name(site: str | None) -> str:
    return f"Stormwater review — {site or 'site'}"


def summary_text(doc: FindingsDocument, reviewer: str = "", reference: str = "", max_items: int = 14) -> str:
    """Plain-text summary of a review's document (counts, decisions, the problems, stale decisions)."""
    c = doc.counts
    oc = doc.decisions.counts.as_dict()
    lines = [
        f"{doc.rule_pack.title}",
        f"Site parcel {doc.site_parcel or '?'} — {doc.classification.project_class} project ({doc.classification.class_source})",
    ]
    if reviewer or reference:
        lines.append(" · ".join(x for x in (f"Reviewer: {reviewer}" if reviewer else "", f"Reference: {reference}" if reference else "") if x))
    lines.append(f"{c.get('violation', 0)} violation · {c.get('undetermined', 0)} undetermined · {c.get('advisory', 0)} advisory · {c.get('pass', 0)} pass")
    if oc.get("overridden"):
        lines.append(f"Reviewer decisions: {oc['overridden']} (violations accepted or waived: {oc.get('violations_overridden', 0)}; without a decision: {oc.get('violations_unresolved', 0)})")
    problems = [f for f in doc.findings if f.status in ("violation", "undetermined")]
    if problems:
        lines.append("")
        for f in problems[:max_items]:
            eff = f.effective_status or f.status
            status = f.status if eff == f.status else f"{f.status} → {eff}"
            cite = str(f.citation)
            cite = cite[cite.index("§"):] if "§" in cite else cite
            lines.append(f"• {status} — {cite}: {f.message}")
        if len(problems) > max_items:
            lines.append(f"… {len(problems) - max_items} more in report.pdf")
    for s in doc.decisions.stale:
        lines.append(f"Stale decision (matches no finding): {s.get('key')}")
    for m in doc.moves or ():
        if m.possible:
            lines.append(f"Suggested: {m.as_dict().get('message', '')}")
    return "\n".join(lines)


def fit_extent(extent: QgsRectangle, width_mm: float, height_mm: float, margin: float = 0.08) -> QgsRectangle:
    """``extent`` grown by ``margin`` and widened or heightened to the frame's proportions (so the frame keeps its size)."""
    rect = QgsRectangle(extent)
    if rect.isEmpty():
        rect = QgsRectangle(rect.xMinimum() - 50, rect.yMinimum() - 50, rect.xMaximum() + 50, rect.yMaximum() + 50)
    rect.grow(max(rect.width(), rect.height()) * margin)
    ratio = width_mm / height_mm
    cx, cy = rect.center().x(), rect.center().y()
    w, h = rect.width(), rect.height()
    if w / h < ratio:
        w = h * ratio
    else:
        h = w / ratio
    return QgsRectangle(cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2)


def _set_font(item: QgsLayoutItemLabel, size: float, bold: bool = False) -> None:
    font = QFont("Sans Serif")
    font.setPointSizeF(size)
    font.setBold(bold)
    if hasattr(item, "setTextFormat"):  # QGIS 3.24+
        from qgis.core import QgsTextFormat

        fmt = QgsTextFormat()
        fmt.setFont(font)
        fmt.setSize(size)
        item.setTextFormat(fmt)
    else:
        item.setFont(font)


def build_layout(
    project: QgsProject,
    title: str,
    extent: QgsRectangle,
    crs: Any,
    summary: str,
    name: str,
    legend: bool = True,
) -> QgsPrintLayout:
    """Build the layout and add it to ``project``'s layout manager (replacing one of the same name).

    Parameters
    ----------
    extent : QgsRectangle
        The site, in ``crs``; the map shows it with a margin.
    legend : bool
        Add the legend too (else :func:`add_legend` adds it later: the dock does it in its own step).
    """
    manager = project.layoutManager()
    old = manager.layoutByName(name)
    if old is not None:
        manager.removeLayout(old)
    layout = QgsPrintLayout(project)
    layout.initializeDefaults()
    layout.setName(name)
    page = layout.pageCollection().page(0)
    page.setPageSize("Letter", QgsLayoutItemPage.Orientation.Landscape)
    pw, ph = page.pageSize().width(), page.pageSize().height()

    head = QgsLayoutItemLabel(layout)
    head.setText(title)
    _set_font(head, 16, bold=True)
    layout.addLayoutItem(head)
    head.attemptMove(QgsLayoutPoint(_MARGIN, _MARGIN - 4, QgsUnitTypes.LayoutUnit.LayoutMillimeters))
    head.attemptResize(QgsLayoutSize(pw - 2 * _MARGIN, _TITLE_H, QgsUnitTypes.LayoutUnit.LayoutMillimeters))

    map_w = pw - 3 * _MARGIN - _SIDE_W
    map_h = ph - 2 * _MARGIN - _TITLE_H - _SUMMARY_H - 3
    top = _MARGIN + _TITLE_H
    item_map = QgsLayoutItemMap(layout)
    item_map.setId("map")
    layout.addLayoutItem(item_map)
    item_map.attemptMove(QgsLayoutPoint(_MARGIN, top, QgsUnitTypes.LayoutUnit.LayoutMillimeters))
    item_map.attemptResize(QgsLayoutSize(map_w, map_h, QgsUnitTypes.LayoutUnit.LayoutMillimeters))
    item_map.setFrameEnabled(True)
    if crs is not None and crs.isValid():
        item_map.setCrs(crs)
    item_map.setExtent(fit_extent(extent, map_w, map_h))

    scale = QgsLayoutItemScaleBar(layout)
    scale.setLinkedMap(item_map)
    scale.setStyle("Single Box")
    scale.setUnits(QgsUnitTypes.DistanceUnit.DistanceFeet)
    scale.setUnitLabel("ft")
    scale.setNumberOfSegmentsLeft(0)
    scale.setNumberOfSegments(2)
    scale.applyDefaultSize(QgsUnitTypes.DistanceUnit.DistanceFeet)
    layout.addLayoutItem(scale)
    scale.attemptMove(QgsLayoutPoint(_MARGIN + 3, top + map_h - 14, QgsUnitTypes.LayoutUnit.LayoutMillimeters))

    north = QgsLayoutItemPicture(layout)
    north.setPicturePath(":/images/north_arrows/layout_default_north_arrow.svg")
    north.setLinkedMap(item_map)
    north.setNorthMode(QgsLayoutItemPicture.NorthMode.GridNorth)
    layout.addLayoutItem(north)
    north.attemptMove(QgsLayoutPoint(_MARGIN + map_w - 15, top + 3, QgsUnitTypes.LayoutUnit.LayoutMillimeters))
    north.attemptResize(QgsLayoutSize(12, 12, QgsUnitTypes.LayoutUnit.LayoutMillimeters))

    text = QgsLayoutItemLabel(layout)
    text.setId("summary")
    text.setText(summary)
    _set_font(text, 7.5)
    text.setHAlign(Qt.AlignmentFlag.AlignLeft)
    text.setVAlign(Qt.AlignmentFlag.AlignTop)
    layout.addLayoutItem(text)
    text.attemptMove(QgsLayoutPoint(_MARGIN, top + map_h + 3, QgsUnitTypes.LayoutUnit.LayoutMillimeters))
    text.attemptResize(QgsLayoutSize(map_w, _SUMMARY_H, QgsUnitTypes.LayoutUnit.LayoutMillimeters))

    manager.addLayout(layout)
    if legend:
        add_legend(layout, project)
    return layout


def add_legend(layout: QgsPrintLayout, project: QgsProject) -> QgsLayoutItemLegend:
    """The legend of the layout's map, in the right-hand column: the project's visible vector layers, filtered by the map."""
    item_map = map_item(layout)
    page = layout.pageCollection().page(0)
    pw = page.pageSize().width()
    side_x, top = pw - _MARGIN - _SIDE_W, _MARGIN + _TITLE_H
    legend = QgsLayoutItemLegend(layout)
    legend.setId("legend")
    legend.setTitle("Legend")
    legend.setLinkedMap(item_map)
    legend.setAutoUpdateModel(False)
    _legend_visible_only(legend, project)
    try:
        legend.setLegendFilterByMapEnabled(True)
    except AttributeError:  # pragma: no cover
        pass
    for style, size in ((QgsLegendStyle.Style.Title, 9.0), (QgsLegendStyle.Style.Group, 7.5), (QgsLegendStyle.Style.Subgroup, 7.0), (QgsLegendStyle.Style.SymbolLabel, 6.5)):
        try:
            set_legend_text_size(legend.rstyle(style), size)
        except Exception:  # pragma: no cover - API moved
            pass
    legend.setSymbolHeight(2.6)
    legend.setSymbolWidth(4.5)
    layout.addLayoutItem(legend)
    legend.attemptMove(QgsLayoutPoint(side_x, top, QgsUnitTypes.LayoutUnit.LayoutMillimeters))
    legend.adjustBoxSize()
    return legend


def _legend_visible_only(legend: QgsLayoutItemLegend, project: QgsProject) -> None:
    """Keep only the vector layers visible in the project's layer tree (the hidden passes and soils say nothing)."""
    root = legend.model().rootGroup()
    project_root = project.layerTreeRoot()
    for node in list(root.findLayers()):
        src = project_root.findLayer(node.layerId())
        raster = isinstance(node.layer(), QgsRasterLayer)
        if src is None or not src.isVisible() or raster:  # a DEM's colour ramp says nothing about the review
            parent = node.parent()
            if parent is not None:
                parent.removeChildNode(node)
    for group in list(root.findGroups()) if hasattr(root, "findGroups") else []:
        if not group.findLayers() and group.parent() is not None:
            group.parent().removeChildNode(group)


def export_pdf(layout: QgsPrintLayout, path: Path) -> Path:
    """Export ``layout`` to ``path``.

    Raises
    ------
    RuntimeError
        When QGIS reports an error.
    """
    exporter = QgsLayoutExporter(layout)
    code = exporter.exportToPdf(str(path), QgsLayoutExporter.PdfExportSettings())
    if code != QgsLayoutExporter.ExportResult.Success:
        raise RuntimeError(f"the print layout could not be exported to {path} (QgsLayoutExporter error {code}: {exporter.errorMessage() if hasattr(exporter, 'errorMessage') else ''})")
    return Path(path)


def map_item(layout: QgsPrintLayout) -> QgsLayoutItemMap | None:
    """The layout's map frame (the item with id ``map``), or ``None``."""
    item = layout.itemById("map")
    return item if isinstance(item, QgsLayoutItemMap) else None


def map_render_task(layout: QgsPrintLayout, image: Path, dpi: float = MAP_DPI) -> QgsMapRendererTask:
    """QGIS's background map renderer, set to draw the layout's map frame into ``image`` (main thread; nothing drawn yet).

    The map settings are the ones the map item exports with (layers, styles,
    labels, extent, scale) at ``dpi``; the background is the frame's. Creating
    the task prepares the layers' renderers here, on the main thread (milliseconds);
    the features are read and drawn when the task runs in QGIS's task manager.

    Raises
    ------
    RuntimeError
        When the layout has no map frame.
    """
    settings = map_settings(layout, dpi)
    # an uncompressed BMP: written in the task, read back on the main thread in milliseconds
    return QgsMapRendererTask(settings, str(image), Path(image).suffix.lstrip(".").upper() or "BMP")


def map_settings(layout: QgsPrintLayout, dpi: float = MAP_DPI) -> QgsMapSettings:
    """The map settings the layout's map frame exports with at ``dpi`` (layers, styles, labels, extent, scale, background).

    Raises
    ------
    RuntimeError
        When the layout has no map frame.
    """
    item = map_item(layout)
    if item is None:
        raise RuntimeError("the print layout has no map frame")
    size_mm = item.sizeWithUnits()
    px = QSizeF(round(size_mm.width() / 25.4 * dpi), round(size_mm.height() / 25.4 * dpi))
    settings = item.mapSettings(item.extent(), px, dpi, True)
    settings.setBackgroundColor(item.backgroundColor())
    return settings


def layout_for_pdf(layout: QgsPrintLayout, image: Path) -> QgsPrintLayout:
    """A copy of ``layout`` (not in any layout manager) whose map frame shows ``image``, the map drawn by :func:`map_render_task`.

    The map item stays in the copy, hidden, so the scale bar, the north arrow
    and the legend keep following it; nothing is rendered here. The dock makes
    the copy (``layout.clone()``) and adds the picture (:func:`show_map_picture`)
    in two steps.
    """
    copy = layout.clone()
    show_map_picture(copy, image)
    return copy


def show_map_picture(copy: QgsPrintLayout, image: Path) -> None:
    """Show ``image`` in the map frame of ``copy`` (a picture item over the frame, the map item hidden; the image is loaded here)."""
    item = map_item(copy)
    if item is None:
        raise RuntimeError("the print layout has no map frame")
    picture = QgsLayoutItemPicture(copy)
    picture.setId("map picture")
    picture.setResizeMode(QgsLayoutItemPicture.ResizeMode.Stretch)
    picture.setPicturePath(str(image), QgsLayoutItemPicture.Format.FormatRaster)
    copy.addLayoutItem(picture)
    picture.attemptMove(item.positionWithUnits())
    picture.attemptResize(item.sizeWithUnits())
    picture.setFrameEnabled(item.frameEnabled())
    picture.setFrameStrokeWidth(item.frameStrokeWidth())
    picture.setFrameStrokeColor(item.frameStrokeColor())
    picture.setBackgroundEnabled(item.hasBackground())
    picture.setBackgroundColor(item.backgroundColor())
    copy.moveItemToBottom(picture)
    item.setVisibility(False)


def prepare_legend(layout: QgsPrintLayout) -> None:
    """Let the legends of ``layout`` filter themselves by their map's content now, not while the page is exported.

    QGIS filters a legend by its map (``setLegendFilterByMapEnabled``) when the
    legend is first painted; painting the legends alone, small, into a throwaway
    image does that, on this thread, so the export that follows only draws them.
    The dock tests the legend in a task instead (:mod:`.legend_filter`) and
    comes here only when that test failed.
    """
    from qgis.PyQt.QtGui import QImage, QPainter

    for item in layout.items():
        if isinstance(item, QgsLayoutItemLegend) and item.legendFilterByMapEnabled():
            image = QImage(8, 8, QImage.Format.Format_ARGB32_Premultiplied)
            painter = QPainter(image)
            try:
                QgsLayoutExporter(layout).renderRegion(painter, item.sceneBoundingRect())
            finally:
                painter.end()
