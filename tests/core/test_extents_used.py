"""The report lists the plausible extents this site's findings read, not every kind of the pack.

findings.json ``accuracy.extents_used`` holds the rows of ``packs/device_plausibility.json`` (``extents``) for the
kinds of the features a finding names or the class reads that are not drawn as areas; the report's "Extents used"
sentence is made from it alone.
"""

from __future__ import annotations

import itertools

import shapely
from hypothesis import given, settings
from hypothesis import strategies as st
from shapely.geometry import LineString, Point, box

from stormwater_plugin.core.checks.setback_targets import feature_name
from stormwater_plugin.core.derived import Derived, using
from stormwater_plugin.core.extents import (
    _drawn_as_areas,
    _kinds_used,
    extent_table,
    extents_summary,
    extents_used,
    feature_extent,
    kind_of,
)
from stormwater_plugin.core.serialize import result_to_dict
from stormwater_plugin.report.model import _accuracy, review_document
from tests.sitebuilder import layer, plane_dem, run

DRY_WELL = {"device_type": "dry_well", "high_traffic": 0, "vehicle_traffic": 0}


def _kinds(result) -> list[tuple[str, str]]:
    return [(r["role"], r["kind"]) for r in (result.accuracy or {}).get("extents_used", [])]


def _site(**extra) -> dict:
    site = {
        "disturbance": layer("disturbance", [box(-50, -50, 50, 50)], ["D1"]),
        "devices": layer("devices", [Point(0, 0)], ["DW-1"], [DRY_WELL]),
        "septic": layer("septic", [box(40, -10, 60, 10)], ["S1"]),  # drawn as an area: no extent
    }
    site.update(extra)
    return site


def test_only_the_kinds_the_findings_read_are_listed():
    result = run("lgpc", _site(wells=layer("wells", [Point(0, 80)], ["W1"])), plane_dem(-200, -200, 400, 4.0, gx=0.05, gy=0.0), "major")
    kinds = _kinds(result)
    assert ("devices", "dry_well") in kinds and ("wells", "default") in kinds
    # Not the septic field (drawn as an area), not the other device kinds, building sites or streams of the pack.
    assert not any(role in ("septic", "building_sites", "streams") for role, _ in kinds)
    assert ("devices", "infiltration_trench") not in kinds
    assert len(kinds) < len(extents_summary())
    text = _accuracy(review_document(result_to_dict(result)), [])["extents"]
    assert len(text) == len(kinds) and text[0].startswith("devices / dry_well (a dry well): 2 to 8 ft beyond the drawing")


def test_a_site_drawn_with_areas_lists_no_extent():
    site = _site(devices=layer("devices", [box(-5, -5, 5, 5)], ["DW-1"], [DRY_WELL]))
    result = run("lgpc", site, plane_dem(-200, -200, 400, 4.0, gx=0.05, gy=0.0), "minor")
    assert _kinds(result) == []
    assert _accuracy(review_document(result_to_dict(result)), [])["extents"] == []


def test_a_device_of_unknown_type_reads_every_kind_of_its_role():
    devices = layer("devices", [Point(0, 0)], ["DW-1"], [{"high_traffic": 0, "vehicle_traffic": 0}])
    used = extents_used({"devices": devices}, [("devices", "DW-1")])
    every = [(r["role"], r["kind"]) for r in extents_summary() if r["role"] == "devices"]
    assert [(r["role"], r["kind"]) for r in used] == every


def test_a_stream_is_listed_by_the_kind_its_name_gives():
    streams = layer("streams", [LineString([(0, 0), (100, 0)])], ["ST1"], [{"name": "Hudson River"}])
    used = extents_used({"streams": streams}, [("streams", "ST1")], lambda attrs: str(attrs.get("name", "")))
    assert [(r["role"], r["kind"]) for r in used] == [("streams", "river")]


def test_a_point_building_site_the_class_reads_is_listed_without_a_finding_naming_it():
    """A building site point outside the mapped work widens the affected area: its extent is used by the class."""
    site = _site(building_sites=layer("building_sites", [Point(150, 150)], ["B1"], [{"use": "house"}]))
    result = run("lgpc", site, None, None)
    assert ("building_sites", "B1") in result.classification.extent_refs
    assert ("building_sites", "default") in _kinds(result)


def _used_with(derived, layers, refs, name_of=feature_name):
    with using(derived, settle=False):
        return [(r["role"], r["kind"]) for r in extents_used(layers, refs, name_of)]


def test_the_kinds_kept_by_content_follow_a_change_of_each_input_the_live_recheck_keeps_them_by():
    """Each feature's kinds are kept by its geometry and attributes (the live re-check, #39): a change of either is seen."""
    first = Derived()
    devices = layer("devices", [Point(0, 0), Point(50, 0)], ["DW-1", "DW-2"], [DRY_WELL, DRY_WELL])
    assert _used_with(first, {"devices": devices}, [("devices", "DW-1")]) == [("devices", "dry_well")]
    first.settle()
    # the same content: reused, the same answer
    second = Derived(first)
    same = layer("devices", [Point(0, 0), Point(50, 0)], ["DW-1", "DW-2"], [dict(DRY_WELL), dict(DRY_WELL)])
    assert _used_with(second, {"devices": same}, [("devices", "DW-1")]) == [("devices", "dry_well")]
    assert second.reused >= 1 and second.made == 0
    # the attributes: another kind
    trench = {**DRY_WELL, "device_type": "infiltration_trench"}
    changed = layer("devices", [Point(0, 0), Point(50, 0)], ["DW-1", "DW-2"], [trench, DRY_WELL])
    assert _used_with(Derived(first), {"devices": changed}, [("devices", "DW-1")]) == [("devices", "infiltration_trench")]
    # the geometry: drawn as an area, no extent
    drawn = layer("devices", [box(-5, -5, 5, 5), Point(50, 0)], ["DW-1", "DW-2"], [DRY_WELL, DRY_WELL])
    assert _used_with(Derived(first), {"devices": drawn}, [("devices", "DW-1")]) == []
    # the role: the same geometry and attributes as a well
    wells = layer("wells", [Point(0, 0)], ["DW-1"], [DRY_WELL])
    assert _used_with(Derived(first), {"wells": wells}, [("wells", "DW-1")]) == [("wells", "default")]
    # the features named: the other device too
    assert sorted(_used_with(Derived(first), {"devices": changed}, [("devices", "DW-1"), ("devices", "DW-2")])) == [
        ("devices", "dry_well"), ("devices", "infiltration_trench")]


def test_the_name_function_is_part_of_the_kept_kinds_key():
    """A stream's kind read by another name function is computed again, never taken from the first's."""
    first = Derived()
    streams = layer("streams", [LineString([(0, 0), (100, 0)])], ["ST1"], [{"name": "Hudson River"}])
    assert _used_with(first, {"streams": streams}, [("streams", "ST1")]) == [("streams", "river")]
    first.settle()
    again = Derived(first)
    assert _used_with(again, {"streams": streams}, [("streams", "ST1")], _no_name) == [("streams", "default")]  # no name: the default kind
    assert again.made == 2 and again.reused == 0  # the role's kinds and the stream's own, both computed again


def _no_name(attrs) -> str:
    return ""


def test_a_roles_kinds_are_kept_by_its_layer_and_the_features_named_an_edit_of_another_role_finds_them_made():
    """The kinds of a role not edited are taken whole (one value); the edited role's feature not moved keeps its own."""
    streams = layer("streams", [LineString([(0, 0), (100, 0)])], ["ST1"], [{"name": "Hudson River"}])
    devices = layer("devices", [Point(0, 0), Point(50, 0)], ["DW-1", "DW-2"], [DRY_WELL, {**DRY_WELL, "device_type": "infiltration_trench"}])
    refs = [("streams", "ST1"), ("devices", "DW-1"), ("devices", "DW-2")]
    first = Derived()
    assert sorted(_used_with(first, {"streams": streams, "devices": devices}, refs)) == [
        ("devices", "dry_well"), ("devices", "infiltration_trench"), ("streams", "river")]
    first.settle()
    moved = layer("devices", [Point(1, 0), Point(50, 0)], ["DW-1", "DW-2"], [DRY_WELL, {**DRY_WELL, "device_type": "infiltration_trench"}])
    again = Derived(first)
    assert sorted(_used_with(again, {"streams": streams, "devices": moved}, refs)) == [
        ("devices", "dry_well"), ("devices", "infiltration_trench"), ("streams", "river")]
    # the streams' kinds, DW-2's and the moved DW-1's reused (a point moved is still not drawn as an area); the devices' kinds made
    assert again.reused == 3 and again.made == 1
    # a stream named no more: the role's kinds are computed again, without it
    none = Derived(again)
    assert sorted(_used_with(none, {"streams": streams, "devices": moved}, refs[1:])) == [("devices", "dry_well"), ("devices", "infiltration_trench")]


_GEOMS = [None, Point(0, 0), Point(3, 4), LineString([(0, 0), (10, 0)]), box(0, 0, 1, 1), box(0, 0, 30, 30), Point(), LineString(),
          box(0, 0, 1, 1).union(box(5, 5, 6, 6)), Point(0, 0).union(LineString([(1, 1), (2, 2)])), box(0, 0, 1, 1).union(Point(5, 5)),
          shapely.Polygon()]


def _former_kinds(role, geom, attrs, name_of) -> tuple[str, ...]:
    """The kinds a feature read before (#39): asked of its own geometry."""
    spec = extent_table().roles[role]
    name = name_of(attrs)
    if feature_extent(role, geom, attrs, name).drawn:
        return ()
    k = kind_of(role, attrs, name)
    return tuple(spec.kinds) if k is None or k.key == "unknown" else (k.key,)


@settings(max_examples=150, deadline=None)
@given(role=st.sampled_from(["devices", "wells", "septic", "streams", "building_sites"]),
       geom=st.sampled_from(_GEOMS),
       kind=st.sampled_from([None, "dry_well", "infiltration_trench", "infiltration_basin", "rain_garden", "nonsense"]),
       size=st.sampled_from([None, ("diameter_ft", 0.0), ("diameter_ft", 6.0), ("width_ft", 2.0), ("footprint_sqft", 0.0), ("footprint_sqft", 40.0)]),
       name=st.sampled_from(["", "Hudson River", "Mill Brook", "ditch"]))
def test_a_features_kinds_read_from_whether_it_is_drawn_as_an_area_are_those_read_from_its_geometry(role, geom, kind, size, name):
    """The kinds kept by "drawn as an area" and the attributes (a moved point finds its own made) are those its geometry gives."""
    attrs: dict = {"name": name}
    if kind is not None:
        attrs["device_type"] = kind
    if size is not None:
        attrs[size[0]] = size[1]
    (as_area,) = _drawn_as_areas([geom])
    assert _kinds_used(role, feature_name, [(as_area, *itertools.chain.from_iterable(attrs.items()))]) == [_former_kinds(role, geom, attrs, feature_name)]


_VALUES = st.one_of(st.none(), st.booleans(), st.integers(-2, 2), st.sampled_from([0.0, 1.0, -0.0, 2.5]), st.sampled_from(["", "a", "dry_well", "1"]))
_ATTRS = st.dictionaries(st.sampled_from(["id", "device_type", "diameter_ft", "name", "a", "b"]), _VALUES, max_size=4)


@settings(max_examples=300, deadline=None)
@given(a=st.tuples(st.booleans(), _ATTRS), b=st.tuples(st.booleans(), _ATTRS))
def test_a_features_flat_item_is_keyed_the_same_exactly_when_its_reading_and_attributes_are(a, b):
    """The flat item (drawn as an area, then each field's name and value) a feature's kinds are kept by: two features share a
    key exactly when they are both drawn as areas or both not and their attributes are the same names, values and types in
    the same order (what the item of the pair and the attributes' items told apart), and the attributes read back are theirs."""
    def flat(x):
        return (x[0], *itertools.chain.from_iterable(x[1].items()))

    def typed(x):
        return (x[0], tuple((k, type(v), v) for k, v in x[1].items()))

    derived = Derived()
    ka, kb = (derived._inputs_key([], [flat(x)])[0] for x in (a, b))
    assert (ka == kb) == (typed(a) == typed(b))
    item = flat(a)
    assert dict(zip(item[1::2], item[2::2])) == a[1] and list(zip(item[1::2], item[2::2])) == list(a[1].items())
