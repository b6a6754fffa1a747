"""Qt6 / QGIS 4 readiness: the plugin's QGIS-facing code uses no unscoped Qt enums.

PyQt6 dropped unscoped enum access (``Qt.AlignLeft``) and ``QVariant`` field
types; PyQt5 5.11+ already accepts the scoped form, so the plugin uses it
everywhere. Plain text search: no QGIS or Qt import needed.
"""

from __future__ import annotations

import re
from pathlib import Path

PLUGIN = Path(__file__).resolve().parents[2] / "stormwater_plugin"
#: The QGIS/Qt-facing code (the core, the headless runner and the report use no Qt).
SOURCES = sorted([*(PLUGIN / "gui").glob("*.py"), *(PLUGIN / "processing").glob("*.py"), *(PLUGIN / "qgis_bridge").glob("*.py")])
#: Only place allowed to name ``QVariant`` field types (QGIS < 3.38 needs them).
COMPAT = PLUGIN / "qgis_bridge" / "compat.py"

UNSCOPED = {
    "Qt enum": re.compile(
        r"\bQt\.(AlignLeft|AlignRight|AlignTop|AlignBottom|AlignVCenter|AlignHCenter|AlignCenter|Vertical|Horizontal|UserRole|DisplayRole|ToolTipRole"
        r"|ItemIsEnabled|ItemIsSelectable|ItemIsEditable|ItemIsUserCheckable|WaitCursor|WhatsThisCursor|ArrowCursor|Checked|Unchecked|PartiallyChecked"
        r"|LeftButton|RightButton|RightDockWidgetArea|LeftDockWidgetArea|Key_\w+|NoFocus|ScrollBarAlwaysOff|SolidLine|DashLine|NoPen|NoBrush)\b"
    ),
    "QDialogButtonBox button": re.compile(r"\bQDialogButtonBox\.(Ok|Cancel|Close|Save|Apply|Yes|No|Help|Reset)\b"),
    "QDialog code": re.compile(r"\bQDialog\.(Accepted|Rejected)\b"),
    "QMessageBox enum": re.compile(r"\bQMessageBox\.(Ok|Cancel|Yes|No|Warning|Critical|Information|Question)\b"),
    "QSizePolicy policy": re.compile(r"\bQSizePolicy\.(Expanding|Preferred|Minimum|Maximum|Fixed|MinimumExpanding|Ignored)\b"),
    "QAbstractItemView enum": re.compile(r"\bQAbstractItemView\.(SelectRows|SelectItems|SingleSelection|ExtendedSelection|NoSelection|NoEditTriggers)\b"),
    "QHeaderView resize mode": re.compile(r"\bQHeaderView\.(Stretch|ResizeToContents|Interactive|Fixed)\b"),
    "QFont weight": re.compile(r"\bQFont\.(Bold|Normal|Light|DemiBold)\b"),
    "QFrame shape": re.compile(r"\bQFrame\.(NoFrame|HLine|VLine|StyledPanel|Box)\b"),
    "QDockWidget feature": re.compile(r"\bQDockWidget\.(AllDockWidgetFeatures|DockWidgetClosable|DockWidgetMovable|DockWidgetFloatable|NoDockWidgetFeatures)\b"),
    "Qgis message level": re.compile(r"\bQgis\.(Info|Warning|Critical|Success|NoLevel)\b"),
    "exec_()": re.compile(r"\.exec_\("),
}
QVARIANT_TYPE = re.compile(r"\bQVariant\.(String|Double|Int|Bool|LongLong|Date|DateTime)\b")


def _code_lines(path: Path) -> list[tuple[int, str]]:
    """(line number, text) of the lines that are not comments."""
    return [(n, line) for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if not line.lstrip().startswith("#")]


def test_the_sources_are_found():
    assert len(SOURCES) > 20 and COMPAT in SOURCES


def test_no_unscoped_qt_or_qgis_enums():
    hits = [
        f"{p.relative_to(PLUGIN)}:{n}: {what}: {m.group(0)}"
        for p in SOURCES
        for n, line in _code_lines(p)
        for what, rx in UNSCOPED.items()
        for m in rx.finditer(line)
    ]
    assert hits == [], "unscoped enums (PyQt6 rejects them; use the scoped form, e.g. Qt.AlignmentFlag.AlignLeft):\n" + "\n".join(hits)


def test_field_types_come_from_the_compat_module():
    hits = [f"{p.relative_to(PLUGIN)}:{n}: {m.group(0)}" for p in SOURCES if p != COMPAT for n, line in _code_lines(p) for m in QVARIANT_TYPE.finditer(line)]
    assert hits == [], "QVariant field types (none in PyQt6): use FIELD_STRING etc. from qgis_bridge.compat:\n" + "\n".join(hits)
