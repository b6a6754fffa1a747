"""A point's parcels found by the tree's ``within`` test are those whose interior it meets, as each parcel's relate found them.

``core.site_parcel._interior_hits`` asks the parcels' tree which parcels a finite point lies within (one test per candidate
inside the query) rather than relating each candidate to it: for a point, which has no boundary, lying within a parcel
(DE-9IM ``T*F**F***``) is its interior meeting the parcel's. The property holds it to the former formulation, kept here,
over points on the parcels' corners, edges, holes' edges, inside and outside, among overlapping lots, lots with holes and
lots in several parts.
"""

from __future__ import annotations

import math

import shapely
from hypothesis import given, settings
from hypothesis import strategies as st
from shapely.geometry import MultiPolygon, Point, Polygon, box

from stormwater_plugin.core.model import FeatureLayer
from stormwater_plugin.core.site_parcel import _interior_hits


def _former(parcels: FeatureLayer, geoms: list) -> list[tuple[int, ...]]:
    """The parcels whose interior each geometry meets, as found before: every candidate related to it."""
    tree = shapely.STRtree(parcels.geoms)
    return [tuple(sorted(int(j) for j in tree.query(g, predicate="intersects") if shapely.relate_pattern(parcels.geoms[int(j)], g, "T********")))
            for g in geoms]


_c = st.integers(-4, 24)  # corners on a unit grid: points at whole and half units fall on corners, edges and inside
_lot = st.tuples(_c, _c, st.integers(1, 12), st.integers(1, 12), st.sampled_from(["box", "box", "holed", "two parts", "rotated"]))


def _parcel(x: int, y: int, w: int, h: int, kind: str) -> object:
    outer = box(x, y, x + w, y + h)
    if kind == "holed" and w >= 3 and h >= 3:
        return Polygon(outer.exterior.coords, [box(x + 1, y + 1, x + w - 1, y + h - 1).exterior.coords])
    if kind == "two parts":
        return MultiPolygon([outer, box(x + w + 1, y, x + w + 3, y + 2)])
    if kind == "rotated":  # edges off the grid's axes: a point on them is found by the same robust test either way
        return Polygon([(x, y + h / 2), (x + w / 2, y), (x + w, y + h / 2), (x + w / 2, y + h)])
    return outer


_point = st.one_of(
    st.tuples(st.integers(-8, 56).map(lambda v: v / 2), st.integers(-8, 56).map(lambda v: v / 2)),
    st.tuples(st.floats(-5, 30, allow_nan=False), st.floats(-5, 30, allow_nan=False)),
)


@settings(max_examples=400, deadline=None)
@given(st.lists(_lot, min_size=1, max_size=6), st.lists(_point, min_size=1, max_size=8), st.booleans())
def test_a_points_parcels_found_within_by_the_tree_are_those_whose_interior_it_meets(lots, points, with_nan):
    parcels = FeatureLayer.from_sequences("parcels", [_parcel(*lot) for lot in lots], [f"P{k}" for k in range(len(lots))], [{} for _ in lots])
    geoms = [Point(x, y) for x, y in points]
    if with_nan:  # a coordinate not finite: a box meeting no parcel's, no candidate either way
        geoms += [Point(math.nan, 3.0), Point(3.0, math.inf), Point(-math.inf, math.nan)]
    assert _interior_hits(parcels, geoms) == _former(parcels, geoms)


def test_a_point_on_a_lots_edge_or_corner_is_in_no_lot_and_one_inside_is_in_each_lot_holding_it():
    parcels = FeatureLayer.from_sequences("parcels", [box(0, 0, 10, 10), box(10, 0, 20, 10), box(5, 5, 15, 15)], ["A", "B", "C"], [{}, {}, {}])
    geoms = [Point(10, 3), Point(10, 10), Point(0, 0), Point(3, 3), Point(12, 7), Point(10, 7)]
    assert _interior_hits(parcels, geoms) == [(), (2,), (), (0,), (1, 2), (2,)]
    assert _interior_hits(parcels, geoms) == _former(parcels, geoms)
