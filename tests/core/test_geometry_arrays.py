"""Geometries as an object array and their box (core.geometry_arrays, issue 39): the same as numpy's and shapely's own."""

from __future__ import annotations

import numpy as np
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st

from stormwater_plugin.core.geometry_arrays import geom_type, object_array, total_box

_coord = st.floats(-1e7, 1e7, allow_nan=False)
_geom = st.one_of(
    st.none(),
    st.just(shapely.Point()),
    st.builds(shapely.Point, _coord, _coord),
    st.builds(lambda x, y, w, h: shapely.box(x, y, x + w, y + h), _coord, _coord, st.floats(0, 1e4), st.floats(0, 1e4)),
    st.builds(lambda x, y: shapely.LineString([(x, y), (y, x)]), _coord, _coord),
)


@settings(max_examples=200, deadline=None)
@given(st.lists(_geom, min_size=1, max_size=8))
def test_the_box_of_geometries_is_shapelys_total_bounds_with_missing_and_empty_ones_among_them(geoms):
    want = shapely.total_bounds(np.array(geoms, dtype=object))
    got = total_box(geoms)
    assert np.array_equal(got, want, equal_nan=True)
    assert np.array_equal(total_box(object_array(geoms)), want, equal_nan=True)


def test_an_object_array_holds_the_geometries_themselves_and_an_object_array_is_taken_as_it_is():
    geoms = [shapely.Point(1, 2), None, shapely.box(0, 0, 1, 1)]
    arr = object_array(geoms)
    assert arr.dtype == object and arr.shape == (3,) and all(a is g for a, g in zip(arr, geoms))
    assert object_array(arr) is arr
    assert object_array(g for g in geoms).tolist() == geoms


_part = st.one_of(
    st.just(shapely.Point()),
    st.just(shapely.Polygon()),
    st.builds(shapely.Point, _coord, _coord),
    st.builds(lambda x, y: shapely.LineString([(x, y), (y, x)]), _coord, _coord),
    st.builds(lambda x, y, w: shapely.box(x, y, x + w, y + w), _coord, _coord, st.floats(1, 1e4)),
)
_with_parts = st.one_of(
    st.none(),
    _part,
    st.lists(st.builds(shapely.Point, _coord, _coord), min_size=1, max_size=3).map(shapely.MultiPoint),
    st.lists(_part, max_size=3).map(shapely.GeometryCollection),
    st.lists(_part, max_size=2).map(lambda ps: shapely.GeometryCollection([shapely.GeometryCollection(ps)])),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_with_parts, min_size=1, max_size=6))
def test_an_empty_part_or_a_collection_part_is_found_as_by_splitting_every_geometry(geoms):
    """core.geometry._has_empty_parts splits only the multi-part geometries: the same answer as splitting every one."""
    from stormwater_plugin.core.geometry import _has_empty_parts

    arr = np.array(geoms + [None], dtype=object)[:-1]
    parts = shapely.get_parts(arr)
    assert _has_empty_parts(arr) == (bool(shapely.is_empty(parts).any()) or bool((shapely.get_type_id(parts) == 7).any()))


_ANY_KIND = st.one_of(
    _geom.filter(lambda g: g is not None),
    st.sampled_from([shapely.LineString(), shapely.Polygon(), shapely.MultiPoint(), shapely.MultiLineString(), shapely.MultiPolygon(),
                     shapely.GeometryCollection(), shapely.LinearRing([(0, 0), (1, 0), (1, 1), (0, 0)]), shapely.LinearRing()]),
    st.builds(lambda x, y: shapely.MultiPoint([(x, y), (y, x)]), _coord, _coord),
    st.builds(lambda x, y: shapely.MultiLineString([[(x, y), (y, x)], [(0, 0), (1, 1)]]), _coord, _coord),
    st.builds(lambda x, y: shapely.MultiPolygon([shapely.box(x, y, x + 1, y + 1), shapely.box(x + 3, y, x + 4, y + 1)]), _coord, _coord),
    st.builds(lambda x, y: shapely.GeometryCollection([shapely.Point(x, y), shapely.box(0, 0, 1, 1)]), _coord, _coord),
)


@settings(max_examples=300, deadline=None)
@given(_ANY_KIND)
def test_a_geometrys_type_read_from_its_class_is_its_geom_type(geom):
    """``geom_type`` (the class's GEOS type name) is the geometry's own ``geom_type``, for every kind, empty ones, and those
    made by GEOS operations, WKB and the parts of a collection."""
    for g in (geom, shapely.from_wkb(shapely.to_wkb(geom)), shapely.normalize(geom), *shapely.get_parts(geom).tolist()):
        assert geom_type(g) == g.geom_type
