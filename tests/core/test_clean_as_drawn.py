"""The cleaning's fast path asked per geometry, kept by content, a 2D point read from its WKB (the live re-check, issue 39):
the same decision as the layer's vectorised checks."""

from __future__ import annotations

import shapely
from hypothesis import given, settings
from hypothesis import strategies as st

from stormwater_plugin.core.derived import Derived, using
from stormwater_plugin.core.geometry import _fine_as_drawn, _has_empty_parts, clean_layer
from stormwater_plugin.core.geometry_arrays import object_array
from stormwater_plugin.core.model import FeatureLayer

_GEOMS = [
    shapely.Point(612345.5, 4812345.25), shapely.Point(0.0, -0.0), shapely.Point(), shapely.Point(1.0, 2.0, 3.0),
    shapely.Point(float("inf"), 2.0), shapely.box(0, 0, 3, 2), shapely.Polygon([(0, 0), (2, 2), (2, 0), (0, 2)]),
    shapely.from_wkt("MULTIPOLYGON (((0 0, 1 0, 1 1, 0 0)), EMPTY)"), shapely.from_wkt("MULTIPOINT (EMPTY, (1 1))"),
    shapely.from_wkt("MULTIPOINT ((1 1), (2 2))"), shapely.MultiPolygon([shapely.box(0, 0, 1, 1), shapely.box(3, 3, 4, 4)]),
    shapely.LineString([(0, 0), (5, 5)]), shapely.LineString([(0, 0), (0, 0)]), shapely.from_wkt("GEOMETRYCOLLECTION (POINT (1 1))"),
    shapely.from_wkt("GEOMETRYCOLLECTION (GEOMETRYCOLLECTION (POINT (1 1)), POINT (2 2))"), shapely.Polygon(),
    shapely.from_wkt("POLYGON Z ((0 0 1, 1 0 1, 1 1 1, 0 0 1))"),
]


def _former(expected, geoms) -> bool:
    arr = object_array(geoms)
    fine = ~shapely.is_empty(arr) & ~shapely.has_z(arr) & shapely.is_valid(arr)
    if expected == "polygon":
        types = shapely.get_type_id(arr)
        fine &= (types == 3) | (types == 6)
    return bool(fine.all()) and not _has_empty_parts(arr)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(range(len(_GEOMS))), min_size=1, max_size=6), st.sampled_from(["polygon", "point", "line", None]))
def test_each_geometry_fine_as_drawn_decides_as_the_layers_checks(picks, expected):
    """All of the per-geometry answers hold exactly when the layer's vectorised checks pass, in a new check and a later one."""
    geoms = [_GEOMS[k] for k in picks]
    earlier = Derived()
    assert all(_fine_as_drawn(earlier, expected, geoms)) == _former(expected, geoms)
    earlier.settle()
    later = Derived(earlier)
    assert all(_fine_as_drawn(later, expected, list(reversed(geoms)))) == _former(expected, geoms)
    later.settle()
    other = "polygon" if expected != "polygon" else None  # the kept answers are the family's: another family's are its own
    assert all(_fine_as_drawn(Derived(later), other, geoms)) == _former(other, geoms)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from([k for k in range(len(_GEOMS)) if k != 4]), min_size=1, max_size=5),  # GEOS cannot repair an infinite point
       st.sampled_from(["devices", "disturbance", "streams", "wells"]))
def test_a_layer_cleaned_in_a_check_is_the_layer_cleaned_alone(picks, role):
    """clean_layer in a check (its fast path per geometry) gives the layer and the warnings it gives with no check in use."""
    geoms = [_GEOMS[k] for k in picks]
    layer = FeatureLayer.from_sequences(role, geoms, [f"F{n}" for n in range(len(geoms))], [{} for _ in geoms])
    alone_w: list = []
    alone = clean_layer(layer, alone_w)
    in_w: list = []
    with using(Derived()):
        inside = clean_layer(layer, in_w)
    assert [shapely.to_wkb(g) for g in inside.geoms] == [shapely.to_wkb(g) for g in alone.geoms]
    assert inside.ids == alone.ids and inside.no_geometry == alone.no_geometry
    assert [(w.code, w.message, w.ids) for w in in_w] == [(w.code, w.message, w.ids) for w in alone_w]


# --- A geometry's type id read from its class (the live re-check, issue 39)

_MORE = [
    shapely.from_wkt("LINESTRING EMPTY"), shapely.from_wkt("MULTIPOLYGON EMPTY"), shapely.from_wkt("GEOMETRYCOLLECTION EMPTY"),
    shapely.from_wkt("MULTIPOINT (EMPTY)"), shapely.from_wkt("GEOMETRYCOLLECTION (POINT EMPTY)"), shapely.LinearRing([(0, 0), (1, 0), (1, 1)]),
    shapely.points([float("nan"), float("nan")]), shapely.points([float("nan"), 1.0]), shapely.from_wkt("POINT Z (1 2 3)"),
    shapely.from_wkt("LINESTRING Z (0 0 0, 1 1 1)"), shapely.from_wkt("POLYGON Z EMPTY"), shapely.from_wkt("MULTILINESTRING ((0 0, 1 1), EMPTY)"),
    None,
]
_ALL = _GEOMS + _MORE


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(range(len(_ALL))), max_size=8), st.booleans())
def test_type_ids_are_geos_own(picks, many):
    """type_ids gives shapely.get_type_id of each geometry (None: -1), read from the classes or, for many, asked of GEOS."""
    from stormwater_plugin.core.geometry import ONE_BY_ONE, type_ids

    geoms = [_ALL[k] for k in picks] * (ONE_BY_ONE if many else 1)
    assert type_ids(geoms) == [int(t) for t in shapely.get_type_id(object_array(geoms)).tolist()]
