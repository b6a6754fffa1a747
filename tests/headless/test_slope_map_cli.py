"""``stormwater-check slope-map``: the 100 ft any-direction slope of every DEM cell, written as a GeoTIFF."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

rasterio = pytest.importorskip("rasterio")
pyproj = pytest.importorskip("pyproj")

from rasterio.transform import from_origin  # noqa: E402

from stormwater_plugin.core.raster import ElevationGrid  # noqa: E402
from stormwater_plugin.core.terrain import horn_slope_pct, ring_slope_at  # noqa: E402
from stormwater_plugin.headless.slope_map_cli import main  # noqa: E402

REALDATA = Path(__file__).resolve().parents[2].parent / "shared" / "realdata"
US_FT_M = 1200.0 / 3937.0


def write_dem(path: Path, values: np.ndarray, transform, crs: str | None, nodata: float | None = -9999.0, units: str | None = None) -> Path:
    with rasterio.open(
        path, "w", driver="GTiff", width=values.shape[1], height=values.shape[0], count=1, dtype="float32", crs=crs, transform=transform, nodata=nodata
    ) as dst:
        dst.write(values.astype(np.float32), 1)
        if units:
            dst.units = (units,)
    return path


def read(path: Path) -> np.ndarray:
    with rasterio.open(path) as src:
        a = src.read(1).astype(np.float64)
        a[a == src.nodata] = np.nan
    return a


def plane_values(n_r, n_c, px_x, px_y, g, az_deg):
    """z in the DEM's own horizontal unit: rises g (fraction) toward az."""
    xs = (np.arange(n_c) + 0.5) * px_x
    ys = -(np.arange(n_r) + 0.5) * px_y
    xx, yy = np.meshgrid(xs, ys)
    t = math.radians(az_deg)
    return 100.0 + g * (math.sin(t) * xx + math.cos(t) * yy)


def test_slope_map_of_a_16_pct_plane_in_utm_metres(tmp_path, capsys):
    dem = write_dem(tmp_path / "dem.tif", plane_values(120, 140, 1.0, 1.0, 0.16, 30.0), from_origin(600000, 4800000, 1, 1), "EPSG:32618")
    out = tmp_path / "slope100.tif"
    mask = tmp_path / "steep.gpkg"
    assert main([str(dem), "--out", str(out), "--distance-ft", "100", "--threshold", "15", "--mask-out", str(mask)]) == 0
    s = read(out)
    assert s.shape == (120, 140)
    valid = np.isfinite(s)
    # ring = 30.48 px: cells with centre at least 30.48 px from each edge
    assert valid.sum() == (120 - 60) * (140 - 60)
    assert np.nanmax(np.abs(s - 16.0)) < 0.01
    with rasterio.open(out) as src:
        assert src.crs.to_epsg() == 32618 and src.nodata == -9999.0
    import fiona

    with fiona.open(mask) as src:
        feats = list(src)
    assert len(feats) == 1 and feats[0]["properties"]["threshold_pct"] == 15.0
    assert "elevations assumed in m" in capsys.readouterr().err


def test_mask_is_empty_when_nothing_reaches_the_threshold(tmp_path):
    dem = write_dem(tmp_path / "dem.tif", plane_values(80, 80, 1.0, 1.0, 0.14, 0.0), from_origin(600000, 4800000, 1, 1), "EPSG:32618")
    mask = tmp_path / "steep.gpkg"
    assert main([str(dem), "--out", str(tmp_path / "s.tif"), "--threshold", "15", "--mask-out", str(mask), "--quiet"]) == 0
    import fiona

    with fiona.open(mask) as src:
        assert len(list(src)) == 0


@pytest.mark.parametrize("pct,steep", [(14.949, False), (14.951, True), (15.0, True)])
def test_mask_holds_every_cell_whose_slope_prints_15_pct_646_4_12_b_2(tmp_path, capsys, pct, steep):
    """"15% or more" decided at 0.1%: a plane of 14.951% (prints 15.0%) is steep ground, 14.949% (14.9%) is not.
    The map is certified at the rounding edge (14.95%), as a building site there is found."""
    from stormwater_plugin.headless.crs import scale_at

    # a plane in UTM metres whose ground slope (grid slope times the scale factor at the DEM's centre) is pct
    k = scale_at(pyproj.CRS("EPSG:32618"), pyproj.Transformer.from_crs("EPSG:32618", "EPSG:4326", always_xy=True).transform(600070, 4799940))
    dem = write_dem(tmp_path / "dem.tif", plane_values(120, 140, 1.0, 1.0, pct / 100.0 / k, 30.0), from_origin(600000, 4800000, 1, 1), "EPSG:32618")
    mask = tmp_path / "steep.gpkg"
    assert main([str(dem), "--out", str(tmp_path / "s.tif"), "--threshold", "15", "--mask-out", str(mask)]) == 0
    assert "certified at 14.95% (15% or more, decided at 0.1%)" in capsys.readouterr().err
    import fiona

    with fiona.open(mask) as src:
        feats = list(src)
    assert len(feats) == (1 if steep else 0)
    if steep:
        from shapely.geometry import shape

        assert shape(feats[0]["geometry"]).area == pytest.approx((120 - 60) * (140 - 60))  # every cell with a value


def test_feet_dem_in_epsg_2260_us_survey_feet(tmp_path):
    # 3 US-ft pixels, z in US ft (declared): 14 % in any unit
    vals = plane_values(150, 150, 3.0, 3.0, 0.14, 200.0) + 300.0
    dem = write_dem(tmp_path / "ft.tif", vals, from_origin(615000, 1580000, 3, 3), "EPSG:2260")
    out = tmp_path / "s.tif"
    assert main([str(dem), "--out", str(out), "--dem-z-units", "us-ft", "--quiet"]) == 0
    s = read(out)
    assert np.isfinite(s).any()
    assert np.nanmax(np.abs(s - 14.0)) < 0.01
    # 100 ft = 33.3334 US-ft... pixels: the valid band is 150 - 2*ceil-ish
    r_px = 100 * 0.3048 / US_FT_M / 3.0
    first = int(math.ceil(r_px - 0.5))
    assert np.isnan(s[:, first - 1]).all() and np.isfinite(s[75, first])


def test_declared_z_units_scale_the_slope(tmp_path):
    vals = plane_values(100, 100, 1.0, 1.0, 0.05, 0.0)
    dem = write_dem(tmp_path / "d.tif", vals, from_origin(600000, 4800000, 1, 1), "EPSG:32618")
    assert main([str(dem), "--out", str(tmp_path / "m.tif"), "--dem-z-units", "m", "--quiet"]) == 0
    assert main([str(dem), "--out", str(tmp_path / "f.tif"), "--dem-z-units", "ft", "--quiet"]) == 0
    m, f = read(tmp_path / "m.tif"), read(tmp_path / "f.tif")
    assert np.nanmax(np.abs(m - 5.0)) < 0.01
    assert np.nanmax(np.abs(f - 5.0 * 0.3048)) < 0.01


def test_band_units_are_read_when_not_declared(tmp_path):
    vals = plane_values(100, 100, 1.0, 1.0, 0.05, 0.0) / 0.3048  # metre pixels, z in feet
    dem = write_dem(tmp_path / "d.tif", vals, from_origin(600000, 4800000, 1, 1), "EPSG:32618", units="ft")
    assert main([str(dem), "--out", str(tmp_path / "s.tif"), "--quiet"]) == 0
    assert np.nanmax(np.abs(read(tmp_path / "s.tif") - 5.0)) < 0.01


def test_degrees_dem_uses_ground_distances(tmp_path):
    # NAD83 degrees at 43.4 N (Lake George): z rises 15 % to the north, in metres
    n = 160
    px = 1 / 10800  # 1/3 arc-second
    lat0 = 43.42
    geod = pyproj.Geod(ellps="GRS80")
    lats = lat0 - (np.arange(n) + 0.5) * px
    _, _, dist = geod.inv(np.full(n, -73.7), np.full(n, lat0), np.full(n, -73.7), lats)
    z = 100.0 - 0.15 * np.asarray(dist)  # metres, falling southward
    vals = np.repeat(z[:, None], n, axis=1)
    dem = write_dem(tmp_path / "geo.tif", vals, from_origin(-73.7, lat0, px, px), "EPSG:4269")
    out = tmp_path / "s.tif"
    assert main([str(dem), "--out", str(out), "--dem-z-units", "m", "--quiet"]) == 0
    s = read(out)
    assert np.isfinite(s).sum() > 1000
    assert np.nanmax(np.abs(s - 15.0)) < 0.02


def test_missing_dem_exits_2_with_one_line(tmp_path, capsys):
    code = main([str(tmp_path / "nope.tif"), "--out", str(tmp_path / "s.tif")])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and "not found" in err and "Traceback" not in err


@pytest.mark.parametrize(
    "argv_tail, text",
    [
        (["--distance-ft", "-5"], "--distance-ft"),
        (["--dem-z-units", "yards"], "invalid choice"),
        (["--azimuths", "2"], "--azimuths"),
    ],
)
def test_bad_options_exit_2_with_one_line(tmp_path, capsys, argv_tail, text):
    dem = write_dem(tmp_path / "d.tif", np.zeros((10, 10)), from_origin(600000, 4800000, 1, 1), "EPSG:32618")
    code = main([str(dem), "--out", str(tmp_path / "s.tif"), *argv_tail])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and text in err


def test_missing_out_and_not_a_raster_and_no_crs_exit_2(tmp_path, capsys):
    junk = tmp_path / "junk.tif"
    junk.write_text("not a raster")
    assert main([str(junk)]) == 2
    assert main([str(junk), "--out", str(tmp_path / "s.tif")]) == 2
    nocrs = write_dem(tmp_path / "nocrs.tif", np.zeros((10, 10)), from_origin(0, 10, 1, 1), None)
    assert main([str(nocrs), "--out", str(tmp_path / "s.tif")]) == 2
    assert main([str(nocrs), "--out", str(tmp_path / "no-such-dir" / "s.tif")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 4 and "Traceback" not in err and "no CRS" in err


def _need(path: Path) -> Path:
    if not path.exists():
        pytest.skip(f"real data not available: {path} (../shared/realdata is absent)")
    return path


def test_realdata_eno_river_degrees_dem_map_agrees_with_point_computation(tmp_path):
    src = _need(REALDATA / "eno-river-nc" / "enogeo.tif")
    out = tmp_path / "eno100.tif"
    assert main([str(src), "--out", str(out), "--dem-z-units", "m", "--quiet"]) == 0  # automatic: 256 azimuths here
    m = read(out)
    with rasterio.open(src) as d:
        v = d.read(1).astype(np.float64)
        v[v == d.nodata] = np.nan
        t = d.transform
        crs = pyproj.CRS.from_wkt(d.crs.to_wkt())
    work = pyproj.CRS.from_epsg(26917)  # NAD83 / UTM 17N, metres
    fwd = pyproj.Transformer.from_crs(work, crs, always_xy=True)
    inv = pyproj.Transformer.from_crs(crs, work, always_xy=True)

    def to_raster(x, y):
        a, b = fwd.transform(x, y)
        return np.asarray(a), np.asarray(b)

    grid = ElevationGrid(v, (t.c, t.a, t.b, t.f, t.d, t.e), z_to_ft=1 / 0.3048, to_raster=to_raster)
    rng = np.random.default_rng(1)
    errs = []
    for _ in range(60):
        r, c = int(rng.integers(0, v.shape[0])), int(rng.integers(0, v.shape[1]))
        x, y = inv.transform(t.c + (c + 0.5) * t.a, t.f + (r + 0.5) * t.e)
        p = ring_slope_at(grid, x, y, 100.0, 1 / 0.3048)
        assert (p.slope_pct is None) == bool(np.isnan(m[r, c]))
        if p.slope_pct is not None:
            errs.append(m[r, c] - p.slope_pct)
    assert len(errs) > 40
    assert np.max(np.abs(errs)) < 0.05  # 10 m pixels: kinks every pixel along the ring
    assert 0 < np.nanmax(m) < 100


def test_realdata_terre_haute_nodata_holes_and_horn_matches_gdaldem_reference(tmp_path):
    src = _need(REALDATA / "terre-haute-in" / "dem-hills.tiff")
    out = tmp_path / "th100.tif"
    assert main([str(src), "--out", str(out), "--dem-z-units", "m", "--quiet"]) == 0
    m = read(out)
    with rasterio.open(src) as d:
        v = d.read(1).astype(np.float64)
        v[v == d.nodata] = np.nan
        t = d.transform
    assert np.isnan(v).any() and np.isfinite(m).any()
    # every nodata cell is nodata in the map, and so are cells whose ring meets a hole
    assert np.isnan(m[np.isnan(v)]).all()
    assert np.isnan(m).sum() > np.isnan(v).sum()
    # Horn slope, as `gdaldem slope -alg Horn -s 98473.2947 -p`: max 65.440422, mean 6.1710968
    s = 98473.2947
    h = horn_slope_pct(v, np.array([[1 / (t.a * s), 0.0], [0.0, 1 / (t.e * s)]]))
    assert np.nanmax(h) == pytest.approx(65.440422, abs=1e-4)
    assert np.nanmean(h) == pytest.approx(6.1710968, abs=1e-5)


@pytest.mark.parametrize(
    "folder,name",
    [("east-chatham-ny", "dem_from_iso-10ft_contours_2.5m_DERIVED.tif"), ("north-collins-ny", "dem_from_iso-1m_contours_2m_DERIVED.tif")],
)
def test_realdata_contour_dem_map_at_default_azimuths_is_within_0_05_points_of_a_brute_force(tmp_path, folder, name):
    # contour-derived DEMs have terraces: the ring profile kinks at every pixel line, the hard case for the map
    src = _need(REALDATA / folder / name)
    out = tmp_path / "s.tif"
    assert main([str(src), "--out", str(out), "--dem-z-units", "m", "--quiet"]) == 0
    m = read(out)
    with rasterio.open(src) as d:
        v = d.read(1).astype(np.float64)
        if d.nodata is not None:
            v[v == d.nodata] = np.nan
        px_ft = d.transform.a / 0.3048
    grid = ElevationGrid(v, (0.0, 1.0, 0.0, 0.0, 0.0, -1.0))
    r_px = 100.0 / px_ft
    t = np.radians(np.arange(36000) * 0.01)
    rng = np.random.default_rng(2)
    errs = []
    while len(errs) < 40:
        r, c = int(rng.integers(0, v.shape[0])), int(rng.integers(0, v.shape[1]))
        if np.isnan(m[r, c]):
            continue
        z0 = grid.sample_pixel(np.array([c + 0.5]), np.array([r + 0.5]))[0]
        z = grid.sample_pixel(c + 0.5 + r_px * np.sin(t), r + 0.5 - r_px * np.cos(t))
        errs.append(float(m[r, c]) - float(np.max(np.abs(z - z0))) / 0.3048)  # metres over 100 ft, percent
    assert max(abs(e) for e in errs) < 0.05
    assert max(errs) < 0.001  # never above the true maximum
