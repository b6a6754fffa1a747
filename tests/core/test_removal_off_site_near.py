"""The removal on parcels off the site is measured on the union of those whose box meets the removal's box (county layers).

A parcel whose box misses the removal's box shares no point with it: the removal's part off the site, and its area, are
those measured on the union of every parcel off the site (the former reading), which a county's parcels make slow.
"""

from __future__ import annotations

import math

import shapely
from hypothesis import given, settings
from hypothesis import strategies as st

from stormwater_plugin.core.checks.vegetation import _off_site, _others_near
from stormwater_plugin.core.geometry import union
from stormwater_plugin.core.geometry_arrays import object_array
from stormwater_plugin.core.model import FeatureLayer


def _parcels(n: int, size: float, angle: float) -> FeatureLayer:
    c, s = math.cos(math.radians(angle)), math.sin(math.radians(angle))
    geoms = [shapely.affinity.affine_transform(shapely.box(j * size, i * size, (j + 1) * size, (i + 1) * size), [c, -s, s, c, 1000.0, 2000.0])
             for i in range(n) for j in range(n)]
    return FeatureLayer("parcels", object_array(geoms), [f"P{k}" for k in range(len(geoms))], [{"id": f"P{k}"} for k in range(len(geoms))])


@settings(max_examples=150, deadline=None)
@given(st.integers(2, 7), st.floats(30.0, 300.0), st.floats(0.0, 90.0), st.data())
def test_removal_off_the_site_on_the_parcels_its_box_meets_is_that_on_every_parcel_off_the_site(n, size, angle, data):
    parcels = _parcels(n, size, angle)
    site = tuple(sorted({f"P{data.draw(st.integers(0, n * n - 1))}" for _ in range(data.draw(st.integers(1, 3)))}))
    cx, cy = data.draw(st.floats(900.0, 1000.0 + n * size)), data.draw(st.floats(1900.0, 2000.0 + n * size))
    cleared = shapely.Point(cx, cy).buffer(data.draw(st.floats(1.0, 2 * size)), quad_segs=4)
    lots = [g for g, i in zip(parcels.geoms, parcels.ids) if i in site]
    near = [g.buffer(data.draw(st.sampled_from([0.0, 5.0]))) for g in lots]
    every = union([g for g, i in zip(parcels.geoms, parcels.ids) if i not in site])
    _, area_every = _off_site(cleared, near, every, 1.0)
    _, area_near = _off_site(cleared, near, _others_near(parcels, site, cleared.bounds), 1.0)
    assert (area_every is None) == (area_near is None)
    if area_every is not None and area_near is not None:
        assert math.isclose(area_every, area_near, rel_tol=1e-9, abs_tol=1e-9)


def test_others_near_skips_the_site_and_the_parcels_whose_box_misses_the_removals():
    parcels = _parcels(4, 100.0, 0.0)
    got = _others_near(parcels, ("P0",), (1000.0 + 50, 2000.0 + 50, 1000.0 + 150, 2000.0 + 60))
    assert shapely.equals(got, parcels.geoms[1])  # P0 is the site; P1 meets the box; the others miss it
