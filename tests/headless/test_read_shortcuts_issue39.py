"""The live read's shortcuts of session 14 (issue 39) give what their former formulations gave, exactly.

Each property builds random layers (points, boxes, missing and empty geometries, several parcels, a named or an
inferred site parcel) and compares the shortcut with the formulation it replaced, kept here as it was.
"""

from __future__ import annotations

import numpy as np
import shapely
import shapely.affinity
import shapely.errors
from hypothesis import given, settings
from hypothesis import strategies as st
from shapely.geometry import Point, Polygon, box

from stormwater_plugin.core.geometry_arrays import object_array
from stormwater_plugin.core.model import FeatureLayer
from stormwater_plugin.core.roles import PLAN_ROLES
from stormwater_plugin.services.placement import Placement, plan_placement
from stormwater_plugin.services.working_crs import site_parcel_indices

_xy = st.integers(-60, 60).map(float)
#: A plan feature: its role, where, its size (0: a point), whether it is missing or empty.
_feature = st.tuples(st.sampled_from(["devices", "clearing", "building_sites", "impervious"]), _xy, _xy, st.integers(0, 4),
                     st.sampled_from(["", "", "", "missing", "empty"]))


def _plan_layers(features: list, parcels: list, site: int | None) -> dict[str, FeatureLayer]:
    geoms: dict[str, list] = {}
    for role, x, y, w, odd in features:
        g = None if odd == "missing" else Polygon() if odd == "empty" else Point(x, y) if w == 0 else box(x, y, x + w, y + w)
        geoms.setdefault(role, []).append(g)
    layers = {role: FeatureLayer.from_sequences(role, gs, [f"{role[0]}{k}" for k in range(len(gs))], [{} for _ in gs]) for role, gs in geoms.items()}
    if parcels:
        layers["parcels"] = FeatureLayer.from_sequences(
            "parcels", [None if w < 0 else box(x, y, x + 10 + w, y + 10 + w) for x, y, w in parcels], [f"P-{k}" for k in range(len(parcels))],
            [{"is_site": int(k == site)} for k in range(len(parcels))])
    return layers


def _former_plan_placement(layers, unit_to_ft, site_parcel_id=None, picks=None):
    """``plan_placement`` before session 14: every located feature named, then measured."""
    parcels = layers.get("parcels")
    if parcels is None or len(parcels) == 0:
        return None
    present = [(role, layer) for role in PLAN_ROLES if (layer := layers.get(role)) is not None and len(layer)]
    if not present:
        return None
    every = object_array([g for _, layer in present for g in layer.geoms])
    names = [(role, i) for role, layer in present for i in layer.ids]
    located = np.flatnonzero(~shapely.is_missing(every) & ~shapely.is_empty(every)).tolist()
    plan = [(f"{names[n][0]} {names[n][1]}", every[n]) for n in located]
    if not plan:
        return None
    try:
        site = site_parcel_indices(layers, site_parcel_id, picks)
    except Exception:  # noqa: BLE001
        site = []
    site = [i for i in site if parcels.geoms[i] is not None and not parcels.geoms[i].is_empty]
    candidates = site or [i for i, g in enumerate(parcels.geoms) if g is not None and not g.is_empty]
    if not candidates:
        return None
    plan_geoms = object_array(g for _, g in plan)
    if len(candidates) == 1:
        dist = shapely.distance(plan_geoms, parcels.geoms[candidates[0]])
        which, hit = np.arange(len(plan_geoms)), np.zeros(len(plan_geoms), dtype=int)
    else:
        tree = shapely.STRtree(object_array(parcels.geoms[i] for i in candidates))
        (which, hit), dist = tree.query_nearest(plan_geoms, return_distance=True, all_matches=False)
    if len(dist) == 0:
        return None
    n = int(np.argmin(dist))
    k, j = int(which[n]), candidates[int(hit[n])]
    return Placement(float(dist[n]) * unit_to_ft, str(parcels.ids[j]), bool(site), plan[k][0])


@settings(max_examples=300, deadline=None)
@given(st.lists(_feature, max_size=8), st.lists(st.tuples(_xy, _xy, st.integers(-1, 5)), max_size=4), st.one_of(st.none(), st.integers(0, 3)),
       st.sampled_from([1.0, 3.2808398950131235]))
def test_the_plan_placement_names_only_the_nearest_feature_and_finds_what_it_found_naming_each(features, parcels, site, unit):
    """The plan's nearest feature to its parcel, its distance and the parcel: the same as when every located feature was named first."""
    layers = _plan_layers(features, parcels, site)
    assert plan_placement(layers, unit) == _former_plan_placement(layers, unit)


def _former_stray_plan_features(sources, reasons, reaches, unit_to_ft, site_parcel_id=None):
    """``stray_plan_features`` before session 14: numpy asked to look into each geometry, each feature's role found one by one."""
    import math

    from stormwater_plugin.core.roles import CONTEXT_ROLES
    from stormwater_plugin.services.intake import FAR_FT
    from stormwater_plugin.services.placement_layers import _nearest_other_vertex

    out = [[] for _ in sources]
    plan = [i for i, s in enumerate(sources) if s.role not in CONTEXT_ROLES and reasons[i] is None and s.layer is not None and len(s.layer)]
    if not any(sources[i].role != "parcels" for i in plan):
        return out
    layers = [sources[i].layer for i in plan]
    geoms = np.concatenate([np.asarray(lay.geoms, dtype=object) for lay in layers if lay is not None])
    source = np.repeat(np.array(plan), [len(lay) for lay in layers if lay is not None])
    position = np.concatenate([np.arange(len(lay)) for lay in layers if lay is not None])
    keep = ~shapely.is_missing(geoms) & ~shapely.is_empty(geoms)
    geoms, source, position = geoms[keep], source[keep], position[keep]
    if not len(geoms):
        return out
    codes = {r: k for k, r in enumerate(dict.fromkeys(sources[i].role for i in plan))}
    role_of = np.array([codes[sources[i].role] for i in source.tolist()], dtype=int)
    coords, index = shapely.get_coordinates(geoms, return_index=True)
    vertex = coords[np.searchsorted(index, np.arange(len(geoms)))]
    judged = np.flatnonzero(role_of != codes.get("parcels", -1))
    limit = np.array([min(reaches.get(r, FAR_FT), FAR_FT) for r in codes])[role_of]
    unsure = judged[~(_nearest_other_vertex(vertex, role_of, judged) <= limit[judged] / unit_to_ft * (1.0 - 1e-6))]
    for i in dict.fromkeys(source[unsure].tolist()):
        others = role_of != codes[sources[i].role]
        if not others.any():
            continue
        mine = unsure[source[unsure] == i]
        (which, _), dist = shapely.STRtree(geoms[others]).query_nearest(geoms[mine], return_distance=True, all_matches=False)
        out[i] = sorted(int(position[mine[int(k)]]) for k, d in zip(which, dist) if math.isfinite(d) and float(d) * unit_to_ft > limit[mine[int(k)]])
    return out


_far = st.integers(-4000, 4000).map(float)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["parcels", "devices", "building_sites", "impervious", "wells"]), st.integers(0, 2),
                          st.lists(st.tuples(_far, _far, st.sampled_from(["point", "box", "empty", "missing"])), min_size=0, max_size=4),
                          st.booleans()), min_size=1, max_size=7),
       st.sampled_from([10.0, 500.0]), st.sampled_from([1.0, 3.280833333]))
def test_the_stray_plan_features_are_those_found_with_each_features_role_asked_one_by_one(drawn, reach, unit_to_ft):
    """Several sources of a role, misplaced ones, missing and empty geometries, a context source: the strays as before."""
    from stormwater_plugin.services.placement_layers import SourcePlace, stray_plan_features

    sources, reasons = [], []
    for role, k, feats, misplaced in drawn:
        gs = [None if kind == "missing" else Point() if kind == "empty" else Point(x, y) if kind == "point" else box(x, y, x + 40, y + 25)
              for x, y, kind in feats]
        layer = FeatureLayer.from_sequences(role, gs, [f"{role}-{k}-{n}" for n in range(len(gs))], [{} for _ in gs])
        sources.append(SourcePlace(role, f"{role}{k}.gpkg", "UTM", layer=layer))
        reasons.append("lies far" if misplaced else None)
    reaches = {s.role: reach for s in sources}
    assert stray_plan_features(sources, reasons, reaches, unit_to_ft) == _former_stray_plan_features(sources, reasons, reaches, unit_to_ft)


_bowtie = Polygon([(0, 0), (4, 4), (4, 0), (0, 4)])  # invalid: repaired (make_valid) before it is boxed


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(_xy, _xy, st.sampled_from(["point", "box", "bowtie", "empty", "missing"])), max_size=6), st.booleans())
def test_the_dem_windows_box_of_a_role_kept_by_content_is_the_box_of_its_located_repaired_features(feats, derived):
    """One role's box in the DEM window, kept with the layer's content: ``total_box`` of its located features, invalid ones repaired."""
    from stormwater_plugin.core.derived import Derived, using
    from stormwater_plugin.core.geometry_arrays import total_box
    from stormwater_plugin.services.dem_window import _geoms, _LayerReads

    gs = [None if kind == "missing" else Point() if kind == "empty" else Point(x, y) if kind == "point"
          else shapely.affinity.translate(_bowtie, x, y) if kind == "bowtie" else box(x, y, x + 3, y + 2) for x, y, kind in feats]
    layer = FeatureLayer.from_sequences("building_sites", gs, [f"B{k}" for k in range(len(gs))], [{} for _ in gs])
    located = _geoms(layer)
    b = total_box(located) if len(located) else None
    want = None if b is None else tuple(float(v) for v in b)
    with using(Derived() if derived else None):
        got = _LayerReads({"building_sites": layer}, []).box(("building_sites",))
        again = _LayerReads({"building_sites": layer}, []).box(("building_sites",))
    assert got == want and again == want


def test_the_dem_windows_kept_box_of_a_role_is_found_again_when_a_feature_of_it_moves():
    """The kept box's key is the layer's content: a building site moved 0.1 ft gives its new box at the next check, not the kept one."""
    import shapely.affinity

    from stormwater_plugin.core.derived import Derived, using
    from stormwater_plugin.services.dem_window import _LayerReads

    def layer(dx: float) -> FeatureLayer:
        return FeatureLayer.from_sequences("building_sites", [box(0, 0, 10, 10), shapely.affinity.translate(box(20, 0, 30, 10), dx)], ["B1", "B2"], [{}, {}])

    first = Derived()
    with using(first):
        assert _LayerReads({"building_sites": layer(0.0)}, []).box(("building_sites",)) == (0.0, 0.0, 30.0, 10.0)
    with using(Derived(first)) as second:
        assert _LayerReads({"building_sites": layer(0.1)}, []).box(("building_sites",)) == (0.0, 0.0, 30.1, 10.0)
        assert second is not None and second.made >= 1
    with using(Derived(second)) as third:
        assert _LayerReads({"building_sites": layer(0.1)}, []).box(("building_sites",)) == (0.0, 0.0, 30.1, 10.0)
        assert third is not None and third.made == 0


_near = st.integers(-300, 300).map(float)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["parcels", "devices", "building_sites", "impervious"]), st.integers(0, 1),
                          st.lists(st.tuples(_near, _near, st.sampled_from(["point", "box", "line", "nan", "empty", "missing"])), max_size=4),
                          st.booleans()), min_size=1, max_size=6),
       st.sampled_from([100.0, 499.0, 500.0, 900.0, 2000.0]), st.sampled_from([1.0, 3.280833333]), st.booleans())
def test_the_plan_features_whose_box_is_within_every_roles_reach_are_no_strays_as_each_measured_found(drawn, reach, unit_to_ft, told):
    """Plans within and beyond their reach of each other, NaN vertices among them (finite bounds that do not hold them), several
    sources of a role, misplaced ones: the strays as each feature measured found, whether the reader told the coordinates finite."""
    import math

    from stormwater_plugin.services.placement_layers import SourcePlace, finite_coordinates, stray_plan_features

    sources, reasons = [], []
    for role, k, feats, misplaced in drawn:
        gs = [None if kind == "missing" else Point() if kind == "empty" else Point(x, y) if kind == "point"
              else shapely.LineString([(x, y), (math.nan, y), (x + 9, y + 9)]) if kind == "nan"
              else shapely.LineString([(x, y), (x + 30, y - 20)]) if kind == "line" else box(x, y, x + 40, y + 25) for x, y, kind in feats]
        layer = FeatureLayer.from_sequences(role, gs, [f"{role}-{k}-{n}" for n in range(len(gs))], [{} for _ in gs])
        arr = object_array(gs)
        b = shapely.total_bounds(arr) if len(arr) else None
        bounds = tuple(float(v) for v in b) if b is not None and np.isfinite(b).all() else None
        sources.append(SourcePlace(role, f"{role}{k}.gpkg", "UTM", bounds=bounds, layer=layer, finite=told and finite_coordinates(gs)))
        reasons.append("lies far" if misplaced else None)
    reaches = {s.role: reach for s in sources}

    def outcome(strays) -> object:
        try:  # a NaN vertex beside others: GEOS may refuse to measure (as it did), the same either way
            return strays(sources, reasons, reaches, unit_to_ft)
        except shapely.errors.GEOSException as e:
            return ("refused", str(e))

    assert outcome(stray_plan_features) == outcome(_former_stray_plan_features)


def test_two_plan_features_499_ft_apart_are_no_strays_from_their_box_and_501_ft_apart_are_measured_at_a_500_ft_reach():
    """The boxes' shortcut at its boundary: a diagonal within the reach less a millionth decides; one beyond it measures each feature."""
    from stormwater_plugin.services import placement_layers
    from stormwater_plugin.services.placement_layers import SourcePlace, stray_plan_features

    def plan(apart: float) -> list:
        dw = FeatureLayer.from_sequences("devices", [Point(0, 0)], ["DW-1"], [{}])
        bs = FeatureLayer.from_sequences("building_sites", [Point(apart, 0)], ["BS-1"], [{}])
        return [SourcePlace("devices", "d", "UTM", bounds=(0.0, 0.0, 0.0, 0.0), layer=dw, finite=True),
                SourcePlace("building_sites", "b", "UTM", bounds=(apart, 0.0, apart, 0.0), layer=bs, finite=True)]

    near, far = plan(499.0), plan(501.0)
    assert placement_layers._all_near(near, [0, 1], {"devices": 500.0, "building_sites": 500.0}, 1.0)
    assert not placement_layers._all_near(far, [0, 1], {"devices": 500.0, "building_sites": 500.0}, 1.0)
    assert stray_plan_features(near, [None, None], {"devices": 500.0, "building_sites": 500.0}, 1.0) == [[], []]
    assert stray_plan_features(far, [None, None], {"devices": 500.0, "building_sites": 500.0}, 1.0) == [[0], [0]]


def _spec_lines(layers: dict, specs: list) -> dict:
    from stormwater_plugin.services.dem_window import _LayerReads

    return _LayerReads(layers, specs).spec_lines()


_pt = st.tuples(st.integers(-200, 200).map(float), st.integers(-200, 200).map(float))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.lists(_pt, min_size=1, max_size=3), st.lists(_pt, min_size=1, max_size=3), _pt, st.sampled_from(["", "dug"])),
                min_size=1, max_size=5))
def test_the_windows_nearest_target_lines_with_every_specs_targets_kept_at_once_are_those_found_anew(steps):
    """A sitting of edits (wells, septic systems, the device moved; the wells' name filter changed): at each check, carrying the
    last one's values, each spec's box of the device's lines to its nearest targets is the one found with nothing kept."""
    from stormwater_plugin.core.derived import Derived, using

    earlier = None
    for wells, septic, device, match in steps:
        layers = {"wells": FeatureLayer.from_sequences("wells", [Point(*p) for p in wells], [f"W{k}" for k in range(len(wells))],
                                                       [{"name": "dug well" if k % 2 else "drilled"} for k in range(len(wells))]),
                  "septic": FeatureLayer.from_sequences("septic", [Point(*p) for p in septic], [f"S{k}" for k in range(len(septic))],
                                                        [{} for _ in septic]),
                  "devices": FeatureLayer.from_sequences("devices", [Point(*device)], ["DW-1"], [{}])}
        specs = [("wells", match), ("septic", "")]
        want = _spec_lines(layers, specs)
        with using(Derived(earlier)) as now:
            assert _spec_lines(layers, specs) == want
        earlier = now


def test_every_specs_kept_targets_are_found_again_when_a_target_layer_or_its_name_filter_changes():
    """The kept targets' key: each target layer's content and each name filter (a well moved 0.1 ft, the filter made 'dug')."""
    from stormwater_plugin.core.derived import Derived, using

    def layers(x: float) -> dict:
        return {"wells": FeatureLayer.from_sequences("wells", [Point(x, 0), Point(0, 50)], ["W1", "W2"], [{"name": "drilled"}, {"name": "dug well"}]),
                "septic": FeatureLayer.from_sequences("septic", [Point(0, -30)], ["S1"], [{}]),
                "devices": FeatureLayer.from_sequences("devices", [Point(0, 0)], ["DW-1"], [{}])}

    first = Derived()
    with using(first):
        assert _spec_lines(layers(10.0), [("wells", ""), ("septic", "")])[("wells", "")] == (0.0, 0.0, 10.0, 0.0)
    with using(Derived(first)) as second:
        assert _spec_lines(layers(10.1), [("wells", ""), ("septic", "")])[("wells", "")] == (0.0, 0.0, 10.1, 0.0)
    with using(Derived(second)):
        assert _spec_lines(layers(10.1), [("wells", "dug"), ("septic", "")])[("wells", "dug")] == (0.0, 0.0, 0.0, 50.0)
