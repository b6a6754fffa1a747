"""The siting envelope's nearest points: exact, the same as GEOS, pruned only where it may be."""

from __future__ import annotations

import numpy as np
import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st
from shapely.geometry import LineString, MultiLineString, MultiPoint, Point, Polygon

from stormwater_plugin.core.siting.nearest import nearest_on


def lattice(x0: float, y0: float, nx: int, ny: int, h: float) -> tuple[np.ndarray, np.ndarray]:
    xx, yy = np.meshgrid(x0 + np.arange(nx) * h, y0 + np.arange(ny) * h)
    return xx.ravel(), yy.ravel()


def geos(geom, x, y):
    pts = shapely.points(x, y)
    with np.errstate(invalid="ignore", divide="ignore"):  # GEOS flags degenerate (repeated-point) lines harmlessly
        d = shapely.distance(pts, geom)
        c = shapely.get_coordinates(shapely.shortest_line(pts, geom)).reshape(-1, 2, 2)
    return d, c[:, 1, 0], c[:, 1, 1]


SHAPES = {
    "line": LineString([(3, -4), (20, 9), (26, 2), (41, 30)]),
    "polygon with a hole": Polygon([(5, 5), (35, 2), (38, 28), (8, 25)], [[(15, 10), (25, 10), (25, 18), (15, 18)]]),
    "multiline": MultiLineString([[(0, 40), (40, 42)], [(-5, -5), (-5, 30)]]),
    "points": MultiPoint([(10, 10), (30, 20), (10, 10.5)]),
    "point": Point(12.3, 7.7),
}


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_nearest_distance_and_point_equal_geos_on_a_lattice(name):
    geom = SHAPES[name]
    x, y = lattice(-10.0, -10.0, 121, 117, 0.5)
    d, nx, ny = nearest_on(geom, x, y, 0.5)
    gd, gx, gy = geos(geom, x, y)
    assert np.max(np.abs(d - gd)) < 1e-9
    # the nearest point itself: the same wherever the nearest feature point is unique
    dn = np.hypot(nx - gx, ny - gy)
    assert np.mean(dn < 1e-9) > 0.999
    # and wherever it differs (an exact tie), both are at the same distance
    assert np.max(np.abs(np.hypot(x - nx, y - ny) - gd)) < 1e-9


def test_samples_inside_a_polygon_are_their_own_nearest_point_at_distance_0():
    geom = SHAPES["polygon with a hole"]
    x, y = np.array([10.0, 20.0, 30.0]), np.array([10.0, 14.0, 20.0])  # inside, in the hole, inside
    d, nx, ny = nearest_on(geom, x, y, 1.0)
    assert d[0] == 0.0 and (nx[0], ny[0]) == (10.0, 10.0)
    assert d[1] == pytest.approx(4.0)  # the hole's edge at y = 10 or 18 is 4 away
    assert d[2] == 0.0


def test_max_dist_keeps_every_sample_within_it_exact_and_skips_only_farther_ones():
    geom = SHAPES["line"]
    x, y = lattice(-60.0, -60.0, 161, 161, 1.0)
    full, _, _ = nearest_on(geom, x, y, 1.0)
    cut, _, _ = nearest_on(geom, x, y, 1.0, max_dist=12.0)
    near = full <= 12.0
    assert np.array_equal(cut[near], full[near])
    assert np.all((cut[~near] == np.inf) | (cut[~near] == full[~near]))
    assert np.isinf(cut).sum() > 1000  # far tiles really were skipped


def test_empty_feature_gives_infinite_distance():
    d, nx, _ = nearest_on(LineString(), np.array([0.0]), np.array([0.0]), 1.0)
    assert np.isinf(d[0]) and np.isnan(nx[0])


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.tuples(st.floats(-50, 50), st.floats(-50, 50)), min_size=2, max_size=12),
    st.floats(0.2, 5.0),
    st.sampled_from([0.3, 1.0, 7.0]),
)
def test_nearest_distance_equals_geos_for_random_lines_and_tile_sizes(coords, spacing, h):
    geom = LineString(coords)
    x, y = lattice(-60.0, -55.0, 60, 50, h * spacing)
    d, nx, ny = nearest_on(geom, x, y, spacing)
    gd, _, _ = geos(geom, x, y)
    assert np.max(np.abs(d - gd)) < 1e-9 * (1 + gd.max())
    assert np.max(np.abs(np.hypot(x - nx, y - ny) - gd)) < 1e-9 * (1 + gd.max())


def test_collections_count_their_points_and_nested_polygons():
    from shapely.geometry import GeometryCollection, box

    gc = GeometryCollection([Point(20, 20), LineString([(0, 0), (1, 0)])])
    x, y = lattice(-5.0, -5.0, 81, 81, 0.5)
    d, nx, ny = nearest_on(gc, x, y, 0.5)
    gd, _, _ = geos(gc, x, y)
    assert np.max(np.abs(d - gd)) < 1e-9
    i = np.flatnonzero((x == 15.0) & (y == 6.0))[0]
    assert (nx[i], ny[i]) == (20.0, 20.0)
    two = GeometryCollection([Point(3, 3), Point(5, 5)])
    assert np.max(np.abs(nearest_on(two, x, y, 0.5)[0] - geos(two, x, y)[0])) < 1e-9
    nested = GeometryCollection([GeometryCollection([box(0, 0, 10, 10)]), LineString([(20, 0), (20, 5)])])
    d, _, _ = nearest_on(nested, x, y, 0.5)
    assert np.max(np.abs(d - geos(nested, x, y)[0])) < 1e-9
    assert d[np.flatnonzero((x == 0.5) & (y == 0.5))[0]] == 0.0


@pytest.mark.parametrize("spacing", [1e-9, 0.0, -1.0, float("nan"), 1e6])
def test_any_spacing_gives_the_same_exact_answer_at_utm_coordinates(spacing):
    rng = np.random.default_rng(4)
    x = 500_000.0 + rng.uniform(0, 3000, 2000)
    y = 4_800_000.0 + rng.uniform(0, 3000, 2000)
    ring = Point(501_500.0, 4_801_500.0).buffer(400.0).exterior
    d, _, _ = nearest_on(ring, x, y, spacing)
    assert np.max(np.abs(d - geos(ring, x, y)[0])) < 1e-6


def test_equally_near_segments_give_the_first_in_order():
    line = LineString([(9, 2), (8, 6), (0, 3), (8, 5), (0, 7), (7, 8)])
    d, nx, ny = nearest_on(line, np.array([6.5]), np.array([5.0]), 1.0)
    gd, _, _ = geos(line, np.array([6.5]), np.array([5.0]))
    assert d[0] == pytest.approx(gd[0], abs=1e-12)
    # (0 3)-(8 5) and (8 5)-(0 7) are equally near: the point on the third segment, not the fourth
    assert (nx[0], ny[0]) == pytest.approx((6.588235294, 4.647058824), abs=1e-8)


def test_per_sample_max_dist_keeps_every_sample_within_its_own_limit_exact():
    """Issue 15: the envelope's off-DEM path gives each sample its own limit (the nearest feature's bound)."""
    geom = SHAPES["polygon with a hole"]
    x, y = lattice(-80.0, -80.0, 201, 201, 1.0)
    full, fx, fy = nearest_on(geom, x, y, 1.0)
    limit = np.where(x < 0, 5.0, 60.0)  # west half: 5; east half: 60
    cut, cx, cy = nearest_on(geom, x, y, 1.0, max_dist=limit)
    near = full <= limit
    assert np.array_equal(cut[near], full[near]) and np.array_equal(cx[near], fx[near]) and np.array_equal(cy[near], fy[near])
    assert np.all((cut[~near] == np.inf) | (cut[~near] == full[~near]))
    assert np.isinf(cut[x < -40]).sum() > 1000


def test_split_tiles_give_the_same_distances_and_first_points_as_unsplit_ones(monkeypatch):
    """Issue 15: tiles with many candidates are split into quarters; the answer is the same as with no splitting."""
    import stormwater_plugin.core.siting.nearest as nearest

    t = np.linspace(0.0, 40.0, 900)
    wiggly = LineString(np.column_stack([t * 20.0, 30.0 * np.sin(t)]))  # a finely digitised stream
    x, y = lattice(-300.0, -400.0, 300, 280, 2.475)
    monkeypatch.setattr(nearest, "DENSE_CANDIDATES", 10**9)
    d0, nx0, ny0 = nearest_on(wiggly, x, y, 2.475)
    monkeypatch.setattr(nearest, "DENSE_CANDIDATES", 4)
    d1, nx1, ny1 = nearest_on(wiggly, x, y, 2.475)
    assert np.array_equal(d0, d1) and np.array_equal(nx0, nx1) and np.array_equal(ny0, ny1)
    g, _, _ = geos(wiggly, x, y)
    assert np.max(np.abs(d1 - g)) < 1e-9
