"""Each Processing algorithm through ``processing.run`` on the synthetic EPSG:2260 site."""

from __future__ import annotations

import json

import pytest
from synthetic_site import D1_TO_S1_FT


def _params(layers, dem, **extra):
    p = {"PARCELS": layers["parcels"], "SEPTIC": layers["septic"], "DEVICES": layers["devices"], "DEM": dem,
         "JURISDICTION": 0, "PROJECT_CLASS": 2, "Z_UNITS": 2}  # lgpc, minor, feet
    p.update(extra)
    return p


def test_provider_lists_algorithms(provider):
    ids = sorted(a.id() for a in provider.algorithms())
    assert {"stormwater_review:checksiteplan", "stormwater_review:setbackzones", "stormwater_review:notificationlist"} <= set(ids)


def test_check_site_plan(provider, site, tmp_path):
    import processing

    layers, dem = site
    out = processing.run("stormwater_review:checksiteplan", _params(layers, dem, FINDINGS="memory:", DISTANCE_LINES="memory:", AREAS="memory:",
                                                                      OUTPUT_JSON=str(tmp_path / "findings.json")))
    assert out["VIOLATIONS"] == 1
    table = out["FINDINGS"]
    rows = {f["rule_id"]: f for f in table.getFeatures()}
    v = rows["lgpc.minor.septic-upgradient-20"]
    assert v["status"] == "violation"
    assert v["measured_ft"] == pytest.approx(D1_TO_S1_FT, rel=5e-4)
    assert v["required_ft"] == 20
    assert v["subject_id"] == "D1" and v["other_id"] == "S1"
    assert v["citation"] == "6 NYCRR 646-4.14(a)(3)"
    assert "0.1 ft short" in v["message"]
    lines = list(out["DISTANCE_LINES"].getFeatures())
    assert len(lines) == 1
    assert lines[0].geometry().length() == pytest.approx(19.9, abs=1e-6)  # US ft, working CRS = EPSG:2260
    assert out["DISTANCE_LINES"].crs().authid() == "EPSG:2260"
    doc = json.loads((tmp_path / "findings.json").read_text())
    assert doc["counts"]["violation"] == 1
    assert doc["findings"][0]["measured_ft"] == pytest.approx(19.9, rel=5e-4)


def test_check_without_dem_is_undetermined(provider, site):
    import processing

    layers, _ = site
    out = processing.run("stormwater_review:checksiteplan", _params(layers, None, FINDINGS="memory:"))
    rows = {f["rule_id"]: f for f in out["FINDINGS"].getFeatures()}
    assert rows["lgpc.minor.septic-upgradient-20"]["status"] == "undetermined"
    assert out["VIOLATIONS"] == 0


def test_setback_zones(provider, site):
    import processing

    layers, dem = site
    out = processing.run("stormwater_review:setbackzones", _params(layers, dem, OUTPUT="memory:"))
    zones = {f["kind"]: f for f in out["OUTPUT"].getFeatures()}
    assert set(zones) == {"setback", "notification_area"}
    ring = zones["setback"]
    assert ring["distance_ft"] == 20 and ring["subject_id"] == "D1"
    # a 20 ft (= 19.99996 US ft) circle around the point, drawn within 0.01 ft of the true circle
    r_us = 20.0 / (1200.0 / 3937.0 / 0.3048)
    box = ring.geometry().boundingBox()
    assert box.width() == pytest.approx(2 * r_us, abs=0.02)
    assert box.center().x() == pytest.approx(129.9, abs=1e-6)


def test_notification_list(provider, site):
    import processing

    layers, dem = site
    out = processing.run("stormwater_review:notificationlist", _params(layers, dem, OUTPUT="memory:"))
    rows = {f["id"]: f for f in out["OUTPUT"].getFeatures()}
    assert set(rows) == {"1.-1-2", "1.-1-3"}
    assert rows["1.-1-2"]["distance_ft"] == 0 and rows["1.-1-2"]["adjacent"] and rows["1.-1-2"]["listed"]
    # Ground distance: the grid distance over the projection's scale factor (within 0.05% here).
    assert rows["1.-1-3"]["distance_ft"] == pytest.approx(400 * 1200 / 3937 / 0.3048, rel=5e-4)
    assert not rows["1.-1-3"]["listed"]  # minor project: adjacent owners only
    assert rows["1.-1-2"]["owner"] == "NEXT DOOR"
    assert rows["1.-1-2"]["mailing_address"] == "2 Lake Rd, Bolton, NY 12814"
    assert out["OWNERS"] == 1
    major = processing.run("stormwater_review:notificationlist", _params(layers, dem, OUTPUT="memory:", PROJECT_CLASS=3))
    assert {f["id"] for f in major["OUTPUT"].getFeatures() if f["listed"]} == {"1.-1-2", "1.-1-3"}


def test_compare_two_reviews_gives_the_cores_comparison(provider, site, tmp_path):
    """The Processing algorithm and the core (hence the command line and the dock) give the same comparison."""
    import processing

    from stormwater_plugin.core.compare import compare_documents

    layers, dem = site
    old = tmp_path / "old.json"
    new = tmp_path / "new.json"
    processing.run("stormwater_review:checksiteplan", _params(layers, dem, FINDINGS="memory:", OUTPUT_JSON=str(old)))
    processing.run("stormwater_review:checksiteplan", _params(layers, dem, FINDINGS="memory:", OUTPUT_JSON=str(new), PROJECT_CLASS=3))
    out = processing.run("stormwater_review:comparereviews", {"OLD": str(old), "NEW": str(new), "OUTPUT": str(tmp_path / "compare.json")})
    doc = json.loads((tmp_path / "compare.json").read_text(encoding="utf-8"))
    expected = compare_documents(json.loads(old.read_text(encoding="utf-8")), json.loads(new.read_text(encoding="utf-8")))
    assert doc == json.loads(json.dumps(expected))
    assert doc["project_class"] == {"old": "minor", "new": "major"}
    assert out["RESOLVED"] == doc["counts"]["resolved"] >= 1


def test_jurisdictions_by_name_and_roles_prefilled_from_the_dock(provider, site):
    """The algorithm dialog offers the packs by their titles and prefills the roles the dock saved in the project."""
    from qgis.core import QgsApplication, QgsProject

    layers, dem = site
    project = QgsProject.instance()
    project.writeEntry("stormwater_review", "role/devices", layers["devices"].id())
    project.writeEntry("stormwater_review", "role/septic", layers["septic"].id())
    project.writeEntry("stormwater_review", "role/wells", "a-layer-that-is-gone")
    project.writeEntry("stormwater_review", "dem", dem.id())
    project.writeEntry("stormwater_review", "jurisdiction", "lake-george")
    project.writeEntry("stormwater_review", "z_units", "ft")
    alg = QgsApplication.processingRegistry().algorithmById("stormwater_review:checksiteplan").create()
    options = alg.parameterDefinition("JURISDICTION").options()
    assert options[0].startswith("Lake George Park Commission") and options[0].endswith("(lgpc)")
    assert alg.parameterDefinition("JURISDICTION").defaultValue() == 1
    assert alg.parameterDefinition("DEVICES").defaultValue() == layers["devices"].id()
    assert alg.parameterDefinition("SEPTIC").defaultValue() == layers["septic"].id()
    assert alg.parameterDefinition("WELLS").defaultValue() is None
    assert alg.parameterDefinition("DEM").defaultValue() == dem.id()
    assert alg.parameterDefinition("Z_UNITS").defaultValue() == 2


def test_check_site_plan_outputs_load_with_the_dock_status_colours(provider, site, layer_tree_view):
    """Issue 24 item 9: the distance lines and areas load styled by status (rule-based renderer), not plain."""
    import processing
    from qgis.core import QgsProject

    layers, dem = site
    before = set(QgsProject.instance().mapLayers())
    processing.runAndLoadResults("stormwater_review:checksiteplan", _params(layers, dem, FINDINGS="memory:", DISTANCE_LINES="memory:", AREAS="memory:"))
    loaded = [lyr for i, lyr in QgsProject.instance().mapLayers().items() if i not in before]
    styled = {lyr.name(): lyr.renderer().type() for lyr in loaded if lyr.isSpatial()}
    assert styled and all(kind == "RuleRenderer" for kind in styled.values()), styled


def test_check_site_plan_accuracy_parameters_reach_the_review(provider, site, tmp_path):
    """Issue 24 item 9: the dock's accuracy fields as Processing parameters, applied as the dock applies them."""
    import processing

    layers, dem = site
    processing.run("stormwater_review:checksiteplan", _params(layers, dem, FINDINGS="memory:", OUTPUT_JSON=str(tmp_path / "plain.json")))
    processing.run("stormwater_review:checksiteplan", _params(layers, dem, FINDINGS="memory:", ACCURACY="septic=10, devices=5",
                                                              DEM_VERTICAL_ACCURACY=0.5, OUTPUT_JSON=str(tmp_path / "wide.json")))
    plain = json.loads((tmp_path / "plain.json").read_text())
    wide = json.loads((tmp_path / "wide.json").read_text())
    assert plain["accuracy"]["roles"] == {} and plain["accuracy"]["dem_vertical_ft"] is None
    assert wide["accuracy"]["roles"] == {"septic": 10.0, "devices": 5.0} and wide["accuracy"]["dem_vertical_ft"] == 0.5
    v = next(f for f in wide["findings"] if f["rule_id"] == "lgpc.minor.septic-upgradient-20")
    assert v["accuracy_ft"] == pytest.approx((10.0**2 + 5.0**2) ** 0.5, abs=0.01)  # combined as the dock combines them
    with pytest.raises(Exception, match="accuracy"):
        processing.run("stormwater_review:checksiteplan", _params(layers, dem, FINDINGS="memory:", ACCURACY="nosuchrole=3"))
