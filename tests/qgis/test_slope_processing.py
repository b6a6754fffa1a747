"""``stormwater_review:slopeover100ft`` on synthetic tilted planes written with GDAL."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from qgis.core import NULL, QgsApplication, QgsFeature, QgsGeometry, QgsPointXY, QgsProject, QgsRasterLayer, QgsVectorLayer

X0, Y0 = 600_000.0, 4_800_000.0  # NAD83 / UTM 18N, metres
COLS = ROWS = 140  # 1 m pixels: the 100 ft (30.5 m) ring fits around the middle 78 x 78 cells
AZIMUTH = 30.0  # downhill-uphill direction of the planes, degrees from north


def write_plane(path: Path, grade: float) -> QgsRasterLayer:
    """z = 100 m + grade x (distance along AZIMUTH), metres, in EPSG:26918."""
    from osgeo import gdal, osr

    ds = gdal.GetDriverByName("GTiff").Create(str(path), COLS, ROWS, 1, gdal.GDT_Float32)
    ds.SetGeoTransform((X0, 1.0, 0.0, Y0 + ROWS, 0.0, -1.0))
    srs = osr.SpatialReference()
    srs.ImportFromEPSG(26918)
    ds.SetProjection(srs.ExportToWkt())
    x = np.arange(COLS) + 0.5
    y = ROWS - (np.arange(ROWS) + 0.5)
    t = math.radians(AZIMUTH)
    z = 100.0 + grade * (x[None, :] * math.sin(t) + y[:, None] * math.cos(t))
    band = ds.GetRasterBand(1)
    band.WriteArray(z.astype(np.float32))
    band.SetNoDataValue(-9999.0)
    ds.FlushCache()
    ds = None
    layer = QgsRasterLayer(str(path), path.stem)
    assert layer.isValid()
    return layer


def sites_layer() -> QgsVectorLayer:
    """Two building sites: a polygon centred on a pixel centre in the middle, and a point too near the edge for the ring."""
    layer = QgsVectorLayer("Polygon?crs=EPSG:26918&field=id:string", "building_sites", "memory")
    cx, cy = X0 + 70.5, Y0 + 69.5
    feats = []
    for wkt, ident in (
        (f"POLYGON(({cx - 5} {cy - 4},{cx + 5} {cy - 4},{cx + 5} {cy + 4},{cx - 5} {cy + 4},{cx - 5} {cy - 4}))", "B-mid"),
        (f"POLYGON(({X0 + 8} {Y0 + 60},{X0 + 12} {Y0 + 60},{X0 + 12} {Y0 + 64},{X0 + 8} {Y0 + 64},{X0 + 8} {Y0 + 60}))", "B-edge"),
    ):
        f = QgsFeature(layer.fields())
        f.setGeometry(QgsGeometry.fromWkt(wkt))
        f.setAttributes([ident])
        feats.append(f)
    assert layer.dataProvider().addFeatures(feats)[0]
    layer.updateExtents()
    return layer


def _run(dem, sites, tmp_path, **extra):
    import processing

    params = {"DEM": dem, "BUILDING_SITES": sites, "Z_UNITS": 1, "OUTPUT": "memory:", "RAYS": "memory:",
              "SLOPE_MAP": str(tmp_path / f"{dem.name()}_slope.tif"), "MASK": "memory:"}
    params.update(extra)
    return processing.run("stormwater_review:slopeover100ft", params)


def _map_value(path: str, x: float, y: float) -> float:
    from osgeo import gdal

    ds = gdal.Open(path)
    gt = ds.GetGeoTransform()
    col = int((x - gt[0]) / gt[1])
    row = int((y - gt[3]) / gt[5])
    value = float(ds.GetRasterBand(1).ReadAsArray(col, row, 1, 1)[0, 0])
    assert ds.GetRasterBand(1).GetNoDataValue() == -9999
    return value


def _read(path: str) -> np.ndarray:
    from osgeo import gdal

    ds = gdal.Open(path)  # keep the dataset alive while its band is read
    arr = ds.GetRasterBand(1).ReadAsArray().astype(np.float64)
    ds = None
    return arr


def test_defaults_come_from_the_pack(provider):
    from stormwater_plugin.core.rulepack import load_pack

    alg = QgsApplication.processingRegistry().algorithmById("stormwater_review:slopeover100ft")
    assert alg is not None
    rule = next(r for r in load_pack("lgpc").rules if r.kind == "building_site_slope")
    assert alg.parameterDefinition("DISTANCE_FT").defaultValue() == rule.params["distance_ft"]
    assert alg.parameterDefinition("THRESHOLD_PCT").defaultValue() == rule.params["threshold_pct"]


@pytest.mark.parametrize("grade, status", [(0.14, "pass"), (0.16, "advisory")])
def test_plane(provider, tmp_path, grade, status):
    dem = write_plane(tmp_path / f"plane_{int(grade * 100)}.tif", grade)
    sites = sites_layer()
    QgsProject.instance().addMapLayers([dem, sites])
    try:
        out = _run(dem, sites, tmp_path)
    finally:
        QgsProject.instance().removeAllMapLayers()
    rows = {f["id"]: f for f in out["OUTPUT"].getFeatures()}
    mid = rows["B-mid"]
    assert mid["status"] == status
    # the plane's grade, read over ground distances (UTM's scale factor here is 0.9997)
    assert mid["slope_100ft_pct"] == pytest.approx(grade * 100, rel=5e-4)
    assert min(abs(mid["azimuth_deg"] - AZIMUTH), abs(mid["azimuth_deg"] - (AZIMUTH + 180))) < 1e-3
    assert mid.geometry().asPoint().x() == pytest.approx(X0 + 70.5) and mid.geometry().asPoint().y() == pytest.approx(Y0 + 69.5)
    assert rows["B-edge"]["status"] == "undetermined"
    assert rows["B-edge"]["slope_100ft_pct"] in (None, NULL)
    assert "off the DEM" in rows["B-edge"]["message"]
    assert out["STEEP_SITES"] == (1 if status == "advisory" else 0)
    # rays: the rose (36 by the pack) plus the steepest, all 100 ft long
    rays = [f for f in out["RAYS"].getFeatures() if f["site_id"] == "B-mid"]
    steepest = [f for f in rays if f["steepest"]]
    assert len(steepest) == 1 and steepest[0]["slope_pct"] == pytest.approx(mid["slope_100ft_pct"])
    assert len(rays) == 37
    # the map on the DEM's grid: at the site's cell, the point value to 0.05 points
    value = _map_value(out["SLOPE_MAP"], X0 + 70.5, Y0 + 69.5)
    assert value == pytest.approx(mid["slope_100ft_pct"], abs=0.05)
    assert _map_value(out["SLOPE_MAP"], X0 + 2.5, Y0 + 2.5) == -9999  # ring off the DEM
    mask = list(out["MASK"].getFeatures())
    if status == "advisory":
        assert mask and out["STEEP_CELLS"] > 0
        assert any(f.geometry().contains(QgsGeometry.fromPointXY(QgsPointXY(X0 + 70.5, Y0 + 69.5))) for f in mask)
        assert mask[0]["threshold_pct"] == 15 and mask[0]["area_sqft"] > 0
        assert out["MASK"].crs().authid() == "EPSG:26918"
    else:
        assert not mask and out["STEEP_CELLS"] == 0


def write_hills(path: Path) -> QgsRasterLayer:
    """Smooth hills (metres) in EPSG:26918 with a nodata hole: strips must give the one-pass map exactly."""
    from osgeo import gdal, osr

    ds = gdal.GetDriverByName("GTiff").Create(str(path), COLS, ROWS, 1, gdal.GDT_Float32)
    ds.SetGeoTransform((X0, 1.0, 0.0, Y0 + ROWS, 0.0, -1.0))
    srs = osr.SpatialReference()
    srs.ImportFromEPSG(26918)
    ds.SetProjection(srs.ExportToWkt())
    x = np.arange(COLS) + 0.5
    y = np.arange(ROWS) + 0.5
    z = 100.0 + 6.0 * np.sin(x[None, :] / 17.0) * np.cos(y[:, None] / 23.0) + 0.05 * y[:, None]
    z[60:63, 100:104] = -9999.0
    band = ds.GetRasterBand(1)
    band.WriteArray(z.astype(np.float32))
    band.SetNoDataValue(-9999.0)
    ds.FlushCache()
    ds = None
    layer = QgsRasterLayer(str(path), path.stem)
    assert layer.isValid()
    return layer


def test_strips_match_one_pass(provider, tmp_path, monkeypatch):
    import processing

    from stormwater_plugin.core.terrain import ground_to_pixel_projected, ring_slope_map
    from stormwater_plugin.processing import slope_io
    from stormwater_plugin.qgis_bridge.slope_raster import ground_to_pixel

    dem = write_hills(tmp_path / "hills.tif")
    monkeypatch.setattr(slope_io, "STRIP_CELLS", COLS * 7)  # strips of 32 rows (the minimum)
    out = processing.run("stormwater_review:slopeover100ft", {"DEM": dem, "Z_UNITS": 1, "SLOPE_MAP": str(tmp_path / "hills_slope.tif")})
    got = _read(out["SLOPE_MAP"])
    src = _read(str(tmp_path / "hills.tif"))
    src[src == -9999.0] = np.nan
    from qgis.core import QgsProcessingContext

    jac = ground_to_pixel(dem.crs(), (X0, 1.0, 0.0, Y0 + ROWS, 0.0, -1.0), ROWS, COLS, QgsProcessingContext().transformContext())
    assert np.allclose(jac, ground_to_pixel_projected((X0, 1.0, 0.0, Y0 + ROWS, 0.0, -1.0), 1 / 0.3048), rtol=1e-3)
    ref = ring_slope_map(src, jac, 100.0, z_to_ft=1 / 0.3048)
    ref = np.where(np.isfinite(ref), ref, -9999.0)
    assert np.isfinite(ref).all() and (ref > 0).sum() > 1000 and (ref == -9999).sum() > (got.size - 79 * 79)
    assert np.array_equal(got == -9999, ref == -9999)
    assert np.max(np.abs(got - ref)) < 1e-3


def test_map_only_and_cancel(provider, tmp_path, monkeypatch):
    """No building sites: the map alone; a run cancelled after the first strip leaves the rest nodata."""
    import processing
    from qgis.core import QgsProcessingContext, QgsProcessingFeedback

    from stormwater_plugin.processing import slope_io

    dem = write_plane(tmp_path / "plane_16.tif", 0.16)
    out = processing.run("stormwater_review:slopeover100ft", {"DEM": dem, "Z_UNITS": 1, "SLOPE_MAP": str(tmp_path / "only.tif")})
    assert out["STEEP_CELLS"] > 0
    assert _map_value(out["SLOPE_MAP"], X0 + 70.5, Y0 + 69.5) == pytest.approx(16.0, abs=0.05)

    monkeypatch.setattr(slope_io, "STRIP_CELLS", COLS * 40)  # strips of 40 rows
    feedback = QgsProcessingFeedback()
    feedback.progressChanged.connect(lambda p: feedback.cancel() if p > 10 else None)
    alg = QgsApplication.processingRegistry().createAlgorithmById("stormwater_review:slopeover100ft")
    res, ok = alg.run({"DEM": dem, "Z_UNITS": 1, "SLOPE_MAP": str(tmp_path / "cancelled.tif")}, QgsProcessingContext(), feedback)
    assert ok and feedback.isCanceled()
    assert _map_value(str(tmp_path / "cancelled.tif"), X0 + 70.5, Y0 + ROWS - 35.5) == pytest.approx(16.0, abs=0.05)  # row 35: first strip
    assert _map_value(str(tmp_path / "cancelled.tif"), X0 + 70.5, Y0 + 69.5) == -9999  # row 70: never computed


def test_a_building_site_with_no_geometry_is_undetermined_not_a_crash(provider, tmp_path):
    """Issue 14: B-null (null geometry) gets an undetermined row naming it; B-mid is still measured."""
    dem = write_plane(tmp_path / "plane_null.tif", 0.16)
    sites = sites_layer()
    f = QgsFeature(sites.fields())
    f.setAttributes(["B-null"])  # no geometry
    assert sites.dataProvider().addFeatures([f])[0]
    QgsProject.instance().addMapLayers([dem, sites])
    try:
        out = _run(dem, sites, tmp_path, SLOPE_MAP=None, MASK=None)
    finally:
        QgsProject.instance().removeAllMapLayers()
    rows = {f["id"]: f for f in out["OUTPUT"].getFeatures()}
    assert rows["B-null"]["status"] == "undetermined" and "B-null has no geometry" in rows["B-null"]["message"]
    assert rows["B-mid"]["status"] == "advisory"


def test_slope_rays_and_mask_load_with_the_dock_styles(provider, tmp_path, layer_tree_view):
    """Issue 24 item 9: loaded slope rays carry the ray colours and the steepest ray's label; the mask its fill; the sites their status colours."""
    import processing

    dem = write_plane(tmp_path / "plane_styled.tif", 0.2)
    sites = sites_layer()
    QgsProject.instance().addMapLayers([dem, sites])
    try:
        before = set(QgsProject.instance().mapLayers())
        processing.runAndLoadResults("stormwater_review:slopeover100ft", {"DEM": dem, "BUILDING_SITES": sites, "Z_UNITS": 1, "OUTPUT": "memory:",
                                                                          "RAYS": "memory:", "MASK": "memory:"})
        loaded = {lyr.geometryType(): lyr for i, lyr in QgsProject.instance().mapLayers().items() if i not in before}
        rays = loaded[1]  # lines
        assert rays.renderer().type() == "RuleRenderer" and rays.labelsEnabled()
        mask = loaded.get(2)
        assert mask is not None and mask.renderer().symbol().symbolLayer(0).fillColor().alpha() < 255
        sites_out = loaded[0]  # points: coloured by status, labelled with id and slope
        assert sites_out.renderer().type() == "RuleRenderer" and sites_out.labelsEnabled()
        from qgis.core import QgsRenderContext

        ctx = QgsRenderContext()
        sites_out.renderer().startRender(ctx, sites_out.fields())
        try:
            for f in sites_out.getFeatures():
                assert sites_out.renderer().symbolsForFeature(f, ctx), f"{f['id']} ({f['status']}) is drawn with no symbol"
        finally:
            sites_out.renderer().stopRender(ctx)
    finally:
        QgsProject.instance().removeAllMapLayers()


def test_slope_map_policy_processing_equals_the_command_line(provider, tmp_path):
    """One policy (services.slope_map): the same DEM gives the same slope map and steep cells in Processing and on the command line.

    Both divide grid units by the scale factor at the DEM's centre (pyproj on the command line, QgsDistanceArea in QGIS:
    the two agree to about 1e-8, so values may differ in float32's last digit, never in which cells are steep).
    """
    from stormwater_plugin.cli import main as cli_main

    dem = write_hills(tmp_path / "hills.tif")
    QgsProject.instance().addMapLayers([dem])
    try:
        out = _run(dem, sites_layer(), tmp_path, THRESHOLD_PCT=5.0)
    finally:
        QgsProject.instance().removeAllMapLayers()
    cli_tif = tmp_path / "cli.tif"
    assert cli_main(["slope-map", str(tmp_path / "hills.tif"), "--out", str(cli_tif), "--threshold", "5", "--quiet"]) == 0
    a, b = _read(out["SLOPE_MAP"]), _read(str(cli_tif))
    assert np.array_equal(a == -9999, b == -9999)
    valid = a != -9999
    assert valid.sum() > 1000
    assert np.max(np.abs(a[valid] - b[valid])) < 1e-4
    assert out["STEEP_CELLS"] == int(((b >= 5.0) & valid).sum())


def test_slope_map_reads_the_unit_the_dem_declares(provider, tmp_path):
    """Issue 24 item 8 (one policy): "Automatic" takes the band's declared unit for the map too, as the building sites and the CLI do.

    A plane rising 0.3 ft per metre (9.1%) declared in feet: read as metres it would be 30%, every cell steep.
    """
    from osgeo import gdal
    from qgis.core import QgsProcessingFeedback

    path = tmp_path / "plane_ft.tif"
    write_plane(path, 0.3)
    ds = gdal.Open(str(path), gdal.GA_Update)
    ds.GetRasterBand(1).SetUnitType("ft")
    ds = None
    dem = QgsRasterLayer(str(path), "plane_ft")
    import processing

    runs = {}
    for z_units in (0, 1, 2):  # automatic, metres, feet
        feedback = QgsProcessingFeedback()
        params = {"DEM": dem, "BUILDING_SITES": sites_layer(), "Z_UNITS": z_units, "OUTPUT": "memory:", "RAYS": "memory:",
                  "SLOPE_MAP": str(tmp_path / f"map{z_units}.tif"), "MASK": "memory:", "THRESHOLD_PCT": 15.0}
        runs[z_units] = (processing.run("stormwater_review:slopeover100ft", params, feedback=feedback), feedback.textLog())
    auto, auto_warnings = runs[0]
    assert "assumed" not in auto_warnings, auto_warnings
    assert auto["STEEP_CELLS"] == runs[2][0]["STEEP_CELLS"] == 0
    assert runs[1][0]["STEEP_CELLS"] > 1000  # the same file read as metres: the unit matters here
    assert np.array_equal(_read(auto["SLOPE_MAP"]), _read(runs[2][0]["SLOPE_MAP"]))
