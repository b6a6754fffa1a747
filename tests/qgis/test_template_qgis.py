"""The new-site template in QGIS (issue 27): its layers load their stored default forms (ValueMap, CheckBox)."""

from __future__ import annotations

from qgis.core import QgsVectorLayer

from stormwater_plugin.core.roles import ROLES
from stormwater_plugin.core.rulepack import load_pack
from stormwater_plugin.gui.cad_actions import add_template_layers, write_template_ogr
from stormwater_plugin.headless.template import write_template


def _widget(layer: QgsVectorLayer, name: str) -> str:
    return layer.editorWidgetSetup(layer.fields().indexOf(name)).type()


def test_cli_template_loads_its_default_forms_in_qgis_value_map_for_device_type(tmp_path):
    out = tmp_path / "site.gpkg"
    write_template(out, "lgpc")
    devices = QgsVectorLayer(f"{out}|layername=devices", "devices", "ogr")
    assert devices.isValid()
    assert _widget(devices, "device_type") == "ValueMap"
    assert "dry_well" in devices.editorWidgetSetup(devices.fields().indexOf("device_type")).config()["map"][0].values()
    assert _widget(devices, "vehicle_traffic") == "ValueMap"
    assert devices.attributeAlias(devices.fields().indexOf("bottom_elev_ft")) == "device bottom elevation (ft)"
    parcels = QgsVectorLayer(f"{out}|layername=parcels", "parcels", "ogr")
    assert _widget(parcels, "is_site") == "CheckBox"
    impervious = QgsVectorLayer(f"{out}|layername=impervious", "impervious", "ogr")
    assert _widget(impervious, "status") == "ValueMap"


def test_dock_new_site_plan_writes_the_template_through_ogr_and_adds_every_role_layer(tmp_path, qgis_new_project):
    from qgis.core import QgsProject

    out = tmp_path / "plan.gpkg"
    names = write_template_ogr(out, load_pack("lake-george"))
    layers = add_template_layers(out, names)
    assert [lyr.name() for lyr in layers] == list(ROLES)
    assert len(QgsProject.instance().mapLayers()) == len(ROLES)
    devices = next(lyr for lyr in layers if lyr.name() == "devices")
    assert _widget(devices, "device_type") == "ValueMap"
    assert devices.crs().authid() == "EPSG:2260"


def test_an_untouched_traffic_answer_saves_null_not_false_so_the_traffic_rules_stay_undetermined(tmp_path):
    """QGIS 3.22's check box saves an untouched box as false; the yes/no/unknown value map saves NULL."""
    from qgis.core import QgsFeature, QgsValueMapFieldFormatter
    from qgis.gui import QgsGui
    from qgis.PyQt.QtCore import QVariant

    out = tmp_path / "site.gpkg"
    write_template(out, "lgpc")
    devices = QgsVectorLayer(f"{out}|layername=devices", "devices", "ogr")
    idx = devices.fields().indexOf("vehicle_traffic")
    setup = devices.editorWidgetSetup(idx)
    wrapper = QgsGui.editorWidgetRegistry().create(setup.type(), devices, idx, setup.config(), None, None)
    wrapper.setValues(QVariant(), [])
    untouched = wrapper.value()
    assert untouched is None or (hasattr(untouched, "isNull") and untouched.isNull())
    devices.startEditing()
    f = QgsFeature(devices.fields())
    f["id"] = "DW-1"
    f["vehicle_traffic"] = 1
    assert devices.addFeature(f) and devices.commitChanges()
    reread = QgsVectorLayer(f"{out}|layername=devices", "devices", "ogr")
    value = next(reread.getFeatures())["vehicle_traffic"]
    assert QgsValueMapFieldFormatter().representValue(reread, idx, setup.config(), None, value) == "yes"
    high = next(reread.getFeatures())["high_traffic"]
    assert high is None or (hasattr(high, "isNull") and high.isNull())


def test_the_dock_reads_an_empty_template_layer_as_not_drawn_and_refuses_an_empty_template(tmp_path, qgis_new_project):
    """As the command line (tests/headless/test_template_reading.py): an empty template layer is absent until stated none."""
    import sqlite3
    from pathlib import Path

    import pytest
    from qgis.core import QgsFeature, QgsGeometry, QgsPointXY

    from stormwater_plugin.qgis_bridge.snapshot import plan_snapshot
    from stormwater_plugin.services.site_template import STATEMENTS_TABLE, TemplateError

    out = tmp_path / "plan.gpkg"
    names = write_template_ogr(out, load_pack("lgpc"))
    layers = {lyr.name(): lyr for lyr in add_template_layers(out, names)}
    with pytest.raises(TemplateError, match="is an empty site template"):
        plan_snapshot(layers)
    x, y = 701_000.0, 1_620_000.0  # NY East ftUS, in the Park
    parcels, devices = layers["parcels"], layers["devices"]
    for lyr, geom, attrs in ((parcels, QgsGeometry.fromWkt(f"MULTIPOLYGON((({x} {y},{x + 200} {y},{x + 200} {y + 200},{x} {y + 200},{x} {y})))"),
                              {"id": "P-1", "is_site": True}),
                             (devices, QgsGeometry.fromPointXY(QgsPointXY(x + 100, y + 100)), {"id": "DW-1", "device_type": "dry_well"})):
        lyr.startEditing()
        f = QgsFeature(lyr.fields())
        f.setGeometry(geom)
        for k, v in attrs.items():
            f.setAttribute(k, v)
        assert lyr.addFeature(f) and lyr.commitChanges()
    with sqlite3.connect(str(out)) as con:
        con.execute(f"UPDATE {STATEMENTS_TABLE} SET none_present = 1 WHERE role = 'septic'")
    plan = plan_snapshot(layers)
    not_drawn = {w.layer for w in plan.warnings if w.code == "template_layer_not_drawn"}
    assert {"wells", "wetlands", "shoreline"} <= not_drawn and "septic" not in not_drawn
    assert {"parcels", "devices", "septic"} <= set(plan.sources) and "wells" not in plan.sources
    assert Path(out).is_file()
    statements = QgsVectorLayer(f"{out}|layername={STATEMENTS_TABLE}", STATEMENTS_TABLE, "ogr")
    assert statements.isValid() and statements.featureCount() == len(names)
    assert _widget(statements, "none_present") == "ValueMap"


def test_new_site_plan_asks_the_crs_in_qgis_selector_with_the_pack_suggestion_first(tmp_path, qgis_new_project, monkeypatch):
    """*New site plan…* offers QGIS's CRS selector (not a text box), set to the pack's CRS; the chosen CRS is the package's."""
    from qgis.core import QgsCoordinateReferenceSystem
    from qgis.PyQt.QtWidgets import QDialog, QFileDialog

    from stormwater_plugin.gui import cad_actions

    out = tmp_path / "plan.gpkg"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: (str(out), "")))
    seen: list[str] = []

    def accept(dialog):
        seen.append(dialog.crs.crs().authid())  # what the reviewer sees first
        dialog.crs.setCrs(QgsCoordinateReferenceSystem("EPSG:26918"))
        return QDialog.DialogCode.Accepted

    monkeypatch.setattr(cad_actions.SiteCrsDialog, "exec", accept)
    layers = cad_actions.new_site_plan(None, "lake-george")
    assert seen == ["EPSG:2260"]
    devices = next(lyr for lyr in layers if lyr.name() == "devices")
    assert devices.crs().authid() == "EPSG:26918"
    monkeypatch.setattr(cad_actions.SiteCrsDialog, "exec", lambda dialog: QDialog.DialogCode.Rejected)
    assert cad_actions.new_site_plan(None, "lake-george") == []
