"""Invariants the checker keeps on every input (issue 21), as properties over generated sites.

Each property runs over all three packs and both classes with a bounded
number of examples (``derandomize=True``: the examples, and so the seed, are
fixed; hypothesis prints the failing example and its reproduction blob).
A site (``tests/core/invariants/sites.py``) holds the 25 lots around the site
parcel, one to three devices of every type drawn as points, lines, polygons,
multipoints or multipolygons, wells, a septic field, a wetland, a stream, the
Lake George shoreline, clearing, disturbance and impervious areas and a
building site, on a plane or smoothly bumped ground given as an in-memory DEM.
The outcome signature is the worst status of each (rule, subject, other), the
project class, the building-site slopes and the 500 ft list.
"""

from __future__ import annotations

import math
from typing import Any

import pytest
import shapely
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st
from shapely.geometry import LineString, Point, box

from tests.core.invariants.sites import (
    CLASSES,
    HALF,
    PACKS,
    Feature,
    Site,
    Surface,
    compare,
    moved,
    never_lost,
    parcels,
    run_site,
    signature,
    sites,
    split_in_two,
    statuses,
    wkt_of,
)

PROPS = settings(
    max_examples=10,
    deadline=None,
    derandomize=True,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
)

klass = st.sampled_from(CLASSES)
_CLASS_RANK = {"exempt": 0, "minor": 1, "major": 2}


def _sig(site: Site, pack: str, k: str | None) -> dict[str, Any]:
    return signature(run_site(site, pack, k))


def _check(problems: list[str], site: Site, pack: str, k: str | None) -> None:
    if problems:
        note("\n".join(wkt_of(site)))
    assert not problems, f"{pack} {k}: " + "; ".join(problems[:6])


# --- rigid motion ---------------------------------------------------------------------------


@pytest.mark.parametrize("pack", PACKS)
@PROPS
@given(site=sites(), k=klass, angle=st.floats(0, 360), dx=st.floats(-3e5, 3e5), dy=st.floats(-3e5, 3e5))
def test_rotating_and_translating_site_and_dem_together_keeps_every_status(pack, site, k, angle, dx, dy):
    a = _sig(site, pack, k)
    b = _sig(moved(site, angle, dx, dy), pack, k)
    _check(compare(a, b, what="rigid motion: "), site, pack, k)


# --- representation -------------------------------------------------------------------------


@pytest.mark.parametrize("pack", PACKS)
@PROPS
@given(site=sites(), k=klass)
def test_reversed_vertex_order_keeps_every_status(pack, site, k):
    flipped = site.with_features([Feature(f.role, f.id, shapely.reverse(f.geom), f.attrs) for f in site.features])
    _check(compare(_sig(site, pack, k), _sig(flipped, pack, k), allow_near_limit=False, what="reversed vertices: "), site, pack, k)


@pytest.mark.parametrize("pack", PACKS)
@PROPS
@given(site=sites(), k=klass)
def test_reversed_feature_order_keeps_every_status(pack, site, k):
    _check(compare(_sig(site, pack, k), _sig(site.with_features(site.features[::-1]), pack, k), allow_near_limit=False, what="reversed order: "),
           site, pack, k)


@pytest.mark.parametrize("pack", PACKS)
@PROPS
@given(site=sites(), k=klass, which=st.integers(0, 50))
def test_a_feature_split_into_two_parts_with_the_same_id_keeps_every_status(pack, site, k, which):
    cands = [i for i, f in enumerate(site.features) if f.role != "parcels" and split_in_two(f.geom) is not None]
    if not cands:
        return
    i = cands[which % len(cands)]
    f = site.features[i]
    feats = list(site.features)
    feats[i] = Feature(f.role, f.id, split_in_two(f.geom), f.attrs)
    note(f"split {f.role} {f.id}: {feats[i].geom.wkt}")
    _check(compare(_sig(site, pack, k), _sig(site.with_features(feats), pack, k), what="split: "), site, pack, k)


@pytest.mark.parametrize("pack", PACKS)
@PROPS
@given(site=sites(), k=klass, which=st.integers(0, 50))
def test_a_multipart_feature_drawn_as_separate_features_with_one_id_keeps_every_status(pack, site, k, which):
    cands = [i for i, f in enumerate(site.features) if f.geom.geom_type.startswith("Multi") and f.role != "parcels"]
    if not cands:
        return
    i = cands[which % len(cands)]
    f = site.features[i]
    parts = [Feature(f.role, f.id, p, f.attrs) for p in shapely.get_parts(f.geom)]
    feats = list(site.features[:i]) + parts + list(site.features[i + 1:])
    note(f"exploded {f.role} {f.id}: {f.geom.wkt}")
    _check(compare(_sig(site, pack, k), _sig(site.with_features(feats), pack, k), what="exploded: ", allow_extra_pass=True), site, pack, k)


#: A point and the 1 ft square centred on it differ by at most half the diagonal; both ends of a pair (a device and a
#: well) may be squared, so a pair's distance moves by up to twice that.
POINT_TOL_FT = 2 * 0.7072


@pytest.mark.parametrize("pack", PACKS)
@PROPS
@given(site=sites(), k=klass)
def test_a_point_and_a_1_ft_square_around_it_give_the_same_statuses(pack, site, k):
    """A point and its 1 ft square give the same statuses, except a point may be less known (undetermined where the
    square decides) and pairs within the squares' reach of the limit, where the square is a nearer plan."""
    feats = [Feature(f.role, f.id, f.geom.buffer(0.5, cap_style="square"), f.attrs) if f.geom.geom_type == "Point" and f.role in ("wells", "devices") else f
             for f in site.features]
    a, b = _sig(site, pack, k), _sig(site.with_features(feats), pack, k)
    problems = []
    sa, sb = statuses(a), statuses(b)
    for key in sorted(set(sa) | set(sb)):
        x, y = sa.get(key, ()), sb.get(key, ())
        if x == y or x == ("undetermined",):
            continue
        if (not x and y == ("pass",)) or (not y and x == ("pass",)):
            # a pair beyond a device's nearest feature of a role is listed only within the limit plus the plausible extents
            # (setbacks' reach): the square, up to POINT_TOL_FT nearer, may bring a passing pair inside that radius
            continue
        near = any(m is not None and r is not None and abs(m - r) <= POINT_TOL_FT for _, m, r in a["findings"].get(key, []) + b["findings"].get(key, []))
        if near:
            # within the squares' reach of the limit the two drawings are different plans (the square is nearer by up to
            # POINT_TOL_FT): any status may change there; beyond it, none may
            continue
        problems.append(f"point vs 1 ft square: {key}: {x} -> {y}")
    for part in ("class", "building_sites", "notify"):
        if a[part] != b[part]:
            problems.append(f"point vs 1 ft square: {part} {a[part]} -> {b[part]}")
    _check(problems, site, pack, k)


OUTLINE_ROLES = ("clearing", "disturbance", "impervious", "wetlands")


@pytest.mark.parametrize("pack", PACKS)
@PROPS
@given(site=sites(), k=klass, which=st.integers(0, 50))
def test_an_area_drawn_as_its_closed_outline_is_never_better_than_the_polygon(pack, site, k, which):
    """A closed outline in an area role encloses the area: statuses may become undetermined, never a pass."""
    cands = [i for i, f in enumerate(site.features) if f.role in OUTLINE_ROLES and f.geom.geom_type == "Polygon"]
    if not cands:
        return
    i = cands[which % len(cands)]
    f = site.features[i]
    feats = list(site.features)
    feats[i] = Feature(f.role, f.id, LineString(f.geom.exterior.coords), f.attrs)
    a, b = _sig(site, pack, k), _sig(site.with_features(feats), pack, k)
    problems = never_lost(a, b, "outline: ")
    if _CLASS_RANK.get(b["class"], 3) < _CLASS_RANK.get(a["class"], 3):
        problems.append(f"outline: class {a['class']} -> {b['class']}")
    sa, sb = statuses(a), statuses(b)
    problems += [f"outline: {key}: {sa[key]} -> pass" for key in sa if sa[key] != ("pass",) and sb.get(key) == ("pass",)]
    _check(problems, site, pack, k)


# --- irrelevance ----------------------------------------------------------------------------

#: Far beyond every rule's reach from the site (the widest distance in the packs is 500 ft).
FAR_FT = 4000.0
FLOW_KINDS = ("flow_to_sensitive_area",)


@pytest.mark.parametrize("pack", PACKS)
@PROPS
@given(site=sites(), k=klass, bearing=st.floats(0, 360))
def test_features_beyond_every_rules_reach_change_nothing(pack, site, k, bearing):
    present = {f.role for f in site.features}
    bx, by = FAR_FT * math.cos(math.radians(bearing)), FAR_FT * math.sin(math.radians(bearing))
    extra = []
    if "wells" in present:
        extra.append(Feature("wells", "FAR-W", Point(bx, by)))
    if "septic" in present:
        extra.append(Feature("septic", "FAR-S", box(bx + 50, by, bx + 70, by + 20)))
    if "wetlands" in present:
        extra.append(Feature("wetlands", "FAR-WL", box(bx - 100, by, bx - 40, by + 40)))
    if "streams" in present:
        extra.append(Feature("streams", "FAR-ST", LineString([(bx, by - 200), (bx + 10, by + 200)]), {"name": "Far Brook"}))
    if not extra:
        return
    a, b = _sig(site, pack, k), _sig(site.with_features(list(site.features) + extra), pack, k)
    for sig in (a, b):
        sig["findings"] = {key: v for key, v in sig["findings"].items() if not any(rid in key[0] for rid in ("flow", "upstream"))}
    far = {f"{f.role}:{f.id}" for f in extra}
    sb = statuses(b)
    problems = [f"far feature {key}: {sb[key]}" for key in sb if key[2] in far and sb[key] != ("pass",)]
    b["findings"] = {key: v for key, v in b["findings"].items() if key[2] not in far}
    problems += compare(a, b, allow_near_limit=False, what="far features: ")
    _check(problems, site, pack, k)


# --- monotonicity ---------------------------------------------------------------------------

flat = Surface(400.0, 0.0, 0.0)


@pytest.mark.parametrize("pack", PACKS)
@PROPS
@given(site=sites(), k=klass, step=st.floats(0.1, 0.9), which=st.integers(0, 50))
def test_moving_a_device_toward_a_feature_never_turns_a_violation_into_a_pass(pack, site, k, step, which):
    """On level ground (so the gradient cannot change), a device moved part-way toward a feature."""
    site = Site(site.features, flat)
    devs = [i for i, f in enumerate(site.features) if f.role == "devices"]
    targets = [f for f in site.features if f.role in ("wells", "septic", "wetlands", "streams", "shoreline")]
    if not targets:
        return
    i = devs[which % len(devs)]
    tgt = targets[which % len(targets)]
    dev = site.features[i]
    p, q = shapely.ops.nearest_points(dev.geom, tgt.geom)
    dx, dy = (q.x - p.x) * step, (q.y - p.y) * step
    feats = list(site.features)
    feats[i] = Feature(dev.role, dev.id, shapely.affinity.translate(dev.geom, dx, dy), dev.attrs)
    a, b = _sig(site, pack, k), _sig(site.with_features(feats), pack, k)
    pair = (f"devices:{dev.id}", f"{tgt.role}:{tgt.id}")
    a["findings"] = {key: v for key, v in a["findings"].items() if key[1:] == pair}
    _check(never_lost(a, b, "moved toward: "), site, pack, k)


@pytest.mark.parametrize("pack", PACKS)
@PROPS
@given(site=sites(), role=st.sampled_from(["clearing", "disturbance", "impervious"]), x=st.floats(-HALF, HALF - 10), y=st.floats(-HALF, HALF - 10),
       w=st.floats(10, 200), h=st.floats(10, 200))
def test_adding_area_to_an_area_layer_never_lowers_the_class(pack, site, role, x, y, w, h):
    x, y, w, h = (round(v, 2) for v in (x, y, w, h))  # as drawn: subnormal offsets (5e-324) break GEOS predicates
    attrs = {"status": "proposed"} if role == "impervious" else {}
    grown = site.with_features(list(site.features) + [Feature(role, "ADDED", box(x, y, x + w, y + h), attrs)])
    a = run_site(site, pack, None)
    if a.class_source == "assumed":
        # the class is open (an area layer absent, a feature outside the mapped areas): added area may resolve what was
        # open; adding a clearing to a plan with no area layer at all is the test below
        return
    b = run_site(grown, pack, None)
    assert _CLASS_RANK[b.project_class] >= _CLASS_RANK[a.project_class], f"{pack}: {a.project_class} -> {b.project_class} adding {role} {box(x, y, x + w, y + h).wkt}"


@pytest.mark.parametrize("pack", PACKS)
def test_adding_a_small_clearing_to_a_site_without_area_layers_never_lowers_the_assumed_class(pack):
    """Minimal counterexample the class property found: a dry well at the origin, no area layers (assumed major),
    then CLEARING POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0)): computed minor (exempt for Mamakating)."""
    base = Site(tuple(parcels() + [Feature("devices", "D1", Point(0, 0), {"device_type": "dry_well", "high_traffic": 0})]), flat)
    grown = base.with_features(list(base.features) + [Feature("clearing", "ADDED", box(0, 0, 10, 10))])
    a, b = run_site(base, pack, None), run_site(grown, pack, None)
    assert _CLASS_RANK[b.project_class] >= _CLASS_RANK[a.project_class]


def test_flow_trace_from_a_point_device_and_a_line_device_with_no_area_runs_mamakating_160_1():
    """Found by the respelling property: the activity was a collection of a point and a line, whose outline crashed the trace."""
    a = {"device_type": "dry_well", "high_traffic": 0}
    site = Site(tuple(parcels() + [Feature("devices", "D1", Point(0, 0), a), Feature("devices", "D2", LineString([(0, 1), (10, 1)]), a),
                                   Feature("wetlands", "WL1", box(0, 0, 40, 30))]), flat)
    res = run_site(site, "mamakating", "minor")
    assert [f for f in res.findings if f.kind == "flow_to_sensitive_area"]


_UNKNOWN_FIELDS = {
    "devices": ("device_type", "high_traffic", "storage_gal", "drain_days", "bottom_depth_ft"),
    "impervious": ("status",),
    "clearing": ("use",),
    "building_sites": ("use",),
}


@pytest.mark.parametrize("pack", PACKS)
@PROPS
@given(site=sites(), k=klass, which=st.integers(0, 50), unknown=st.sampled_from([None, "", "???"]))
def test_replacing_a_known_value_by_an_unknown_one_never_turns_a_violation_into_a_pass(pack, site, k, which, unknown):
    cands = [(i, fld) for i, f in enumerate(site.features) for fld in _UNKNOWN_FIELDS.get(f.role, ()) if f.attrs.get(fld) not in (None, "")]
    if not cands:
        return
    i, fld = cands[which % len(cands)]
    f = site.features[i]
    feats = list(site.features)
    feats[i] = Feature(f.role, f.id, f.geom, {**f.attrs, fld: unknown})
    note(f"{f.role} {f.id}.{fld}: {f.attrs.get(fld)!r} -> {unknown!r}")
    a, b = _sig(site, pack, k), _sig(site.with_features(feats), pack, k)
    _check(never_lost(a, b, f"{fld} unknown: "), site, pack, k)


_SPELLINGS = {
    "dry_well": ["DRYWELL", "Dry Well", " dry-well "],
    "infiltration_trench": ["Infiltration Trench", "INFILTRATION_TRENCH "],
    "infiltration_basin": ["infiltration-basin", "Infiltration Basin"],
    "porous_pavement": ["Porous Pavement", "porous pavers", "Pervious Hardscape"],
    "vegetated_depression": ["Vegetated Depression", "VEGETATED-DEPRESSION"],
    "other": ["Other", " OTHER "],
    "proposed": ["Proposed ", "NEW", "planned"],
    "existing": ["Existing", " EXISTING"],
    "removed": ["Removed", "to be removed"],
    "lawn": ["lawn ", "LAWN", "Turf"],
    "construction": ["Construction", "staging"],
    "single_family": ["Single Family", "single-family residence"],
    0: ["No", "n", " FALSE "],
    1: ["Yes", " y", "TRUE"],
}


@pytest.mark.parametrize("pack", PACKS)
@PROPS
@given(site=sites(), k=klass, pick=st.integers(0, 2))
def test_case_whitespace_and_synonyms_of_every_value_give_the_same_findings(pack, site, k, pick):
    def respell(attrs: dict[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, v in attrs.items():
            options = _SPELLINGS.get(v) if isinstance(v, (str, int)) and key not in ("storage_gal", "drain_days", "bottom_depth_ft", "id") else None
            out[key.upper() if key != "is_site" else key] = options[pick % len(options)] if options else v
        return out

    feats = [Feature(f.role, f.id, f.geom, respell(f.attrs)) if f.role != "parcels" else f for f in site.features]
    _check(compare(_sig(site, pack, k), _sig(site.with_features(feats), pack, k), allow_near_limit=False, what="respelled: "), site, pack, k)
