"""Issue 36 items 5-6: the dock's CAD import says what the command line says, and asks the CRS with QGIS's CRS selector."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from stormwater_plugin.cli import main
from stormwater_plugin.gui.cad_actions import CadImportDialog, import_cad_ogr, import_summary

pytest.importorskip("ezdxf", reason="ezdxf builds the test drawings (Debian: python3-ezdxf)")
REPO = Path(__file__).resolve().parents[2]


def _drawing(tmp: Path) -> Path:
    sys.path.insert(0, str(REPO))
    from tests.headless.cad_drawings import demo_plan_dxf

    return demo_plan_dxf(tmp / "plan.dxf")


def test_the_dock_import_writes_the_command_lines_report_key_for_key_and_says_every_line(tmp_path):
    dxf = _drawing(tmp_path)
    report = import_cad_ogr(dxf, "EPSG:2260", tmp_path / "dock.gpkg")
    assert main(["import-cad", str(dxf), "--crs", "EPSG:2260", "--out", str(tmp_path / "cli.gpkg")]) == 0
    cli = json.loads((tmp_path / "cli.import.json").read_text(encoding="utf-8"))
    dock = json.loads((tmp_path / "dock.import.json").read_text(encoding="utf-8"))
    assert set(dock) == set(cli)
    for key in ("format", "units", "crs", "site_parcel", "counts", "unmapped_layers", "dropped_layers"):
        assert dock[key] == cli[key], key
    assert any("no neighbour is known" in w for w in dock["warnings"])  # as the command line's "no --parcels given" note
    head, lines = import_summary(report)
    assert "2 building sites" in head
    assert "not sorted: CAD layer E-LITE-POLE (1 entity): add it to a mapping table if it holds a role" in lines
    assert len(lines) == len(report["unmapped_layers"]) + len(report["dropped_layers"]) + len(report["warnings"])  # none cut off


def test_the_import_asks_the_crs_with_qgis_selector_showing_the_packs_suggestion(qgis_app):
    from qgis.gui import QgsProjectionSelectionWidget

    dialog = CadImportDialog(None, "EPSG:2260")
    assert isinstance(dialog.crs, QgsProjectionSelectionWidget)
    assert dialog.crs_text() == "EPSG:2260"
    assert dialog.parcels.currentLayer() is None  # no tax parcels unless chosen


def test_a_plan_imported_without_tax_parcels_leaves_the_notice_list_undetermined_in_the_dock(tmp_path, iface, qgis_new_project):
    from conftest import wait_for
    from qgis.core import QgsProject, QgsVectorLayer

    from stormwater_plugin.gui.cad_actions import add_template_layers
    from stormwater_plugin.gui.dock import ReviewDock

    report = import_cad_ogr(_drawing(tmp_path), "EPSG:2260", tmp_path / "dock.gpkg")
    add_template_layers(tmp_path / "dock.gpkg", [r for r in report["counts"] if r != "contours"])
    assert all(isinstance(lyr, QgsVectorLayer) for lyr in QgsProject.instance().mapLayers().values())
    dock = ReviewDock(iface)
    try:
        dock.jurisdiction.setCurrentIndex(dock.jurisdiction.findData("lake-george"))
        dock.roles.guess()
        assert dock.run_check() is not None
        wait_for(lambda: dock.task is None and dock.moves_task is None, 120)
        notes = [f for f in dock.result.findings if f.rule_id.endswith("notification")]
        assert notes and all(f.status.value == "undetermined" for f in notes), [(f.status.value, f.message) for f in notes]
    finally:
        dock.teardown()
        QgsProject.instance().removeAllMapLayers()
