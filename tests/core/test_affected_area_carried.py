"""The affected area carried when only point devices moved within the work (the live re-check, issue 39).

``affected_area`` hands back the last measure when the layers differ from those it was made of only in devices drawn as
points that lay, and lie, in the interior of the work's polygons. These properties hold the carried measure to a measure
made afresh of the moved layers (every field, geometries byte for byte), with and without the check's derived values, and
the derived values the carried measure was made of to what the next measure finds.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import shapely
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from shapely.geometry import LineString, Point, box

from stormwater_plugin.core.checks import affected
from stormwater_plugin.core.checks.affected import _measure, affected_area
from stormwater_plugin.core.derived import Derived, using
from stormwater_plugin.core.model import FeatureLayer
from tests.sitebuilder import layer


def _fields(area: affected.AffectedArea) -> tuple:
    """Every field of a measure, its geometries by their WKB."""
    return tuple(shapely.to_wkb(v) if isinstance(v, shapely.Geometry) else v for v in (getattr(area, f.name) for f in dataclasses.fields(area)))


def _grid(lo: float, hi: float) -> st.SearchStrategy[float]:
    """Coordinates on a 1/64 ft grid: points on the work's edges and vertices are drawn as often as inside and outside."""
    return st.integers(int(lo * 64), int(hi * 64)).map(lambda v: v / 64)


def _site(rects, fixed_points, building_points, unknown_point, device_polygon):
    disturbance = layer("disturbance", [box(x, y, x + w, y + h) for x, y, w, h in rects], [f"D{i}" for i in range(len(rects))])
    out = {"disturbance": disturbance, "clearing": layer("clearing", [box(300, 300, 340, 330)], ["C1"])}
    imp_geoms, imp_attrs = [box(10, 10, 20, 20)], [{"status": "proposed"}]
    if unknown_point:
        imp_geoms.append(Point(12, 12))
        imp_attrs.append({"status": None})
    out["impervious"] = layer("impervious", imp_geoms, [f"I{i}" for i in range(len(imp_geoms))], imp_attrs)
    out["building_sites"] = layer("building_sites", [Point(x, y) for x, y in building_points], [f"B{i}" for i in range(len(building_points))],
                                  [{"use": "house"}] * len(building_points))
    geoms = [Point(x, y) for x, y in fixed_points]
    if device_polygon:
        geoms.append(box(5, 5, 9, 9))
    out["devices"] = layer("devices", geoms, [f"DW-{i}" for i in range(len(geoms))], [{"device_type": "dry_well", "high_traffic": 0}] * len(geoms))
    return out


def _moved(devices: FeatureLayer, moves: dict[int, object]) -> FeatureLayer:
    """The devices with some geometries replaced (the same ids and attributes, by value)."""
    geoms = list(devices.geoms)
    for i, g in moves.items():
        geoms[i % len(geoms)] = g
    return FeatureLayer.from_sequences(devices.role, geoms, list(devices.ids), [dict(a) for a in devices.attrs])


_point = st.tuples(_grid(-40, 260), _grid(-40, 260))
#: A point within the first rectangle's box, as fractions of its sides (0 and 1: on its edges), or anywhere.
_inside = st.tuples(st.just("in"), st.integers(1, 15).map(lambda v: v / 16), st.integers(1, 15).map(lambda v: v / 16))
_placed = st.one_of(_inside, _inside, _inside, st.tuples(st.just("in"), st.integers(0, 16).map(lambda v: v / 16), st.integers(0, 16).map(lambda v: v / 16)),
                    _point.map(lambda p: ("at", *p)))
_new_geometry = st.one_of(_placed, _placed, _placed, st.sampled_from(["vertex", "edge", "empty", "line", "polygon"]))


def _place(how, rect) -> Point:
    x0, y0, w0, h0 = rect
    kind, a, b = how
    return Point(x0 + a * w0, y0 + b * h0) if kind == "in" else Point(a, b)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rects=st.lists(st.tuples(_grid(0, 150), _grid(0, 150), _grid(1, 100), _grid(1, 100)), min_size=1, max_size=3),
       fixed=st.lists(_placed, min_size=1, max_size=3), buildings=st.lists(_placed, max_size=1), unknown_point=st.booleans(),
       device_polygon=st.booleans(), moves=st.dictionaries(st.integers(0, 5), _new_geometry, min_size=1, max_size=3),
       with_derived=st.booleans(), unit=st.sampled_from([1.0, 0.3048]), between=st.booleans())
def test_the_measure_carried_after_point_devices_moved_is_the_measure_of_the_moved_layers(rects, fixed, buildings, unknown_point, device_polygon,
                                                                                          moves, with_derived, unit, between):
    """Whatever the devices' moves (inside the work, on an edge or vertex, outside, emptied, made a line or a polygon), the affected
    area of the moved layers, carried or measured, is the measure made afresh of them (``between``: another site measured in
    between, as the dock's move search does)."""
    at = [_place(p, rects[0]) for p in fixed]
    site = _site(rects, [(p.x, p.y) for p in at], [(p.x, p.y) for p in (_place(b, rects[0]) for b in buildings)], unknown_point, device_polygon)
    x0, y0, w0, h0 = rects[0]
    named = {"vertex": Point(x0, y0), "edge": Point(x0 + w0 / 2, y0), "empty": Point(),
             "line": LineString([(x0 + 1, y0 + 1), (x0 + 2, y0 + 1)]), "polygon": box(x0, y0, x0 + 1, y0 + 1)}
    moved = dict(site, devices=_moved(site["devices"], {i: named[g] if isinstance(g, str) else _place(g, rects[0]) for i, g in moves.items()}))
    other = _site([(0, 0, 400, 400)], [(10, 10)], [], False, False)
    affected._LAST.clear()
    if with_derived:
        first = Derived()
        with using(first):
            affected_area(site, unit)
        if between:
            affected_area(other, unit)
        with using(Derived(first)):
            got = affected_area(moved, unit)
    else:
        affected_area(site, unit)
        if between:
            affected_area(other, unit)
        got = affected_area(moved, unit)
    assert _fields(got) == _fields(_measure(moved, unit))


def test_a_point_device_moved_within_the_work_is_carried_and_one_moved_out_is_measured():
    """The carry is taken for a dry well moved inside the disturbed area (the same measure object), not for one moved onto its edge."""
    site = _site([(0, 0, 100, 100)], [(10, 10), (50, 50)], [], False, False)
    affected._LAST.clear()
    before = affected_area(site, 1.0)
    inside = dict(site, devices=_moved(site["devices"], {0: Point(30, 40)}))
    assert affected_area(inside, 1.0) is before
    edge = dict(site, devices=_moved(inside["devices"], {0: Point(100, 40)}))
    measured = affected_area(edge, 1.0)
    assert measured is not before and _fields(measured) == _fields(_measure(edge, 1.0))


def test_the_derived_values_of_a_carried_measure_are_left_to_the_next_measure():
    """A check that carries the measure keeps what it was made of (each check keeps only what it used): the measure after it
    (a device moved out of the work) finds every unchanged role's part, the union and the interiors made, as it would straight
    after the measuring check."""
    site = _site([(0, 0, 100, 100), (50, 50, 100, 100)], [(10, 10), (50, 50)], [(60, 60)], False, False)
    inside = dict(site, devices=_moved(site["devices"], {0: Point(30, 40)}))
    out = dict(site, devices=_moved(site["devices"], {0: Point(400, 400)}))

    def chain(*steps):
        affected._LAST.clear()
        last = None
        for layers in steps:
            last = Derived(last)
            with using(last):
                affected_area(layers, 1.0)
        return last

    direct = chain(site, out)
    through = chain(site, inside, out)
    assert through.made == direct.made and through.reused == direct.reused


def test_a_recording_carried_keeps_the_values_and_tokens_the_earlier_check_held():
    """``Derived.carry`` keeps what a recording named, under the same keys, only where the earlier check held it; a value the
    earlier check did not hold is not made up."""
    geoms = [box(0, 0, 1, 1), box(2, 0, 3, 1)]
    first = Derived()
    with using(first), first.recording() as used:
        made = first.value("union", lambda: shapely.union_all(np.array(geoms, dtype=object)), geoms)
        first.each("area", lambda items: [g.area for g in items], geoms)
    second = Derived(first)
    with using(second):
        second.carry(used)
    third = Derived(second)
    with using(third):
        again = third.value("union", lambda: None, geoms)
        areas = third.each("area", lambda items: [None for _ in items], geoms)
    assert again is made and areas == [1.0, 1.0] and third.made == 0
    lost = Derived(Derived())  # the earlier check holds nothing: nothing is carried
    with using(lost):
        lost.carry(used)
    assert lost.value("union", lambda: "computed", geoms) == "computed"


def test_an_areas_reading_key_is_found_again_after_other_areas_were_keyed():
    """The area rules' key of an affected area (kept by the area object, frozen and held) is its reading key, also after the
    move search keyed other areas in between (a few kept, not the last one)."""
    from stormwater_plugin.core.checks import triggers
    from stormwater_plugin.core.checks.context import reading_key

    areas = [_measure(_site([(0, 0, 100 + n, 100)], [(10, 10)], [], False, False), 1.0) for n in range(4)]
    first = triggers._area_key(areas[0])
    for other in areas[1:]:
        triggers._area_key(other)
    assert triggers._area_key(areas[0]) is first and first == reading_key(areas[0])
    assert [triggers._area_key(a) for a in areas] == [reading_key(a) for a in areas]
