"""Styles of the result layers.

The plugin ships them as QML files in ``resources/styles`` and loads them
with ``loadNamedStyle``. The same styles are built here in code: as a
fallback when a QML file is missing, and to (re)write the QML files with
:func:`write_qml_files` (``python -m stormwater_plugin.gui.styles DIR`` inside
a QGIS Python).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Callable

from qgis.core import (
    QgsFillSymbol,
    QgsLineSymbol,
    QgsMapLayer,
    QgsMarkerSymbol,
    QgsPalLayerSettings,
    QgsRuleBasedRenderer,
    QgsSingleSymbolRenderer,
    QgsTextBufferSettings,
    QgsTextFormat,
    QgsVectorLayer,
    QgsVectorLayerSimpleLabeling,
)
from qgis.PyQt.QtGui import QColor, QFont

from ..resources_path import style_path
from ..services.presentation import DECIDED_COLOUR, STATUS_COLOURS, slope_classes  # noqa: F401 - the one palette, re-exported for the dock

#: Style name to the geometry of the layer it styles.
STYLE_GEOMETRY: dict[str, str] = {
    "findings_points": "Point",
    "findings_lines": "LineString",
    "findings_areas": "Polygon",
    "passes_points": "Point",
    "passes_lines": "LineString",
    "passes_areas": "Polygon",
    "setback_zones": "Polygon",
    "no_cut_buffer": "Polygon",
    "notification_area": "Polygon",
    "notify_parcels": "Polygon",
    "slope_rays": "LineString",
    "other_zones": "Polygon",
    "slope_mask": "Polygon",
}


def rgba(hex_colour: str, alpha: int = 255) -> str:
    """``"#d7191c", 80`` as ``"215,25,28,80"``: the form symbol properties read unambiguously.

    (A ``#rrggbbaa`` string would be read by Qt as ``#aarrggbb``.)
    """
    h = hex_colour.lstrip("#")
    return f"{int(h[0:2], 16)},{int(h[2:4], 16)},{int(h[4:6], 16)},{alpha}"


def _status_symbol(kind: str, status: str):
    colour = STATUS_COLOURS[status]
    dash = "dash" if status == "undetermined" else "solid"
    if kind == "Point":
        return QgsMarkerSymbol.createSimple({"name": "circle", "color": colour, "outline_color": "white", "size": "3.2"})
    if kind == "LineString":
        width = "0.9" if status in ("violation", "undetermined") else "0.6"
        return QgsLineSymbol.createSimple({"line_color": colour, "line_width": width, "line_style": dash, "capstyle": "round"})
    if status == "advisory":  # the site parcel of the notification advisory: outline only
        return QgsFillSymbol.createSimple({"style": "no", "outline_color": rgba(colour, 200), "outline_width": "0.5", "outline_style": "dash"})
    return QgsFillSymbol.createSimple({"color": rgba(colour, 90), "outline_color": colour, "outline_width": "0.7", "outline_style": dash})


_UNDECIDED = "(\"decision\" IS NULL OR \"decision\" = '')"


def _decided_symbol(kind: str):
    if kind == "Point":
        return QgsMarkerSymbol.createSimple({"name": "circle", "color": DECIDED_COLOUR, "outline_color": "white", "size": "2.6"})
    if kind == "LineString":
        return QgsLineSymbol.createSimple({"line_color": DECIDED_COLOUR, "line_width": "0.5", "line_style": "dot", "capstyle": "round"})
    return QgsFillSymbol.createSimple({"color": rgba(DECIDED_COLOUR, 50), "outline_color": DECIDED_COLOUR, "outline_width": "0.4", "outline_style": "dot"})


def _status_renderer(kind: str, statuses: tuple[str, ...]) -> QgsRuleBasedRenderer:
    """One rule per status for undecided findings; accepted or waived findings drawn grey and dotted."""
    root = QgsRuleBasedRenderer.Rule(None)
    for status in statuses:
        rule = QgsRuleBasedRenderer.Rule(_status_symbol(kind, status), 0, 0, f"\"status\" = '{status}' AND {_UNDECIDED}", status.capitalize())
        root.appendChild(rule)
    root.appendChild(QgsRuleBasedRenderer.Rule(_decided_symbol(kind), 0, 0, f"NOT {_UNDECIDED}", "Accepted or waived by the reviewer"))
    return QgsRuleBasedRenderer(root)


def text_format(colour: str, size: float, bold: bool = False) -> QgsTextFormat:
    """Label text: sans serif in ``colour`` with a white halo, ``size`` points."""
    fmt = QgsTextFormat()
    font = QFont("Sans Serif")
    font.setBold(bold)
    fmt.setFont(font)
    fmt.setSize(size)
    fmt.setColor(QColor(colour))
    buf = QgsTextBufferSettings()
    buf.setEnabled(True)
    buf.setSize(0.8)
    buf.setColor(QColor("white"))
    fmt.setBuffer(buf)
    return fmt


def _labels(field: str, colour: str, placement: int, size: float = 8.0, bold: bool = False) -> QgsVectorLayerSimpleLabeling:
    fmt = text_format(colour, size, bold)
    pal = QgsPalLayerSettings()
    pal.fieldName = field
    pal.placement = placement
    pal.setFormat(fmt)
    pal.enabled = True
    try:
        pal.priority = 7
    except AttributeError:  # pragma: no cover
        pass
    return QgsVectorLayerSimpleLabeling(pal)


def build_style(layer: QgsVectorLayer, name: str) -> None:
    """Apply the style ``name`` to ``layer`` in code (no QML)."""
    kind = STYLE_GEOMETRY[name]
    if name.startswith("findings_"):
        layer.setRenderer(_status_renderer(kind, ("violation", "undetermined", "advisory", "pass")))
        placement = QgsPalLayerSettings.Placement.Line if kind == "LineString" else QgsPalLayerSettings.Placement.AroundPoint if kind == "Point" else QgsPalLayerSettings.Placement.OverPoint
        layer.setLabeling(_labels("label", "#202020", placement, 8.0, bold=True))
        layer.setLabelsEnabled(True)
    elif name.startswith("passes_"):
        layer.setRenderer(_status_renderer(kind, ("pass",)))
        placement = QgsPalLayerSettings.Placement.Line if kind == "LineString" else QgsPalLayerSettings.Placement.AroundPoint
        layer.setLabeling(_labels("label", STATUS_COLOURS["pass"], placement, 7.0))
        layer.setLabelsEnabled(True)
    elif name == "setback_zones":
        layer.setRenderer(QgsSingleSymbolRenderer(QgsFillSymbol.createSimple({"style": "no", "outline_color": "#2c7bb6", "outline_width": "0.35", "outline_style": "dash"})))
        layer.setLabeling(_labels("label", "#2c7bb6", QgsPalLayerSettings.Placement.PerimeterCurved, 7.0))
        layer.setLabelsEnabled(True)
    elif name == "no_cut_buffer":
        sym = QgsFillSymbol.createSimple({"color": rgba("#1a9641"), "outline_color": "#1a9641", "outline_width": "0.6", "style": "b_diagonal"})
        layer.setRenderer(QgsSingleSymbolRenderer(sym))
        layer.setLabeling(_labels("label", "#0b5d1e", QgsPalLayerSettings.Placement.PerimeterCurved, 8.0, bold=True))
        layer.setLabelsEnabled(True)
    elif name == "notification_area":
        layer.setRenderer(QgsSingleSymbolRenderer(QgsFillSymbol.createSimple({"style": "no", "outline_color": "#404040", "outline_width": "0.6", "outline_style": "dash dot"})))
        layer.setLabeling(_labels("label", "#404040", QgsPalLayerSettings.Placement.PerimeterCurved, 8.0))
        layer.setLabelsEnabled(True)
    elif name == "notify_parcels":
        root = QgsRuleBasedRenderer.Rule(None)
        root.appendChild(QgsRuleBasedRenderer.Rule(QgsFillSymbol.createSimple({"style": "no", "outline_color": "#d4b000", "outline_width": "0.8"}), 0, 0, "\"listed\"", "To notify"))
        beyond = QgsFillSymbol.createSimple({"style": "no", "outline_color": "#b8a000", "outline_width": "0.3", "outline_style": "dot"})
        root.appendChild(QgsRuleBasedRenderer.Rule(beyond, 0, 0, "NOT \"listed\"", "Within radius, not required"))
        layer.setRenderer(QgsRuleBasedRenderer(root))
        layer.setLabeling(_labels("id", "#6b5d00", QgsPalLayerSettings.Placement.OverPoint, 7.0))
        layer.setLabelsEnabled(True)
    elif name == "slope_rays":
        # Coloured by the ray's slope over 100 ft; the steepest ray drawn thicker and labelled.
        root = QgsRuleBasedRenderer.Rule(None)
        bands = slope_classes()  # the packs' building-site slope thresholds (services.presentation)
        for colour, title, expr in bands:
            root.appendChild(QgsRuleBasedRenderer.Rule(QgsLineSymbol.createSimple({"line_color": rgba(colour, 170), "line_width": "0.3"}), 0, 0, f"{expr} AND \"label\" IS NULL", f"Ray: {title}"))
            root.appendChild(QgsRuleBasedRenderer.Rule(QgsLineSymbol.createSimple({"line_color": colour, "line_width": "1.0"}), 0, 0, f"{expr} AND \"label\" IS NOT NULL", f"Steepest ray: {title}"))
        layer.setRenderer(QgsRuleBasedRenderer(root))
        layer.setLabeling(_labels("label", "#8c510a", QgsPalLayerSettings.Placement.Line, 8.0, bold=True))
        layer.setLabelsEnabled(True)
    elif name == "slope_mask":
        # steep ground: a see-through brown hatch with a thin outline, so what lies under it stays readable
        sym = QgsFillSymbol.createSimple({"color": rgba("#8c510a", 150), "style": "f_diagonal", "outline_color": rgba("#8c510a", 200), "outline_width": "0.3"})
        sym.setOpacity(0.8)
        layer.setRenderer(QgsSingleSymbolRenderer(sym))
    else:
        layer.setRenderer(QgsSingleSymbolRenderer(QgsFillSymbol.createSimple({"style": "no", "outline_color": "#606060", "outline_width": "0.3"})))


def apply_style(layer: QgsVectorLayer, name: str, builder: Callable[[QgsVectorLayer, str], None] | None = None) -> None:
    """Load the shipped QML ``name``; build the style in code (``builder``, default :func:`build_style`) if the file is missing or fails."""
    path = style_path(name)
    if path.is_file():
        _msg, ok = layer.loadNamedStyle(str(path))
        if ok:
            layer.triggerRepaint()
            return
    (builder or build_style)(layer, name)
    layer.triggerRepaint()


def write_qml_files(folder: Path) -> list[Path]:
    """Write every style as ``<folder>/<name>.qml`` (run inside a QGIS Python)."""
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for name, kind in STYLE_GEOMETRY.items():
        fields = "&".join(f"field={f}" for f in ("status:string", "label:string", "id:string", "listed:boolean"))
        layer = QgsVectorLayer(f"{kind}?{fields}", name, "memory")
        build_style(layer, name)
        path = folder / f"{name}.qml"
        layer.saveNamedStyle(str(path), categories=QgsMapLayer.StyleCategory.Symbology | QgsMapLayer.StyleCategory.Labeling | QgsMapLayer.StyleCategory.Rendering)
        out.append(path)
    return out


if __name__ == "__main__":  # pragma: no cover - a maintenance command
    from qgis.core import QgsApplication

    app = QgsApplication([], False)
    app.initQgis()
    for p in write_qml_files(Path(sys.argv[1] if len(sys.argv) > 1 else "resources/styles")):
        print(p)
