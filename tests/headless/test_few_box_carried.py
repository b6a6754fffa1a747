"""A few geometries' box and centre kept by the geometry objects (``services.working_crs.few_box`` and ``site_centre``, issue 39).

The live re-check boxes the site parcel at every read (the scale factor's centre, the DEM window's siting part); the parcel is
the same object from read to read, and a geometry is never changed. The property: whatever geometries are asked, in any order,
the same objects again or others (of the same content or not, some missing or empty), the kept answer equals the one computed
anew.
"""

from __future__ import annotations

import math

import hypothesis.strategies as st
from hypothesis import given, settings
from shapely.geometry import LineString, Point, Polygon, box

from stormwater_plugin.core.geometry_arrays import total_box
from stormwater_plugin.services import working_crs
from stormwater_plugin.services.working_crs import _centre, few_box, site_centre

_COORD = st.floats(-1e7, 1e7, allow_nan=False)
_GEOM = st.one_of(
    st.none(),
    st.just(Polygon()),
    st.builds(Point, _COORD, _COORD),
    st.builds(lambda x, y, w, h: box(x, y, x + w, y + h), _COORD, _COORD, st.floats(0.0, 1e3), st.floats(0.0, 1e3)),
    st.builds(lambda x, y: LineString([(x, y), (x + 1.0, float("nan"))]), _COORD, _COORD),
)


def _same(a, b) -> bool:
    if a is None or b is None:
        return a is b
    return all((x == y) or (math.isnan(x) and math.isnan(y)) for x, y in zip(a, b))


def _box(geoms):
    if not geoms:
        return None
    b = total_box(geoms)
    return tuple(float(v) for v in b)


@settings(max_examples=300, deadline=None)
@given(st.lists(_GEOM, max_size=12), st.lists(st.tuples(st.integers(0, 11), st.booleans()), max_size=10))
def test_a_few_geometries_box_and_centre_kept_by_the_objects_equal_those_computed_anew(pool, asks):
    working_crs._FEW.clear()
    for size, fresh in asks:
        geoms = pool[:size]
        if fresh:  # other objects of the same content (a new read's), or the pool's own again
            geoms = [None if g is None else type(g)(g) if not g.is_empty else Polygon() for g in geoms]
        present = [g for g in geoms if g is not None]
        assert _same(few_box(present), _box(present))
        assert _same(site_centre(geoms), _centre(geoms))
        assert _same(site_centre(geoms), _centre(geoms))  # asked again: the kept one


def test_the_same_parcel_object_is_boxed_once():
    parcel = box(0, 0, 100, 50)
    calls = []
    working_crs._FEW.clear()
    real = working_crs.total_box
    try:
        working_crs.total_box = lambda g: calls.append(1) or real(g)  # type: ignore[assignment]
        assert few_box([parcel]) == few_box([parcel]) == (0.0, 0.0, 100.0, 50.0)
        assert site_centre([parcel]) == site_centre([parcel]) == (50.0, 25.0)
    finally:
        working_crs.total_box = real  # type: ignore[assignment]
    assert len(calls) == 2  # one box, one centre; then kept
    assert few_box([box(0, 0, 100, 50)]) == (0.0, 0.0, 100.0, 50.0)  # another object of the same content: computed, the same
