"""Reading a county-sized layer in bulk gives exactly the former per-feature read (feature_geometry, dict(properties)).

The bulk polygons (services.feature_geometry.feature_geometries) must be bit-identical to shapely's shape() of each
feature: same type, same dimension (Z kept), same coordinates in the same order, same rings, same parts; every case the
bulk path does not take (other types, empty parts, unclosed or short rings, NaN, mixed dimensions, None) read alone.
"""

from __future__ import annotations

import gc

import fiona.model
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st

from stormwater_plugin.services.feature_geometry import feature_geometries, feature_geometry
from stormwater_plugin.services.feature_rows import collector_paused, feature_rows, plain_properties

_NUM = st.one_of(st.floats(-1e7, 1e7, allow_nan=False), st.sampled_from([float("nan"), float("inf"), -0.0, 0.0, 1.5]))


def _coord(dim: int) -> st.SearchStrategy[tuple[float, ...]]:
    return st.tuples(*[_NUM] * dim)


@st.composite
def _ring(draw: st.DrawFn, dim: int) -> list[tuple[float, ...]]:
    if draw(st.integers(0, 3)):  # mostly a ring as GDAL hands it over: closed, finite, of one dimension
        pts = draw(st.lists(st.tuples(*[st.floats(-1e7, 1e7, allow_nan=False)] * dim), min_size=3, max_size=6))
        return pts + [pts[0]]
    pts = draw(st.lists(_coord(dim if draw(st.integers(0, 20)) else 5 - dim), min_size=0, max_size=6))  # now and then a mixed dimension
    if pts and draw(st.booleans()):
        pts.append(pts[0])
    return pts


@st.composite
def _polygon(draw: st.DrawFn, dim: int) -> list[list[tuple[float, ...]]]:
    return [draw(_ring(dim)) for _ in range(draw(st.integers(0, 3)))]


@st.composite
def _geometry(draw: st.DrawFn, depth: int = 0) -> object:
    dim = draw(st.sampled_from([2, 3]))
    kind = draw(st.sampled_from(["Polygon", "MultiPolygon", "Point", "LineString", "MultiPoint", "MultiLineString", "GeometryCollection", "None"]))
    if kind == "None":
        return None
    if kind == "Polygon":
        coords: object = draw(_polygon(dim))
    elif kind == "MultiPolygon":
        coords = [draw(_polygon(dim)) for _ in range(draw(st.integers(0, 3)))]
    elif kind == "Point":
        coords = draw(st.one_of(_coord(dim), st.just(())))
    elif kind in ("LineString", "MultiPoint"):
        coords = draw(st.lists(_coord(dim), max_size=4))
    elif kind == "MultiLineString":
        coords = [draw(st.lists(_coord(dim), max_size=4)) for _ in range(draw(st.integers(0, 2)))]
    else:
        parts = [draw(_geometry(depth + 1)) for _ in range(draw(st.integers(0, 2 if depth < 1 else 0)))]
        g = {"type": kind, "geometries": [p for p in parts if p is not None]}
        return fiona.model.Geometry.from_dict(g) if draw(st.booleans()) else g
    g = {"type": kind, "coordinates": coords}
    return fiona.model.Geometry(coordinates=coords, type=kind) if draw(st.booleans()) else g


def _same(a: object, b: object) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return (type(a) is type(b) and bool(shapely.has_z(a)) == bool(shapely.has_z(b))
            and shapely.to_wkb(a, output_dimension=3, hex=True) == shapely.to_wkb(b, output_dimension=3, hex=True))


@settings(max_examples=400, deadline=None)
@given(st.lists(_geometry(), max_size=12))
def test_bulk_geometries_are_the_former_per_feature_ones(geoms: list[object]) -> None:
    before = [feature_geometry(g) for g in geoms]  # type: ignore[arg-type]
    after = feature_geometries(geoms)
    assert len(after) == len(before)
    for a, b in zip(before, after):
        assert _same(a, b), (a, b)


def test_bulk_polygons_keep_holes_parts_and_z() -> None:
    shell = [(0.0, 0.0), (10.0, 0.0), (10.0, 10.0), (0.0, 10.0), (0.0, 0.0)]
    hole = [(2.0, 2.0), (2.0, 4.0), (4.0, 4.0), (2.0, 2.0)]
    z = [(x, y, 7.5) for x, y in shell]
    geoms = [{"type": "Polygon", "coordinates": [shell, hole]}, {"type": "MultiPolygon", "coordinates": [[shell], [z]]},
             {"type": "MultiPolygon", "coordinates": [[shell, hole]]}, {"type": "Polygon", "coordinates": [z]}, None]
    after = feature_geometries(geoms)
    assert [type(g).__name__ for g in after] == ["Polygon", "MultiPolygon", "MultiPolygon", "Polygon", "NoneType"]
    for g, a in zip(geoms, after):
        assert _same(feature_geometry(g), a)  # type: ignore[arg-type]


class _Feat:
    def __init__(self, geometry: object, properties: object, fid: object) -> None:
        self.geometry, self.properties, self.id = geometry, properties, fid


def test_rows_are_the_former_rows_and_the_collector_is_left_as_found() -> None:
    props = fiona.model.Properties(a="x", b=2, c=None, d=1.5)
    g = {"type": "Polygon", "coordinates": [[(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 0.0)]]}
    feats = [_Feat(g, props, i) for i in range(5000)] + [_Feat(None, {"a": "y"}, "last")]
    assert plain_properties(props) == dict(props) and list(plain_properties(props)) == list(dict(props))
    geoms, records, fids = feature_rows(feats, skipped=("b",))
    assert records[0] == {"a": "x", "c": None, "d": 1.5} and records[-1] == {"a": "y"} and fids[-1] == "last"
    assert all(_same(x, feature_geometry(f.geometry)) for x, f in zip(geoms, feats))  # type: ignore[arg-type]
    assert gc.isenabled()
    gc.disable()
    try:
        with collector_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
