"""`pip install .` gives the engine and `stormwater-check` with no QGIS code in it (issue 23).

The wheel is built here (no network: ``--no-deps --no-build-isolation``), its files are listed, and the demo is
checked from the unpacked wheel in a process where importing ``qgis`` or ``PyQt`` fails: the findings equal those of
the source tree.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "resources" / "demo"

#: Run a module with qgis and PyQt made unimportable (as on a machine without QGIS).
NO_QGIS = (
    "import sys, runpy\n"
    "class _Block:\n"
    "    def find_spec(self, name, path=None, target=None):\n"
    "        if name.split('.')[0] in ('qgis', 'PyQt5', 'PyQt6'):\n"
    "            raise ImportError(f'{name} is not installed (blocked by the test)')\n"
    "sys.meta_path.insert(0, _Block())\n"
    "sys.argv = sys.argv[1:]\n"
    "runpy.run_module(sys.argv[0], run_name='__main__', alter_sys=True)\n"
)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", str(out), str(REPO)],
                           capture_output=True, text=True, timeout=300, cwd=out)
    if build.returncode != 0:
        pytest.fail(f"the wheel does not build: {build.stderr[-2000:]}")
    (whl,) = out.glob("stormwater_review-*.whl")
    return whl


def test_the_wheel_holds_the_engine_and_no_qgis_code(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    modules = [n for n in names if n.endswith(".py")]
    assert "stormwater_plugin/cli.py" in modules and "stormwater_plugin/core/engine.py" in modules
    assert "stormwater_plugin/core/packs/lgpc.json" in names
    assert not [n for n in modules if n.split("/")[1] in ("gui", "processing", "qgis_bridge")]
    z = zipfile.ZipFile(wheel)
    qgis_users = []
    for n in modules:
        tree = ast.parse(z.read(n).decode("utf-8"))
        for node in ast.walk(tree):
            mods = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else []
            if any(m.split(".")[0] in ("qgis", "PyQt5", "PyQt6") for m in mods):
                qgis_users.append(n)
    # the package's __init__ names the plugin class lazily, for QGIS only; nothing else in the wheel touches QGIS
    assert qgis_users == []
    entry = [n for n in names if n.endswith("entry_points.txt")]
    assert entry and "stormwater-check = stormwater_plugin.cli:main" in z.read(entry[0]).decode()


def test_the_unpacked_wheel_checks_the_demo_without_qgis(wheel, tmp_path):
    if not (DEMO / "site.gpkg").exists():
        pytest.skip("the demo site is not generated (make demo-data)")
    site = tmp_path / "site-packages"
    zipfile.ZipFile(wheel).extractall(site)
    runs = {}
    for name, path in (("wheel", site), ("source", REPO)):
        out = tmp_path / name
        env = {"PYTHONPATH": str(path), "PATH": "/usr/bin:/bin", "QT_QPA_PLATFORM": "offscreen", "HOME": str(tmp_path)}
        proc = subprocess.run([sys.executable, "-c", NO_QGIS, "stormwater_plugin.cli", str(DEMO / "site.gpkg"), "--dem", str(DEMO / "dem.tif"),
                               "--jurisdiction", "lgpc", "--out", str(out)], capture_output=True, text=True, timeout=300, cwd=tmp_path, env=env)
        assert proc.returncode in (0, 1), proc.stderr[-2000:]
        doc = json.loads((out / "findings.json").read_text(encoding="utf-8"))
        runs[name] = [(f["key"], f["status"], f.get("measured_ft")) for f in doc["findings"]]
    assert runs["wheel"] == runs["source"] and runs["wheel"]
