"""QGIS-version compatibility: ``QgsField`` types, the null rectangle, legend text size.

PyQt6 has no ``QVariant.Type`` (``QVariant.String`` etc.); QGIS accepts a
``QMetaType.Type`` in ``QgsField`` from 3.38 on, and needs the ``QVariant``
type before that (QGIS 3.22 … 3.36, all PyQt5).

The legend node roles became ``QgsLayerTreeModelLegendNode.CustomRole`` in 3.36
(``RuleKeyRole`` before).

``QgsRectangle.setMinimal()`` is deprecated from 3.34 on (``setNull()``), and
``QgsLegendStyle.font()``/``setFont()`` from 3.30 on (``textFormat()``); QGIS 3.40
(Debian 13) warns on both, 3.22 (Debian 12) has only the old calls.
"""

from __future__ import annotations

from typing import Any

from qgis.core import Qgis

if Qgis.QGIS_VERSION_INT >= 33800:
    from qgis.PyQt.QtCore import QMetaType

    FIELD_STRING: Any = QMetaType.Type.QString
    FIELD_DOUBLE: Any = QMetaType.Type.Double
    FIELD_INT: Any = QMetaType.Type.Int
    FIELD_BOOL: Any = QMetaType.Type.Bool
else:
    from qgis.PyQt.QtCore import QVariant

    FIELD_STRING = QVariant.String
    FIELD_DOUBLE = QVariant.Double
    FIELD_INT = QVariant.Int
    FIELD_BOOL = QVariant.Bool



def null_rectangle() -> Any:
    """An empty ``QgsRectangle`` that ``combineExtentWith`` grows from nothing.

    Returns
    -------
    QgsRectangle
        The null rectangle (``setNull()`` on QGIS 3.34+, ``setMinimal()`` before).
    """
    from qgis.core import QgsRectangle

    rect = QgsRectangle()
    if hasattr(rect, "setNull"):
        rect.setNull()
    else:  # QGIS < 3.34
        rect.setMinimal()
    return rect


def set_legend_text_size(style: Any, size_pt: float) -> None:
    """Set the text size of one ``QgsLegendStyle`` in place.

    Parameters
    ----------
    style : QgsLegendStyle
        The style as ``QgsLayoutItemLegend.rstyle()`` returns it (a reference into the legend).
    size_pt : float
        Text size, points.
    """
    if hasattr(style, "textFormat"):  # QGIS 3.30+
        points = Qgis.RenderUnit.Points if hasattr(Qgis, "RenderUnit") else _render_points()
        fmt = style.textFormat()
        fmt.setSize(size_pt)
        fmt.setSizeUnit(points)
        style.setTextFormat(fmt)
    else:
        font = style.font()
        font.setPointSizeF(size_pt)
        style.setFont(font)


def legend_rule_key_role() -> int:
    """The item-data role of a legend node's rule key (``QgsLayerTreeModelLegendNode``), as an int for ``data()``."""
    from qgis.core import QgsLayerTreeModelLegendNode

    custom = getattr(QgsLayerTreeModelLegendNode, "CustomRole", None)
    role = getattr(custom, "RuleKey", None) if custom is not None else None
    if role is None:  # QGIS before 3.36
        role = QgsLayerTreeModelLegendNode.LegendNodeRoles.RuleKeyRole
    return int(getattr(role, "value", role))


def _render_points() -> Any:
    from qgis.core import QgsUnitTypes

    return QgsUnitTypes.RenderUnit.RenderPoints


__all__ = ["FIELD_BOOL", "FIELD_DOUBLE", "FIELD_INT", "FIELD_STRING", "legend_rule_key_role", "null_rectangle", "set_legend_text_size"]
