"""A few features' nearest one found from their distances at once is the one the search tree finds (issue 39).

``core.geometry.nearest_feature`` measures up to ``NEAREST_DIRECT`` features directly: when exactly one lies within the
tolerance of the least distance, it is the answer. Held here to the tree's path (the shortcut off) over random small sets
of points, lines and polygons, with repeated and nearly repeated features (ties within the tolerance, exact ties, one
just beyond it), empty geometries and a NaN coordinate among them.
"""

from __future__ import annotations

import shapely
from hypothesis import given, settings
from hypothesis import strategies as st
from shapely.geometry import LineString, Point, Polygon, box

from stormwater_plugin.core import geometry
from stormwater_plugin.core.geometry import nearest_feature
from stormwater_plugin.core.model import FeatureRef

_coord = st.integers(-40, 40).map(float)
_point = st.builds(lambda x, y: Point(x, y), _coord, _coord)
_line = st.builds(lambda x, y, dx, dy: LineString([(x, y), (x + dx, y + dy)]), _coord, _coord, st.integers(1, 9).map(float), _coord)
_box = st.builds(lambda x, y, w, h: box(x, y, x + w, y + h), _coord, _coord, st.integers(1, 9).map(float), st.integers(1, 9).map(float))
_shape = st.one_of(_point, _line, _box)
EPS = 1e-6


def _nudged(g, dx: float):
    return shapely.affinity.translate(g, dx, 0.0)


@st.composite
def _features(draw):
    base = draw(st.lists(_shape, min_size=1, max_size=geometry.NEAREST_DIRECT + 2))
    geoms = list(base)
    # copies of some features as they are, nudged within the tolerance, or just beyond it
    for g in draw(st.lists(st.sampled_from(base), max_size=3)):
        geoms.append(_nudged(g, draw(st.sampled_from([0.0, EPS / 4, -EPS / 4, 2 * EPS, 1e-3]))))
    if draw(st.booleans()):
        geoms.insert(draw(st.integers(0, len(geoms))), draw(st.sampled_from([Point(), Polygon(), LineString(), Point(float("nan"), 1.0)])))
    roles = draw(st.lists(st.sampled_from(["wells", "septic", "streams"]), min_size=len(geoms), max_size=len(geoms)))
    ids = draw(st.lists(st.sampled_from(["A", "B", "C", "D"]), min_size=len(geoms), max_size=len(geoms)))
    return geoms, [FeatureRef(r, i) for r, i in zip(roles, ids)]


@settings(max_examples=400, deadline=None)
@given(features=_features(), at=st.one_of(_point, _line, _box), eps=st.sampled_from([EPS, 0.0, 1e-12, 1.0]))
def test_a_few_features_nearest_measured_at_once_is_the_search_trees(features, at, eps):
    geoms, refs = features
    arr = geometry.object_array(geoms)
    tree = shapely.STRtree(arr)
    try:
        direct = nearest_feature(tree, arr, refs, at, eps)
    except IndexError:  # the tree finds nothing (every feature empty): the same as before
        direct = None
    saved = geometry.NEAREST_DIRECT
    geometry.NEAREST_DIRECT = 0
    try:
        try:
            by_tree = nearest_feature(tree, arr, refs, at, eps)
        except IndexError:
            by_tree = None
    finally:
        geometry.NEAREST_DIRECT = saved
    assert direct == by_tree
