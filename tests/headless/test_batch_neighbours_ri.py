"""Real data: 500 ft neighbour lists of the 3,514 Rhode Island parcels, all at once, against the notification check."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from stormwater_plugin.core.checks.notification import neighbour_parcels
from stormwater_plugin.core.model import FeatureLayer
from stormwater_plugin.core.neighbours import neighbours_within, split_by_first

REALDATA = Path(__file__).resolve().parents[2].parent / "shared" / "realdata"
PARCELS = REALDATA / "rhode-island" / "RI_Parcels_Rhode_Island.gpkg"

pytestmark = pytest.mark.realdata


@pytest.fixture(scope="module")
def ri() -> tuple[np.ndarray, float]:
    if not PARCELS.exists():
        pytest.skip(f"real data {PARCELS} is absent (it ships beside the repo as ../shared/realdata)")
    import geopandas as gpd

    from stormwater_plugin.core.units import feet_per_unit
    from stormwater_plugin.headless.crs import PYPROJ
    from stormwater_plugin.services import site_crs

    frame = gpd.read_file(PARCELS).set_crs(4326, allow_override=True)  # "undefined geographic SRS" on WGS 84, lon/lat values
    centre = site_crs.boxes_lonlat(PYPROJ, [(frame.total_bounds, frame.crs)])  # the centre of all the data
    crs, _ = site_crs.working_crs(PYPROJ, None, lambda: centre)
    unit_to_ft = feet_per_unit(float(crs.axis_info[0].unit_conversion_factor)) / site_crs.scale_at_lonlat(PYPROJ, crs, centre)
    return np.asarray(frame.to_crs(crs).geometry.values, dtype=object), unit_to_ft


def test_every_parcels_list_matches_the_notification_check(ri: tuple[np.ndarray, float]) -> None:
    import shapely

    geoms, unit_to_ft = ri
    assert len(geoms) == 3514
    i, j, d = neighbours_within(geoms, 500.0 / unit_to_ft)
    lists = split_by_first(i, j, d, len(geoms))
    layer = FeatureLayer.from_sequences("parcels", list(geoms), [str(k) for k in range(len(geoms))])
    for k in np.random.default_rng(3).choice(len(geoms), 25, replace=False):
        expected = {int(n.id): n.distance_ft for n in neighbour_parcels(layer, [int(k)], 500.0, 1.0, unit_to_ft)}
        got = dict(zip(lists[k][0].tolist(), (lists[k][1] * unit_to_ft).tolist()))
        assert got.keys() == expected.keys()
        assert all(abs(got[m] - expected[m]) < 1e-6 for m in got)
    # A buffer-and-intersect list can only miss pairs, just under 500 ft: the buffer's chords
    # (8 segments a quadrant: up to 2.4 ft) and GEOS's input simplification (up to 1% of the distance).
    tree = shapely.STRtree(geoms)
    bi, bj = tree.query(shapely.buffer(geoms, 500.0 / unit_to_ft), predicate="intersects")
    naive = set(zip(bi[bi != bj].tolist(), bj[bi != bj].tolist()))
    exact = set(zip(i.tolist(), j.tolist()))
    assert naive <= exact
    a, b = np.array(sorted(exact - naive)).T
    missed = shapely.distance(geoms[a], geoms[b]) * unit_to_ft
    assert 0 < len(missed) < 0.01 * len(exact)
    assert np.all((missed >= 495.0) & (missed <= 500.0))
