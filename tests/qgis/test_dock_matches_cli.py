"""Issue 24 item 8: the dock and the command line give the same findings on the same files.

The demo DEM declares its elevations in metres (GeoTIFF ``Unit Type: metre``); the
command line reads that, and so must the dock when its unit is left automatic (it
used to assume the unit: 3 undetermined and ``dem_z_unit_assumed`` in the dock, 0 on
the command line).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from conftest import DEMO_DEM, DEMO_GPKG, REPO, demo_layers, wait_for
from qgis.core import QgsProject


@pytest.mark.parametrize("jurisdiction", ["lake-george", "lgpc"])
def test_dock_with_automatic_dem_unit_gives_the_cli_statuses_on_the_demo(iface, qgis_new_project, tmp_path, jurisdiction):
    from stormwater_plugin.gui.dock import ReviewDock

    layers, dem = demo_layers()
    QgsProject.instance().addMapLayers(list(layers.values()) + [dem])
    dock = ReviewDock(iface)
    try:
        dock.jurisdiction.setCurrentIndex(dock.jurisdiction.findData(jurisdiction))
        assert dock.roles.z_unit() is None  # automatic: the raster's declared unit
        assert dock.run_check() is not None
        wait_for(lambda: dock.task is None, 300)
        assert dock.result is not None
        dock_status = {f["key"]: f["status"] for f in dock.doc["findings"]}
        codes = {w.code for w in dock.result.warnings}
    finally:
        dock.teardown()
        QgsProject.instance().removeAllMapLayers()
    out = tmp_path / "cli"
    env = dict(os.environ, PYTHONPATH=str(REPO))
    subprocess.run([sys.executable, "-m", "stormwater_plugin", "check", str(DEMO_GPKG), "--dem", str(DEMO_DEM), "--jurisdiction", jurisdiction,
                    "--out", str(out), "--no-report", "--quiet"], env=env, check=False, timeout=600, cwd=str(REPO))
    doc = json.loads((out / "findings.json").read_text(encoding="utf-8"))
    cli_status = {f["key"]: f["status"] for f in doc["findings"]}
    assert "dem_z_unit_assumed" not in codes
    assert dock_status == cli_status
