"""The gradient setback's side-by-side reading (``core.checks.setback_gradient``) in its cheaper formulation (#39) reads
the same pairs bit for bit as the formulation before it: a single point, line or polygon read without splitting it
into parts, the interior grid's samples kept by the one distance test of every element, the device's and the
feature's ground sampled in one call, and the limit line not searched when every nearest pair already qualifies.

The reference below is the earlier formulation, kept here only to compare with: distances (floats, bit for bit) and
the pair lines (WKB) must be the same for any device and feature (points, lines, polygons with holes, multi-parts,
collections), any reach, DEM (nodata among it), relation, tolerance and declared or assumed elevation unit.

Since session 18 a geometry of few elements (``se.WHOLE_MOST``) is cut whole, not clipped to the other's reach first (its
pieces from each line's own start, its grid over its whole box): the reference says so plainly (:func:`_cut_whole_count`),
every piece of the whole tested by GEOS's distance. The code's shortcuts (the pieces' boxes tested first, the whole's cut
and ground kept by content in a :class:`~stormwater_plugin.core.derived.Derived`) are held to it.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import shapely
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from shapely.geometry import GeometryCollection, LineString, MultiPoint, MultiPolygon, Point, Polygon
from shapely.geometry.base import BaseGeometry

from stormwater_plugin.core.checks import setback_elements as se
from stormwater_plugin.core.checks import setback_gradient as sg
from stormwater_plugin.core.raster import ElevationGrid

# degenerate drawings (a line of one repeated point) warn in GEOS alike in both formulations
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")


# --- the earlier formulation -------------------------------------------------------------------------------------


def _old_interior_grid(poly: BaseGeometry, step: float, other: BaseGeometry, reach_units: float) -> np.ndarray:
    minx, miny, maxx, maxy = poly.bounds
    step = max(step, math.sqrt(max(maxx - minx, 0.0) * max(maxy - miny, 0.0) / se.MAX_INTERIOR_SAMPLES))
    xs = np.arange(math.floor(minx / step) * step, maxx + step, step)
    ys = np.arange(math.floor(miny / step) * step, maxy + step, step)
    xx, yy = np.meshgrid(xs, ys)
    xx, yy = xx.ravel(), yy.ravel()
    keep = shapely.contains_xy(poly, xx, yy)
    pts = np.column_stack([xx[keep], yy[keep]])
    if len(pts) == 0:
        return np.empty((0, 2))
    d = shapely.distance(other, shapely.points(pts))
    return np.asarray(pts[~(d > reach_units * (1 + 1e-9))])


def _cut_whole_count(geom, line_step, grid_step) -> float:
    """How many elements the whole of ``geom`` may be cut into, counted from its polygons' boxes and its lines' lengths."""
    n = float(len(se._points(geom)))
    for poly in se._polygons(geom):
        minx, miny, maxx, maxy = poly.bounds
        n += ((maxx - minx) / grid_step + 2.0) * ((maxy - miny) / grid_step + 2.0)
    for line in se._linework(geom):
        n += line.length / line_step + len(line.coords) + 1.0
    return n


def _old_elements(geom, other, reach_units, line_step, grid_step, nearest):
    # a geometry of few elements is cut whole; a larger one clipped to the box of the other's reach first (NaN: clipped)
    near = geom if _cut_whole_count(geom, line_step, grid_step) <= se.WHOLE_MOST else se._clip_to_reach(geom, other, reach_units)
    starts = [nearest.reshape(-1, 2)]
    ends = [nearest.reshape(-1, 2)]
    pts = se._points(near)
    starts.append(pts)
    ends.append(pts)
    for poly in se._polygons(near):
        grid = _old_interior_grid(poly, grid_step, other, reach_units)
        starts.append(grid)
        ends.append(grid)
    for line in se._linework(near):
        s = se._positions(line, line_step)
        xy = shapely.get_coordinates(shapely.line_interpolate_point(line, s))[:, :2]
        starts.append(xy[:-1])
        ends.append(xy[1:])
    a = np.concatenate(starts, axis=0)
    b = np.concatenate(ends, axis=0)
    if len(a) == 0:
        return a, b
    d = np.empty(len(a))
    dot = np.all(a == b, axis=1)
    if np.any(dot):
        d[dot] = shapely.distance(other, shapely.points(a[dot]))
    if np.any(~dot):
        d[~dot] = shapely.distance(other, shapely.linestrings(np.stack([a[~dot], b[~dot]], axis=1)))
    keep = ~(d > reach_units * (1 + 1e-9))
    return a[keep], b[keep]


def _old_with_ground(a, b, dem):
    za = dem.sample(a[:, 0], a[:, 1]) if len(a) else np.empty(0)
    zb = dem.sample(b[:, 0], b[:, 1]) if len(b) else np.empty(0)
    return sg._Elements(a, b, np.asarray(za, dtype=np.float64), np.asarray(zb, dtype=np.float64))


def _old_pair_line(p: np.ndarray, q: np.ndarray) -> BaseGeometry:
    """The former ``setback_gradient._pair_line``: made from the points' tuples."""
    return LineString([tuple(p), tuple(q)])


def _old_read_sides(dev, target, reach_units, dem, unit_to_ft, mode, tol_ft):
    factors = dem.z_to_ft_candidates()
    assumed = dem.z_to_ft
    reading = sg.SideReading([sg.Part() for _ in factors], sg.Part(), factors)
    dev, target = shapely.normalize(dev), shapely.normalize(target)
    nearest = shapely.shortest_line(dev, target)
    if nearest is None or nearest.is_empty:
        return reading
    ends = np.asarray(nearest.coords)[:, :2]
    scale = 1.0
    while True:
        line_step = sg.LINE_STEP_FT * scale / unit_to_ft
        grid_step = max(sg.INTERIOR_STEP_FT * scale / unit_to_ft, reach_units * sg.INTERIOR_STEP_FRACTION * scale)
        da, db = _old_elements(dev, target, reach_units, line_step, grid_step, ends[0])
        ta, tb = _old_elements(target, dev, reach_units, line_step, grid_step, ends[-1])
        if len(da) * len(ta) <= sg.MAX_PAIR_CHECKS or scale >= 1024:
            break
        scale *= 2.0
    de = _old_with_ground(da, db, dem)
    te = _old_with_ground(ta, tb, dem)
    ii, jj = sg._pairs(de, te, reach_units)
    sign = 1.0 if mode == "device_upgradient" else -1.0
    for k0 in range(0, len(ii), sg._CHUNK):
        i, j = ii[k0 : k0 + sg._CHUNK], jj[k0 : k0 + sg._CHUNK]
        A, d1 = de.a[i], de.b[i] - de.a[i]
        C, d2 = te.a[j], te.b[j] - te.a[j]
        r = A - C
        s0, u0 = sg._closest(r, d1, d2)
        gap0 = r + s0[:, None] * d1 - u0[:, None] * d2
        dist0 = np.hypot(gap0[:, 0], gap0[:, 1]) * unit_to_ft
        close = dist0 <= reach_units * unit_to_ft * (1 + 1e-9)
        unknown = ~(np.isfinite(de.za[i]) & np.isfinite(de.zb[i]) & np.isfinite(te.za[j]) & np.isfinite(te.zb[j]))
        bad = close & unknown
        if np.any(bad):
            m = int(np.argmin(np.where(bad, dist0, np.inf)))
            reading.unknown.offer(float(dist0[m]), _old_pair_line(A[m] + s0[m] * d1[m], C[m] + u0[m] * d2[m]))
        live = close & ~unknown
        if not np.any(live):
            continue
        i, j, A, d1, C, d2, r = i[live], j[live], A[live], d1[live], C[live], d2[live], r[live]
        s0, u0, dist0 = s0[live], u0[live], dist0[live]
        dz0 = de.za[i] - te.za[j]
        dze = de.zb[i] - de.za[i]
        dzf = te.zb[j] - te.za[j]
        for k, f in enumerate(factors):
            m_k = sign * f / assumed
            al = tol_ft + m_k * dz0
            be = m_k * dze
            ga = -m_k * dzf
            ok0 = al + be * s0 + ga * u0 >= -1e-12
            s1, u1, ok1 = sg._on_limit(r, d1, d2, al, be, ga)
            s = np.where(ok0, s0, s1)
            u = np.where(ok0, u0, u1)
            feas = ok0 | ok1
            if not np.any(feas):
                continue
            gap = r + s[:, None] * d1 - u[:, None] * d2
            dist = np.where(ok0, dist0, np.hypot(gap[:, 0], gap[:, 1]) * unit_to_ft)
            dist = np.where(feas, dist, np.inf)
            m = int(np.argmin(dist))
            reading.qualifying[k].offer(float(dist[m]), _old_pair_line(A[m] + s[m] * d1[m], C[m] + u[m] * d2[m]))
    return reading


# --- generated devices, features and ground ----------------------------------------------------------------------

_xy = st.tuples(st.floats(-12.0, 12.0, allow_nan=False), st.floats(-12.0, 12.0, allow_nan=False))


def _square(c: tuple[float, float], h: float) -> list[tuple[float, float]]:
    x, y = c
    return [(x - h, y - h), (x + h, y - h), (x + h, y + h), (x - h, y + h)]


@st.composite
def _single(draw) -> BaseGeometry:
    kind = draw(st.sampled_from(["point", "line", "polygon", "holed", "triangle"]))
    c = draw(_xy)
    if kind == "point":
        return Point(c)
    if kind == "line":
        return LineString([c, *draw(st.lists(_xy, min_size=1, max_size=4))])
    h = draw(st.floats(0.3, 8.0))
    if kind == "polygon":
        return Polygon(_square(c, h))
    if kind == "holed":
        return Polygon(_square(c, h), [_square(c, h * draw(st.floats(0.1, 0.8)))])
    p = draw(_xy)
    q = draw(_xy)
    poly = Polygon([c, p, q])
    return poly if poly.area > 1e-3 else Point(c)


@st.composite
def _geometry(draw) -> BaseGeometry:
    kind = draw(st.sampled_from(["single", "single", "single", "multipoint", "multipolygon", "collection"]))
    if kind == "single":
        return draw(_single())
    if kind == "multipoint":
        return MultiPoint(draw(st.lists(_xy, min_size=1, max_size=3)))
    if kind == "multipolygon":
        a, b = draw(_xy), draw(_xy)
        return shapely.union(Polygon(_square(a, 1.5)), Polygon(_square(b, 1.0)))
    return GeometryCollection(draw(st.lists(_single(), min_size=1, max_size=3)))


@st.composite
def _dem(draw) -> ElevationGrid:
    seed = draw(st.integers(0, 2**16))
    rng = np.random.default_rng(seed)
    values = rng.normal(100.0, draw(st.sampled_from([0.0, 0.5, 3.0])), (30, 30))
    values += np.add.outer(np.arange(30) * draw(st.floats(-0.5, 0.5)), np.arange(30) * draw(st.floats(-0.5, 0.5)))
    if draw(st.booleans()):
        values[rng.integers(0, 30, 6), rng.integers(0, 30, 6)] = np.nan
    declared = draw(st.booleans())
    return ElevationGrid(values, (-15.0, 1.0, 0.0, 15.0, 0.0, -1.0), z_to_ft=draw(st.sampled_from([1.0, 1.0 / 0.3048])), z_unit_declared=declared)


def _reading(r: sg.SideReading) -> list:
    parts = [*r.qualifying, r.unknown]
    return [r.factors, [(p.distance_ft.hex(), None if p.line is None else shapely.to_wkb(p.line)) for p in parts]]


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dev=_geometry(), target=_geometry(), reach=st.floats(0.5, 9.0), dem=_dem(), unit_to_ft=st.sampled_from([1.0, 1.0 / 0.3048]),
       mode=st.sampled_from(sorted(sg.MODES)), tol=st.sampled_from([0.0, 0.1, 0.5]))
def test_the_side_by_side_reading_is_the_earlier_formulations_bit_for_bit(dev, target, reach, dem, unit_to_ft, mode, tol):
    # both formulations ask GEOS for the same shortest line first: a line of a 1e-207 ft piece makes GEOS 3.13 refuse it
    # (Debian 13), and then both must refuse alike
    assert _outcome(sg.read_sides, dev, target, reach, dem, unit_to_ft, mode, tol) == _outcome(
        _old_read_sides, dev, target, reach, dem, unit_to_ft, mode, tol)


def _outcome(read, *args) -> list:
    try:
        return _reading(read(*args))
    except shapely.errors.GEOSException as exc:
        return ["GEOSException", str(exc)]


@settings(max_examples=250, deadline=None)
@given(geom=_geometry(), other=_geometry(), reach=st.floats(0.5, 9.0), step=st.sampled_from([0.25, 1.0, 3.0]))
def test_the_elements_of_a_geometry_are_the_earlier_formulations_bit_for_bit(geom, other, reach, step):
    nearest = np.array([0.5, -0.25])
    new = se._elements(geom, other, reach, step, step, nearest)
    old = _old_elements(geom, other, reach, step, step, nearest)
    assert [x.tobytes() for x in new] == [x.tobytes() for x in old]
    assert [x.shape for x in new] == [x.shape for x in old]


def test_a_polygon_clipped_into_parts_and_an_empty_clip_are_read_part_by_part():
    ring = MultiPolygon([Polygon(_square((-6.0, 0.0), 2.0)), Polygon(_square((6.0, 0.0), 2.0))])
    nearest = np.array([0.0, 0.0])
    for geom in (ring, Point(40.0, 40.0), LineString([(40.0, 0.0), (41.0, 0.0)])):
        new = se._elements(geom, Point(0.0, 0.0), 8.0, 1.0, 1.0, nearest)
        old = _old_elements(geom, Point(0.0, 0.0), 8.0, 1.0, 1.0, nearest)
        assert [x.tobytes() for x in new] == [x.tobytes() for x in old]


# --- the pieces within reach of a point, told without GEOS where they clearly are ------------------------------------


def _geos_within_reach(other: BaseGeometry, a: np.ndarray, b: np.ndarray, limit: float) -> np.ndarray:
    """The filter as GEOS alone made it: every piece a point or a segment, ``not distance > limit``."""
    if len(a) == 0:
        return np.zeros(0, dtype=bool)
    dot = np.all(a == b, axis=1)
    pieces = np.empty(len(a), dtype=object)
    if np.any(dot):
        pieces[dot] = shapely.points(a[dot])
    if not np.all(dot):
        pieces[~dot] = shapely.linestrings(np.stack([a[~dot], b[~dot]], axis=1))
    return np.asarray(~(shapely.distance(other, pieces) > limit))


_coord = st.one_of(st.integers(-12, 12).map(float), st.floats(-12, 12, allow_nan=False, allow_infinity=False),
                   st.sampled_from([math.nan, 0.5, -0.5, 3.0000000001, 4.999999999]))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(p=st.tuples(_coord, _coord), ends=st.lists(st.tuples(_coord, _coord, _coord, _coord, st.booleans()), max_size=30),
       limit=st.sampled_from([0.0, 1.0, 5.0, 5.0 * (1 + 1e-9), 7.5, math.sqrt(50.0), 13.0]),
       offset=st.sampled_from([0.0, 1e3, 6.5e5, 1.2e7]))
def test_the_pieces_within_reach_of_a_point_are_those_geos_keeps(p, ends, limit, offset):
    """The pieces within reach of a point device, told by their ends and boxes where clearly in or out, are GEOS's own:
    pieces on the limit (a 3-4-5 triangle), across it, points, NaN coordinates, near and far from the origin (state-plane feet)."""
    a = np.array([(x0 + offset, y0 - offset) for x0, y0, _, _, _ in ends], dtype=np.float64).reshape(-1, 2)
    b = np.array([(x0 + offset, y0 - offset) if dot else (x1 + offset, y1 - offset) for x0, y0, x1, y1, dot in ends], dtype=np.float64).reshape(-1, 2)
    other = Point(p[0] + offset, p[1] - offset)
    assert se.within_reach(other, a, b, limit).tolist() == _geos_within_reach(other, a, b, limit).tolist()


def test_a_piece_on_the_limit_is_kept_and_one_past_it_is_not():
    """3-4-5: a point and a segment end exactly 5 from the device are kept at a limit of 5, and not at 5 less an ulp."""
    a = np.array([[3.0, 4.0], [3.0, 4.0], [6.0, 8.0]])
    b = np.array([[3.0, 4.0], [9.0, 12.0], [6.0, 8.0]])
    assert se.within_reach(Point(0, 0), a, b, 5.0).tolist() == [True, True, False]
    assert se.within_reach(Point(0, 0), a, b, math.nextafter(5.0, 0.0)).tolist() == [False, False, False]


# --- a device drawn as one point, read once (``setback_gradient._read_point``) ---------------------------------------
#
# The point device's own reading must be the general one's bit for bit: the former formulation above is the reference.
# Coordinates are drawn on a fine grid (1/1024 unit) and placed at state-plane magnitudes (feet and metres), where a
# feature clipped to the device's reach has cut edges 1e-9 units beyond it; the DEM sits under them, nodata among it.

_fine = st.integers(-12 * 1024, 12 * 1024).map(lambda k: k / 1024.0)
_fine_xy = st.tuples(_fine, _fine)


@st.composite
def _fine_feature(draw) -> BaseGeometry:
    kind = draw(st.sampled_from(["point", "line", "polygon", "holed", "triangle", "multipolygon"]))
    c = draw(_fine_xy)
    if kind == "point":
        return Point(c)
    if kind == "line":
        return LineString([c, *draw(st.lists(_fine_xy, min_size=1, max_size=4))])
    h = draw(st.integers(300, 8 * 1024).map(lambda k: k / 1024.0))
    if kind == "polygon":
        return Polygon(_square(c, h))
    if kind == "holed":
        return Polygon(_square(c, h), [_square(c, h / 2.0)])
    if kind == "multipolygon":
        return shapely.union(Polygon(_square(c, h)), Polygon(_square(draw(_fine_xy), 1.0)))
    poly = Polygon([c, draw(_fine_xy), draw(_fine_xy)])
    return poly if poly.area > 1e-3 else Point(c)


def _shifted_dem(dem: ElevationGrid, dx: float, dy: float) -> ElevationGrid:
    x0, pw, rr, y0, cr, ph = dem.geotransform
    return ElevationGrid(dem.values, (x0 + dx, pw, rr, y0 + dy, cr, ph), z_to_ft=dem.z_to_ft, z_unit_declared=dem.z_unit_declared)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(p=_fine_xy, target=_fine_feature(), reach=st.sampled_from([0.5, 3.0, 6.095964208392576, 9.0, 20.0 / 3.281]),
       dem=_dem(), unit_to_ft=st.sampled_from([1.0, 1.0 / 0.3048]), mode=st.sampled_from(sorted(sg.MODES)),
       tol=st.sampled_from([0.0, 0.1, 0.5]), offset=st.sampled_from([(0.0, 0.0), (608_000.0, 4_817_000.0), (1_150_000.0, 12_000_000.0)]))
def test_a_point_devices_reading_is_the_earlier_formulations_bit_for_bit_at_state_plane_magnitudes(p, target, reach, dem, unit_to_ft, mode, tol, offset):
    dx, dy = offset
    dev = Point(p[0] + dx, p[1] + dy)
    target = shapely.transform(target, lambda xy: xy + np.array([dx, dy]))
    grid = _shifted_dem(dem, dx, dy)
    assert _outcome(sg.read_sides, dev, target, reach, grid, unit_to_ft, mode, tol) == _outcome(
        _old_read_sides, dev, target, reach, grid, unit_to_ft, mode, tol)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dev=st.one_of(_fine_xy.map(Point), _fine_feature()), moves=st.lists(st.tuples(_fine, _fine), min_size=1, max_size=4), target=_fine_feature(),
       reach=st.sampled_from([0.5, 3.0, 6.095964208392576, 9.0]), dems=st.lists(_dem(), min_size=1, max_size=2),
       unit_to_ft=st.sampled_from([1.0, 1.0 / 0.3048]), mode=st.sampled_from(sorted(sg.MODES)), tol=st.sampled_from([0.0, 0.5]),
       offset=st.sampled_from([(0.0, 0.0), (608_000.0, 4_817_000.0)]))
def test_a_moved_devices_reading_through_the_kept_whole_cuts_is_the_reading_cut_anew(dev, moves, target, reach, dems, unit_to_ft, mode, tol, offset):
    # the live re-check: one check after another, each with the last one's derived values, the device moved (and the DEM
    # another now and then); the whole feature's cut and ground kept by content must read as cut and sampled anew
    from shapely import affinity

    from stormwater_plugin.core.derived import Derived, using

    dx, dy = offset
    target = affinity.translate(target, dx, dy)
    earlier = None
    for n, (mx, my) in enumerate([(0.0, 0.0), *moves]):
        moved = affinity.translate(dev, dx + mx, dy + my)
        dem = _shifted_dem(dems[n % len(dems)], dx, dy)
        derived = Derived(earlier)
        with using(derived):
            got = _outcome(sg.read_sides, moved, target, reach, dem, unit_to_ft, mode, tol)
        assert got == _outcome(_old_read_sides, moved, target, reach, dem, unit_to_ft, mode, tol)
        earlier = derived


def test_a_whole_cut_is_kept_only_for_a_geometry_of_few_elements():
    small = Polygon(_square((0.0, 0.0), 10.0))  # 20 x 20 at 1: about 480 elements
    large = Polygon(_square((0.0, 0.0), 40.0))  # 80 x 80 at 1: about 6,900
    assert se._cut_whole(small, 1.0, 1.0) is not None
    assert se._cut_whole(large, 1.0, 1.0) is None
    assert se._cut_whole(large, 2.0, 2.0) is not None
    assert se._cut_whole(LineString([(0.0, 0.0), (math.inf, 1.0)]), 1.0, 1.0) is None  # a length not finite: clipped first


def test_a_whole_cut_kept_outside_a_checks_values_is_the_cut_of_that_content_and_those_steps():
    def arrays(w):
        return None if w is None else [x.tobytes() for x in (w.a, w.b, w.lo, w.hi)]

    se._WHOLE_KEPT.clear()
    g = Polygon(_square((2.0, 1.0), 3.0))
    first = se._kept_whole(shapely.normalize(g), g, 1.0, 1.0)
    assert arrays(first) == arrays(se._cut_whole(shapely.normalize(g), 1.0, 1.0))
    twin = Polygon(_square((2.0, 1.0), 3.0))  # another object of the same content: the same cut
    assert se._kept_whole(shapely.normalize(twin), twin, 1.0, 1.0) is first
    for geom, step in ((g, 0.5), (Polygon(_square((2.0, 1.5), 3.0)), 1.0), (Polygon(_square((2.0, 1.0), 40.0)), 1.0)):
        kept = se._kept_whole(shapely.normalize(geom), geom, step, step)
        assert kept is not first
        assert arrays(kept) == arrays(se._cut_whole(shapely.normalize(geom), step, step))


def test_a_point_device_on_nodata_reads_every_pair_unknown_never_qualifying():
    """NaN under the device: its pairs are unknown, at the exact distance, and none qualifies (never a silent pass)."""
    values = np.full((30, 30), 100.0)
    values[14:16, 14:16] = np.nan  # the cells around the device's point (0.5, 0.5)
    dem = ElevationGrid(values, (-15.0, 1.0, 0.0, 15.0, 0.0, -1.0))
    reading = sg.read_sides(Point(0.5, -0.5), Polygon(_square((4.5, -0.5), 1.0)), 5.0, dem, 1.0, "device_upgradient", 0.5)
    assert reading.unknown.distance_ft == 3.0
    assert all(q.distance_ft == math.inf for q in reading.qualifying)
    assert _reading(reading) == _reading(_old_read_sides(Point(0.5, -0.5), Polygon(_square((4.5, -0.5), 1.0)), 5.0, dem, 1.0, "device_upgradient", 0.5))


# --- pieces crossing the limit, at state-plane magnitudes --------------------------------------------------------------

_fine_coord = st.one_of(_fine, st.sampled_from([math.nan, 3.0000000001, 4.999999999, 5.000000001, 5.0 + 1e-9, 5.0 * (1 + 1e-9) + 1e-9]))


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(p=st.tuples(_fine, _fine), ends=st.lists(st.tuples(_fine_coord, _fine_coord, _fine_coord, _fine_coord, st.booleans()), max_size=30),
       limit=st.sampled_from([1.0, 5.0, 5.0 * (1 + 1e-9), 6.095964208392576, 7.5, 13.0]),
       offset=st.sampled_from([(0.0, 0.0), (608_281.42807797, 4_817_195.0), (1_150_000.0, 12_000_000.0)]),
       cut=st.booleans())
def test_the_pieces_within_reach_of_a_point_at_state_plane_magnitudes_are_those_geos_keeps(p, ends, limit, offset, cut):
    """Fine-grid pieces, and (``cut``) pieces on the lines x = p + pad and y = p - pad where a clipped feature's cut
    edges lie (1e-9 units beyond the reach), told as GEOS tells them, with the point given or read from the geometry."""
    dx, dy = offset
    px, py = p[0] + dx, p[1] + dy
    rows = []
    for x0, y0, x1, y1, dot in ends:
        if cut:
            pad = limit + 1e-9
            a, b = (px + pad, py + y0), (px + pad, py + (y0 if dot else y1))
        else:
            a, b = (x0 + dx, y0 + dy), ((x0 if dot else x1) + dx, (y0 if dot else y1) + dy)
        rows.append((a, b))
    a = np.array([r[0] for r in rows], dtype=np.float64).reshape(-1, 2)
    b = np.array([r[1] for r in rows], dtype=np.float64).reshape(-1, 2)
    other = Point(px, py)
    expected = _geos_within_reach(other, a, b, limit).tolist()
    assert se.within_reach(other, a, b, limit).tolist() == expected
    assert se.within_reach(other, a, b, limit, np.array([px, py])).tolist() == expected


def test_a_piece_shorter_than_its_squared_length_can_hold_is_asked_of_geos():
    """A segment 1e-170 long: its squared length underflows to 0 and GEOS divides by it; its answer is GEOS's."""
    a = np.array([[3.0, 4.0], [30.0, 40.0]])
    b = a + np.array([[1e-170, 0.0], [0.0, 1e-170]])
    for limit in (1.0, 5.0, 100.0):
        assert se.within_reach(Point(0, 0), a, b, limit).tolist() == _geos_within_reach(Point(0, 0), a, b, limit).tolist()


# --- the cut positions of a line --------------------------------------------------------------------------------------


def _old_positions(line: BaseGeometry, step_units: float) -> np.ndarray:
    length = line.length
    step = step_units
    if length / step > se.MAX_LINE_SAMPLES:
        step = length / se.MAX_LINE_SAMPLES
    regular = np.arange(0.0, length, step)
    coords = shapely.get_coordinates(line)
    seg = np.hypot(np.diff(coords[:, 0]), np.diff(coords[:, 1]))
    vertices = np.concatenate([[0.0], np.cumsum(seg)])
    return np.unique(np.clip(np.concatenate([regular, vertices, [length]]), 0.0, length))


@settings(max_examples=300, deadline=None)
@given(pts=st.lists(_fine_xy, min_size=2, max_size=8), step=st.sampled_from([0.25, 1.0, 1.0 / 3.281, 3.0, 1e-3]),
       offset=st.sampled_from([0.0, 608_281.0, 1.2e7]), repeat=st.booleans())
def test_the_cut_positions_of_a_line_are_the_earlier_formulations_bit_for_bit(pts, step, offset, repeat):
    """Vertices on a fine grid, repeated vertices (a position twice), at state-plane magnitudes, with its coordinates given or not."""
    pts = [(x + offset, y + offset) for x, y in pts] + ([(pts[-1][0] + offset, pts[-1][1] + offset)] if repeat else [])
    line = LineString(pts)
    if not line.length > 0:
        return
    old = _old_positions(line, step)
    assert se._positions(line, step).tobytes() == old.tobytes()
    assert se._positions(line, step, float(shapely.length(line)), shapely.get_coordinates(line)).tobytes() == old.tobytes()


_any_coord = st.one_of(st.floats(-1e7, 1e7), st.sampled_from([0.0, -0.0, 608_000.125, 4_817_000.5]))


@settings(max_examples=300, deadline=None)
@given(p=st.tuples(_any_coord, _any_coord), q=st.tuples(_any_coord, _any_coord), touch=st.booleans())
def test_the_pair_line_is_the_earlier_formulations_bit_for_bit(p, q, touch):
    """Coordinates as they are (signed zeros, state-plane magnitudes), and a zero-length line where the parts touch."""
    a = np.array(p, dtype=np.float64)
    b = a.copy() if touch else np.array(q, dtype=np.float64)
    new, old = sg._pair_line(a, b), _old_pair_line(a, b)
    assert type(new) is type(old)
    assert shapely.to_wkb(new) == shapely.to_wkb(old)
    assert np.array_equal(np.signbit(shapely.get_coordinates(new)), np.signbit(shapely.get_coordinates(old)))
