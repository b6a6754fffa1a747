"""Generated synthetic sites for the invariant properties (issue 21).

A site is a plain description (:class:`Site`): features as (role, id,
geometry, attributes) and a DEM surface given as a function of x, y in feet
(a plane or a plane with smooth bumps). :func:`layers_of` turns it into
engine layers, :func:`dem_of` into an in-memory :class:`ElevationGrid`, so a
transformation can move the features and the ground together exactly.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any, Callable

import numpy as np
import shapely
import shapely.affinity
from hypothesis import strategies as st
from shapely.geometry import LineString, MultiPoint, MultiPolygon, Point, Polygon, box
from shapely.geometry.base import BaseGeometry

from stormwater_plugin.core.engine import run_check
from stormwater_plugin.core.model import DEVICE_TYPES, CheckResult, FeatureLayer, SiteInputs
from stormwater_plugin.core.raster import ElevationGrid
from stormwater_plugin.core.rulepack import load_pack

PACKS = ("lgpc", "lake-george", "mamakating")
CLASSES = ("minor", "major")

#: Half the side of the site parcel (ft); features are drawn within REACH of it.
HALF = 150.0
#: The DEM covers the site and this much around it (ft).
DEM_HALF = 700.0
DEM_CELL = 5.0


@dataclass(frozen=True)
class Feature:
    role: str
    id: str
    geom: BaseGeometry
    attrs: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Surface:
    """Ground z(x, y) in feet: a plane plus Gaussian bumps (cx, cy, height, radius)."""

    z0: float
    gx: float
    gy: float
    bumps: tuple[tuple[float, float, float, float], ...] = ()

    def __call__(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        z = self.z0 + self.gx * x + self.gy * y
        for cx, cy, h, r in self.bumps:
            z = z + h * np.exp(-((x - cx) ** 2 + (y - cy) ** 2) / (2 * r * r))
        return z


@dataclass(frozen=True)
class Site:
    features: tuple[Feature, ...]
    surface: Surface
    #: Rigid motion applied so far: rotation (deg, about the origin) then translation (ft).
    angle: float = 0.0
    dx: float = 0.0
    dy: float = 0.0

    def __repr__(self) -> str:
        feats = ", ".join(f"{f.role}:{f.id} {f.geom.wkt} {f.attrs}" for f in self.features if f.role != "parcels")
        return f"Site([25 parcels], {feats}, surface={self.surface}, angle={self.angle}, dx={self.dx}, dy={self.dy})"

    def with_features(self, features: list[Feature] | tuple[Feature, ...]) -> Site:
        return replace(self, features=tuple(features))


def layers_of(site: Site) -> dict[str, FeatureLayer]:
    """Engine layers of the site (roles in first-appearance order, features in site order)."""
    by_role: dict[str, list[Feature]] = {}
    for f in site.features:
        by_role.setdefault(f.role, []).append(f)
    return {r: FeatureLayer.from_sequences(r, [f.geom for f in fs], [f.id for f in fs], [dict(f.attrs) for f in fs]) for r, fs in by_role.items()}


def dem_of(site: Site) -> ElevationGrid:
    """The ground as a grid in the site's original frame; moved sites sample it through the inverse motion."""
    n = int(round(2 * DEM_HALF / DEM_CELL))
    cols = -DEM_HALF + (np.arange(n) + 0.5) * DEM_CELL
    rows = DEM_HALF - (np.arange(n) + 0.5) * DEM_CELL
    xx, yy = np.meshgrid(cols, rows)
    gt = (-DEM_HALF, DEM_CELL, 0.0, DEM_HALF, 0.0, -DEM_CELL)
    values = site.surface(xx, yy)
    if site.angle == 0.0 and site.dx == 0.0 and site.dy == 0.0:
        return ElevationGrid(values, gt, z_to_ft=1.0, cell_size_ft=(DEM_CELL, DEM_CELL))
    th = math.radians(site.angle)
    c, s = math.cos(th), math.sin(th)
    dx, dy = site.dx, site.dy

    def to_raster(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        x0, y0 = np.asarray(x) - dx, np.asarray(y) - dy
        return x0 * c + y0 * s, -x0 * s + y0 * c

    def from_raster(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        x, y = np.asarray(x), np.asarray(y)
        return x * c - y * s + dx, x * s + y * c + dy

    return ElevationGrid(values, gt, z_to_ft=1.0, to_raster=to_raster, from_raster=from_raster, cell_size_ft=(DEM_CELL, DEM_CELL))


def run_site(site: Site, jurisdiction: str, klass: str | None) -> CheckResult:
    return run_check(SiteInputs(layers=layers_of(site), dem=dem_of(site), unit_to_ft=1.0, class_override=klass), load_pack(jurisdiction))


# --- the outcome signature ---------------------------------------------------------------


def signature(result: CheckResult) -> dict[str, Any]:
    """What the invariants compare: findings (rule, subject, other, status), class, building-site slopes, the 500 ft list."""
    findings: dict[tuple[str, str, str], list[tuple[str, float | None, float | None]]] = {}
    for f in result.findings:
        key = (f.rule_id, f"{f.subject.layer}:{f.subject.id}" if f.subject else "", f"{f.other.layer}:{f.other.id}" if f.other else "")
        findings.setdefault(key, []).append((f.status.value, f.measured_ft, f.required_ft))
    notif = result.notification or {}
    return {
        "findings": {k: sorted(v, key=lambda t: (t[0], t[1] if t[1] is not None else -1.0)) for k, v in findings.items()},
        "class": result.project_class,
        "building_sites": sorted((b.id, b.status.value) for b in result.building_sites),
        "notify": sorted([f"500:{n.get('id')}" for n in notif.get("within_500ft", []) or []] + [f"adj:{n.get('id')}" for n in notif.get("adjacent", []) or []]),
    }


_RANK = {"violation": 0, "undetermined": 1, "advisory": 2, "pass": 3}


def statuses(sig: dict[str, Any]) -> dict[tuple[str, str, str], tuple[str, ...]]:
    """The worst status of each (rule, subject, other): what a reviewer reads for the pair."""
    return {k: (min((s for s, _, _ in v), key=_RANK.__getitem__),) for k, v in sig["findings"].items()}


# --- transformations ---------------------------------------------------------------------


def moved(site: Site, angle: float, dx: float, dy: float) -> Site:
    """The site rotated by ``angle`` degrees about the origin and translated; the ground moves with it."""

    def f(g: BaseGeometry) -> BaseGeometry:
        return shapely.affinity.translate(shapely.affinity.rotate(g, angle, origin=(0, 0)), dx, dy)

    assert site.angle == 0 and site.dx == 0 and site.dy == 0
    return replace(site, features=tuple(replace(ft, geom=f(ft.geom)) for ft in site.features), angle=angle, dx=dx, dy=dy)


def reversed_vertices(g: BaseGeometry) -> BaseGeometry:
    return shapely.reverse(g)


def split_in_two(g: BaseGeometry) -> BaseGeometry | None:
    """``g`` as a multi-geometry of two parts covering the same ground (None when it cannot be split)."""
    if isinstance(g, Polygon):
        minx, miny, maxx, maxy = g.bounds
        mid = (minx + maxx) / 2
        a = shapely.intersection(g, box(minx - 1, miny - 1, mid, maxy + 1))
        b = shapely.intersection(g, box(mid, miny - 1, maxx + 1, maxy + 1))
        if a.geom_type == "Polygon" and b.geom_type == "Polygon" and a.area > 0 and b.area > 0:
            return MultiPolygon([a, b])
        return None
    if isinstance(g, LineString) and len(g.coords) >= 2:
        coords = list(g.coords)
        if len(coords) == 2:
            m = ((coords[0][0] + coords[1][0]) / 2, (coords[0][1] + coords[1][1]) / 2)
            return shapely.MultiLineString([[coords[0], m], [m, coords[1]]])
        k = len(coords) // 2
        return shapely.MultiLineString([coords[: k + 1], coords[k:]])
    return None


# --- strategies --------------------------------------------------------------------------

# Coordinates to 0.01 ft, as plans are drawn (GEOS raises TopologyException on subnormal offsets such as 1e-192).
xy = st.floats(min_value=-HALF * 0.9, max_value=HALF * 0.9, allow_nan=False, allow_infinity=False).map(lambda v: round(v, 2))
near_xy = st.floats(min_value=-HALF * 1.6, max_value=HALF * 1.6, allow_nan=False, allow_infinity=False).map(lambda v: round(v, 2))
size = st.floats(min_value=4.0, max_value=40.0).map(lambda v: round(v, 2))


@st.composite
def device_geometry(draw: Any, kind: str | None = None) -> BaseGeometry:
    kind = kind or draw(st.sampled_from(["point", "line", "polygon", "multipoint", "multipolygon"]))
    x, y = draw(xy), draw(xy)
    if kind == "point":
        return Point(x, y)
    if kind == "line":
        ang = draw(st.floats(0, 180))
        length = draw(st.floats(10, 60))
        return LineString([(x, y), (x + length * math.cos(math.radians(ang)), y + length * math.sin(math.radians(ang)))])
    w, h = draw(size), draw(size)
    if kind == "polygon":
        return box(x, y, x + w, y + h)
    gap = draw(st.floats(3, 30))
    if kind == "multipoint":
        return MultiPoint([(x, y), (x + gap, y + gap / 2)])
    return MultiPolygon([box(x, y, x + w, y + h), box(x + w + gap, y, x + 2 * w + gap, y + h)])


@st.composite
def devices(draw: Any) -> list[Feature]:
    n = draw(st.integers(1, 3))
    out = []
    for k in range(n):
        attrs = {
            "device_type": draw(st.sampled_from(DEVICE_TYPES)),
            "high_traffic": draw(st.sampled_from([0, 1])),
            "storage_gal": draw(st.sampled_from([100, 2000])),
            "drain_days": draw(st.sampled_from([1, 3, 20])),
            "bottom_depth_ft": draw(st.sampled_from([2.0, 6.0])),
        }
        out.append(Feature("devices", f"D{k + 1}", draw(device_geometry()), attrs))
    return out


@st.composite
def surfaces(draw: Any) -> Surface:
    gx = draw(st.floats(-0.15, 0.15))
    gy = draw(st.floats(-0.15, 0.15))
    bumps: tuple[tuple[float, float, float, float], ...] = ()
    if draw(st.booleans()):
        bumps = ((draw(xy), draw(xy), draw(st.floats(-8, 8)), draw(st.floats(40, 120))),)
    return Surface(400.0, gx, gy, bumps)


def parcels() -> list[Feature]:
    """The site parcel and its neighbours (a 5 x 5 block of lots, 300 ft square each: the 500 ft ring is covered)."""
    out = []
    side = 2 * HALF
    for i in (-2, -1, 0, 1, 2):
        for j in (-2, -1, 0, 1, 2):
            g = box(i * side - HALF, j * side - HALF, i * side + HALF, j * side + HALF)
            pid = "SITE" if (i, j) == (0, 0) else f"N{i + 2}{j + 2}"
            out.append(Feature("parcels", pid, g, {"is_site": 1 if pid == "SITE" else 0, "owner": f"Owner {pid}", "mailing_address": f"{pid} Road"}))
    return out


@st.composite
def sites(draw: Any) -> Site:
    """A site: parcels, devices of every kind, wells, septic, wetlands, a stream, the Lake George shoreline, area layers, a DEM."""
    feats: list[Feature] = parcels()
    feats += draw(devices())
    for k in range(draw(st.integers(0, 2))):
        feats.append(Feature("wells", f"W{k + 1}", Point(draw(near_xy), draw(near_xy))))
    if draw(st.booleans()):
        x, y = draw(xy), draw(xy)
        feats.append(Feature("septic", "S1", box(x, y, x + draw(size), y + draw(size))))
    if draw(st.booleans()):
        x, y = draw(near_xy), draw(near_xy)
        feats.append(Feature("wetlands", "WL1", box(x, y, x + 40, y + 30)))
    if draw(st.booleans()):
        x = draw(near_xy)
        feats.append(Feature("streams", "ST1", LineString([(x, -3 * HALF), (x + draw(st.floats(-60, 60)), 3 * HALF)]), {"name": "Brook"}))
    if draw(st.booleans()):
        feats.append(Feature("shoreline", "MHW", LineString([(HALF * 1.3, -4 * HALF), (HALF * 1.3 + draw(st.floats(-40, 40)), 4 * HALF)]), {"waterbody": "Lake George"}))
    for role in ("clearing", "disturbance", "impervious"):
        for k in range(draw(st.integers(0, 2))):
            x, y = draw(xy), draw(xy)
            w, h = round(draw(st.floats(10, 140)), 2), round(draw(st.floats(10, 140)), 2)
            attrs: dict[str, Any] = {}
            if role == "impervious":
                attrs["status"] = draw(st.sampled_from(["proposed", "existing", "removed"]))
            if role == "clearing":
                attrs["use"] = draw(st.sampled_from(["lawn", "construction", None]))
            feats.append(Feature(role, f"{role[:2].upper()}{k + 1}", box(x, y, x + w, y + h), attrs))
    if draw(st.booleans()):
        feats.append(Feature("building_sites", "B1", Point(draw(xy), draw(xy)), {"use": "single_family"}))
    return Site(tuple(feats), draw(surfaces()))


# --- comparison ----------------------------------------------------------------------------

#: Distances or elevation differences within this of a limit may be sampled to either side (ft).
SAMPLING_TOL_FT = 0.05


def near_limit(entries: list[tuple[str, float | None, float | None]], tol: float = SAMPLING_TOL_FT) -> bool:
    return any(m is not None and r is not None and abs(m - r) <= tol for _, m, r in entries)


def compare(a: dict[str, Any], b: dict[str, Any], *, allow_near_limit: bool = True, what: str = "", allow_extra_pass: bool = False) -> list[str]:
    """Differences between two signatures that an invariant forbids (an empty list: same outcome).

    ``allow_extra_pass``: a pair reported only as a pass on one side and absent on the other is allowed (a device
    drawn as several same-id features has a nearest feature per part, so one more nearest pair may be reported).
    """
    problems: list[str] = []
    if a["class"] != b["class"]:
        problems.append(f"{what}class {a['class']} -> {b['class']}")
    if a["building_sites"] != b["building_sites"]:
        problems.append(f"{what}building-site slopes {a['building_sites']} -> {b['building_sites']}")
    if a["notify"] != b["notify"]:
        problems.append(f"{what}500 ft list {a['notify']} -> {b['notify']}")
    sa, sb = statuses(a), statuses(b)
    for key in sorted(set(sa) | set(sb)):
        x, y = sa.get(key, ()), sb.get(key, ())
        if x == y:
            continue
        if allow_extra_pass and (not x and set(y) == {"pass"} or not y and set(x) == {"pass"}):
            continue
        if allow_near_limit and near_limit(a["findings"].get(key, []) + b["findings"].get(key, [])):
            # Near a limit the outcome may move between violation and undetermined, never to a pass.
            if ("pass" in y and x and "pass" not in x) or ("pass" in x and y and "pass" not in y):
                problems.append(f"{what}{key}: {x} -> {y} (near the limit, but a pass appeared or vanished)")
            continue
        problems.append(f"{what}{key}: {x} -> {y}")
    return problems


def never_lost(a: dict[str, Any], b: dict[str, Any], what: str = "") -> list[str]:
    """Violations of ``a`` that became a pass or vanished in ``b`` (monotonicity: b may be worse, never better)."""
    problems = []
    sa, sb = statuses(a), statuses(b)
    for key, x in sa.items():
        if "violation" in x:
            y = sb.get(key, ())
            if "violation" not in y and "undetermined" not in y:
                problems.append(f"{what}{key}: {x} -> {y or 'absent'}")
    return problems


def wkt_of(site: Site) -> list[str]:
    return [f"{f.role} {f.id} {f.geom.wkt} {f.attrs}" for f in site.features if f.role != "parcels"]


SurfaceFn = Callable[[np.ndarray, np.ndarray], np.ndarray]
