"""Real NYS tax parcels (EPSG:26918), OSM streams and ponds (EPSG:32617) and a DEM (EPSG:6350) in one run."""

from __future__ import annotations

import json

import pytest

from stormwater_plugin.cli import main

SITE_KEY = "269.00-6-5"


@pytest.fixture
def north_collins(realdata):
    folder = realdata / "north-collins-ny"
    if not (folder / "Erie_2018_Tax_Parcels_SHP_1907.shp").is_file():
        pytest.skip("north-collins-ny parcels are absent from ../shared/realdata")
    return folder


def _devices(tmp_path, parcels_path):
    import geopandas as gpd

    parcels = gpd.read_file(parcels_path)
    site = parcels[parcels["PRINT_KEY"] == SITE_KEY]
    pt = site.geometry.iloc[0].representative_point()
    dev = gpd.GeoDataFrame({"id": ["D1"], "device_type": ["dry_well"], "high_traffic": [0]}, geometry=[pt], crs=parcels.crs).to_crs(
        "EPSG:4326"
    )
    path = tmp_path / "devices.gpkg"
    dev.to_file(path, layer="devices", driver="GPKG")
    return path, parcels, site


def test_three_crs_site_gives_the_500_ft_list_by_print_key_with_owners(north_collins, tmp_path):
    parcels_path = north_collins / "Erie_2018_Tax_Parcels_SHP_1907.shp"
    devices, parcels, site = _devices(tmp_path, parcels_path)
    code = main(
        [
            "--layer",
            f"parcels={parcels_path}",
            "--layer",
            f"streams={north_collins / 'waterways.gpkg'}:waterways",
            "--layer",
            f"waterbodies={north_collins / 'water.gpkg'}:water",
            "--layer",
            f"devices={devices}:devices",
            "--dem",
            str(north_collins / "dem_from_iso-1m_contours_2m_DERIVED.tif"),
            "--jurisdiction",
            "lgpc",
            "--class",
            "major",
            "--site-parcel",
            SITE_KEY,
            "--out",
            str(tmp_path / "o"),
            "--quiet",
        ]
    )
    assert code in (0, 1)
    doc = json.loads((tmp_path / "o" / "findings.json").read_text(encoding="utf-8"))
    assert doc["site_parcel"] == SITE_KEY
    listed = {p["id"]: p for p in doc["notification"]["within_500ft"]}
    # Reference: planar distances in the parcels' own UTM 17/18 CRS; within 0.1% of ours (scale factor).
    ref = parcels.assign(d=parcels.geometry.distance(site.geometry.iloc[0]) / 0.3048)
    expected = set(ref[(ref["d"] <= 499.0) & (ref["PRINT_KEY"] != SITE_KEY)]["PRINT_KEY"])
    assert expected <= set(listed)
    for key, p in listed.items():
        d_ref = float(ref.loc[ref["PRINT_KEY"] == key, "d"].iloc[0])
        assert p["distance_ft"] == pytest.approx(d_ref, rel=2e-3, abs=0.1)
        assert p["owner"]
        assert p["mailing_address"]
    adjacent = {p["id"] for p in doc["notification"]["adjacent"]}
    assert adjacent and adjacent <= set(listed)
    # The device is checked against real streams and ponds, with a DEM in a third CRS.
    assert any(f["other"] and f["other"]["layer"] == "streams" for f in doc["findings"])
    assert any(w["code"] == "reprojected" for w in doc["warnings"])
