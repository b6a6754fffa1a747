"""Qt5/Qt6 compatibility for ``QgsField`` types.

PyQt6 has no ``QVariant.Type`` (``QVariant.String`` etc.); QGIS accepts a
``QMetaType.Type`` in ``QgsField`` from 3.38 on, and needs the ``QVariant``
type before that (QGIS 3.22 … 3.36, all PyQt5).
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

__all__ = ["FIELD_BOOL", "FIELD_DOUBLE", "FIELD_INT", "FIELD_STRING"]
