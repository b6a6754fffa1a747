"""What must be drawn (issue 27): the new-site template and the completeness check.

``stormwater-check new-site`` writes every role layer with typed fields and its QGIS form in the package's
``layer_styles``; ``stormwater-check completeness`` (and the ``completeness`` section of findings.json)
lists what the submission must show and what is missing, cited to the pack's ``submission`` items.
"""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

import fiona
import numpy as np
import pytest
from pyproj import Transformer
from shapely.geometry import MultiPolygon, Point, mapping, shape
from shapely.ops import transform

from stormwater_plugin.cli import main
from stormwater_plugin.core.checks.affected import impervious_status
from stormwater_plugin.core.model import DEVICE_TYPES, FeatureLayer
from stormwater_plugin.core.roles import ROLES
from stormwater_plugin.core.rulepack import JURISDICTIONS, load_pack
from stormwater_plugin.services.completeness import check_completeness
from stormwater_plugin.services.site_template import layer_qml, template_layers

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "resources" / "demo"


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


@pytest.fixture()
def template(tmp_path):
    out = tmp_path / "site.gpkg"
    assert main(["new-site", "--jurisdiction", "lgpc", "--out", str(out)]) == 0
    return out


def _draw_site_parcel(gpkg: Path) -> None:
    """The reviewer's first stroke: the demo's site parcel, drawn into the template's parcels layer (NY East ftUS)."""
    with fiona.open(str(DEMO / "site.gpkg"), layer="parcels") as src:
        site = [f for f in src if f.properties["is_site"]][0]
        to_ny = Transformer.from_crs(src.crs_wkt, "EPSG:2260", always_xy=True)
    with fiona.open(str(gpkg), "a", layer="parcels") as dst:
        props = {k: None for k in dst.schema["properties"]} | {"id": "P-1", "is_site": True}
        dst.write({"geometry": mapping(MultiPolygon([transform(to_ny.transform, shape(site.geometry))])), "properties": props})


def test_new_site_writes_every_role_layer_with_its_typed_fields(template):
    assert set(fiona.listlayers(str(template))) >= set(ROLES)
    with fiona.open(str(template), layer="devices") as src:
        props = src.schema["properties"]
        assert src.crs_wkt and "New York East" in src.crs_wkt
        assert len(src) == 0
    assert props["device_type"].startswith("str")
    assert props["bottom_elev_ft"].startswith("float") and props["shgw_elev_ft"].startswith("float") and props["bedrock_elev_ft"].startswith("float")
    with sqlite3.connect(str(template)) as con:
        types = {row[1]: row[2] for row in con.execute("PRAGMA table_info(devices)")}
        parcel_types = {row[1]: row[2] for row in con.execute("PRAGMA table_info(parcels)")}
    # yes/no answers a rule reads: integers 1/0/NULL (a three-way value map); is_site a BOOLEAN check box
    assert types["vehicle_traffic"] == "INTEGER" and types["high_traffic"] == "INTEGER"
    assert parcel_types["is_site"] == "BOOLEAN"


def test_new_site_stores_a_default_form_per_layer_in_layer_styles(template):
    with sqlite3.connect(str(template)) as con:
        rows = con.execute("SELECT f_table_name, useAsDefault, styleQML FROM layer_styles").fetchall()
        contents = {r[0] for r in con.execute("SELECT table_name FROM gpkg_contents")}
    assert {r[0] for r in rows} == set(ROLES) | {"site_statements"}  # the applicant's statements have their form too
    assert all(r[1] == 1 for r in rows)
    assert "layer_styles" in contents
    qml = {r[0]: r[2] for r in rows}
    assert re.search(r'<field name="device_type"[^>]*><editWidget type="ValueMap">', qml["devices"])
    assert re.search(r'<field name="is_site"[^>]*><editWidget type="CheckBox">', qml["parcels"])
    assert re.search(r'<field name="status"[^>]*><editWidget type="ValueMap">', qml["impervious"])
    assert re.search(r'<field name="vehicle_traffic"[^>]*><editWidget type="ValueMap">', qml["devices"])
    assert 'name="device bottom elevation (ft)"' in qml["devices"]


def test_template_vocabularies_are_the_codes_own_lists():
    layers = {t.role: {f.name: f for f in t.fields} for t in template_layers(load_pack("lgpc"))}
    assert layers["devices"]["device_type"].values == DEVICE_TYPES
    statuses = layers["impervious"]["status"].values
    assert set(statuses) == {"existing", "proposed", "removed"} and all(impervious_status({"status": s}) == s for s in statuses)
    assert "road" in layers["disturbance"]["use"].values and "subdivision_road" in layers["disturbance"]["use"].values
    assert "single_family" in layers["building_sites"]["use"].values
    for v in DEVICE_TYPES:
        assert f'value="{v}"' in layer_qml(next(t for t in template_layers() if t.role == "devices"))


def test_new_site_refuses_a_geographic_crs_with_exit_2(tmp_path):
    assert main(["new-site", "--jurisdiction", "lgpc", "--crs", "EPSG:4326", "--out", str(tmp_path / "s.gpkg")]) == 2
    assert not (tmp_path / "s.gpkg").exists()


@pytest.mark.skipif(not (DEMO / "site.gpkg").is_file(), reason="resources/demo/site.gpkg is built by scripts/make_demo_site.py")
def test_template_with_only_the_site_parcel_checks_with_exit_0_or_1_and_no_device_rule_passes(template, tmp_path):
    _draw_site_parcel(template)
    code = main([str(template), "--jurisdiction", "lgpc", "--out", str(tmp_path / "out"), "--quiet"])
    assert code in (0, 1)
    doc = json.loads((tmp_path / "out" / "findings.json").read_text(encoding="utf-8"))
    # no DEM: every slope and gradient rule is undetermined or not checked; no device: no device rule passes
    passed = {f["rule_id"] for f in doc["findings"] if f["status"] == "pass"}
    assert not any("setback" in f["kind"] or "separation" in f["rule_id"] for f in doc["findings"] if f["status"] == "pass")
    # what passes reads an empty layer as "none" (README: an empty layer says none) — and completeness says the devices are missing
    assert passed <= {"lgpc.minor.sensitive-surroundings", "lgpc.minor.storage-1-5-gal"}
    assert doc["completeness"]["complete"] is False
    assert any("no device drawn" in m for m in doc["completeness"]["missing"])
    assert any("topography" in m for m in doc["completeness"]["missing"])


def test_completeness_of_the_empty_template_lists_topography_and_devices_with_their_classes(template, capsys):
    code = main(["completeness", str(template), "--jurisdiction", "lgpc"])
    assert code == 1
    out = capsys.readouterr().out
    assert "incomplete:" in out
    assert "no site topography" in out and "(if the project is minor or major)" in out and "6 NYCRR 646-4.13(a)(7)" in out


# --------------------------------------------------------------------------- the service, on plain layers

def _layer(role: str, rows: list[dict]) -> FeatureLayer:
    return FeatureLayer(role, np.array([Point(i, 0) for i in range(len(rows))], dtype=object), [str(r.get("id")) for r in rows], rows)


def _full(devices: list[dict]) -> dict[str, FeatureLayer]:
    layers = {r: _layer(r, []) for r in ROLES}
    layers["devices"] = _layer("devices", devices)
    return layers


def test_devices_without_groundwater_are_listed_by_id_as_missing_test_pit_data_for_lgpc_minor():
    layers = _full([
        {"id": "DW-1", "bottom_elev_ft": 300.0, "shgw_elev_ft": None, "bedrock_elev_ft": 280.0},
        {"id": "DW-2", "bottom_elev_ft": 301.0, "shgw_elev_ft": " ", "bedrock_elev_ft": 0},
        {"id": "DW-3", "bottom_elev_ft": 302.0, "shgw_elev_ft": 290.0, "bedrock_elev_ft": 270.0},
    ])
    c = check_completeness(load_pack("lgpc"), layers, "minor", has_dem=True)
    assert not c.complete
    assert "no test pit data (shgw_elev_ft) for DW-1, DW-2 (6 NYCRR 646-4.14(a)(5))" in c.missing
    assert "no test pit data (bedrock_elev_ft) for DW-2 (6 NYCRR 646-4.14(a)(5))" in c.missing  # 0 ft is a blank cell
    assert c.summary().startswith("incomplete: no test pit data")


def test_lgpc_major_requires_groundwater_but_not_bedrock_at_each_device():
    layers = _full([{"id": "DW-1", "bottom_elev_ft": 300.0, "shgw_elev_ft": 290.0}])
    c = check_completeness(load_pack("lgpc"), layers, "major", has_dem=True)
    assert c.complete, c.missing


def test_an_absent_layer_is_missing_and_an_empty_one_says_none():
    layers = _full([{"id": "DW-1", "bottom_elev_ft": 300.0, "shgw_elev_ft": 290.0, "bedrock_elev_ft": 280.0}])
    del layers["septic"]
    c = check_completeness(load_pack("lgpc"), layers, "minor", has_dem=True)
    assert [m for m in c.missing if "septic" in m] == ["no septic layer (septic systems; an empty layer says there are none) (6 NYCRR 646-4.13(a)(7))"]
    assert not any("wells" in m for m in c.missing)


def test_existing_grade_contours_show_the_topography_without_a_dem():
    layers = _full([{"id": "DW-1", "bottom_elev_ft": 300.0, "shgw_elev_ft": 290.0, "bedrock_elev_ft": 280.0}])
    assert any("topography" in m for m in check_completeness(load_pack("lgpc"), layers, "minor", has_dem=False).missing)
    assert check_completeness(load_pack("lgpc"), layers, "minor", has_dem=False, contour_count=12).complete


def test_exempt_project_under_lgpc_needs_no_permit_application_items():
    assert check_completeness(load_pack("lgpc"), {}, "exempt", has_dem=False).items == ()


@pytest.mark.parametrize("jurisdiction", JURISDICTIONS)
def test_every_submission_excerpt_appears_verbatim_in_the_regulation_text(jurisdiction, regulations):
    pack = load_pack(jurisdiction)
    assert pack.submission, f"{jurisdiction}: no submission items"
    for item in pack.submission:
        text = _norm((regulations / item.citation.source_file).read_text(encoding="utf-8"))
        assert _norm(item.citation.excerpt) in text, f"{item.id}: excerpt not found"


@pytest.mark.parametrize("jurisdiction", JURISDICTIONS)
def test_every_pack_suggests_ny_east_ftus_for_plans(jurisdiction):
    assert load_pack(jurisdiction).site_crs == "EPSG:2260"
