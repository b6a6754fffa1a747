"""Qt6 / QGIS 4 readiness: the plugin's code uses nothing that PyQt6 or QGIS 4 removed.

PyQt6 dropped unscoped enum access (``Qt.AlignLeft``) and ``QVariant`` field
types; PyQt5 5.11+ already accepts the scoped form, so the plugin uses it
everywhere. The checks below cover what QGIS's migration script
(``scripts/pyqt5_to_pyqt6/pyqt5_to_pyqt6.py`` in QGIS's repository) rewrites or
warns about: PyQt5 imports (Qt only through ``qgis.PyQt``), ``exec_``,
``QRegExp``, ``QDesktopWidget``, ``QFontMetrics.width``, ``activated[str]``,
compiled resources, ``QVariant`` types and calls outside the compat module,
``addAction`` with the slot among its arguments, and unscoped enums (by name
here; every enum of PyQt5 and QGIS by introspection in
``tests/qgis/test_qt6_enums.py``). Source text only: no QGIS or Qt import needed.
"""

from __future__ import annotations

import ast
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


#: Every module of the package (the engine imports no Qt; scanning it too costs nothing and keeps Qt out of it).
ALL_SOURCES = sorted(PLUGIN.rglob("*.py"))
#: Qt bindings only through QGIS's ``qgis.PyQt`` (PyQt5 on QGIS 3, PyQt6 on QGIS 4).
DIRECT_BINDINGS = {"PyQt5", "PyQt6", "PySide2", "PySide6", "sip"}
#: Classes PyQt6 does not have.
REMOVED_CLASSES = {
    "QRegExp": "use QRegularExpression",
    "QRegExpValidator": "use QRegularExpressionValidator",
    "QDesktopWidget": "use QScreen (QApplication.primaryScreen(), QWidget.screen())",
}
#: Signals whose overload picked by argument type (``activated[str]``) Qt6 removed.
OVERLOADED_SIGNALS = {"activated", "highlighted", "currentIndexChanged", "valueChanged", "buttonClicked", "triggered", "mapped"}
#: Methods PyQt6 renamed (the Python 2 era spellings).
RENAMED_METHODS = {"exec_": "exec", "print_": "print"}


def _attr_chain(node: ast.AST) -> str:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
    return ".".join(reversed(parts))


def qt6_problems(path: Path) -> list[str]:
    """What QGIS's PyQt5-to-PyQt6 migration would change or warn about in one file, as ``line: what`` strings."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    out: list[str] = []
    metrics_vars: set[str] = set()  # names bound to QFontMetrics(...) in this file

    def hit(node: ast.AST, what: str) -> None:
        out.append(f"{getattr(node, 'lineno', 0)}: {what}")

    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and _attr_chain(node.value.func).split(".")[-1] in ("QFontMetrics", "QFontMetricsF"):
            metrics_vars.update(t.id for t in node.targets if isinstance(t, ast.Name))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                top = alias.name.split(".")[0]
                if top in DIRECT_BINDINGS:
                    hit(node, f"import {alias.name}: import Qt through qgis.PyQt")
                if alias.name.split(".")[-1].endswith("_rc"):
                    hit(node, f"import {alias.name}: compiled resources (pyrcc) do not exist in Qt6; load files by path")
        elif isinstance(node, ast.ImportFrom):
            mod = node.module or ""
            if mod.split(".")[0] in DIRECT_BINDINGS and node.level == 0:
                hit(node, f"from {mod} import ...: import Qt through qgis.PyQt")
            for alias in node.names:
                if alias.name.endswith("_rc") or mod.split(".")[-1].endswith("_rc"):
                    hit(node, f"compiled resources ({mod or '.'} {alias.name}) do not exist in Qt6; load files by path")
                if alias.name in REMOVED_CLASSES:
                    hit(node, f"{alias.name} is not in Qt6: {REMOVED_CLASSES[alias.name]}")
        elif isinstance(node, ast.Name) and node.id in REMOVED_CLASSES:
            hit(node, f"{node.id} is not in Qt6: {REMOVED_CLASSES[node.id]}")
        elif isinstance(node, ast.FunctionDef) and node.name in RENAMED_METHODS:
            hit(node, f"def {node.name}: PyQt6 names it {RENAMED_METHODS[node.name]}")
        elif isinstance(node, ast.Attribute):
            if node.attr in RENAMED_METHODS:
                hit(node, f".{node.attr}: PyQt6 names it .{RENAMED_METHODS[node.attr]}")
            base = node.value
            if isinstance(base, ast.Name) and base.id == "QVariant" and path != COMPAT:
                hit(node, f"QVariant.{node.attr}: no QVariant types in PyQt6; use qgis_bridge.compat (or None for a null value)")
            if node.attr == "width" and (
                (isinstance(base, ast.Name) and base.id in metrics_vars)
                or (isinstance(base, ast.Call) and _attr_chain(base.func).split(".")[-1] in ("fontMetrics", "fontMetricsF", "QFontMetrics", "QFontMetricsF"))
            ):
                hit(node, "QFontMetrics.width(): removed in Qt6; use horizontalAdvance()")
        elif isinstance(node, ast.Call):
            name = _attr_chain(node.func)
            if name == "QVariant" and path != COMPAT:
                hit(node, "QVariant(...): PyQt6 converts values itself; pass the value (None for null)")
            if name.endswith(".desktop") and not node.args:
                hit(node, "QApplication.desktop(): QDesktopWidget is not in Qt6; use QScreen")
            if name.endswith(".addAction") and len(node.args) >= 4:
                hit(node, "addAction(icon, text, receiver, slot): the overload order changed in Qt6; create the QAction and add it")
        elif isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr in OVERLOADED_SIGNALS:
            sel = node.slice
            if (isinstance(sel, ast.Name) and sel.id in ("str", "int")) or (isinstance(sel, ast.Constant) and sel.value in ("QString", "int")):
                hit(node, f"{_attr_chain(node.value)}[{ast.unparse(sel)}]: signal overloads by type are gone in Qt6 (textActivated, currentTextChanged, ...)")
    return sorted(set(out), key=lambda s: int(s.split(":")[0]))


def test_the_migration_checks_catch_each_kind(tmp_path):
    """Each check fires on the Qt5 spelling and stays quiet on the Qt6-ready one."""
    bad = tmp_path / "bad.py"
    bad.write_text(
        "from PyQt5.QtWidgets import QDialog\n"
        "import sip\n"
        "from . import resources_rc\n"
        "from qgis.PyQt.QtCore import QRegExp, QVariant\n"
        "from qgis.PyQt.QtWidgets import QDesktopWidget\n"
        "def run(dlg, combo, menu, w):\n"
        "    dlg.exec_()\n"
        "    combo.activated[str].connect(print)\n"
        "    n = w.fontMetrics().width('x')\n"
        "    fm = QFontMetrics(w.font())\n"
        "    n = fm.width('x')\n"
        "    v = QVariant()\n"
        "    t = QVariant.Int\n"
        "    s = QApplication.desktop()\n"
        "    menu.addAction(icon, 'x', w, run)\n",
        encoding="utf-8",
    )
    found = qt6_problems(bad)
    for needle in ("from PyQt5", "import sip", "compiled resources", "QRegExp", "QDesktopWidget", ".exec_", "activated[str]",
                   "horizontalAdvance", "QVariant(...)", "QVariant.Int", "desktop()", "addAction"):
        assert any(needle in f for f in found), (needle, found)
    assert sum("horizontalAdvance" in f for f in found) == 2
    good = tmp_path / "good.py"
    good.write_text(
        "from qgis.PyQt import sip\n"
        "from qgis.PyQt.QtCore import QRegularExpression\n"
        "def run(dlg, combo, w, rect):\n"
        "    dlg.exec()\n"
        "    combo.textActivated.connect(print)\n"
        "    n = w.fontMetrics().horizontalAdvance('x') + rect.width()\n"
        "    items = w.data[1]\n",
        encoding="utf-8",
    )
    assert qt6_problems(good) == []


def test_nothing_for_the_qt6_migration_to_change():
    hits = [f"{p.relative_to(PLUGIN)}:{h}" for p in ALL_SOURCES for h in qt6_problems(p)]
    assert hits == [], "code that PyQt6 / QGIS 4 no longer accepts:\n" + "\n".join(hits)


def test_no_compiled_resources_or_designer_files_need_compiling():
    """Qt6 has no pyrcc: the plugin loads its icon and styles from files (resources_path), ships no .qrc."""
    shipped = [p.relative_to(PLUGIN.parent) for p in [*PLUGIN.rglob("*.qrc"), *PLUGIN.rglob("*_rc.py"), *(PLUGIN.parent / "resources").rglob("*.qrc")]]
    assert shipped == []
    qrc_paths = [f"{p.relative_to(PLUGIN)}:{n}" for p in ALL_SOURCES for n, line in _code_lines(p) if re.search(r"[\"']:/plugins/", line)]
    assert qrc_paths == [], "':/plugins/...' paths need compiled resources, which Qt6 does not have"
