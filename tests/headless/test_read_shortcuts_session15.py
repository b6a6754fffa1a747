"""The live read's shortcuts of issue 39's session 15, each held to what it replaces.

* The DEM window's bounds found from fewer boxes (``services.dem_window.dem_window_bounds``): the rules growing the same roles'
  box as one box grown by the largest pad, every gradient rule's lines as one box; the same numbers as the union of every rule's
  part and the siting envelope's (``dem_window(...).bounds``).
* A source's distance from the site's anchor kept by content across reads (``services.placement_layers._BoxDistances``, the
  anchor's geometries by their WKB, the box by its bits): the same distance as measured anew, whatever was kept before.
"""

from __future__ import annotations

import dataclasses

import hypothesis.strategies as st
import shapely
from hypothesis import given, settings
from shapely.geometry import LineString, Point, box

from stormwater_plugin.core.derived import Derived, using
from stormwater_plugin.core.geometry_arrays import object_array
from stormwater_plugin.core.model import FeatureLayer
from stormwater_plugin.core.rulepack import load_pack
from stormwater_plugin.services import dem_window as dw
from stormwater_plugin.services import placement_layers as pl

PACKS = ("lake-george", "mamakating", "lgpc")

_xy = st.floats(-2000.0, 2000.0, allow_nan=False)
_size = st.floats(0.0, 300.0, allow_nan=False)


@st.composite
def _geometry(draw: st.DrawFn) -> object:
    x, y = draw(_xy), draw(_xy)
    kind = draw(st.sampled_from(["point", "box", "line"]))
    if kind == "point":
        return Point(x, y)
    w, h = draw(_size), draw(_size)
    return box(x, y, x + w, y + h) if kind == "box" else LineString([(x, y), (x + w, y + h)])


def _layer(role: str, geoms: list[object], names: list[str] | None = None) -> FeatureLayer:
    attrs = [{"name": n} if n else {} for n in (names or [""] * len(geoms))]
    return FeatureLayer.from_sequences(role, geoms, [f"{role}-{k}" for k in range(len(geoms))], attrs)


@st.composite
def _site_layers(draw: st.DrawFn) -> dict[str, FeatureLayer]:
    layers: dict[str, FeatureLayer] = {}
    x, y, w = draw(_xy), draw(_xy), draw(st.floats(50.0, 800.0))
    parcels = [box(x, y, x + w, y + w)] + [box(x + w * k, y, x + w * (k + 1), y + w) for k in range(1, draw(st.integers(0, 2)) + 1)]
    site = draw(st.sampled_from(["is_site", "none"]))
    layers["parcels"] = FeatureLayer.from_sequences("parcels", parcels, [f"P-{k}" for k in range(len(parcels))],
                                                    [{"is_site": "yes" if k == 0 and site == "is_site" else None} for k in range(len(parcels))])
    for role in ("devices", "wells", "septic", "streams", "shoreline", "waterbodies", "wetlands", "building_sites", "disturbance", "clearing"):
        if draw(st.booleans()):
            geoms = draw(st.lists(_geometry(), min_size=0, max_size=3))
            names = draw(st.lists(st.sampled_from(["", "Lake George", "Brook"]), min_size=len(geoms), max_size=len(geoms)))
            layers[role] = _layer(role, geoms, names)
    return layers


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(PACKS), st.data(), _site_layers(), st.sampled_from([0.0, 3.28, 10.0]), st.sampled_from([1.0, 3.28083333, 0.3048]),
       st.sampled_from([None, "P-1", "P-0"]), st.booleans())
def test_the_dem_windows_bounds_from_fewer_boxes_equal_the_union_of_every_rules_part(name, data, layers, cell_ft, unit_to_ft, site_id, derived):
    pack = load_pack(name)
    keep = data.draw(st.lists(st.booleans(), min_size=len(pack.rules), max_size=len(pack.rules)))
    pack = dataclasses.replace(pack, rules=tuple(r for r, k in zip(pack.rules, keep) if k))
    if site_id is not None and site_id not in layers["parcels"].ids:
        site_id = None
    with using(Derived() if derived else None, settle=False):
        fast = dw.dem_window_bounds(layers, pack, unit_to_ft=unit_to_ft, cell_ft=cell_ft, site_parcel_id=site_id)
    every = dw.dem_window(layers, pack, unit_to_ft=unit_to_ft, cell_ft=cell_ft, site_parcel_id=site_id).bounds
    assert fast == every


def test_the_dem_windows_bounds_take_every_part_when_a_pad_is_not_a_number():
    pack = load_pack("lake-george")
    layers = {"devices": _layer("devices", [Point(10, 10)]), "parcels": _layer("parcels", [box(0, 0, 100, 100)])}
    assert dw._grown_parts(dw._pack_needs(pack, 3.28), dw._LayerReads(layers, ()), float("nan"), 1.0) is None
    assert dw.dem_window_bounds(layers, pack, unit_to_ft=1.0, cell_ft=3.28) == dw.dem_window(layers, pack, unit_to_ft=1.0, cell_ft=3.28).bounds


_box = st.tuples(_xy, _xy, st.floats(0.0, 300.0), st.floats(0.0, 300.0)).map(lambda t: (t[0], t[1], t[0] + t[2], t[1] + t[3]))


@settings(max_examples=80, deadline=None)
@given(st.lists(st.lists(st.one_of(st.none(), _box), min_size=1, max_size=5), min_size=1, max_size=4),
       st.lists(st.lists(st.tuples(_xy, _xy), min_size=0, max_size=3), min_size=1, max_size=3), st.sampled_from([1.0, 3.28083333]))
def test_distances_kept_across_reads_by_the_anchors_and_boxes_content_equal_those_measured_anew(reads, anchors, unit_to_ft):
    # Several reads (each its own _BoxDistances and derived values, as the live re-check's), each asking every anchor (the
    # geometries made anew at each read: the same content, other objects) for every box: each answer is the distance measured
    # on its own, whatever earlier reads kept.
    pl._APART.clear()
    for boxes in reads:
        with using(Derived(), settle=False):
            made = [[Point(x, y) for x, y in pts] for pts in anchors]
            measure = pl._BoxDistances(boxes, unit_to_ft)
            for anchor in made:
                got = measure(anchor, list(range(len(boxes))))
                for k, b in enumerate(boxes):
                    if not anchor or b is None:
                        assert got[k] is None
                        continue
                    alone = float(shapely.distance(object_array(anchor), pl._box_target(b)).min()) * unit_to_ft
                    assert got[k] == alone


def test_a_box_kept_for_one_anchor_is_not_given_to_another():
    pl._APART.clear()
    boxes = [(100.0, 0.0, 110.0, 10.0)]
    with using(Derived(), settle=False):
        assert pl._BoxDistances(boxes, 1.0)([Point(0, 0)], [0]) == [100.0]
    with using(Derived(), settle=False):
        assert pl._BoxDistances(boxes, 1.0)([Point(90, 0)], [0]) == [10.0]
        assert pl._BoxDistances([(100.0, 0.0, 120.0, 10.0)], 1.0)([Point(0, 0)], [0]) == [100.0]
        assert pl._BoxDistances([(105.0, 0.0, 120.0, 10.0)], 1.0)([Point(0, 0)], [0]) == [105.0]


def test_the_distances_kept_stay_few_in_entries_and_in_the_anchors_geometries(monkeypatch):
    monkeypatch.setattr(pl, "_MAX_APART", 8)
    monkeypatch.setattr(pl, "_MAX_APART_GEOMETRIES", 30)
    pl._APART.clear()
    pl._apart_geometries[0] = 0
    boxes = [(100.0, 0.0, 110.0, 10.0), (0.0, 100.0, 10.0, 110.0)]
    for n in range(20):
        with using(Derived(), settle=False):
            anchor = [Point(x, n) for x in range(1 + n % 5)]
            assert pl._BoxDistances(boxes, 1.0)(anchor, [0, 1]) == [float(shapely.distance(object_array(anchor), pl._box_target(b)).min()) for b in boxes]
        assert len(pl._APART) <= 8 and pl._apart_geometries[0] <= 30
        assert pl._apart_geometries[0] == sum(len(k[0]) for k in pl._APART)
