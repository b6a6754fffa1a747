"""Existing-grade contours make the site's DEM; contours and a DEM that disagree are a warning (issue 27)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import fiona
import numpy as np
import pytest
import rasterio
from shapely.geometry import LineString, Point, box, mapping

from stormwater_plugin.cli import main
from stormwater_plugin.core.rulepack import load_pack
from stormwater_plugin.headless.contours_dem import CONTOUR_DEM_TOLERANCE_FT, compare_contours, contours_to_dem
from stormwater_plugin.headless.reader import InputError, read_site
from stormwater_plugin.services.review import check

X0, Y0 = 620_000.0, 1_560_000.0  # NY East, US survey feet (EPSG:2260)
GX, GY, Z0 = 0.05, 0.02, 330.0  # the plane: z = Z0 + GX dx + GY dy (US ft)


def plane(x, y):
    return Z0 + GX * (x - X0) + GY * (y - Y0)


def _package(path: Path, with_z: bool = True) -> Path:
    lines = []
    for level in np.arange(Z0, Z0 + GX * 400 + GY * 400 + 1, 1.0):
        pts = [(X0 + (level - Z0 - GY * dy) / GX, Y0 + dy) for dy in np.linspace(-20, 420, 23)]
        pts = [(x, y, level) for x, y in pts if X0 - 20 <= x <= X0 + 420]
        if len(pts) >= 2:
            lines.append((LineString(pts if with_z else [p[:2] for p in pts]), float(level)))
    geom = "3D LineString" if with_z else "LineString"
    with fiona.open(str(path), "w", driver="GPKG", layer="contours", crs="EPSG:2260", schema={"geometry": geom, "properties": {"elevation": "float"}}) as d:
        for g, z in lines:
            d.write({"geometry": mapping(g), "properties": {"elevation": z}})
    with fiona.open(str(path), "w", driver="GPKG", layer="parcels", crs="EPSG:2260", schema={"geometry": "Polygon", "properties": {"id": "str", "is_site": "int"}}) as d:
        d.write({"geometry": mapping(box(X0, Y0, X0 + 400, Y0 + 400)), "properties": {"id": "P1", "is_site": 1}})
    with fiona.open(str(path), "w", driver="GPKG", layer="devices", crs="EPSG:2260", schema={"geometry": "Point", "properties": {"id": "str", "device_type": "str"}}) as d:
        d.write({"geometry": mapping(Point(X0 + 200, Y0 + 200)), "properties": {"id": "DW-1", "device_type": "dry_well"}})
    with fiona.open(str(path), "w", driver="GPKG", layer="building_sites", crs="EPSG:2260", schema={"geometry": "Polygon", "properties": {"id": "str"}}) as d:
        d.write({"geometry": mapping(box(X0 + 180, Y0 + 180, X0 + 220, Y0 + 220)), "properties": {"id": "B1"}})
    return path


@pytest.mark.parametrize("with_z", [True, False], ids=["vertex_z", "elevation_field"])
def test_contours_of_a_tilted_plane_give_a_dem_reproducing_the_plane_within_0_01_ft(tmp_path, with_z):
    pkg = _package(tmp_path / "site.gpkg", with_z)
    out = tmp_path / "dem.tif"
    summary = contours_to_dem(pkg, out, cell_ft=2.0, z_units="us-ft")
    assert summary["covered"] > 0.9 * summary["cells"]
    with rasterio.open(out) as src:
        assert src.units[0] == "us-ft" and src.tags()["STORMWATER_DEM_SOURCE"] == "plan-contours"
        band = src.read(1, masked=True)
        t = src.transform
    rows, cols = np.indices(band.shape)
    x, y = t.c + (cols + 0.5) * t.a, t.f + (rows + 0.5) * t.e
    err = np.abs(band - plane(x, y))
    assert float(err.max()) < 0.01
    assert band.mask.any()  # nodata outside the contours' hull, never extrapolated


def test_building_site_slope_on_the_contour_dem_equals_the_planes_slope(tmp_path):
    pkg = _package(tmp_path / "site.gpkg")
    dem = tmp_path / "dem.tif"
    contours_to_dem(pkg, dem, cell_ft=2.0, z_units="us-ft")
    pack = load_pack("lgpc")
    loaded = read_site(pkg, [], dem, None, None, "major", pack=pack)
    review = check(loaded.inputs, pack)
    slope = next(f for f in review.result.findings if f.kind == "building_site_slope")
    # ground distances on the ellipsoid: the grid's scale factor (~0.9999) is the only difference
    assert slope.extra["slope_pct"] == pytest.approx(100 * math.hypot(GX, GY), abs=0.01)
    assert slope.extra["azimuth_deg"] == pytest.approx(math.degrees(math.atan2(-GX, -GY)) % 360, abs=0.5)


def test_check_on_a_contour_dem_says_which_dem_was_used(tmp_path):
    pkg = _package(tmp_path / "site.gpkg")
    dem = tmp_path / "dem.tif"
    assert main(["contours-dem", str(pkg), "--out", str(dem), "--z-units", "us-ft"]) == 0
    main([str(pkg), "--dem", str(dem), "--jurisdiction", "lgpc", "--class", "major", "--out", str(tmp_path / "o"), "--quiet"])
    doc = json.loads((tmp_path / "o" / "findings.json").read_text(encoding="utf-8"))
    note = next(w for w in doc["warnings"] if w["code"] == "dem_from_plan_contours")
    assert "dem.tif" in note["message"] and "existing-grade contours" in note["message"]
    assert not any(w["code"] == "contours_dem_disagree" for w in doc["warnings"])


def _shifted_dem(src_path: Path, out: Path, dz: float) -> Path:
    with rasterio.open(src_path) as src:
        profile, band = src.profile, src.read(1)
        nodata = src.nodata
    with rasterio.open(out, "w", **profile) as dst:
        dst.write(np.where(band == nodata, band, band + dz).astype(band.dtype), 1)
        dst.set_band_unit(1, "us-ft")
    return out


def test_lidar_3_ft_above_the_plans_contours_is_a_disagreement_warning_in_the_check(tmp_path):
    pkg = _package(tmp_path / "site.gpkg")
    dem = tmp_path / "dem.tif"
    contours_to_dem(pkg, dem, cell_ft=2.0, z_units="us-ft")
    lidar = _shifted_dem(dem, tmp_path / "lidar.tif", CONTOUR_DEM_TOLERANCE_FT + 1.0)
    close = _shifted_dem(dem, tmp_path / "close.tif", CONTOUR_DEM_TOLERANCE_FT - 1.0)
    assert compare_contours(pkg, close) is None
    w = compare_contours(pkg, lidar)
    assert w is not None and w.code == "contours_dem_disagree" and "median |dz| 3.0 ft" in w.message
    main([str(pkg), "--dem", str(lidar), "--jurisdiction", "lgpc", "--class", "major", "--out", str(tmp_path / "o"), "--quiet"])
    doc = json.loads((tmp_path / "o" / "findings.json").read_text(encoding="utf-8"))
    assert any(x["code"] == "contours_dem_disagree" for x in doc["warnings"])


def test_contour_without_elevation_is_refused(tmp_path):
    path = tmp_path / "site.gpkg"
    with fiona.open(str(path), "w", driver="GPKG", layer="contours", crs="EPSG:2260", schema={"geometry": "LineString", "properties": {"name": "str"}}) as d:
        d.write({"geometry": mapping(LineString([(X0, Y0), (X0 + 10, Y0)])), "properties": {"name": "x"}})
    with pytest.raises(InputError, match="no elevation"):
        contours_to_dem(path, tmp_path / "dem.tif")


def _with_undeclared_fill(src_path: Path, out: Path, fill: float, share: float) -> Path:
    """``src_path`` with its first ``share`` of columns set to ``fill`` and no nodata declared (as a clip or mosaic leaves it)."""
    with rasterio.open(src_path) as src:
        profile, band = src.profile, src.read(1).astype("float32")
    band[:, : int(band.shape[1] * share)] = fill
    profile.update(dtype="float32", nodata=None)
    with rasterio.open(out, "w", **profile) as dst:
        dst.write(band, 1)
        dst.set_band_unit(1, "us-ft")
    return out


@pytest.mark.parametrize("fill", [-9999.0, -3.4028234663852886e38], ids=["-9999", "float32-min"])
def test_contours_are_not_compared_with_an_undeclared_fill_value_of_the_dem(tmp_path, fill):
    """The DEM is read as a check reads it (services.dem_read): fill values the file does not declare are nodata, so
    contours over them are not compared with them (which read a median |dz| of thousands of feet, a false disagreement)."""
    pkg = _package(tmp_path / "site.gpkg")
    dem = tmp_path / "dem.tif"
    contours_to_dem(pkg, dem, cell_ft=2.0, z_units="us-ft")
    filled = _with_undeclared_fill(dem, tmp_path / "filled.tif", fill, 0.7)  # most vertices over the fill value
    assert compare_contours(pkg, filled) is None
    shifted = _with_undeclared_fill(_shifted_dem(dem, tmp_path / "lidar.tif", CONTOUR_DEM_TOLERANCE_FT + 1.0), tmp_path / "lf.tif", fill, 0.7)
    w = compare_contours(pkg, shifted)  # the ground beside the fill still disagrees, by what it holds
    assert w is not None and w.code == "contours_dem_disagree" and "median |dz| 3.0 ft" in w.message


def test_contours_wholly_over_a_fill_value_are_uncompared(tmp_path):
    pkg = _package(tmp_path / "site.gpkg")
    dem = tmp_path / "dem.tif"
    contours_to_dem(pkg, dem, cell_ft=2.0, z_units="us-ft")
    w = compare_contours(pkg, _with_undeclared_fill(dem, tmp_path / "filled.tif", -9999.0, 1.0))
    assert w is not None and w.code == "contours_dem_uncompared"


def test_contours_over_the_pixel_limit_are_uncompared_naming_it(tmp_path, monkeypatch):
    from stormwater_plugin.services import dem_read

    pkg = _package(tmp_path / "site.gpkg")
    dem = tmp_path / "dem.tif"
    contours_to_dem(pkg, dem, cell_ft=2.0, z_units="us-ft")
    monkeypatch.setattr(dem_read, "MAX_PIXELS", 100)
    w = compare_contours(pkg, dem)
    assert w is not None and w.code == "contours_dem_uncompared" and "more than the 100 read at once" in w.message
