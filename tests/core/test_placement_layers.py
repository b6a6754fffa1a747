"""The misplaced-layer decision of every adapter (services.placement_layers, issue 22 item 2): plain data in, reasons out."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st
from shapely.geometry import Point, box

from stormwater_plugin.core.model import FeatureLayer
from stormwater_plugin.services.placement_layers import (
    SourcePlace,
    box_edge_points,
    box_of_points,
    distance_to_box_ft,
    misplaced_sources,
    misplaced_warning,
    stray_plan_features,
)

REACH = {r: 500.0 for r in ("parcels", "devices", "building_sites", "wells", "shoreline", "streams", "waterbodies")}


def _parcels() -> SourcePlace:
    lay = FeatureLayer.from_sequences("parcels", [box(0, 0, 100, 100)], ["P-1"], [{"is_site": 1}])
    return SourcePlace("parcels", "site.gpkg:parcels", "UTM", bounds=(0.0, 0.0, 100.0, 100.0), layer=lay)


def _devices(x: float) -> SourcePlace:
    lay = FeatureLayer.from_sequences("devices", [Point(x, 50)], ["DW-1"], [{}])
    return SourcePlace("devices", "dev.shp", "UTM", bounds=(x, 50.0, x, 50.0), layer=lay)


def test_a_context_layer_beyond_the_500_ft_reach_is_misplaced_and_one_within_it_is_not():
    near = SourcePlace("shoreline", "near.shp", "UTM", bounds=(150.0, 0.0, 160.0, 10.0))
    far = SourcePlace("streams", "far.shp", "UTM", bounds=(700.0, 0.0, 710.0, 10.0))
    reasons = misplaced_sources([_parcels(), _devices(50), near, far], REACH, 1.0)
    assert reasons[:3] == [None, None, None]
    assert reasons[3] is not None and "lies 600 ft from the site" in reasons[3] and "check its CRS" in reasons[3]


def test_a_plan_layer_far_from_the_rest_of_the_plan_is_misplaced_and_does_not_place_the_context():
    # the building site on its parcel, the devices 200 mi away (a wrong .prj): each role judged against the others
    site = SourcePlace("building_sites", "bs.gpkg", "UTM", bounds=(40.0, 40.0, 60.0, 60.0),
                       layer=FeatureLayer.from_sequences("building_sites", [box(40, 40, 60, 60)], ["BS-1"], [{}]))
    shore = SourcePlace("shoreline", "shore.shp", "UTM", bounds=(110.0, 0.0, 120.0, 10.0))
    reasons = misplaced_sources([_parcels(), site, _devices(1_056_000), shore], REACH, 1.0)
    assert reasons[0] is None and reasons[1] is None and reasons[3] is None
    assert reasons[2] is not None and "200 mi from the site" in reasons[2] and "dev.shp" in reasons[2]


def test_coordinates_outside_their_crs_are_misplaced_even_without_a_pack():
    bad = SourcePlace("shoreline", "shore.shp", "NAD83 / New York East (ftUS)", fits_crs=False)
    reasons = misplaced_sources([_parcels(), bad], None, 1.0)
    assert reasons[0] is None
    assert reasons[1] is not None and "cannot place it" in reasons[1] and "NAD83 / New York East (ftUS)" in reasons[1]


def test_an_unlimited_reach_judges_at_the_50_mile_floor_and_an_unknown_extent_is_never_judged():
    far = SourcePlace("streams", "far.shp", "UTM", bounds=(1000.0, 0.0, 1010.0, 10.0))
    unknown = SourcePlace("wells", "wells.shp", "UTM", bounds=None)
    reasons = misplaced_sources([_parcels(), far, unknown], {**REACH, "streams": math.inf}, 1.0)
    assert reasons == [None, None, None]


def test_box_edges_are_sampled_and_a_point_box_measures_as_a_point():
    xs, ys = box_edge_points((0.0, 0.0, 10.0, 20.0))
    assert len(xs) == 44 and box_of_points(xs, ys) == (0.0, 0.0, 10.0, 20.0)
    assert box_of_points([0.0, math.inf], [0.0, 1.0]) is None
    assert distance_to_box_ft([Point(0, 0)], (3.0, 4.0, 3.0, 4.0), 2.0) == 10.0


_coord = st.floats(-1e8, 1e8, allow_nan=False)


@settings(max_examples=300, deadline=None)
@given(x0=_coord, y0=_coord, x1=_coord, y1=_coord)
def test_a_boxs_edge_points_are_its_edges_sampled_at_eleven_fractions_as_before(x0: float, y0: float, x1: float, y1: float):
    """The fractions made once and each edge's points computed once give the former points bit for bit (issue 39)."""
    n, t = 11, np.linspace(0.0, 1.0, 11)
    xs, ys = box_edge_points((x0, y0, x1, y1))
    assert np.array_equal(xs, np.concatenate([x0 + (x1 - x0) * t, np.full(n, x1), x0 + (x1 - x0) * t, np.full(n, x0)]))
    assert np.array_equal(ys, np.concatenate([np.full(n, y0), y0 + (y1 - y0) * t, np.full(n, y1), y0 + (y1 - y0) * t]))


def test_the_misplaced_warning_counts_and_names_at_most_50_features():
    w = misplaced_warning("wells", 60, "lies 9 mi from the site", [str(i) for i in range(60)])
    assert w.code == "layer_misplaced" and w.layer == "wells" and len(w.ids) == 50
    assert w.message.startswith("60 feature(s) of the 'wells' layer lies 9 mi from the site: every rule reading it is undetermined")


def test_one_feature_outside_its_crs_is_unplaceable_and_the_others_are_not():
    import numpy as np

    from stormwater_plugin.services.placement_layers import unplaceable_features

    utm18 = (-78.0, 0.0, -72.0, 84.0)
    boxes = np.array([[-74.0, 43.0, -73.9, 43.1], [np.inf, np.inf, np.inf, np.inf], [-60.0, 43.0, -59.0, 43.1]])
    assert unplaceable_features(boxes, utm18).tolist() == [False, True, True]


def test_a_device_501_ft_from_the_site_is_a_stray_at_a_500_ft_reach_and_one_499_ft_from_it_is_not():
    from stormwater_plugin.services.placement_layers import stray_plan_features

    devices = FeatureLayer.from_sequences("devices", [Point(50, 50), Point(599, 50), Point(601, 50)], ["DW-1", "DW-2", "DW-9"], [{}, {}, {}])
    place = SourcePlace("devices", "dev.gpkg", "UTM", bounds=(50.0, 50.0, 601.0, 50.0), layer=devices)
    sources = [_parcels(), place]
    reasons = misplaced_sources(sources, REACH, 1.0)
    assert reasons == [None, None]
    assert stray_plan_features(sources, reasons, REACH, 1.0) == [[], [2]]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["parcels", "devices", "building_sites", "impervious"]), st.floats(-3000, 3000), st.floats(-3000, 3000),
                          st.sampled_from(["point", "box", "empty"])), min_size=1, max_size=12),
       st.sampled_from([10.0, 500.0, 1000.0]), st.sampled_from([1.0, 3.280833333]), st.booleans())
def test_a_stray_is_a_plan_feature_farther_than_its_reach_from_every_other_roles_feature(drawn, reach, unit_to_ft, by_tree):
    import stormwater_plugin.services.placement_layers as placement_layers

    # each role's features against every feature of the other roles (parcels among them, never judged): the nearest of them all
    by_role: dict[str, list[Any]] = {}
    for role, x, y, kind in drawn:
        by_role.setdefault(role, []).append(Point(x, y) if kind == "point" else box(x, y, x + 40, y + 25) if kind == "box" else Point())
    sources = [SourcePlace(role, f"{role}.gpkg", "UTM", layer=FeatureLayer.from_sequences(role, gs, [f"{role}-{k}" for k in range(len(gs))],
                                                                                          [{} for _ in gs]))
               for role, gs in by_role.items()]
    reaches = dict.fromkeys(by_role, reach)
    dense = placement_layers._DENSE_ENTRIES
    placement_layers._DENSE_ENTRIES = 0 if by_tree else dense  # the tree a county's parcels take, on the same sites
    try:
        got = stray_plan_features(sources, [None] * len(sources), reaches, unit_to_ft)
    finally:
        placement_layers._DENSE_ENTRIES = dense
    for s, strays in zip(sources, got):
        others = [g for o in sources if o.role != s.role for g in o.layer.geoms if not g.is_empty]
        want = [] if s.role == "parcels" or not others else [
            k for k, g in enumerate(s.layer.geoms) if not g.is_empty and min(float(shapely.distance(g, o)) for o in others) * unit_to_ft > reach]
        assert strays == want


def test_the_site_parcel_the_parcels_name_is_found_once_per_parcel_layer_and_the_plan_decides_at_each_call():
    from stormwater_plugin.services.working_crs import ParcelPicks, site_parcel_indices

    def parcels(flag: int | None) -> FeatureLayer:
        return FeatureLayer.from_sequences("parcels", [box(0, 0, 100, 100), box(100, 0, 200, 100)], ["P-1", "P-2"],
                                           [{"is_site": int(flag == 0)}, {"is_site": int(flag == 1)}] if flag is not None else [{}, {}])

    def devices(x: float) -> FeatureLayer:
        return FeatureLayer.from_sequences("devices", [Point(x, 50)], ["DW-1"], [{}])

    picks: ParcelPicks = {}
    flagged = parcels(0)
    assert site_parcel_indices({"parcels": flagged, "devices": devices(150)}, None, picks) == [0]  # the flag names it, not the plan
    assert site_parcel_indices({"parcels": flagged}, None, picks) == [0] and len(picks) == 1  # found once for the layer
    assert site_parcel_indices({"parcels": parcels(1)}, None, picks) == [1]  # another parcel layer: its own flag
    assert site_parcel_indices({"parcels": flagged}, "P-2", picks) == [1]  # another named parcel: its own pick
    assert site_parcel_indices({"parcels": flagged}, "P-9", picks) == []  # naming no parcel
    unflagged = parcels(None)
    assert site_parcel_indices({"parcels": unflagged, "devices": devices(50)}, None, picks) == [0]  # the plan decides at each call
    assert site_parcel_indices({"parcels": unflagged, "devices": devices(150)}, None, picks) == [1]
    for layers in ({"parcels": unflagged, "devices": devices(150)}, {"parcels": flagged, "devices": devices(150)}):
        assert site_parcel_indices(layers, None, picks) == site_parcel_indices(layers, None)


def test_a_county_of_parcels_beside_a_batch_of_devices_is_judged_without_a_matrix_of_every_pair():
    # 20,000 parcels and 2,000 devices: a vertex matrix of every pair would hold 484 million distances (3.9 GB)
    import tracemalloc

    rng = np.random.default_rng(7)
    xy = rng.uniform(0, 200_000, (20_000, 2))
    parcels = FeatureLayer.from_sequences("parcels", list(shapely.box(xy[:, 0], xy[:, 1], xy[:, 0] + 50, xy[:, 1] + 50)),
                                          [str(k) for k in range(len(xy))], [{} for _ in xy])
    spots = [Point(-900_000, -900_000)] + list(shapely.points(xy[1:2000] + 25))  # one left at the drawing's origin
    devices = FeatureLayer.from_sequences("devices", spots, [f"D{k}" for k in range(2000)], [{} for _ in range(2000)])
    sources = [SourcePlace("parcels", "county.gpkg", "UTM", layer=parcels), SourcePlace("devices", "batch.gpkg", "UTM", layer=devices)]
    tracemalloc.start()
    try:
        got = stray_plan_features(sources, [None, None], REACH, 1.0)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert got == [[], [0]]
    assert peak < 100 * 2**20


def _former_misplaced_sources(sources: list[SourcePlace], reaches: dict[str, float], unit_to_ft: float, site_parcel_id: str | None) -> list[str | None]:
    """:func:`misplaced_sources` as it was: every role's anchor found from the merged layers of the other roles."""
    import stormwater_plugin.services.placement_layers as placement_layers

    former = placement_layers.named_site_geometries
    placement_layers.named_site_geometries = lambda *a: None  # the parcels never decide alone: site_geometries of every merge
    try:
        return misplaced_sources(sources, reaches, unit_to_ft, site_parcel_id)
    finally:
        placement_layers.named_site_geometries = former


_flag = st.sampled_from([None, 0, 1, "yes"])


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(_flag, st.integers(-2, 6), st.booleans()), max_size=4), st.integers(0, 2),
       st.lists(st.tuples(st.sampled_from(["devices", "building_sites", "impervious", "clearing", "wells", "streams"]), st.integers(-4, 8),
                          st.booleans(), st.booleans()), max_size=6),
       st.sampled_from([None, "P-0", "P-1", "P-9"]), st.sampled_from([50.0, 500.0, math.inf]))
def test_misplaced_sources_find_the_parcels_named_site_once_as_every_roles_merge_does(parcels, parcel_sources, drawn, site_id, reach):
    """The anchor of each role from the site parcel the parcels alone name (found once) is the anchor of the other roles' merge,
    whatever names the site (an id, the flag, the only parcel, the plan), with parcels in several sources, none, one misplaced or
    empty."""
    sources: list[SourcePlace] = []
    chunks = [parcels[k::parcel_sources] for k in range(parcel_sources)] if parcel_sources else []
    for k, chunk in enumerate(chunks):
        gs = [Point() if empty else box(x * 100, 0, x * 100 + 100, 100) for _flag_value, x, empty in chunk]
        lay = FeatureLayer.from_sequences("parcels", gs, [f"P-{k}{n}" if k else f"P-{n}" for n in range(len(gs))],
                                          [{} if f is None else {"is_site": f} for f, _x, _e in chunk])
        located = [g for g in gs if not g.is_empty]
        bounds = tuple(float(v) for v in shapely.total_bounds(np.array(located, dtype=object))) if located else None
        sources.append(SourcePlace("parcels", f"parcels-{k}.gpkg", "UTM", fits_crs=k != 2, bounds=bounds, layer=lay))  # type: ignore[arg-type]
    for n, (role, x, far, fits) in enumerate(drawn):
        at = x * 100 + (550 if far else 30)  # within or beyond a reach of 50 or 500 ft of one parcel or another
        if role in ("wells", "streams"):
            sources.append(SourcePlace(role, f"{role}-{n}.gpkg", "UTM", fits_crs=fits, bounds=(float(at), 10.0, float(at) + 5, 15.0)))
        else:
            lay = FeatureLayer.from_sequences(role, [Point(at, 50)], [f"{role}-{n}"], [{}])
            sources.append(SourcePlace(role, f"{role}-{n}.gpkg", "UTM", fits_crs=fits, bounds=(float(at), 50.0, float(at), 50.0), layer=lay))
    plan = [s for s in sources if s.role in ("parcels", "devices", "building_sites", "impervious", "clearing")]
    sources = plan + [s for s in sources if s not in plan]  # the plan roles first, as the read gives them
    reaches = dict.fromkeys(("parcels", "devices", "building_sites", "impervious", "clearing", "wells", "streams"), reach)
    assert misplaced_sources(sources, reaches, 1.0, site_id) == _former_misplaced_sources(sources, reaches, 1.0, site_id)


_coord = st.floats(-500.0, 500.0, allow_nan=False)
_maybe_box = st.one_of(st.none(), st.tuples(_coord, _coord, st.floats(0.0, 300.0), st.floats(0.0, 300.0)).map(
    lambda t: (t[0], t[1], t[0] + t[2], t[1] + t[3])))


@settings(max_examples=60, deadline=None)
@given(st.lists(_maybe_box, min_size=1, max_size=6),
       st.lists(st.lists(st.tuples(_coord, _coord), min_size=0, max_size=3), min_size=1, max_size=3),
       st.lists(st.tuples(st.lists(st.integers(0, 5), max_size=4), st.lists(st.integers(0, 5), max_size=4)), min_size=1, max_size=4),
       st.sampled_from([1.0, 3.28083333]))
def test_boxes_measured_ahead_for_an_anchor_give_each_asked_box_its_former_distance(boxes, anchors, asks, unit_to_ft):
    # The former formulation: one call per question, to the boxes asked only. Anchors are asked again (the roles judged
    # against the same site parcel) and in any order, with boxes asked ahead; each answer must be the one its own call gave.
    from stormwater_plugin.core.geometry_arrays import object_array
    from stormwater_plugin.services.placement_layers import _BoxDistances

    made = [[Point(x, y) for x, y in pts] for pts in anchors]
    measure = _BoxDistances(boxes, unit_to_ft)
    for n, (which, ahead) in enumerate(asks):
        anchor = made[n % len(made)]
        which = [k % len(boxes) for k in which]
        known = [k for k in which if boxes[k] is not None]
        former: dict[int, float] = {}
        if anchor and known:
            nearest = shapely.distance(object_array(anchor)[:, None], measure.targets[known][None, :]).min(axis=0)
            former = {k: float(d) * unit_to_ft for k, d in zip(known, nearest.tolist())}
        assert measure(anchor, which, [k % len(boxes) for k in ahead]) == [former.get(k) for k in which]


def test_a_second_anchor_is_measured_anew_not_given_the_first_anchors_distances():
    from stormwater_plugin.services.placement_layers import _BoxDistances

    measure = _BoxDistances([(100.0, 0.0, 110.0, 10.0), None], 2.0)
    first = [Point(0, 0)]
    assert measure(first, [1], [0, 1]) == [None]
    assert measure([Point(90, 0)], [0, 1]) == [20.0, None]  # another anchor (the parcels judged misplaced): its own distance
    assert measure(first, [0]) == [200.0]  # measured ahead for the first anchor
    assert measure([], [0]) == [None]
