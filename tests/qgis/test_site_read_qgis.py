"""The dock reads a site as the command line does (services.site_read, one read for both): the decisions the plugin took
from it, on the demo's devices written as a shapefile (10-character field names, QGIS feature ids from 0)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import DEMO_DEM, DEMO_GPKG, demo_layers
from qgis.core import QgsVectorLayer

from stormwater_plugin.core.rulepack import load_pack
from stormwater_plugin.qgis_bridge.snapshot import plan_snapshot
from stormwater_plugin.services.placement import PlanOffParcel


def _devices_shapefile(tmp_path: Path, keep_id: bool = True, dx: float = 0.0) -> Path:
    import geopandas as gpd

    dev = gpd.read_file(DEMO_GPKG, layer="devices")
    dev = dev[dev.geom_type == "Point"].copy()
    if not keep_id:
        dev = dev.drop(columns=["id"])
    dev["geometry"] = dev.geometry.translate(dx, 0.0)
    path = tmp_path / "devices.shp"
    with pytest.warns(UserWarning, match="truncated"):  # device_type and bottom_elev_ft are cut at 10 characters
        dev.to_file(path)
    return path


def _both(tmp_path: Path, shp: Path):
    """The devices as the dock reads them and as the command line reads them, from the same shapefile."""
    from stormwater_plugin.headless.reader import read_site

    layers, dem = demo_layers()
    roles = dict(layers)
    roles["devices"] = QgsVectorLayer(str(shp), "devices", "ogr")
    assert roles["devices"].isValid()
    pack = load_pack("lgpc")
    dock = plan_snapshot(roles, dem, "m", pack=pack).read().inputs
    cli = read_site(DEMO_GPKG, [f"devices={shp}"], DEMO_DEM, "m", pack=pack).inputs
    return dock, cli


def test_the_dock_reads_a_shapefiles_device_typ_as_device_type_as_the_command_line_does(tmp_path):
    dock, cli = _both(tmp_path, _devices_shapefile(tmp_path))
    for inputs in (dock, cli):
        devices = inputs.layers["devices"]
        assert devices.attrs and all("device_type" in a and "DEVICE_TYP" not in a and "device_typ" not in a for a in devices.attrs)
        assert any(w.code == "fields_matched" and w.layer == "devices" for w in inputs.warnings)
    assert dock.layers["devices"].ids == cli.layers["devices"].ids
    assert [a["device_type"] for a in dock.layers["devices"].attrs] == [a["device_type"] for a in cli.layers["devices"].attrs]


def test_the_dock_names_features_without_an_id_field_by_position_from_1_never_by_qgis_feature_id(tmp_path):
    """QGIS numbers a shapefile's features from 0; both readers name them 1, 2, … in the file's order."""
    dock, cli = _both(tmp_path, _devices_shapefile(tmp_path, keep_id=False))
    n = len(cli.layers["devices"])
    assert dock.layers["devices"].ids == cli.layers["devices"].ids == [str(i + 1) for i in range(n)]


def test_the_dock_read_refuses_a_plan_4000_ft_off_its_parcel_as_the_command_line_read_does(tmp_path):
    from stormwater_plugin.headless.errors import InputError
    from stormwater_plugin.headless.reader import read_site

    layers, dem = demo_layers()
    shp = _devices_shapefile(tmp_path, dx=4000.0 * 0.3048)
    roles = {"parcels": layers["parcels"], "devices": QgsVectorLayer(str(shp), "devices", "ogr")}
    with pytest.raises(PlanOffParcel, match="ft from parcel"):
        plan_snapshot(roles, dem, "m", pack=load_pack("lgpc")).read()
    with pytest.raises(InputError, match="ft from parcel"):
        read_site(None, [f"parcels={DEMO_GPKG}:parcels", f"devices={shp}"], DEMO_DEM, "m", pack=load_pack("lgpc"))


def test_a_dem_window_of_unlimited_reach_reads_the_whole_dem_and_none_without_a_located_feature(monkeypatch):
    """The one read decides from the rules' box: a bound not finite is the whole DEM (a flow trace of no declared
    length), ``None`` (nothing located) is the plugin's ``dem_unused`` (its backend's ``whole_dem_unplaced`` is false)."""
    import math

    from stormwater_plugin.services import site_read

    layers, dem = demo_layers()
    monkeypatch.setattr(site_read, "dem_read_box", lambda *a, **k: (-math.inf, -math.inf, math.inf, math.inf))
    grid = plan_snapshot(layers, dem, "m", pack=load_pack("lgpc")).read().inputs.dem
    assert grid is not None and grid.values.shape == (dem.height(), dem.width())
    monkeypatch.setattr(site_read, "dem_read_box", lambda *a, **k: None)
    inputs = plan_snapshot(layers, dem, "m", pack=load_pack("lgpc")).read().inputs
    assert inputs.dem is None and inputs.dem_source is None
    assert [w.code for w in inputs.warnings if w.code.startswith("dem")] == ["dem_unused"]
