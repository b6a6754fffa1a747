"""The parcels layer's coverage edge (the 500 ft list's note) is the hull of the parcels' own vertices, not of their union.

A union keeps every extreme vertex of its parts and adds only points on their edges, so both hulls are one (but for points
of either, within rounding of a hull edge, that the other has not: parcels in a row along the layer's edge); the union of
a county's parcels costs seconds to minutes. The property holds the sides named to those the union's hull names, over
generated lots: a grid of parcels of random sizes, turned, with gaps, overlaps and shared edges.
"""

from __future__ import annotations

import math

import numpy as np
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st

from stormwater_plugin.core.checks import notification
from stormwater_plugin.core.checks.notification import coverage_edge_sides


def _former(parcel_geoms, site, reach_units):
    """The former reading: the convex hull of the parcels' union."""
    real = shapely.convex_hull
    try:
        shapely_hull = lambda g: real(shapely.union_all(shapely.get_parts(g)))  # noqa: E731 - the hull of the points' parcels' union
        notification.shapely.convex_hull = shapely_hull  # type: ignore[attr-defined]
        return coverage_edge_sides(parcel_geoms, site, reach_units)
    finally:
        notification.shapely.convex_hull = real  # type: ignore[attr-defined]


def _union_hull(geoms):
    return shapely.convex_hull(shapely.union_all(geoms))


def _points_hull(geoms):
    return shapely.convex_hull(shapely.multipoints(shapely.get_coordinates(np.asarray(geoms, dtype=object))))


@st.composite
def _lots(draw):
    rows, cols = draw(st.integers(1, 5)), draw(st.integers(1, 5))
    size = draw(st.floats(20.0, 400.0))
    gap = draw(st.sampled_from([0.0, 0.0, 1.5, -3.0]))  # shared edges, a road between, overlapping lots
    angle = draw(st.floats(0.0, 360.0))
    x0, y0 = draw(st.floats(-1e6, 1e6)), draw(st.floats(-1e6, 1e6))
    out = []
    for i in range(rows):
        for j in range(cols):
            if rows * cols > 1 and draw(st.integers(0, 5)) == 0:
                continue  # a lot missing (a hole in the coverage)
            w = size * draw(st.floats(0.5, 1.5))
            out.append(shapely.box(j * (size + gap), i * (size + gap), j * (size + gap) + w, i * (size + gap) + size))
    out = out or [shapely.box(0, 0, size, size)]
    c, s = math.cos(math.radians(angle)), math.sin(math.radians(angle))
    return [shapely.affinity.affine_transform(g, [c, -s, s, c, x0, y0]) for g in out]


@settings(max_examples=300, deadline=None)
@given(_lots(), st.data(), st.floats(10.0, 2000.0))
def test_coverage_edge_sides_from_the_parcels_vertices_name_the_sides_their_unions_hull_names(lots, data, reach):
    site = lots[data.draw(st.integers(0, len(lots) - 1))]
    a, b = _points_hull(lots), _union_hull(lots)  # one hull, up to the rounding of the union's points on a hull edge
    assert shapely.symmetric_difference(a, b).area <= 1e-9 * max(a.area, 1.0)
    assert coverage_edge_sides(lots, site, reach) == _former(lots, site, reach)


def test_coverage_edge_sides_of_a_site_on_the_layers_edge_name_that_edge():
    """A site on the layer's edge (distance 0) names the side by the edge's outward normal: GEOS writes a hull clockwise,
    so the normal of a counter-clockwise ring is turned (it named the opposite side: ``np.False_ is False`` is false)."""
    lots = [shapely.box(x, y, x + 100, y + 100) for x in range(0, 500, 100) for y in range(0, 500, 100)]
    for site, side in ((shapely.box(400, 200, 500, 300), "east"), (shapely.box(0, 200, 100, 300), "west"),
                       (shapely.box(200, 400, 300, 500), "north"), (shapely.box(200, 0, 300, 100), "south")):
        assert coverage_edge_sides(lots, site, 50.0) == [side]
        assert coverage_edge_sides(lots[::-1], site, 50.0) == [side]  # any feature order
    assert coverage_edge_sides(lots, shapely.box(200, 200, 300, 300), 50.0) == []
    assert coverage_edge_sides(lots, shapely.box(210, 360, 290, 390), 120.0) == ["north"]  # 110 ft off the edge: by the bearing
