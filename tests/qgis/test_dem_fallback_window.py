"""Without a window from the rules (no pack), every reader reads the DEM over the same box: the plan and the wells and
septic systems grown by ``services.reading_policy.DEM_FALLBACK_MARGIN_FT`` (the command line read 150 ft around every
layer but the parcels, the plugin 1,000 ft around the plan's own features)."""

from __future__ import annotations

from conftest import DEMO_DEM, DEMO_GPKG, demo_layers

from stormwater_plugin.core.roles import TERRAIN_EXTENT_ROLES
from stormwater_plugin.headless.reader import read_site
from stormwater_plugin.qgis_bridge.snapshot import snapshot
from stormwater_plugin.services.reading_policy import DEM_FALLBACK_MARGIN_FT


def test_without_a_pack_the_file_reader_and_the_plugin_read_the_same_dem_window(qgis_new_project) -> None:
    layers, dem = demo_layers()
    by_files = read_site(DEMO_GPKG, [], DEMO_DEM).inputs.dem
    by_qgis = snapshot(layers, dem).inputs.dem
    assert by_files is not None and by_qgis is not None
    assert by_files.values.shape == by_qgis.values.shape
    assert by_files.geotransform == by_qgis.geotransform


def test_the_fallback_window_is_the_site_features_grown_by_the_margin() -> None:
    assert set(TERRAIN_EXTENT_ROLES) >= {"devices", "building_sites", "wells", "septic"} and "parcels" not in TERRAIN_EXTENT_ROLES
    assert DEM_FALLBACK_MARGIN_FT == 1000.0
