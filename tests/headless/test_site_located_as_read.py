"""Where the site is, for the working CRS: the engine's rule for every reader (services.site_crs.parts_working_crs).

The layers as read locate the site, their features without geometry kept, so the site parcel is the one the engine
finds (``core.site_parcel``): here the parcel flagged ``is_site`` has no geometry, so the site is located by the plan
(devices 80 ft west of the UTM zone 18/19 boundary at 72° W), never by the only other parcel, across the boundary.
The plugin once dropped the feature without geometry, took the other parcel as "the only parcel" and worked in zone 19.
"""

from __future__ import annotations

from pathlib import Path

from shapely.geometry import Point, box

from stormwater_plugin.headless.reader import read_site

#: Longitude of the boundary between UTM zones 18 and 19, degrees.
ZONE_EDGE = -72.0


def site_across_a_zone_edge(folder: Path) -> Path:
    """Parcels (the flagged one without geometry; another from 80 ft east of the zone edge) and devices 80 ft west of it, in EPSG:4326
    (the plan 160 ft from that parcel: within the 300 ft the read allows, services.placement)."""
    import geopandas as gpd

    path = folder / "edge.gpkg"
    parcels = gpd.GeoDataFrame({"id": ["P1", "P2"], "is_site": [1, 0]},
                               geometry=[None, box(ZONE_EDGE + 0.0003, 42.5, ZONE_EDGE + 0.001, 42.5005)], crs="EPSG:4326")
    parcels.to_file(path, layer="parcels", driver="GPKG")
    devices = gpd.GeoDataFrame({"id": ["D1"], "device_type": ["dry_well"], "high_traffic": [0]},
                               geometry=[Point(ZONE_EDGE - 0.0003, 42.5002)], crs="EPSG:4326")
    devices.to_file(path, layer="devices", driver="GPKG")
    return path


def test_the_working_crs_is_the_zone_of_the_site_the_engine_finds_with_features_without_geometry_kept(tmp_path):
    site = read_site(site_across_a_zone_edge(tmp_path), [], None)
    assert site.crs.to_epsg() == 32618, site.crs_why
    assert "zone 18N" in site.crs_why
    assert site.inputs.layers["parcels"].ids == ["P1", "P2"]
