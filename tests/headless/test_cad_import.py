"""CAD site plans (issue 27): a DXF in National CAD Standard shape imports and checks like the same plan drawn as a GeoPackage.

The drawings are built with ezdxf (tests/headless/cad_drawings.py) from the demo site, in NAD83 / New York
East (ftUS) with INSUNITS feet, the way a Civil 3D export arrives: blocks with attributes, closed
polylines, hatches, TEXT and MTEXT labels, layers no rule maps.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from stormwater_plugin.cli import main

pytest.importorskip("ezdxf", reason="ezdxf builds the test drawings (Debian: python3-ezdxf)")

from tests.headless.cad_drawings import DEMO, demo_plan_dxf  # noqa: E402

pytestmark = pytest.mark.skipif(not (DEMO / "site.gpkg").is_file(), reason="resources/demo/site.gpkg is built by scripts/make_demo_site.py")
PARCELS = f"{DEMO / 'site.gpkg'}:parcels"


def _signature(doc: dict) -> set[tuple]:
    return {(f["rule_id"], (f.get("subject") or {}).get("id"), (f.get("other") or {}).get("id"), f["status"]) for f in doc["findings"]}


def _check(site: Path, out: Path, *extra: str) -> dict:
    code = main([str(site), "--dem", str(DEMO / "dem.tif"), "--jurisdiction", "lake-george", "--out", str(out), "--quiet", *extra])
    assert code in (0, 1)
    return json.loads((out / "findings.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def imported(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("cad")
    dxf = demo_plan_dxf(tmp / "plan.dxf")
    code = main(["import-cad", str(dxf), "--crs", "EPSG:2260", "--parcels", PARCELS, "--out", str(tmp / "site.gpkg")])
    assert code == 0
    return tmp


def test_an_ncs_dxf_in_ny_east_ftus_checks_with_the_findings_of_the_same_plan_as_a_geopackage(imported, tmp_path):
    cad = _check(imported / "site.gpkg", tmp_path / "cad")
    gpkg = _check(DEMO / "site.gpkg", tmp_path / "gpkg")
    assert _signature(cad) == _signature(gpkg)
    assert cad["project_class"] == gpkg["project_class"] and cad["site_parcel"] == gpkg["site_parcel"]
    assert cad["counts"] == gpkg["counts"]


def test_the_import_sorts_roles_reads_ids_and_lists_unmapped_layers(imported):
    report = json.loads((imported / "site.import.json").read_text(encoding="utf-8"))
    assert report["counts"]["devices"] == 5 and report["counts"]["wells"] == 4 and report["counts"]["septic"] == 3
    assert report["unmapped_layers"] == {"E-LITE-POLE": 1}
    assert "C-STRM-PIPE" in report["dropped_layers"]
    assert report["site_parcel"] == "171.15-1-23"
    import fiona

    with fiona.open(str(imported / "site.gpkg"), layer="devices") as src:
        got = {f.properties["id"]: dict(f.properties) for f in src}
    assert set(got) == {"DW-1", "DW-2", "IT-1", "PP-1", "VD-1"}
    assert got["IT-1"]["device_type"] == "infiltration_trench" and got["PP-1"]["high_traffic"] == 1
    with fiona.open(str(imported / "site.gpkg"), layer="wells") as src:
        assert sorted(f.properties["id"] for f in src) == ["W-1", "W-2", "W-3", "W-4"]
    with fiona.open(str(imported / "site.gpkg"), layer="waterbodies") as src:
        assert len(src) == 2  # the lake's hatch repeats its outline: one feature


def test_a_drawing_in_local_coordinates_is_refused_with_one_line(tmp_path, capsys):
    dxf = demo_plan_dxf(tmp_path / "local.dxf", offset=(-2_000_000.0, -1_500_000.0))
    assert main(["import-cad", str(dxf), "--crs", "EPSG:2260", "--out", str(tmp_path / "site.gpkg")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) <= 2 and "local coordinates, or the wrong state-plane zone" in err[-1]
    assert not (tmp_path / "site.gpkg").exists()


def test_a_drawing_4300_ft_off_its_parcel_is_refused_naming_the_distance(tmp_path, capsys):
    dxf = demo_plan_dxf(tmp_path / "shifted.dxf", offset=(4300.0, 0.0))
    assert main(["import-cad", str(dxf), "--crs", "EPSG:2260", "--parcels", PARCELS, "--out", str(tmp_path / "site.gpkg")]) == 2
    err = capsys.readouterr().err
    assert "ft from parcel" in err and "wrong state-plane zone" in err


def test_a_drawing_in_metres_is_scaled_into_the_feet_crs(tmp_path):
    dxf = demo_plan_dxf(tmp_path / "metric.dxf", insunits=6, scale=1200.0 / 3937.0)
    assert main(["import-cad", str(dxf), "--crs", "EPSG:2260", "--parcels", PARCELS, "--out", str(tmp_path / "site.gpkg")]) == 0
    report = json.loads((tmp_path / "site.import.json").read_text(encoding="utf-8"))
    assert report["site_parcel"] == "171.15-1-23" and any("scaled" in w for w in report["warnings"])


def test_a_device_outline_without_a_type_keeps_its_type_unknown(tmp_path):
    from shapely.geometry import LineString

    from stormwater_plugin.core.cad.sorting import CadEntity, load_mapping, sort_entities

    ring = LineString([(0, 0), (10, 0), (10, 10), (0, 10), (0, 0)])
    plan = sort_entities([CadEntity("C-STRM-MISC", "line", ring)], load_mapping(), 1.0)
    (dev,) = plan.features["devices"]
    assert dev.geometry.geom_type == "Polygon" and "device_type" not in dev.attrs


def test_an_open_outline_on_an_area_layer_stays_a_line_and_is_named(tmp_path):
    from shapely.geometry import LineString

    from stormwater_plugin.core.cad.sorting import CadEntity, load_mapping, sort_entities

    plan = sort_entities([CadEntity("C-ESCL-LOD", "line", LineString([(0, 0), (100, 0), (100, 80)]))], load_mapping(), 1.0)
    assert plan.features["disturbance"][0].geometry.geom_type == "LineString"
    assert any("open outline" in w and "C-ESCL-LOD" in w for w in plan.warnings)
