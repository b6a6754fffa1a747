"""A town's context catalog feeds a check: only what the rules reach around the site is read (issue 27)."""

from __future__ import annotations

import json
from pathlib import Path

import fiona
import pytest
from shapely.geometry import LineString, Point, box, mapping

from stormwater_plugin.cli import main
from stormwater_plugin.core.rulepack import load_pack
from stormwater_plugin.headless.context_reader import read_context
from stormwater_plugin.headless.reader import InputError
from stormwater_plugin.services.context_catalog import parse_catalog

CRS = "EPSG:26918"
X0, Y0 = 600_000.0, 4_800_000.0  # metres, UTM 18N
FT = 0.3048


def _write(path: Path, layer: str, geom_type: str, props: dict[str, str], rows: list[tuple[object, dict]]) -> None:
    with fiona.open(str(path), "w", driver="GPKG", layer=layer, crs=CRS, schema={"geometry": geom_type, "properties": props}) as dst:
        for g, p in rows:
            dst.write({"geometry": mapping(g), "properties": p})


@pytest.fixture
def county(tmp_path: Path) -> Path:
    """A county's parcels (a 20 x 20 grid of 60 m lots), NHD-like flowlines and an informational wetland map."""
    rows = []
    for i in range(20):
        for j in range(20):
            key = f"{i:03d}.00-{j}-1"
            rows.append((box(X0 + 60 * i, Y0 + 60 * j, X0 + 60 * (i + 1), Y0 + 60 * (j + 1)),
                         {"PRINT_KEY": key, "SBL": key.replace(".", ""), "PRMY_OWNER": f"OWNER {i} {j}", "SEWER_DESC": "Private" if (i + j) % 3 == 0 else "Comm/public"}))
    _write(tmp_path / "parcels.gpkg", "tax_parcels", "Polygon", {"PRINT_KEY": "str", "SBL": "str", "PRMY_OWNER": "str", "SEWER_DESC": "str"}, rows)
    site = Point(X0 + 600 + 30, Y0 + 600 + 30)
    _write(tmp_path / "nhd.gpkg", "NHDFlowline", "LineString", {"FType": "int", "FCode": "int", "GNIS_Name": "str", "WQ_CLASS": "str"}, [
        (LineString([(site.x - 500, site.y + 20), (site.x + 500, site.y + 20)]), {"FType": 460, "FCode": 46006, "GNIS_Name": "Near Brook", "WQ_CLASS": "C(T)"}),
        (LineString([(site.x - 500, site.y - 15), (site.x + 500, site.y - 15)]), {"FType": 336, "FCode": 33600, "GNIS_Name": "Ditch", "WQ_CLASS": None}),
        (LineString([(site.x + 8000, site.y), (site.x + 9000, site.y)]), {"FType": 460, "FCode": 46006, "GNIS_Name": "Far Creek", "WQ_CLASS": "B"}),
        (LineString([(site.x - 9000, site.y - 9000), (site.x + 9000, site.y + 9000)]), {"FType": 460, "FCode": 46003, "GNIS_Name": "Frame", "WQ_CLASS": "C"}),
    ])
    _write(tmp_path / "wetlands.gpkg", "dec_informational", "Polygon", {"WETLAND_ID": "str"}, [
        (Point(site.x + 60, site.y - 60).buffer(10), {"WETLAND_ID": "BO-12"}),
        (Point(site.x + 7000, site.y).buffer(10), {"WETLAND_ID": "BO-99"}),
        (box(site.x - 9000, site.y - 9000, site.x - 8990, site.y - 8990), {"WETLAND_ID": "CORNER-A"}),
        (box(site.x + 8990, site.y + 8990, site.x + 9000, site.y + 9000), {"WETLAND_ID": "CORNER-B"}),
    ])
    _write(tmp_path / "site.gpkg", "devices", "Point", {"id": "str", "device_type": "str", "high_traffic": "int"},
           [(site, {"id": "DW-1", "device_type": "dry_well", "high_traffic": 0})])
    catalog = {
        "town": "Test Town",
        "sources": [
            {"name": "tax parcels", "path": "parcels.gpkg", "layer": "tax_parcels", "role": "parcels", "authority": "NYS ITS", "date": "2024",
             "status": "informational", "hints": {"septic": {"field": "SEWER_DESC", "values": ["Private"]}}},
            {"name": "NHD flowlines", "path": "nhd.gpkg", "layer": "NHDFlowline", "role": "streams", "where": "FType = 460",
             "fields": {"id": "GNIS_Name", "class": "WQ_CLASS"}, "authority": "USGS", "date": "2023", "status": "informational"},
            {"name": "DEC informational wetlands", "path": "wetlands.gpkg", "layer": "dec_informational", "role": "wetlands",
             "fields": {"id": "WETLAND_ID"}, "authority": "NYSDEC", "date": "2001", "status": "informational", "old_after_years": 10},
        ],
    }
    (tmp_path / "catalog.json").write_text(json.dumps(catalog), encoding="utf-8")
    return tmp_path


def _features(option: str) -> list[dict]:
    path, layer = option.split("=", 1)[1].rsplit(":", 1)
    with fiona.open(path, layer=layer) as coll:
        return [dict(f["properties"]) for f in coll]


def test_catalog_reads_only_the_features_within_the_packs_500_ft_reach_of_the_site(county, tmp_path):
    catalog = parse_catalog(json.loads((county / "catalog.json").read_text()))
    ctx = read_context(catalog, county, county / "site.gpkg", [], load_pack("lgpc"), tmp_path / "scratch")
    got = {opt.split("=")[0]: _features(opt) for opt in ctx.layer_options}
    # 500 ft = 152 m around the site parcel (60 m) holds 8 x 8 lots at most, never the county's 400
    assert 9 <= len(got["parcels"]) <= 64
    assert ctx.site_parcel_id == "010.00-10-1"
    # the where keeps FType 460 only, the far creek lies outside the spatial filter; fields renamed to the role's
    names = {f["GNIS_Name"] for f in got["streams"]}
    assert "Near Brook" in names and "Ditch" not in names and "Far Creek" not in names
    brook = next(f for f in got["streams"] if f["GNIS_Name"] == "Near Brook")
    assert brook["class"] == "C(T)" and brook["id"] == "Near Brook" and brook["context_source"] == "NHD flowlines"
    assert {f["id"] for f in got["wetlands"]} == {"BO-12"}


def test_informational_wetland_map_warns_mapped_extent_is_not_regulated_extent_and_old_layer_is_named(county, tmp_path):
    catalog = parse_catalog(json.loads((county / "catalog.json").read_text()))
    ctx = read_context(catalog, county, county / "site.gpkg", [], load_pack("lgpc"), tmp_path / "scratch")
    codes = {w.code: w.message for w in ctx.warnings}
    assert "regulated whether mapped or not" in codes["context_wetlands_informational"]
    assert "NYSDEC" in codes["context_wetlands_informational"] and "2001" in codes["context_wetlands_informational"]
    assert "dated 2001" in codes["context_source_old"]
    assert "on-site septic" in codes["context_septic_hint"]


def test_role_in_the_package_wins_over_the_catalog_and_says_so(county, tmp_path):
    site = county / "site.gpkg"
    _write(site, "streams", "LineString", {"id": "str"}, [(LineString([(X0, Y0), (X0 + 1, Y0)]), {"id": "S-own"})])
    catalog = parse_catalog(json.loads((county / "catalog.json").read_text()))
    ctx = read_context(catalog, county, site, [], load_pack("lgpc"), tmp_path / "scratch")
    assert not any(o.startswith("streams=") for o in ctx.layer_options)
    assert any(w.code == "context_role_given" and "streams taken from the site package" in w.message for w in ctx.warnings)


def test_check_with_catalog_finds_the_stream_and_names_its_source_on_the_finding(county, tmp_path):
    code = main([str(county / "site.gpkg"), "--context", str(county / "catalog.json"), "--jurisdiction", "lgpc", "--class", "major",
                 "--out", str(tmp_path / "o"), "--quiet"])
    assert code in (0, 1)
    doc = json.loads((tmp_path / "o" / "findings.json").read_text(encoding="utf-8"))
    assert doc["site_parcel"] == "010.00-10-1"
    on_stream = [f for f in doc["findings"] if (f.get("other") or {}).get("layer") == "streams"]
    assert on_stream and all(any("NHD flowlines, USGS, 2023" in s for s in f["context_sources"]) for f in on_stream)
    assert doc["inputs"]["context"]["sources"]["parcels"][0]["features"] < 400


def test_a_package_layer_named_by_a_roles_prefix_is_the_plan_a_catalog_is_read_around_as_the_check_reads_it(county, tmp_path):
    """One matcher (services.layer_sources.role_layers, role_for_layer_name): ``devices_proposed`` is the devices, for the check
    and for the catalog's read alike; matched by exact names only, the catalog found no plan to read around and refused."""
    site = tmp_path / "prefixed.gpkg"
    with fiona.open(str(county / "site.gpkg"), layer="devices") as src:
        _write(site, "devices_proposed", "Point", dict(src.schema["properties"]), [(Point(f["geometry"]["coordinates"]), dict(f["properties"]))
                                                                                  for f in src])
    code = main([str(site), "--context", str(county / "catalog.json"), "--jurisdiction", "lgpc", "--class", "major",
                 "--out", str(tmp_path / "o"), "--quiet"])
    assert code in (0, 1)
    doc = json.loads((tmp_path / "o" / "findings.json").read_text(encoding="utf-8"))
    assert doc["site_parcel"] == "010.00-10-1"
    assert any(w["code"] == "layer_name_prefix" and "devices_proposed" in w["message"] for w in doc["warnings"])
    assert any((f.get("other") or {}).get("layer") == "streams" for f in doc["findings"])


def test_unlimited_flow_trace_without_flow_reach_ft_is_refused(county, tmp_path):
    catalog = parse_catalog(json.loads((county / "catalog.json").read_text()))
    with pytest.raises(InputError, match="flow_reach_ft"):
        read_context(catalog, county, county / "site.gpkg", [], load_pack("mamakating"), tmp_path / "scratch")


# --- real data: North Collins NY (NYS statewide parcel schema, OSM streams and ponds, a DEM in a third CRS) ---

SITE_KEY = "269.00-6-5"


@pytest.fixture
def north_collins(realdata):
    folder = realdata / "north-collins-ny"
    if not (folder / "Erie_2018_Tax_Parcels_SHP_1907.shp").is_file():
        pytest.skip("north-collins-ny parcels are absent from ../shared/realdata")
    return folder


def _nc_catalog(folder: Path, path: Path) -> Path:
    catalog = {
        "town": "North Collins (Erie County)",
        "sources": [
            {"name": "Erie County tax parcels", "path": str(folder / "Erie_2018_Tax_Parcels_SHP_1907.shp"), "role": "parcels",
             "authority": "NYS ITS GIS Program Office", "date": "2018", "status": "informational",
             "hints": {"septic": {"field": "SEWER_DESC", "values": ["Private"]}, "wells": {"field": "WATER_DESC", "values": ["Private"]}}},
            {"name": "waterways", "path": str(folder / "waterways.gpkg"), "layer": "waterways", "role": "streams", "authority": "OpenStreetMap",
             "date": "2020", "status": "informational"},
            {"name": "ponds", "path": str(folder / "water.gpkg"), "layer": "water", "role": "waterbodies", "authority": "OpenStreetMap",
             "date": "2020", "status": "informational"},
            {"name": "lidar DEM", "path": str(folder / "dem_from_iso-1m_contours_2m_DERIVED.tif"), "role": "dem", "z_units": "m",
             "authority": "NYS GIS", "date": "2019", "status": "informational"},
        ],
    }
    path.write_text(json.dumps(catalog), encoding="utf-8")
    return path


def _device_package(folder: Path, out: Path) -> Path:
    import geopandas as gpd

    parcels = gpd.read_file(folder / "Erie_2018_Tax_Parcels_SHP_1907.shp")
    pt = parcels[parcels["PRINT_KEY"] == SITE_KEY].geometry.iloc[0].representative_point()
    gpd.GeoDataFrame({"id": ["D1"], "device_type": ["dry_well"], "high_traffic": [0]}, geometry=[pt], crs=parcels.crs).to_crs("EPSG:4326").to_file(
        out, layer="devices", driver="GPKG"
    )
    return out


def test_catalog_over_north_collins_feeds_a_check_with_no_clipping_by_hand(north_collins, tmp_path):
    site = _device_package(north_collins, tmp_path / "site.gpkg")
    catalog = _nc_catalog(north_collins, tmp_path / "catalog.json")
    code = main([str(site), "--context", str(catalog), "--jurisdiction", "lgpc", "--class", "major", "--out", str(tmp_path / "ctx"), "--quiet"])
    assert code in (0, 1)
    by_hand = main([
        "--layer", f"devices={site}:devices", "--layer", f"parcels={north_collins / 'Erie_2018_Tax_Parcels_SHP_1907.shp'}",
        "--layer", f"streams={north_collins / 'waterways.gpkg'}:waterways", "--layer", f"waterbodies={north_collins / 'water.gpkg'}:water",
        "--dem", str(north_collins / "dem_from_iso-1m_contours_2m_DERIVED.tif"), "--dem-z-units", "m", "--site-parcel", SITE_KEY,
        "--jurisdiction", "lgpc", "--class", "major", "--out", str(tmp_path / "hand"), "--quiet",
    ])
    assert by_hand in (0, 1)
    ctx = json.loads((tmp_path / "ctx" / "findings.json").read_text(encoding="utf-8"))
    hand = json.loads((tmp_path / "hand" / "findings.json").read_text(encoding="utf-8"))
    # the site parcel found from the plan, the same 500 ft list with owners, read from 14 of the 43 parcels
    assert ctx["site_parcel"] == SITE_KEY
    assert ctx["notification"] == hand["notification"]
    assert ctx["inputs"]["context"]["sources"]["parcels"][0]["features"] < 43
    # every finding is the hand-clipped run's, or undetermined where the catalog could not vouch for the area (never a pass it lacks)
    hand_status = {(f["rule_id"], json.dumps(f.get("other"))): f["status"] for f in hand["findings"]}
    for f in ctx["findings"]:
        key = (f["rule_id"], json.dumps(f.get("other")))
        assert f["status"] == hand_status.get(key, "undetermined") or f["status"] == "undetermined", key
    stream = [f for f in ctx["findings"] if (f.get("other") or {}).get("layer") == "streams"]
    assert stream and stream == [f for f in stream if f.get("context_sources")]
    codes = {w["code"] for w in ctx["warnings"]}
    assert {"context_septic_hint", "context_wells_hint", "context_site_parcel"} <= codes


def test_catalog_dem_given_as_tiles_is_read_through_a_vrt_and_named_in_the_findings(tmp_path):
    import rasterio
    from rasterio.windows import Window

    from stormwater_plugin.headless.contours_dem import contours_to_dem
    from tests.headless.test_contours_dem import _package

    pkg = _package(tmp_path / "site.gpkg")
    whole = tmp_path / "whole.tif"
    contours_to_dem(pkg, whole, cell_ft=2.0, z_units="us-ft")
    (tmp_path / "tiles").mkdir()
    with rasterio.open(whole) as src:
        half = src.width // 2
        for name, win in (("a", Window(0, 0, half, src.height)), ("b", Window(half, 0, src.width - half, src.height))):
            profile = dict(src.profile, width=int(win.width), height=int(win.height), transform=src.window_transform(win))
            with rasterio.open(tmp_path / "tiles" / f"{name}.tif", "w", **profile) as dst:
                dst.write(src.read(1, window=win), 1)
    catalog = {"town": "T", "sources": [{"name": "lidar tiles", "path": "tiles/*.tif", "role": "dem", "z_units": "us-ft",
                                         "authority": "NYS GIS", "date": "2022", "status": "informational"}]}
    (tmp_path / "catalog.json").write_text(json.dumps(catalog), encoding="utf-8")
    main([str(pkg), "--context", str(tmp_path / "catalog.json"), "--jurisdiction", "lgpc", "--class", "major", "--out", str(tmp_path / "o"), "--quiet"])
    doc = json.loads((tmp_path / "o" / "findings.json").read_text(encoding="utf-8"))
    assert doc["inputs"]["dem"].endswith("context_dem.vrt")
    assert any(w["code"] == "context_source" and "lidar tiles, NYS GIS, 2022" in w["message"] for w in doc["warnings"])
    slope = next(f for f in doc["findings"] if f["kind"] == "building_site_slope")
    assert slope["status"] == "pass" and "5.4%" in slope["message"]


BAD_CATALOGS = {
    "missing": None,
    "not_json": "{town: Test",
    "invalid": json.dumps({"town": "Test Town", "sources": [{"name": "x", "path": "a.gpkg", "role": "wetland", "status": "regulatory"}]}),
}


def bad_catalog(folder: Path, kind: str) -> Path:
    """A context catalog file that cannot be loaded: missing, not JSON, or naming an unknown role."""
    path = folder / f"{kind}.json"
    text = BAD_CATALOGS[kind]
    if text is not None:
        path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("kind,words", [("missing", "context catalog not found"), ("not_json", "the context catalog is not valid JSON ("),
                                        ("invalid", "unknown role 'wetland'")])
def test_a_catalog_that_cannot_be_loaded_is_one_line_naming_the_file_in_the_words_of_services_context_catalog(county, tmp_path, capsys, kind, words):
    from stormwater_plugin.services.context_catalog import CatalogError
    from stormwater_plugin.services.context_catalog import load_catalog as load

    path = bad_catalog(tmp_path, kind)
    with pytest.raises(CatalogError) as caught:
        load(path)
    assert str(caught.value).startswith(f"{path}: ") and words in str(caught.value)
    code = main([str(county / "site.gpkg"), "--context", str(path), "--jurisdiction", "lgpc", "--out", str(tmp_path / "o"), "--quiet"])
    err = [ln for ln in capsys.readouterr().err.splitlines() if ln.strip()]
    assert code == 2 and len(err) == 1 and err[0].endswith(str(caught.value).splitlines()[0])
