"""``contains_points`` (``core.points_in_polygon``) gives ``shapely.contains_xy``'s booleans, bit for bit (#39).

Polygons without holes (convex, concave, self-intersecting bow ties, rectangles, circles), polygons with holes and
other geometries, against points anywhere: inside, outside, on vertices, on edges (axis-aligned edges and midpoints of
any edge, where exact arithmetic matters) and on the extensions of edges through a vertex.
"""

from __future__ import annotations

import numpy as np
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st
from shapely.geometry import LineString, MultiPolygon, Point, Polygon, box

from stormwater_plugin.core.points_in_polygon import PREPARE_FROM, contains_points

_c = st.one_of(st.integers(-6, 6).map(float), st.floats(-6.0, 6.0, allow_nan=False))


@st.composite
def _polygon(draw):
    kind = draw(st.sampled_from(["ring", "ring", "box", "circle", "holed", "multi", "line"]))
    if kind == "box":
        x, y = draw(_c), draw(_c)
        return box(x, y, x + draw(st.floats(0.5, 5.0)), y + draw(st.floats(0.5, 5.0)))
    if kind == "circle":
        return Point(draw(_c), draw(_c)).buffer(draw(st.floats(0.5, 5.0)), 16)
    if kind == "holed":
        return Polygon(box(-5, -5, 5, 5).exterior.coords, [box(-2, -2, draw(st.floats(-1.0, 3.0)), 2).exterior.coords])
    if kind == "multi":
        return MultiPolygon([box(-5, -5, 0, 0), box(0, 0, 4, 4)])
    if kind == "line":
        return LineString([(-3, -3), (3, 3)])
    pts = draw(st.lists(st.tuples(_c, _c), min_size=3, max_size=9))
    return Polygon(pts)  # any ring: concave, self-intersecting, degenerate


@settings(max_examples=400, deadline=None)
@given(poly=_polygon(), pts=st.lists(st.tuples(_c, _c), min_size=0, max_size=40), seed=st.integers(0, 1000))
def test_points_inside_a_polygon_are_contains_xy_bit_for_bit(poly, pts, seed):
    coords = shapely.get_coordinates(poly)
    rng = np.random.default_rng(seed)
    extra = [tuple(c) for c in coords]  # the vertices
    if len(coords) > 1:
        a, b = coords[:-1], coords[1:]
        extra += [tuple(c) for c in (a + b) / 2.0]  # edge midpoints
        t = rng.uniform(-1.0, 2.0, len(a))[:, None]
        extra += [tuple(c) for c in a + t * (b - a)]  # on (or beside, after rounding) an edge's line
    xy = np.array(pts + extra + [(0.0, 0.0)] * PREPARE_FROM, dtype=np.float64).reshape(-1, 2)
    got = contains_points(poly, xy[:, 0], xy[:, 1])
    want = shapely.contains_xy(poly, xy[:, 0], xy[:, 1])
    assert got.dtype == want.dtype and got.tobytes() == want.tobytes()
    if poly.geom_type == "Polygon" and shapely.get_num_interior_rings(poly) == 0:  # the ring given by a caller that has it
        given_ring = contains_points(poly, xy[:, 0], xy[:, 1], ring=coords)
        assert given_ring.dtype == want.dtype and given_ring.tobytes() == want.tobytes()


def test_a_point_on_the_outline_is_not_inside_and_one_just_within_is():
    square = box(0.0, 0.0, 10.0, 10.0)
    x = np.array([0.0, 5.0, 10.0, 5.0, 1e-9, 5.0, -1e-9] + [5.0] * PREPARE_FROM)
    y = np.array([5.0, 0.0, 5.0, 10.0, 5.0, 5.0, 5.0] + [5.0] * PREPARE_FROM)
    assert contains_points(square, x, y).tolist()[:7] == [False, False, False, False, True, True, False]


def test_rectangles_as_geos_takes_them_and_rings_it_does_not_give_contains_xy_bit_for_bit():
    rings = [
        [(0, 0), (4, 0), (4, 3), (0, 3)],  # a box, counter-clockwise
        [(0, 0), (0, 3), (4, 3), (4, 0)],  # clockwise
        [(4, 3), (0, 3), (0, 0), (4, 0)],  # from another corner
        [(0, 0), (4, 0), (0, 0), (0, 3)],  # back and forth along two sides: every vertex a corner, each step one axis
        [(0, 0), (4, 0), (4, 0), (0, 3)],  # a repeated vertex: not a rectangle
        [(2, 0), (4, 2), (2, 4), (0, 2)],  # a square on its corner
        [(0, 0), (4, 0), (4, 3), (0, 3), (0, 1.5)],  # a box with a vertex mid-side
    ]
    g = np.arange(-1.0, 5.5, 0.5)
    x, y = np.tile(g, len(g)), np.repeat(g, len(g))
    for ring in rings:
        poly = Polygon(ring)
        assert contains_points(poly, x, y).tobytes() == shapely.contains_xy(poly, x, y).tobytes(), ring
