"""neighbours_within: every pair within a radius, edge to edge, equals brute force."""

from __future__ import annotations

import numpy as np
import pytest
import shapely
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from shapely.geometry import LineString, Point, Polygon, box

from stormwater_plugin.core.checks.notification import neighbour_parcels
from stormwater_plugin.core.model import FeatureLayer
from stormwater_plugin.core.neighbours import neighbours_within, split_by_first


def _brute(geoms: list, r: float) -> set[tuple[int, int]]:
    out = set()
    for a in range(len(geoms)):
        for b in range(len(geoms)):
            if a != b and shapely.distance(geoms[a], geoms[b]) <= r:
                out.add((a, b))
    return out


@st.composite
def polygons(draw: st.DrawFn) -> Polygon:
    """A random star-shaped polygon (always valid) somewhere in a 2,000 ft square."""
    cx = draw(st.floats(0, 2000, allow_nan=False))
    cy = draw(st.floats(0, 2000, allow_nan=False))
    n = draw(st.integers(3, 9))
    radii = draw(st.lists(st.floats(5, 150, allow_nan=False), min_size=n, max_size=n))
    angles = np.linspace(0, 2 * np.pi, n, endpoint=False)
    return Polygon([(cx + r * np.cos(a), cy + r * np.sin(a)) for r, a in zip(radii, angles)])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(polygons(), min_size=0, max_size=25), st.floats(0, 800, allow_nan=False))
def test_equals_brute_force_on_random_polygons(geoms: list, radius: float) -> None:
    i, j, d = neighbours_within(geoms, radius)
    assert set(zip(i.tolist(), j.tolist())) == _brute(geoms, radius)
    for a, b, dist in zip(i, j, d):
        assert dist == pytest.approx(shapely.distance(geoms[a], geoms[b]), abs=1e-9)
        assert dist <= radius
    # sorted by i, then j
    assert list(zip(i.tolist(), j.tolist())) == sorted(zip(i.tolist(), j.tolist()))
    # the GEOS dwithin candidate route gives the same pairs
    i2, j2, d2 = neighbours_within(geoms, radius, candidates="dwithin")
    assert np.array_equal(i, i2) and np.array_equal(j, j2)


def test_parcel_at_exactly_the_radius_is_included() -> None:
    site = box(0.0, 0.0, 100.0, 100.0)
    at_500 = box(600.0, 0.0, 700.0, 100.0)  # 500.0 ft east, exactly
    beyond = box(0.0, 600.0000001, 100.0, 700.0)  # just over 500 ft north
    diagonal = box(400.0, 400.0, 450.0, 450.0)  # corner to corner: 300 * sqrt(2) = 424.3 ft
    i, j, d = neighbours_within([site, at_500, beyond, diagonal], 500.0)
    pairs = {(a, b): dist for a, b, dist in zip(i.tolist(), j.tolist(), d.tolist())}
    assert pairs[(0, 1)] == 500.0
    assert (0, 2) not in pairs and (2, 0) not in pairs
    assert pairs[(0, 3)] == pytest.approx(300 * np.sqrt(2))
    assert pairs[(1, 0)] == 500.0  # both directions by default


def test_matches_the_notification_check_for_each_site() -> None:
    rng = np.random.default_rng(7)
    geoms = [box(x, y, x + w, y + h) for x, y, w, h in zip(*(rng.uniform(0, 3000, 40), rng.uniform(0, 3000, 40), rng.uniform(20, 200, 40), rng.uniform(20, 200, 40)))]
    layer = FeatureLayer.from_sequences("parcels", geoms, [f"P{k}" for k in range(len(geoms))])
    i, j, d = neighbours_within(layer.geoms, 500.0 / 0.3048)  # a metres CRS
    lists = split_by_first(i, j, d, len(geoms))
    for k in range(len(geoms)):
        expected = {n.id: n.distance_ft for n in neighbour_parcels(layer, [k], 500.0, 1.0, 0.3048)}
        got = {f"P{m}": dist * 0.3048 for m, dist in zip(*lists[k])}
        assert got.keys() == expected.keys()
        for key, value in got.items():
            assert value == pytest.approx(expected[key], abs=1e-9)


def test_options_and_odd_inputs() -> None:
    geoms = np.array([Point(0, 0), None, Polygon(), LineString([(10, 0), (10, 10)]), Point(0, 20)], dtype=object)
    i, j, d = neighbours_within(geoms, 10.0)
    assert set(zip(i.tolist(), j.tolist())) == {(0, 3), (3, 0)}
    i, j, d = neighbours_within(geoms, 20.0, unique_pairs=True)
    assert set(zip(i.tolist(), j.tolist())) == {(0, 3), (0, 4), (3, 4)}
    i, j, d = neighbours_within(geoms, 0.0, include_self=True)
    assert set(zip(i.tolist(), j.tolist())) == {(0, 0), (3, 3), (4, 4)}
    assert np.all(d == 0.0)
    assert all(len(a) == 0 for a in neighbours_within([], 5.0))
    assert all(len(a) == 0 for a in neighbours_within([None, Polygon()], 5.0))
    lists = split_by_first(*neighbours_within(geoms, 10.0), n=5)
    assert [a.tolist() for a, _ in lists] == [[3], [], [], [0], []]
    with pytest.raises(ValueError):
        neighbours_within(geoms, -1.0)
    with pytest.raises(ValueError):
        neighbours_within(geoms, float("nan"))
    with pytest.raises(ValueError):
        neighbours_within(geoms, 1.0, candidates="buffer")
