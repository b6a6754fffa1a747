"""The DEM read decided once (services.dem_read, issue 38): what a backend's band primitives become, without a file library."""

from __future__ import annotations

import pickle
from dataclasses import dataclass, field

import numpy as np
import pytest

from stormwater_plugin.core.dem_policy import NotAnElevationBand
from stormwater_plugin.core.dem_source import PixelWindow
from stormwater_plugin.core.units import FT_PER_METRE
from stormwater_plugin.services import dem_read
from stormwater_plugin.services.dem_read import (
    PAD_PIXELS,
    BandDemSource,
    cell_size_ft,
    dem_unit,
    pixel_window,
    read_grid,
    refuse_non_dem,
)

#: The command line's words for declaring the unit (a front end's, only in a declared unit's note).
HOW = "--dem-z-units"


@dataclass
class FakeBand:
    """A band in memory with the primitives a backend gives (raw values; 1 m pixels from (1000, 2000) down)."""

    values: np.ndarray
    geotransform: tuple[float, float, float, float, float, float] = (1000.0, 1.0, 0.0, 2000.0, 0.0, -1.0)
    unit_m: float | None = 1.0
    declared_unit: str | None = "metre"
    nodata: float | None = None
    scale: float = 1.0
    offset: float = 0.0
    band_count: int = 1
    dtype: str = "float32"
    colour: list[str] = field(default_factory=lambda: ["gray"])
    has_palette: bool = False
    name: str = "fake.tif"
    crs: object = "EPSG:32618"
    crs_name: str = "EPSG:32618"
    cell_ft: float = 1.0 * FT_PER_METRE
    unreadable: bool = False

    @property
    def shape(self) -> tuple[int, int]:
        return self.values.shape[0], self.values.shape[1]

    def read(self, window: PixelWindow) -> np.ndarray | None:
        if self.unreadable:
            return None
        return self.values[window.row0 : window.row1, window.col0 : window.col1]


def _band(**kw: object) -> FakeBand:
    return FakeBand(np.full((100, 100), 250.0), **kw)  # type: ignore[arg-type]


def test_a_box_inside_the_raster_reads_its_pixels_plus_the_pad():
    band = _band()
    assert pixel_window(band, (1010.5, 1950.0, 1020.0, 1960.2)) == PixelWindow(39, 10, 11, 10)
    assert pixel_window(band, (1010.5, 1950.0, 1020.0, 1960.2), pad=2) == PixelWindow(37, 8, 15, 14)


def test_a_box_on_a_pixel_edge_reads_no_extra_pixel_and_one_past_it_one_more():
    band = _band()
    assert pixel_window(band, (1010.0, 1950.0, 1020.0, 1960.0)).cols == 10
    assert pixel_window(band, (1010.0, 1950.0, 1020.1, 1960.0)).cols == 11


def test_a_box_beyond_the_raster_is_clipped_and_one_missing_it_reads_nothing():
    band = _band()
    assert pixel_window(band, (990.0, 1890.0, 1010.0, 2010.0), pad=2) == PixelWindow(0, 0, 100, 12)
    assert pixel_window(band, (1100.0, 1950.0, 1200.0, 1960.0)) is None
    assert pixel_window(band, None) == PixelWindow(0, 0, 100, 100)


def test_a_dem_missing_the_site_gives_every_front_end_a_grid_of_nodata_and_one_warning():
    """Not its corner (the command line's before), not no grid (the plugin's, read as "no DEM was supplied"): a grid of
    nodata over the box on the DEM's pixel grid, so every finding reading it is undetermined (the DEM has no data there)."""
    band = _band()
    warnings: list = []
    grid = read_grid(band, (5000.0, 5000.0, 5010.0, 5010.0), dem_unit(band, None, HOW), warnings)
    assert grid is not None and grid.shape == (14, 14) and not np.isfinite(grid.values).any()
    assert grid.geotransform[0] == 4998.0 and grid.geotransform[3] == 5012.0  # the box plus the pad, on the DEM's pixel grid
    assert np.isnan(grid.sample_point(5005.0, 5005.0))
    assert [w.code for w in warnings] == ["dem_outside"]
    assert warnings[0].layer == "dem" and "fake.tif does not cover the site" in warnings[0].message


@pytest.mark.parametrize(("x0", "covered"), [(1099.9, True), (1100.0, True), (1100.1, False)], ids=["edge-0.1px", "edge", "edge+0.1px"])
def test_a_box_touching_the_raster_edge_is_covered_and_one_a_tenth_of_a_pixel_beyond_it_is_not(x0, covered):
    """The raster's right edge is x = 1100: a box from there on meets it (sampled from the edge pixels); 0.1 pixel past, it misses."""
    band = _band()
    warnings: list = []
    grid = read_grid(band, (x0, 1950.0, x0 + 10.0, 1960.0), dem_unit(band, None, HOW), warnings)
    assert grid is not None
    assert ("dem_outside" in [w.code for w in warnings]) is not covered
    assert bool(np.isfinite(grid.values).any()) is covered


@pytest.mark.parametrize(("limit", "read"), [(197, True), (196, True), (195, False)], ids=["limit-1px", "limit", "limit+1px"])
def test_every_front_end_reads_a_window_up_to_the_pixel_limit_and_none_over_it(monkeypatch, limit, read):
    """One limit (MAX_PIXELS) for every front end: a 14 x 14 window (10 x 10 and the pad) is read whole at a limit of
    197 and 196 pixels, and not at all (never coarser) at 195, warned with the limit and the box to clip the DEM to."""
    monkeypatch.setattr(dem_read, "MAX_PIXELS", limit)
    band = _band()
    warnings: list = []
    grid = read_grid(band, (1010.0, 1950.0, 1020.0, 1960.0), dem_unit(band, None, HOW), warnings)
    if read:
        assert grid is not None and grid.shape == (14, 14) and np.isfinite(grid.values).all() and not warnings
        return
    assert grid is None and [w.code for w in warnings] == ["dem_too_large"] and warnings[0].layer == "dem"
    msg = warnings[0].message
    assert "14 x 14 pixels, more than the 195 read at once" in msg and "never resampled" in msg
    assert "gdal_translate -projwin 1010.00 1960.00 1020.00 1950.00 fake.tif clipped.tif" in msg and "EPSG:32618" in msg


def test_the_whole_dem_over_the_limit_says_a_rule_of_unlimited_reach_needs_it(monkeypatch):
    monkeypatch.setattr(dem_read, "MAX_PIXELS", 100 * 100 - 1)
    band = _band()
    warnings: list = []
    assert read_grid(band, None, dem_unit(band, None, HOW), warnings) is None
    assert [w.code for w in warnings] == ["dem_too_large"] and "unlimited reach needs the whole DEM" in warnings[0].message


def test_the_pixel_limit_is_sixteen_million():
    assert dem_read.MAX_PIXELS == 16_000_000


def test_the_grid_sits_on_the_raster_pixels_with_the_unit_decided():
    band = _band(declared_unit="foot")
    grid = read_grid(band, (1010.5, 1950.0, 1020.0, 1960.2), dem_unit(band, None, HOW), [])
    assert grid is not None and grid.geotransform == (1008.0, 1.0, 0.0, 1963.0, 0.0, -1.0)  # the 2-pixel pad
    assert grid.z_unit_declared and grid.z_to_ft == 1.0 and grid.cell_size_ft == pytest.approx((FT_PER_METRE, FT_PER_METRE))


@pytest.mark.parametrize(("box", "after"), [
    ((1010.0, 1950.0, 1020.0, 1960.0), []),
    ((5000.0, 5000.0, 5010.0, 5010.0), ["dem_outside"]),
], ids=["covered", "missing"])
def test_an_undeclared_unit_is_warned_first_whatever_the_window_gives(box, after):
    """One order for every front end: the unit assumed (the file's) before anything the window says; the command line
    said it after a DEM missing the site, the plugin before."""
    band = _band(declared_unit=None)
    warnings: list = []
    read_grid(band, box, dem_unit(band, None, HOW), warnings)
    assert [w.code for w in warnings] == ["dem_z_unit_assumed", *after]


def test_an_undeclared_unit_is_warned_even_when_the_window_is_not_read(monkeypatch):
    monkeypatch.setattr(dem_read, "MAX_PIXELS", 195)
    band = _band(declared_unit=None)
    warnings: list = []
    assert read_grid(band, (1010.0, 1950.0, 1020.0, 1960.0), dem_unit(band, None, HOW), warnings) is None
    assert [w.code for w in warnings] == ["dem_z_unit_assumed", "dem_too_large"]


def test_a_declared_unit_note_names_the_front_ends_words_and_nothing_else_differs():
    band = _band(declared_unit=None)
    file_warnings: list = []
    plugin_warnings: list = []
    file_grid = read_grid(band, (1010.0, 1950.0, 1020.0, 1960.0), dem_unit(band, "ft", HOW), file_warnings)
    plugin_grid = read_grid(band, (1010.0, 1950.0, 1020.0, 1960.0), dem_unit(band, "ft", "the plugin's setting"), plugin_warnings)
    assert file_grid is not None and plugin_grid is not None and file_warnings == plugin_warnings == []
    assert "--dem-z-units" in file_grid.z_unit_note and "the plugin's setting" in plugin_grid.z_unit_note
    assert file_grid.geotransform == plugin_grid.geotransform and np.array_equal(file_grid.values, plugin_grid.values)


def test_a_declared_unit_wins_over_the_file_and_the_scale_is_said():
    band = _band(declared_unit="foot", scale=0.5, offset=10.0)
    zu = dem_unit(band, "m", HOW)
    assert zu.unit == "m" and zu.declared and "band scale 0.5 and offset 10 applied" in zu.note


def test_fill_values_and_the_declared_nodata_are_nodata_and_counted():
    values = np.full((10, 10), 250.0)
    values[0, 0] = -9999.0  # a fill value the file does not declare
    values[1, 1] = -1.0  # the declared nodata
    band = FakeBand(values, nodata=-1.0)
    warnings: list = []
    grid = read_grid(band, None, dem_unit(band, None, HOW), warnings)
    assert grid is not None and np.isnan(grid.values[0, 0]) and np.isnan(grid.values[1, 1]) and np.isfinite(grid.values).sum() == 98
    fill = [w for w in warnings if w.code == "dem_fill_values"]
    assert len(fill) == 1 and "1 pixel(s) hold a fill value (-9999)" in fill[0].message
    assert fill[0].layer == "dem"  # every front end's fill-value warning names the DEM layer (the command line named none)


def test_an_unreadable_window_gives_no_grid_and_a_warning():
    band = _band(unreadable=True)
    warnings: list = []
    assert read_grid(band, None, dem_unit(band, None, HOW), warnings) is None
    assert [w.code for w in warnings] == ["dem_unreadable"]


def test_a_three_band_raster_is_refused_by_name():
    with pytest.raises(NotAnElevationBand, match="ortho.tif: 3 bands"):
        refuse_non_dem(_band(band_count=3, colour=["red", "green", "blue"]), "ortho.tif")


@pytest.mark.parametrize("lat", [0.0, 35.9, 42.6, 60.0])
def test_a_degree_pixel_is_measured_on_the_ellipsoid(lat):
    """The closed form agrees with the geodesic (pyproj's Geod on GRS80) to 1e-9 for pixels of an arc-second."""
    pyproj = pytest.importorskip("pyproj")
    d = 1.0 / 3600.0
    w, h = cell_size_ft(None, (-78.0, d, 0.0, lat, 0.0, -d))
    geod = pyproj.Geod(ellps="GRS80")
    w_m = geod.inv(-78.0, lat, -78.0 + d, lat)[2]
    h_m = geod.inv(-78.0, lat, -78.0, lat - d)[2]
    assert w == pytest.approx(w_m * FT_PER_METRE, rel=1e-9) and h == pytest.approx(h_m * FT_PER_METRE, rel=1e-9)


def test_the_windowed_source_reads_the_band_cleaned_and_pickles():
    values = np.full((50, 50), 250.0)
    values[10, 10] = -9999.0
    band = FakeBand(values)
    grid = read_grid(band, (1005.0, 1955.0, 1015.0, 1965.0), dem_unit(band, None, HOW), [])
    assert grid is not None
    source = pickle.loads(pickle.dumps(BandDemSource(band, grid)))
    win = source.read(source.whole())
    assert win is not None and win.shape == (50, 50) and np.isnan(win.values[10, 10]) and source.cleaned.fill == 1
    assert win.z_to_ft == grid.z_to_ft and win.cell_size_ft == grid.cell_size_ft


def _read_window(band: FakeBand, box: tuple[float, float, float, float]) -> tuple[float, ...]:
    grid = read_grid(band, box, dem_unit(band, None, HOW), [])
    assert grid is not None
    return grid.geotransform[0], grid.geotransform[3], float(grid.shape[0]), float(grid.shape[1])


def test_every_front_end_reads_the_pad_of_two_pixels_around_the_box():
    """One pad for every front end: the box's pixels plus PAD_PIXELS (2) on each side."""
    band = _band()
    assert PAD_PIXELS == 2
    # a box on pixel edges (10 x 10 pixels): 2 more on each side
    assert _read_window(band, (1010.0, 1950.0, 1020.0, 1960.0)) == (1008.0, 1962.0, 14.0, 14.0)
    # 0.1 pixel past an edge: that pixel, then the pad
    assert _read_window(band, (1010.0, 1950.0, 1020.1, 1960.0)) == (1008.0, 1962.0, 14.0, 15.0)


def test_the_pad_stops_at_the_raster_edge():
    """A box 1 pixel inside the raster's corner gets 1 pixel of pad there (the raster's), 2 on the other sides."""
    band = _band()
    assert _read_window(band, (1001.0, 1990.0, 1010.0, 1999.0)) == (1000.0, 2000.0, 12.0, 12.0)
    assert _read_window(band, (1000.0, 1990.0, 1010.0, 2000.0)) == (1000.0, 2000.0, 12.0, 12.0)


def _bulge(peak: float):
    """Working CRS to the DEM's: identity, but x pushed 10 m east at y = ``peak`` (a bent edge, 0 a few metres off it)."""
    def carry(x, y):
        x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
        return x + 10.0 * np.exp(-(((y - peak) / 2.0) ** 2)), y

    return carry


def test_the_dem_window_is_carried_with_its_edges_sampled_so_a_bent_edge_is_read():
    """services.dem_read.read_area, for every front end (placement_layers.carried_box): the box's right edge bulges 10 m east
    at a tenth of its height, where eight points (corners and edge midpoints, the command line's) saw no bulge."""
    band = _band()
    area = (1010.0, 1910.0, 1020.0, 1990.0)  # y from 1910 to 1990: a tenth of the way is 1918
    unit = dem_unit(band, None, HOW)
    grid = dem_read.read_area(band, area, unit, [], to_raster=_bulge(1918.0), from_raster=lambda x, y: (x, y), same_crs=False)
    assert grid is not None
    right = grid.geotransform[0] + grid.values.shape[1] * grid.geotransform[1]
    assert right >= 1030.0 - 1e-9  # 1020 + the 10 m bulge


def test_a_dem_window_that_cannot_be_carried_reads_no_grid_never_the_whole_dem():
    band = _band()
    warnings: list = []

    def unmapped(x, y):
        return np.full(np.shape(x), np.nan), np.asarray(y, dtype=float)

    assert dem_read.read_area(band, (1010.0, 1950.0, 1020.0, 1960.0), dem_unit(band, None, HOW), warnings, to_raster=unmapped) is None
    assert [w.code for w in warnings] == ["dem_unreadable"]
