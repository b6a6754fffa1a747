"""Qt6 / QGIS 4 readiness: the plugin's pure-Qt widget runs under PyQt6 (from pip), without QGIS.

No Debian package of a Qt6 QGIS exists here, so the findings tree (the dock's
one widget built from Qt classes alone) is imported and filled under PyQt6 in a
child process. ``qgis.PyQt`` is QGIS's own switch between PyQt5 and PyQt6; the
child gets a stand-in that maps it to PyQt6 as QGIS 4 does. The ``qgis.core``
names that the widget's modules import for their other functions are inert
placeholders: this checks the Qt side (enums, signals, widgets) under PyQt6,
not QGIS 4's API. Skipped when
PyQt6 is not installed (requirements-dev.txt installs it).
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

CHILD = textwrap.dedent(
    """
    import sys
    from shapely.geometry import LineString, box
    from PyQt6.QtCore import QT_VERSION_STR, PYQT_VERSION_STR
    from PyQt6.QtWidgets import QApplication
    from stormwater_plugin.gui.findings_tree import FindingsTree
    from tests.sitebuilder import layer, run

    app = QApplication([])
    result = run("lake-george", {
        "shoreline": layer("shoreline", [LineString([(0, -300), (0, 300)])], ["MHW"], [{"waterbody": "Lake George"}]),
        "waterbodies": layer("waterbodies", [box(0, -400, 400, 400)], ["LG"], [{"name": "Lake George"}]),
        "clearing": layer("clearing", [box(-30, -20, -10, 20)], ["C1"]),
    })
    tree = FindingsTree()
    tree.set_result(result)
    tree.filter.setCurrentIndex(tree.filter.count() - 1)
    tree.filter.setCurrentIndex(0)
    tree.search.setText("35")
    tree.search.setText("")
    rows = tree.rule_items()
    assert rows, "no rule rows"
    first = next(iter(rows.values()))
    tree.tree.setCurrentItem(first.child(0) if first.childCount() else first)
    tree.show()
    app.processEvents()
    print(f"Qt {QT_VERSION_STR}, PyQt {PYQT_VERSION_STR}: {len(result.findings)} findings in {len(rows)} rule rows")
    """
)

#: QGIS 4's ``qgis.PyQt`` modules re-export PyQt6's; the stand-in does the same for the modules the widget uses.
SHIM = {
    "qgis/__init__.py": "",
    "qgis/PyQt/__init__.py": "",
    "qgis/PyQt/QtCore.py": "from PyQt6.QtCore import *  # noqa: F403\n",
    "qgis/PyQt/QtGui.py": "from PyQt6.QtGui import *  # noqa: F403\n",
    "qgis/PyQt/QtWidgets.py": "from PyQt6.QtWidgets import *  # noqa: F403\n",
    # Names of QGIS classes imported by the modules the widget imports for other purposes; any use fails.
    # Inert placeholders for the QGIS classes the widget's modules import for their other functions (module-level
    # set-up reads and builds some); Qgis.QGIS_VERSION_INT says 4.0, so qgis_bridge.compat takes its Qt6 branch.
    "qgis/core.py": (
        "class _Inert(type):\n"
        "    def __getattr__(cls, attr):\n"
        "        if attr.startswith('__'):\n"
        "            raise AttributeError(attr)\n"
        "        return _Inert(f'{cls.__name__}.{attr}', (), {'__init__': lambda self, *a, **k: None})\n"
        "def __getattr__(name):\n"
        "    if name.startswith('__'):\n"
        "        raise AttributeError(name)\n"
        "    return _Inert(name, (), {'__init__': lambda self, *a, **k: None})\n"
        "class Qgis(metaclass=_Inert):\n"
        "    QGIS_VERSION_INT = 40000\n"
    ),
}


@pytest.mark.skipif(importlib.util.find_spec("PyQt6") is None, reason="PyQt6 is not installed (pip install PyQt6: requirements-dev.txt)")
def test_findings_tree_runs_under_pyqt6(tmp_path):
    pytest.importorskip("shapely")
    for rel, text in SHIM.items():
        f = tmp_path / rel
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(text, encoding="utf-8")
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", PYTHONPATH=os.pathsep.join([str(tmp_path), str(ROOT), os.environ.get("PYTHONPATH", "")]))
    # -I is not used: the venv's site-packages (PyQt6, shapely) are needed; -s keeps a user site's qgis out.
    proc = subprocess.run([sys.executable, "-s", "-c", CHILD], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "findings in" in proc.stdout and "PyQt 6." in proc.stdout, proc.stdout
