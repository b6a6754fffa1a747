"""The two readers decide alike where they once did not (issue 38: one read, ``services.site_read``): for each case the
dock, Processing, the command line, the batch and the envelope give the same findings (``_agree``), or the dock's read
and the command line's read give the same inputs."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from conftest import DEMO_DEM, DEMO_GPKG

from tests.headless.test_layer_without_crs import demo_wells_without_crs
from tests.qgis.test_front_ends_agree import _agree, _cli, _Site


def _demo_or_skip() -> None:
    if not DEMO_GPKG.is_file() or not DEMO_DEM.is_file():
        pytest.skip("resources/demo is not built (scripts/make_demo_site.py)")


# --------------------------------------------------------------------------- 1. a layer without CRS


def _package_with_wells_without_crs(tmp_path: Path) -> Path:
    """The demo's package, its wells layer replaced by the same wells in a layer of no CRS (a GeoPackage's "Undefined" SRS)."""
    import geopandas as gpd

    package = tmp_path / "nocrs" / "site.gpkg"
    package.parent.mkdir()
    for layer in gpd.list_layers(DEMO_GPKG)["name"] if hasattr(gpd, "list_layers") else __import__("fiona").listlayers(DEMO_GPKG):
        if layer != "wells":
            gpd.read_file(DEMO_GPKG, layer=layer).to_file(package, layer=layer, driver="GPKG")
    demo_wells_without_crs().to_file(package, layer="wells", driver="GPKG")
    return package


def test_every_front_end_leaves_a_layer_without_crs_unmeasured_and_checks_the_rest(qgis_new_project, provider, tmp_path) -> None:
    _demo_or_skip()
    site = _Site(_package_with_wells_without_crs(tmp_path), DEMO_DEM, None, tmp_path / "site")
    findings = _agree(site, "lgpc", tmp_path / "agree")
    about_wells = [f for f in findings.values() if "declares no CRS" in f["message"]]
    assert about_wells and all(f["status"] == "undetermined" for f in about_wells)
    assert any(f["status"] == "pass" for f in findings.values())
    warned = [w for w in _cli(site, "lgpc", tmp_path / "cli")["warnings"] if w["code"] == "layer_misplaced"]
    assert len(warned) == 1 and "declares no CRS" in warned[0]["message"] and not any(w["code"] == "crs_unknown" for w in warned)


def test_the_dock_and_the_command_line_read_a_shapefile_without_prj_alike(tmp_path) -> None:
    """A shapefile with no .prj (QGIS: an invalid CRS; fiona: none): misplaced by both readers, in the same words."""
    from qgis.core import QgsVectorLayer

    from stormwater_plugin.core.rulepack import load_pack
    from stormwater_plugin.headless.reader import read_site
    from stormwater_plugin.qgis_bridge.snapshot import plan_snapshot
    from tests.qgis.conftest import demo_layers

    _demo_or_skip()
    shp = tmp_path / "wells.shp"
    demo_wells_without_crs().to_file(shp)
    assert not shp.with_suffix(".prj").exists()
    layers, dem = demo_layers()
    roles = dict(layers)
    roles["wells"] = QgsVectorLayer(str(shp), "wells", "ogr")
    assert roles["wells"].isValid() and not roles["wells"].crs().isValid()
    pack = load_pack("lgpc")
    dock = plan_snapshot(roles, dem, "m", pack=pack).read().inputs
    cli = read_site(DEMO_GPKG, [f"wells={shp}"], DEMO_DEM, "m", pack=pack).inputs
    for inputs in (dock, cli):
        assert len(inputs.layers["wells"]) == 0 and len(inputs.layers["wells"].no_geometry) == 4
        assert not any(w.code == "crs_unknown" for w in inputs.warnings)
    # the command line names a shapefile's one layer "path:layer", the plugin "path" (a naming difference of its own, left here)
    same = str(shp) + ":wells", str(shp)
    assert dock.layers["wells"].no_geometry == {k: v.replace(*same) for k, v in cli.layers["wells"].no_geometry.items()}
    def misplaced(ws):
        return [w.message for w in ws if w.code == "layer_misplaced"]

    assert misplaced(dock.warnings) == [m.replace(*same) for m in misplaced(cli.warnings)]


# --------------------------------------------------------------------------- 2. a raster that is not an elevation band


def test_every_front_end_reads_an_orthophoto_given_as_the_dem_as_a_dem_not_usable(qgis_new_project, provider, tmp_path) -> None:
    """services.dem_read.elevation_band for both: no grid, every elevation rule undetermined saying why, the rest checked."""
    from tests.headless.demo_dem import rewrite_demo_dem

    _demo_or_skip()
    ortho = rewrite_demo_dem(tmp_path / "ortho.tif", lambda z: np.clip(z - 50, 0, 255), dtype="uint8", nodata=None, count=3, photometric="RGB", unit="")
    site = _Site(DEMO_GPKG, ortho, "minor", tmp_path / "site")
    findings = _agree(site, "lgpc", tmp_path / "agree")
    gradient = [f for f in findings.values() if f["rule_id"] == "lgpc.minor.septic-upgradient-20" and f["other"]]
    assert gradient and all(f["status"] == "undetermined" and "the DEM given is not an elevation model" in f["message"] for f in gradient)
    assert any(f["status"] == "pass" for f in findings.values())
    assert [w["code"] for w in _cli(site, "lgpc", tmp_path / "cli")["warnings"]].count("dem_not_elevation") == 1


# --------------------------------------------------------------------------- 3. locating the site for the working CRS


@pytest.mark.parametrize("with_pack", [False, True])
def test_the_dock_and_the_command_line_locate_the_site_by_the_engines_rule_and_work_in_the_same_zone(tmp_path, with_pack) -> None:
    """services.site_crs.parts_working_crs for both: the flagged parcel has no geometry, so the plan locates the site (zone 18),
    never the only other parcel across the zone edge (zone 19, where the dock once worked)."""
    from qgis.core import QgsVectorLayer

    from stormwater_plugin.core.rulepack import load_pack
    from stormwater_plugin.headless.reader import read_site
    from stormwater_plugin.qgis_bridge.snapshot import plan_snapshot
    from tests.headless.test_site_located_as_read import site_across_a_zone_edge

    package = site_across_a_zone_edge(tmp_path)
    roles = {r: QgsVectorLayer(f"{package}|layername={r}", r, "ogr") for r in ("parcels", "devices")}
    assert all(lyr.isValid() for lyr in roles.values())
    pack = load_pack("lgpc") if with_pack else None
    dock = plan_snapshot(roles, pack=pack).read()
    cli = read_site(package, [], None, pack=pack)
    assert dock.crs.authid() == "EPSG:32618" and cli.crs.to_epsg() == 32618
    assert dock.crs_reason == cli.crs_why
    assert dock.inputs.layers["parcels"].ids == cli.inputs.layers["parcels"].ids == ["P1", "P2"]
    assert dock.inputs.unit_to_ft == pytest.approx(cli.inputs.unit_to_ft, rel=1e-12)


# --------------------------------------------------------------------------- 5. the DEM window carried into the DEM's CRS


def test_the_dock_and_the_command_line_read_the_same_dem_window_of_a_box_in_another_crs(qgis_app) -> None:
    """services.dem_read.read_area for both (placement_layers.carried_box, each edge sampled): a box in NY East (ftUS) read from
    the demo DEM (UTM 18N) gives the same pixels, grid and warnings."""
    from pyproj import CRS, Transformer
    from qgis.core import QgsCoordinateReferenceSystem, QgsCoordinateTransformContext, QgsRasterLayer

    from stormwater_plugin.headless.dem import DemFile
    from stormwater_plugin.headless.dem import read_dem as file_read_dem
    from stormwater_plugin.qgis_bridge.dem import read_dem as plugin_read_dem
    from tests.headless.demo_dem import device_xy

    _demo_or_skip()
    x, y = Transformer.from_crs("EPSG:26918", "EPSG:2260", always_xy=True).transform(*device_xy("DW-1"))
    box = (x - 300.0, y - 200.0, x + 300.0, y + 200.0)  # feet
    layer = QgsRasterLayer(str(DEMO_DEM), "dem.tif")
    assert layer.isValid()
    plugin_warnings: list = []
    plugin = plugin_read_dem(layer.dataProvider(), layer.crs(), QgsCoordinateReferenceSystem("EPSG:2260"), box, "m", QgsCoordinateTransformContext(),
                             plugin_warnings, name="dem.tif")
    with DemFile(DEMO_DEM) as dem:
        file, file_warnings = file_read_dem(dem, CRS.from_epsg(2260), "m", area=box)
    assert file is not None and plugin is not None
    assert file.shape == plugin.shape and file.geotransform == pytest.approx(plugin.geotransform, abs=1e-6)
    np.testing.assert_allclose(file.values, plugin.values, atol=1e-4, equal_nan=True)
    assert [(w.code, w.message) for w in file_warnings] == [(w.code, w.message) for w in plugin_warnings]


# --------------------------------------------------------------------------- 6. a context catalog that cannot be loaded


@pytest.mark.parametrize("kind", ["missing", "not_json", "invalid"])
def test_the_dock_register_and_the_command_line_word_a_catalog_that_cannot_be_loaded_alike(qgis_app, tmp_path, kind) -> None:
    """services.context_catalog.load_catalog for both: the dock's register says the command line's error, then what it did."""
    from stormwater_plugin.gui.register_editing import catalog_layers
    from stormwater_plugin.headless.context_reader import load_catalog
    from stormwater_plugin.headless.errors import InputError
    from tests.headless.test_context_reader import bad_catalog

    path = bad_catalog(tmp_path, kind)
    with pytest.raises(InputError) as cli:
        load_catalog(path)
    layers, dem, problems = catalog_layers(path)
    assert not layers and dem is None
    assert problems == [f"{cli.value}; no context layer was loaded"]
