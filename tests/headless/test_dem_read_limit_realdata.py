"""The real DEMs beside the repository read whole under the one pixel limit (services.dem_read.MAX_PIXELS)."""

from __future__ import annotations

from pathlib import Path

import pytest

from stormwater_plugin.headless.dem import DemFile, read_dem
from stormwater_plugin.services.dem_read import MAX_PIXELS, PAD_PIXELS

REALDATA = Path(__file__).resolve().parents[2].parent / "shared" / "realdata"
DEMS = ["north-collins-ny/dem_from_iso-1m_contours_2m_DERIVED.tif", "east-chatham-ny/dem_from_iso-10ft_contours_2.5m_DERIVED.tif",
        "eno-river-nc/enogeo.tif", "terre-haute-in/dem-hills.tiff"]

pytestmark = pytest.mark.realdata


@pytest.mark.parametrize("name", DEMS)
def test_a_real_dem_read_whole_is_under_the_pixel_limit(name):
    path = REALDATA / name
    if not path.exists():
        pytest.skip(f"real data {path} is absent (it ships beside the repo as ../shared/realdata)")
    with DemFile(path) as dem:
        rows, cols = dem.shape
        grid, warnings = read_dem(dem, dem.crs, "m")
    assert (rows + 2 * PAD_PIXELS) * (cols + 2 * PAD_PIXELS) < MAX_PIXELS
    assert grid is not None and grid.shape == (rows, cols)
    assert not [w for w in warnings if w.code == "dem_too_large"]
