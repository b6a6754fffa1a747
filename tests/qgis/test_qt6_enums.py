"""Qt6 / QGIS 4 readiness: no enum value of Qt or QGIS is reached unscoped, found by introspection.

PyQt6 and QGIS 4 accept only ``Class.Enum.Value``; PyQt5 and QGIS 3 accept both.
QGIS's migration script finds the unscoped spellings by asking the bindings
which attributes are enum values; this does the same with the bindings at
hand (PyQt5 and QGIS 3 here): for every ``Name.attr`` in the plugin where
``Name`` was imported from ``qgis.PyQt`` or ``qgis``, ``attr`` must not be an
enum value (a sip enum member, or a Python ``enum`` member reached through a
class that is not the enum itself). The name-list check QGIS-free is
``tests/core/test_qt6_readiness.py``.
"""

from __future__ import annotations

import ast
import enum
import importlib
from pathlib import Path
from typing import Any

import pytest

PLUGIN = Path(__file__).resolve().parents[2] / "stormwater_plugin"
#: The one module that names ``QVariant`` field types (on QGIS before 3.38, where they are required).
COMPAT = PLUGIN / "qgis_bridge" / "compat.py"


def _is_enum_value(value: Any) -> bool:
    kind = type(value)
    if type(kind).__name__ == "enumtype":  # sip's enum metaclass (PyQt5, QGIS 3's own enums)
        return True
    return isinstance(value, enum.Enum)


def _is_enum_type(obj: Any) -> bool:
    return type(obj).__name__ == "enumtype" or (isinstance(obj, type) and issubclass(obj, enum.Enum))


def unscoped_enum_uses(path: Path) -> list[str]:
    """``line: Name.attr`` for each enum value of Qt or QGIS reached without its enum's name."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    bound: dict[str, Any] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").split(".")[0] == "qgis":
            module = importlib.import_module(node.module or "")
            for alias in node.names:
                obj = getattr(module, alias.name, None)
                if obj is not None and isinstance(obj, type) and not _is_enum_type(obj):
                    bound[alias.asname or alias.name] = obj
    hits = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in bound:
            if path == COMPAT and node.value.id == "QVariant":
                continue  # QGIS < 3.38 (PyQt5 only) needs QVariant.String etc.; QGIS's migration script keeps this spelling
            value = getattr(bound[node.value.id], node.attr, None)
            if value is not None and _is_enum_value(value):
                hits.append(f"{node.lineno}: {node.value.id}.{node.attr} (scoped: {node.value.id}.{type(value).__name__}.{node.attr})")
    return hits


def test_introspection_finds_an_unscoped_enum(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text(
        "from qgis.PyQt.QtCore import Qt\nfrom qgis.core import QgsWkbTypes\n"
        "a = Qt.AlignLeft\nb = Qt.AlignmentFlag.AlignLeft\nc = QgsWkbTypes.PointGeometry\nd = Qt.mightBeRichText\n",
        encoding="utf-8",
    )
    hits = unscoped_enum_uses(probe)
    assert [h.split(" ")[1] for h in hits] == ["Qt.AlignLeft", "QgsWkbTypes.PointGeometry"], hits


@pytest.mark.parametrize("path", sorted(PLUGIN.rglob("*.py")), ids=lambda p: str(p.relative_to(PLUGIN)))
def test_no_unscoped_enum_values(path):
    hits = unscoped_enum_uses(path)
    assert hits == [], f"{path.relative_to(PLUGIN)}: unscoped enum values (PyQt6 and QGIS 4 reject them):\n" + "\n".join(hits)
