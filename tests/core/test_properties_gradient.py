"""Properties of the gradient-conditioned setbacks over generated sites (issue 21: representation, monotonicity).

Random devices (point, line, polygon, rotated), wells, septic systems (polygon or point)
and wetlands on a random tilted plane, in both packs that have gradient rules and both
classes:

(i) splitting a device into parts with the same id, or drawing a point device as a
    1 ft square, never turns a violation of a gradient rule into a pass;
(ii) moving the device toward the feature along the pair a violation was measured on
    never turns that violation into a pass.

Bounded (``max_examples``), derandomized so every run tries the same examples, and
``print_blob`` prints the failing example's reproduction blob.
"""

from __future__ import annotations

import shapely
import shapely.affinity
import shapely.ops
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from shapely.geometry import LineString, MultiLineString, MultiPolygon, Point, box
from shapely.geometry.base import BaseGeometry

from stormwater_plugin.core.model import Status
from stormwater_plugin.core.rulepack import load_pack
from tests.sitebuilder import layer, plane_dem, run

PROPS = settings(max_examples=40, deadline=None, derandomize=True, print_blob=True, suppress_health_check=[HealthCheck.too_slow])
JURISDICTIONS = ("lgpc", "lake-george")
GRADIENT_RULES = {
    j: {r.id for r in load_pack(j).rules if r.kind == "device_setback" and r.params.get("gradient", "any") != "any"} for j in JURISDICTIONS
}

coord = st.floats(min_value=-80, max_value=80, allow_nan=False, allow_infinity=False)
size = st.floats(min_value=2, max_value=40, allow_nan=False)
grade = st.floats(min_value=-0.12, max_value=0.12, allow_nan=False)


@st.composite
def device_geoms(draw: st.DrawFn) -> BaseGeometry:
    """A device of any geometry type: point, line, polygon (rotated), or two parts of one of them."""
    kind = draw(st.sampled_from(["point", "line", "polygon", "multi"]))
    if kind == "multi":  # a device drawn in two parts of one kind
        one = draw(st.sampled_from(["point", "line", "polygon"]))
        parts = [draw(single_geoms(one)), draw(single_geoms(one))]
        multi = shapely.multipoints if one == "point" else shapely.multilinestrings if one == "line" else shapely.multipolygons
        geom = multi(parts)
        return geom if geom.is_valid else parts[0]
    return draw(single_geoms(kind))


@st.composite
def single_geoms(draw: st.DrawFn, kind: str) -> BaseGeometry:
    x, y = draw(coord), draw(coord)
    if kind == "point":
        return Point(x, y)
    if kind == "line":
        n = draw(st.integers(2, 4))
        pts = [(x, y)] + [(x + draw(st.floats(-40, 40)), y + draw(st.floats(-40, 40))) for _ in range(n - 1)]
        line = LineString(pts)
        return line if line.length > 1.0 else LineString([(x, y), (x + 10.0, y + 3.0)])
    w, h, angle = draw(size), draw(size), draw(st.floats(0, 180))
    return shapely.affinity.rotate(box(x, y, x + w, y + h), angle, origin=(x, y))


@st.composite
def sites(draw: st.DrawFn) -> tuple[dict, BaseGeometry, dict]:
    dev = draw(device_geoms())
    sx, sy = draw(coord), draw(coord)
    septic = Point(sx, sy) if draw(st.booleans()) else box(sx, sy, sx + draw(size), sy + draw(size))
    wx, wy = draw(coord), draw(coord)
    lx, ly = draw(coord), draw(coord)
    wetland = box(lx, ly, lx + draw(size), ly + draw(size))
    attrs = {"device_type": draw(st.sampled_from(["dry_well", "infiltration_trench"])), "high_traffic": draw(st.sampled_from([0, 1]))}
    features = {
        "septic": layer("septic", [septic], ["S1"]),
        "wells": layer("wells", [Point(wx, wy)], ["W1"]),
        "wetlands": layer("wetlands", [wetland], ["WL1"]),
    }
    return features, dev, attrs


_RANK = {Status.PASS: 0, Status.UNDETERMINED: 1, Status.VIOLATION: 2}


def _statuses(jurisdiction: str, klass: str, features: dict, devs: list[BaseGeometry], attrs: dict, dem) -> dict:
    """The worst finding per (gradient rule, feature) over the device's rows (several rows may share the id D1)."""
    layers = dict(features, devices=layer("devices", devs, ["D1"] * len(devs), [dict(attrs) for _ in devs]))
    out: dict = {}
    for f in run(jurisdiction, layers, dem, klass).findings:
        if f.rule_id in GRADIENT_RULES[jurisdiction] and f.other is not None:
            key = (f.rule_id, f.other.id)
            if key not in out or _RANK[f.status] > _RANK[out[key].status]:
                out[key] = f
    return out


def _never_violation_to_pass(a: dict, b: dict) -> None:
    for key, f in a.items():
        if f.status is Status.VIOLATION:
            assert key in b and b[key].status is not Status.PASS, (key, f.message, b.get(key) and b[key].message)


def _split(dev: BaseGeometry, frac: float) -> list[BaseGeometry] | None:
    """The same device cut in two parts (its own parts; a line cut at ``frac`` of its length; a polygon cut across)."""
    if dev.geom_type.startswith("Multi"):
        return list(dev.geoms)
    if dev.geom_type == "LineString":
        cut = dev.length * frac
        a = shapely.ops.substring(dev, 0.0, cut)
        b = shapely.ops.substring(dev, cut, dev.length)
        if a.geom_type != "LineString" or b.geom_type != "LineString":
            return None
        return [a, b]
    if dev.geom_type == "Polygon":
        minx, miny, maxx, maxy = dev.bounds
        xc = minx + (maxx - minx) * frac
        left = shapely.clip_by_rect(dev, minx - 1, miny - 1, xc, maxy + 1)
        right = shapely.clip_by_rect(dev, xc, miny - 1, maxx + 1, maxy + 1)
        if left.geom_type != "Polygon" or right.geom_type != "Polygon" or left.area < 1e-6 or right.area < 1e-6:
            return None
        return [left, right]
    return None


def _multi(parts: list[BaseGeometry]) -> BaseGeometry:
    kind = parts[0].geom_type
    return MultiPolygon(parts) if kind == "Polygon" else MultiLineString(parts) if kind == "LineString" else shapely.multipoints(parts)


@PROPS
@given(site=sites(), gx=grade, gy=grade, frac=st.floats(0.1, 0.9), jurisdiction=st.sampled_from(JURISDICTIONS),
       klass=st.sampled_from(["minor", "major"]))
def test_splitting_a_device_or_drawing_a_point_as_a_1_ft_square_never_turns_a_gradient_violation_into_a_pass(site, gx, gy, frac, jurisdiction, klass):
    features, dev, attrs = site
    dem = plane_dem(-400, -400, 800, 4.0, gx=gx, gy=gy)
    whole = _statuses(jurisdiction, klass, features, [dev], attrs, dem)
    if dev.geom_type == "Point":
        # The square holds the point, so it is at least as close to everything.
        square = box(dev.x - 0.5, dev.y - 0.5, dev.x + 0.5, dev.y + 0.5)
        _never_violation_to_pass(whole, _statuses(jurisdiction, klass, features, [square], attrs, dem))
        return
    parts = _split(dev, frac)
    if parts is None:
        return
    # The same ground drawn as rows sharing the id, and as one multi-part feature: either way round.
    for drawn in (parts, [_multi(parts)]):
        alt = _statuses(jurisdiction, klass, features, drawn, attrs, dem)
        _never_violation_to_pass(whole, alt)
        _never_violation_to_pass(alt, whole)


@PROPS
@given(site=sites(), gx=grade, gy=grade, lam=st.floats(0.05, 1.0), jurisdiction=st.sampled_from(JURISDICTIONS),
       klass=st.sampled_from(["minor", "major"]))
def test_moving_a_device_toward_the_feature_never_turns_a_gradient_violation_into_a_pass(site, gx, gy, lam, jurisdiction, klass):
    features, dev, attrs = site
    dem = plane_dem(-400, -400, 800, 4.0, gx=gx, gy=gy)
    base = _statuses(jurisdiction, klass, features, [dev], attrs, dem)
    for key, f in base.items():
        if f.status is not Status.VIOLATION or f.geometry is None:
            continue
        # Along the pair the violation was measured on: every point of the device moves the same way.
        (px, py), (qx, qy) = f.geometry.coords[0], f.geometry.coords[-1]
        moved = shapely.affinity.translate(dev, lam * (qx - px), lam * (qy - py))
        after = _statuses(jurisdiction, klass, features, [moved], attrs, dem)
        assert key in after and after[key].status is not Status.PASS, (key, f.message, after.get(key) and after[key].message)
