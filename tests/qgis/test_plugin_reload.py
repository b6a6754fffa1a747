"""Issue 36 item 2: the plugin survives its own reload (QGIS's loader unloads it and imports the package anew, as Plugin Reloader does).

Before, the engine's check modules (imported with importlib, unseen by QGIS's loader) stayed from the
first load while the rest was loaded anew, and every check after the reload ended with "The results could
not be drawn: 'FeatureRef' object has no attribute 'get'". The run happens in its own QGIS process
(reload_plugin_run.py), so this session's imports are not disturbed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import DEMO_GPKG, REPO

pytestmark = pytest.mark.skipif(not DEMO_GPKG.is_file(), reason="resources/demo/site.gpkg is built by scripts/make_demo_site.py")


def test_a_check_after_the_plugin_is_reloaded_completes_with_the_same_findings_and_working_crs(tmp_path):
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": ""}
    proc = subprocess.run([sys.executable, str(Path(__file__).with_name("reload_plugin_run.py")), str(REPO), str(tmp_path)],
                          capture_output=True, text=True, timeout=600, env=env, cwd=str(tmp_path))
    line = next((x for x in proc.stdout.splitlines() if x.startswith("RESULT ")), None)
    assert line is not None, proc.stdout[-3000:] + proc.stderr[-3000:]
    out = json.loads(line[len("RESULT "):])
    first, second = out["first"], out["second"]
    assert "plugins/stormwater_plugin" in first["file"]  # loaded through QGIS's loader, from the plugin folder
    assert first["started"] and first["counts"] and not first["errors"], first
    assert out["reloaded"] and not out["reported"], out["reported"]  # QGIS reported no error (unloading included)
    assert second["started"] and not second["errors"], second["errors"]
    assert second["counts"] == first["counts"] and second["crs"] == first["crs"]
    # every module of the package was loaded anew, the engine's check modules included
    assert second["handler_module"] != first["handler_module"] and second["model_module"] != first["model_module"]
    assert not out["clear_errors"] and not out["old_dock_alive"]
