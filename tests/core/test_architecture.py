"""Layering: the core imports no QGIS, Qt or GDAL bindings, and no file-I/O stack."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

CORE = Path(__file__).resolve().parents[2] / "stormwater_plugin" / "core"
FORBIDDEN = ("qgis", "PyQt5", "PyQt6", "osgeo", "rasterio", "geopandas", "fiona", "pyproj")


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def test_core_source_imports_no_qgis_qt_gdal_or_file_io_libraries():
    offenders = {str(p.relative_to(CORE)): sorted(_imports(p) & set(FORBIDDEN)) for p in CORE.rglob("*.py")}
    assert {k: v for k, v in offenders.items() if v} == {}


def test_importing_the_core_loads_none_of_them_at_run_time():
    code = (
        "import sys; import stormwater_plugin.core.engine, stormwater_plugin.core.rulepack, stormwater_plugin.core.serialize;"
        f"bad=[m for m in sys.modules if m.split('.')[0] in {FORBIDDEN!r}]; print(','.join(bad))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=CORE.parents[1])
    assert out.stdout.strip() == ""
