"""The dock's *Import CAD plan…* (issue 27): the demo drawn as a DXF imports through QGIS's own OGR and checks as the CLI's import does."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from qgis.core import QgsVectorLayer

from stormwater_plugin.cli import main
from stormwater_plugin.gui.cad_actions import SitePackageError, import_cad_ogr

pytest.importorskip("ezdxf", reason="ezdxf builds the test drawings (Debian: python3-ezdxf)")

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "resources" / "demo"
pytestmark = pytest.mark.skipif(not (DEMO / "site.gpkg").is_file(), reason="resources/demo/site.gpkg is built by scripts/make_demo_site.py")


def _drawing(tmp: Path, **kw) -> Path:
    import sys

    sys.path.insert(0, str(REPO))
    from tests.headless.cad_drawings import demo_plan_dxf

    return demo_plan_dxf(tmp / "plan.dxf", **kw)


def _signature(doc: dict) -> set[tuple]:
    return {(f["rule_id"], (f.get("subject") or {}).get("id"), (f.get("other") or {}).get("id"), f["status"]) for f in doc["findings"]}


def _check(site: Path, out: Path) -> dict:
    assert main([str(site), "--dem", str(DEMO / "dem.tif"), "--jurisdiction", "lake-george", "--out", str(out), "--quiet"]) in (0, 1)
    return json.loads((out / "findings.json").read_text(encoding="utf-8"))


def test_demo_dxf_imported_in_the_dock_checks_with_the_findings_of_the_cli_import(tmp_path):
    dxf = _drawing(tmp_path)
    parcels = QgsVectorLayer(f"{DEMO / 'site.gpkg'}|layername=parcels", "parcels", "ogr")
    assert parcels.isValid()
    report = import_cad_ogr(dxf, "EPSG:2260", tmp_path / "dock.gpkg", parcels)
    assert report["site_parcel"] == "171.15-1-23"
    assert report["unmapped_layers"] == {"E-LITE-POLE": 1}
    assert main(["import-cad", str(dxf), "--crs", "EPSG:2260", "--parcels", f"{DEMO / 'site.gpkg'}:parcels", "--out", str(tmp_path / "cli.gpkg")]) == 0
    cli_counts = json.loads((tmp_path / "cli.import.json").read_text(encoding="utf-8"))["counts"]
    assert report["counts"] == cli_counts
    dock_doc = _check(tmp_path / "dock.gpkg", tmp_path / "dock")
    cli_doc = _check(tmp_path / "cli.gpkg", tmp_path / "cli")
    assert _signature(dock_doc) == _signature(cli_doc)
    assert dock_doc["counts"] == cli_doc["counts"] and dock_doc["project_class"] == cli_doc["project_class"]


def test_a_local_coordinate_drawing_is_refused_in_the_dock_with_one_line(tmp_path):
    dxf = _drawing(tmp_path, offset=(-2_000_000.0, -1_500_000.0))
    with pytest.raises(SitePackageError) as exc:
        import_cad_ogr(dxf, "EPSG:2260", tmp_path / "site.gpkg")
    assert "local coordinates, or the wrong state-plane zone" in str(exc.value) and "\n" not in str(exc.value)
    assert not (tmp_path / "site.gpkg").exists()


def test_a_drawing_4300_ft_off_its_parcel_is_refused_by_the_dock_import_with_one_line(tmp_path):
    dxf = _drawing(tmp_path, offset=(4300.0, 0.0))
    parcels = QgsVectorLayer(f"{DEMO / 'site.gpkg'}|layername=parcels", "parcels", "ogr")
    with pytest.raises(SitePackageError) as exc:
        import_cad_ogr(dxf, "EPSG:2260", tmp_path / "site.gpkg", parcels)
    assert "ft from parcel" in str(exc.value) and "wrong state-plane zone" in str(exc.value) and "\n" not in str(exc.value)
    assert not (tmp_path / "site.gpkg").exists()


@pytest.mark.parametrize("offset", [(4300.0, 0.0), (0.0, 0.0)], ids=["4300-ft-off", "on-its-parcel"])
def test_the_dock_check_refuses_a_cad_plan_off_its_parcel_in_the_message_bar_and_checks_it_in_place(tmp_path, offset, iface, qgis_new_project):
    """A plan imported without parcels, checked in the dock against the tax parcels: refused by the read in the task (the task's
    error, as the command line's reader refuses it), never a crash."""
    from qgis.core import QgsProject

    from stormwater_plugin.gui.check_task import CheckTask
    from stormwater_plugin.gui.dock import ReviewDock
    from stormwater_plugin.qgis_bridge.snapshot import plan_snapshot

    report = import_cad_ogr(_drawing(tmp_path, offset=offset), "EPSG:2260", tmp_path / "dock.gpkg")
    layers = {r: QgsVectorLayer(f"{tmp_path / 'dock.gpkg'}|layername={r}", r, "ogr") for r in report["counts"] if r != "contours"}
    layers["parcels"] = QgsVectorLayer(f"{DEMO / 'site.gpkg'}|layername=parcels", "parcels", "ogr")
    assert all(lyr.isValid() for lyr in layers.values())
    QgsProject.instance().addMapLayers(list(layers.values()))
    dock = ReviewDock(iface)
    try:
        task = CheckTask(plan_snapshot(layers), "lake-george", lambda t: None)  # read in the task, as the dock reads
        ok = task.run()
        task.finished(ok)
        dock._task_done(task)  # the message bar, no exception
        if offset == (0.0, 0.0):
            assert ok and task.error is None and task.result is not None and task.result.site_parcel_id == "171.15-1-23"
        else:
            assert not ok and task.result is None
            assert task.error and "ft from parcel 171.15-1-23 (the site parcel" in task.error and "wrong state-plane zone" in task.error
    finally:
        dock.teardown()
        QgsProject.instance().removeAllMapLayers()
