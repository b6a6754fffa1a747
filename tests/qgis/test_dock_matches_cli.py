"""The dock and the command line give the same review on the same files (issue 24 item 8, issue 23).

The demo DEM declares its elevations in metres (GeoTIFF ``Unit Type: metre``); the
command line reads that, and so must the dock when its unit is left automatic (it
used to assume the unit: 3 undetermined and ``dem_z_unit_assumed`` in the dock, 0 on
the command line).

Both front ends run the same use case (``services.review.check``; the dock's
moves come from ``services.review.suggest`` as the command line's do), so every
finding (status, measurements, message, details, key) and every suggested move
is the same.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from conftest import DEMO_DEM, DEMO_GPKG, REPO, demo_layers, wait_for
from qgis.core import QgsProject


def _cli_doc(tmp_path, jurisdiction):
    out = tmp_path / "cli"
    env = dict(os.environ, PYTHONPATH=str(REPO))
    subprocess.run([sys.executable, "-m", "stormwater_plugin", "check", str(DEMO_GPKG), "--dem", str(DEMO_DEM), "--jurisdiction", jurisdiction,
                    "--out", str(out), "--no-report", "--quiet"], env=env, check=False, timeout=600, cwd=str(REPO))
    return json.loads((out / "findings.json").read_text(encoding="utf-8"))


def _by_key(findings):
    return {f["key"]: f for f in findings}


@pytest.mark.parametrize("jurisdiction", ["lake-george", "lgpc", "mamakating"])
def test_dock_with_automatic_dem_unit_gives_the_cli_findings_and_moves_on_the_demo(iface, qgis_new_project, tmp_path, jurisdiction):
    from stormwater_plugin.gui.dock import ReviewDock

    layers, dem = demo_layers()
    QgsProject.instance().addMapLayers(list(layers.values()) + [dem])
    dock = ReviewDock(iface)
    try:
        dock.jurisdiction.setCurrentIndex(dock.jurisdiction.findData(jurisdiction))
        assert dock.roles.z_unit() is None  # automatic: the raster's declared unit
        task = dock.run_check()
        assert task is not None
        wait_for(lambda: dock.task is None, 300)
        assert dock.result is not None
        assert task.review is not None and task.review.result is task.result  # the use case's review, not the engine alone
        wait_for(lambda: dock.moves_task is None, 600)
        dock_findings = _by_key(dock.doc["findings"])
        dock_moves = [m.as_dict() for m in dock.moves]
        dock_counts = dict(dock.doc["counts"])
        dock_completeness = dock.doc.get("completeness")
        codes = {w.code for w in dock.result.warnings}
        dock_note = dock.snap.inputs.dem.z_unit_note if dock.snap is not None and dock.snap.inputs.dem is not None else None
    finally:
        dock.teardown()
        QgsProject.instance().removeAllMapLayers()
    doc = _cli_doc(tmp_path, jurisdiction)
    cli_findings = _by_key(doc["findings"])
    assert "dem_z_unit_assumed" not in codes
    assert dock_note == doc["inputs"]["dem_z"] == "elevations in m (read from the band's declared unit 'metre')"  # said as read from the file
    assert {k: f["status"] for k, f in dock_findings.items()} == {k: f["status"] for k, f in cli_findings.items()}
    assert dock_findings == cli_findings  # the whole signature: measured, required, message, details, geometry-free fields
    assert dock_counts == doc["counts"]
    assert dock_moves == doc.get("moves", [])
    assert dock_completeness == doc["completeness"]  # issue 27: the same list of what the submission must show
