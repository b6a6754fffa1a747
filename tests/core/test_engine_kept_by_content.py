"""What the engine keeps by content between live re-checks (#39), outside the rules: a change of each input of a kept value
gives what a check made afresh gives, and each shortcut gives what its former formulation gave.

The kept values: a layer's normalised attributes (by role, ids and attributes: a move cleans the geometries alone), the
smallest plausible footprints of a layer's polygons (by role and their attributes: a move reads its symbols without the
vocabulary) and each named layer's WKT (by the layer and the ids named).
"""

from __future__ import annotations

import numpy as np
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st
from shapely.geometry import MultiPolygon, Point, Polygon, box

from stormwater_plugin.core.derived import Derived, using
from stormwater_plugin.core.engine import _cleaned, _feature_wkt
from stormwater_plugin.core.extents import _min_footprint, _symbols_read, attributes_key
from stormwater_plugin.core.geometry import clean_layer
from stormwater_plugin.core.model import Citation, FeatureLayer, FeatureRef, Finding, SiteInputs, Status, Warning_
from stormwater_plugin.core.roles import ROLE_NOUN
from stormwater_plugin.core.rulepack import load_pack
from stormwater_plugin.core.vocabulary import normalise_layer


def _layer(role: str, geoms: list, ids: list[str], attrs: list[dict] | None = None, no_geometry: dict | None = None) -> FeatureLayer:
    arr = np.empty(len(geoms), dtype=object)
    arr[:] = geoms
    return FeatureLayer(role, arr, list(ids), [dict(a) for a in attrs] if attrs is not None else [{} for _ in ids], dict(no_geometry or {}))


def _content(layer: FeatureLayer | None) -> object:
    """A layer's whole content, the types of its values included (1, 1.0 and True differ)."""
    if layer is None:
        return None
    return (layer.role, [None if g is None else shapely.to_wkb(g) for g in layer.geoms], list(layer.ids),
            [[(k, type(v), v) for k, v in a.items()] for a in layer.attrs], dict(layer.no_geometry))


def _warnings(made: tuple[Warning_, ...] | list[Warning_]) -> list[tuple]:
    return [(w.code, w.message, w.layer, tuple(w.ids)) for w in made]


def _chain(cases, made):
    """Each case checked from the one before (the live re-check's chain) and afresh: the same answer."""
    last = Derived()
    for name, *args in cases:
        last = Derived(last)
        with using(last):
            live = made(*args)
        assert live == made(*args), name  # no derived values in use: made afresh


# -- the cleaned layer: its attributes normalised, kept by the attributes' content ------------------------------------------

def _cleaned_content(layer: FeatureLayer) -> tuple:
    done, said = _cleaned(layer)
    return _content(done), _warnings(said)


DW = {"id": "DW-1", "Device_Type": "Dry Well", "high_traffic": 0}
TRENCH = {"id": "DW-2", "device_type": "infiltration trench", "high_traffic": "yes"}


def test_the_normalised_attributes_follow_a_change_of_each_input_they_are_kept_by():
    geoms = [Point(0, 0), box(10, 10, 20, 20)]
    cases = [
        ("same", _layer("devices", geoms, ["DW-1", "DW-2"], [DW, TRENCH])),
        ("the role", _layer("wells", geoms, ["DW-1", "DW-2"], [DW, TRENCH])),
        ("a device moved", _layer("devices", [Point(1, 0), box(10, 10, 20, 20)], ["DW-1", "DW-2"], [DW, TRENCH])),
        ("a value changed", _layer("devices", geoms, ["DW-1", "DW-2"], [{**DW, "Device_Type": "rain garden"}, TRENCH])),
        ("a value's type: 1", _layer("devices", geoms, ["DW-1", "DW-2"], [{**DW, "high_traffic": 1}, TRENCH])),
        ("a value's type: 1.0", _layer("devices", geoms, ["DW-1", "DW-2"], [{**DW, "high_traffic": 1.0}, TRENCH])),
        ("a value's type: True", _layer("devices", geoms, ["DW-1", "DW-2"], [{**DW, "high_traffic": True}, TRENCH])),
        ("a field's name", _layer("devices", geoms, ["DW-1", "DW-2"], [{"id": "DW-1", "device_type ": "Dry Well", "high_traffic": 0}, TRENCH])),
        ("two spellings, the order of the fields", _layer("devices", geoms, ["DW-1", "DW-2"],
                                                          [{"device_type": "", "Device_Type": "Dry Well"}, TRENCH])),
        ("the ids (the warnings name them)", _layer("devices", geoms, ["X-1", "DW-2"], [{**DW, "Device_Type": "rain garden"}, TRENCH])),
        ("the ids, once more", _layer("devices", geoms, ["DW-1", "DW-2"], [{**DW, "Device_Type": "rain garden"}, TRENCH])),
        ("the features' order", _layer("devices", geoms[::-1], ["DW-2", "DW-1"], [TRENCH, DW])),
        ("a field more", _layer("devices", geoms, ["DW-1", "DW-2"], [{**DW, "vehicle_traffic": "No"}, TRENCH])),
        ("a feature without geometry", _layer("devices", [None, box(10, 10, 20, 20)], ["DW-1", "DW-2"], [DW, TRENCH])),
        ("no features", _layer("devices", [], [], [])),
    ]
    _chain(cases, _cleaned_content)


def test_a_moved_feature_finds_its_layers_normalised_attributes_made():
    first = Derived()
    with using(first):
        _cleaned(_layer("devices", [Point(0, 0), Point(5, 5)], ["DW-1", "DW-2"], [DW, TRENCH]))
    second = Derived(first)
    with using(second, settle=False):
        _cleaned(_layer("devices", [Point(1, 0), Point(5, 5)], ["DW-1", "DW-2"], [DW, TRENCH]))
    assert second.reused == 1 and second.made == 0  # the attributes' normalisation, taken whole


_values = st.one_of(st.none(), st.sampled_from(["Dry Well", "dry_well", "rain garden", "YES", "no", "", " Porous Pavement ", "existing"]),
                    st.integers(-1, 2), st.sampled_from([0.0, 1.0, -0.5]), st.booleans())
_names = st.sampled_from(["id", "device_type", "Device_Type", "DEVICE TYPE", "high_traffic", "vehicle_traffic", "status", "use", "name"])
_attrs = st.dictionaries(_names, _values, max_size=4)


@settings(max_examples=60, deadline=None)
@given(role=st.sampled_from(["devices", "wells", "impervious", "clearing", "building_sites", "parcels"]),
       attrs=st.lists(_attrs, max_size=4), missing=st.lists(st.booleans(), min_size=4, max_size=4))
def test_the_cleaned_layer_is_the_former_clean_then_normalise(role, attrs, missing):
    geoms = [None if missing[n] else box(n * 10, 0, n * 10 + 5, 5) for n in range(len(attrs))]
    layer = _layer(role, geoms, [f"F{n}" for n in range(len(attrs))], attrs)
    made: list[Warning_] = []
    former = normalise_layer(clean_layer(layer, made), made)
    first = Derived()
    with using(first):
        _cleaned(layer)
    again = Derived(first)
    for derived in (None, again):  # afresh, and its attributes taken from a check before
        with using(derived, settle=False):
            done, said = _cleaned(_layer(role, geoms, [f"F{n}" for n in range(len(attrs))], attrs))
        assert _content(done) == _content(former)
        assert _warnings(said) == _warnings(made)


# -- the symbols read as points: the smallest footprints kept by the polygons' attributes -----------------------------------

def _symbols(role: str, layer: FeatureLayer, unit_to_ft: float) -> tuple:
    read, warning = _symbols_read(role, layer, unit_to_ft)
    return _content(read), None if warning is None else _warnings([warning])


def test_the_symbols_read_follow_a_change_of_each_input_the_footprints_are_kept_by():
    mid = box(0, 0, 4, 4)  # 16 sq ft: a dry well (12 sq ft at least), a symbol of a porous pavement (20) or a septic system (40)
    dry, porous, spelt = {"device_type": "dry_well"}, {"device_type": "porous_pavement"}, {"Device Type": "dry well"}
    cases = [
        ("same", "devices", _layer("devices", [mid, Point(9, 9)], ["DW-1", "DW-2"], [dry, dry]), 1.0),
        ("its kind", "devices", _layer("devices", [mid, Point(9, 9)], ["DW-1", "DW-2"], [porous, dry]), 1.0),
        ("its kind's field's name", "devices", _layer("devices", [mid, Point(9, 9)], ["DW-1", "DW-2"], [spelt, dry]), 1.0),
        ("the role", "septic", _layer("septic", [mid, Point(9, 9)], ["DW-1", "DW-2"], [spelt, dry]), 1.0),
        ("the unit", "septic", _layer("septic", [mid, Point(9, 9)], ["DW-1", "DW-2"], [spelt, dry]), 100.0),
        ("the symbol moved", "septic", _layer("septic", [box(3, 0, 7, 4), Point(9, 9)], ["DW-1", "DW-2"], [spelt, dry]), 1.0),
        ("the symbol grown past its smallest footprint", "septic", _layer("septic", [box(3, 0, 13, 10), Point(9, 9)], ["DW-1", "DW-2"], [spelt, dry]), 1.0),
        ("its kind unknown", "devices", _layer("devices", [mid, Point(9, 9)], ["DW-1", "DW-2"], [{"device_type": "rain garden"}, dry]), 1.0),
        ("a point now", "devices", _layer("devices", [Point(0, 0), Point(9, 9)], ["DW-1", "DW-2"], [dry, dry]), 1.0),
        ("the parts of one id", "devices", _layer("devices", [box(0, 0, 1, 1), box(2, 0, 3, 1)], ["DW-1", "DW-1"], [dry, porous]), 1.0),
        ("an empty polygon", "devices", _layer("devices", [Polygon(), box(0, 0, 1, 1)], ["DW-1", "DW-2"], [dry, dry]), 1.0),
        ("a missing geometry", "devices", _layer("devices", [None, box(0, 0, 1, 1)], ["DW-1", "DW-2"], [dry, dry]), 1.0),
    ]
    results = [_symbols(*case[1:]) for case in cases]
    assert all(results[n] != results[n + 1] for n in range(4))  # each of the first changes the reading
    _chain(cases, _symbols)


def _former_symbols(role: str, layer: FeatureLayer, unit_to_ft: float) -> tuple:
    """:func:`_symbols_read` as it was written before its polygons' types, areas and footprints were asked at once."""
    geoms = list(layer.geoms)
    hit: list[str] = []
    parts: dict[str, list[int]] = {}
    for i, g in enumerate(geoms):
        if g is not None and not g.is_empty and g.geom_type in ("Polygon", "MultiPolygon"):
            parts.setdefault(layer.ids[i], []).append(i)
    for fid, idx in parts.items():
        whole = shapely.union_all([geoms[i] for i in idx]) if len(idx) > 1 else geoms[idx[0]]
        a = float(shapely.area(whole)) * unit_to_ft * unit_to_ft
        if a < min(_min_footprint(role, layer.attrs[i]) for i in idx):
            c = shapely.centroid(whole)
            point = c if shapely.covered_by(c, whole) else shapely.point_on_surface(whole)
            for i in idx:
                geoms[i] = point
            hit.append(fid)
    if not hit:
        return None, None
    read = _layer(layer.role, geoms, layer.ids, layer.attrs, layer.no_geometry)
    words = (f"{ROLE_NOUN.get(role, role)} polygon(s) smaller than the smallest plausible footprint of their "
             "kind are read as symbols, points at their centre, with the plausible extent of a point")
    return _content(read), [("symbol_read_as_point", words, role, tuple(hit))]


_shapes = st.one_of(
    st.none(),
    st.builds(lambda x, s: box(x, 0, x + s, s), st.integers(0, 50), st.sampled_from([0.5, 1.0, 3.0, 30.0, 200.0])),
    st.builds(lambda x: Point(x, 1), st.integers(0, 50)),
    st.builds(lambda x: MultiPolygon([box(x, 0, x + 1, 1), box(x + 5, 0, x + 6, 1)]), st.integers(0, 50)),
    st.just(Polygon()),
)


@settings(max_examples=80, deadline=None)
@given(role=st.sampled_from(["devices", "septic", "wells", "building_sites"]),
       features=st.lists(st.tuples(_shapes, st.sampled_from(["A", "B", "C"]),
                                   st.sampled_from([{}, {"device_type": "dry_well"}, {"device_type": "porous_pavement"},
                                                    {"device_type": "infiltration_basin"}, {"Device_Type": "?"}])), max_size=5),
       unit_to_ft=st.sampled_from([1.0, 3.280839895, 0.3048]))
def test_the_symbols_read_are_the_former_readings(role, features, unit_to_ft):
    layer = _layer(role, [f[0] for f in features], [f[1] for f in features], [f[2] for f in features])
    former = _former_symbols(role, layer, unit_to_ft)
    first = Derived()
    with using(first):
        _symbols_read(role, layer, unit_to_ft)
    for derived in (None, Derived(first)):  # afresh, and the footprints taken from a check before
        with using(derived, settle=False):
            assert _symbols(role, _layer(role, [f[0] for f in features], [f[1] for f in features], [f[2] for f in features]), unit_to_ft) == former


def test_the_attributes_key_tells_apart_where_each_feature_ends():
    assert attributes_key([{"a": 1, "b": 2}, {}]) != attributes_key([{"a": 1}, {"b": 2}])
    assert attributes_key([{"a": 1}]) == attributes_key([{"a": 1}])


# -- the WKT of the features named -------------------------------------------------------------------------------------------

def _refs(findings: list[Finding]) -> list[FeatureRef]:
    return [r for f in findings for r in (f.subject, f.other) if r is not None]


def _former_wkt(findings: list[Finding], layers: dict[str, FeatureLayer]) -> dict[str, str]:
    """``_feature_wkt`` as it was written before each layer's part was kept whole."""
    named: dict[str, object] = {}
    for f in findings:
        for ref in (f.subject, f.other):
            if ref is None:
                continue
            key = f"{ref.layer}:{ref.id}"
            if key in named:
                continue
            layer = layers.get(ref.layer)
            ids = {fid: i for i, fid in enumerate(layer.ids)} if layer is not None else {}
            i = ids.get(ref.id)
            if i is not None:
                named[key] = layers[ref.layer].geoms[i]
    return {k: shapely.to_wkt(g, rounding_precision=2, trim=True) for k, g in named.items() if g is not None and not g.is_empty}


def _finding(subject: tuple[str, str], other: tuple[str, str] | None) -> Finding:
    return Finding("r", "device_setback", Citation("x", "", "", ""), Status.PASS, FeatureRef(*subject),
                   FeatureRef(*other) if other is not None else None, 10.0, 5.0, "m")


@settings(max_examples=60, deadline=None)
@given(devices=st.lists(st.tuples(st.sampled_from(["DW-1", "DW-2", "DW-3"]), st.one_of(st.none(), st.just(Polygon()),
                                  st.builds(lambda x: Point(x, 0.123456), st.integers(0, 9)))), max_size=4),
       named=st.lists(st.tuples(st.sampled_from(["DW-1", "DW-2", "DW-3"]), st.one_of(st.none(), st.sampled_from([("wells", "W1"), ("wells", "W9"),
                                                                                                             ("septic", "S1")]))), max_size=6))
def test_the_wkt_of_the_features_named_is_the_former_one(devices, named):
    layers = {"devices": _layer("devices", [g for _, g in devices], [i for i, _ in devices]),
              "wells": _layer("wells", [Point(100, 0)], ["W1"])}
    findings = [_finding(("devices", d), o) for d, o in named]
    former = _former_wkt(findings, layers)
    first = Derived()
    with using(first):
        _feature_wkt(_refs(findings), layers)
    for derived in (None, Derived(first)):
        with using(derived, settle=False):
            got = _feature_wkt(_refs(findings), layers)
        assert got == former and list(got) == list(former)  # the same WKT, in the order the findings first name them


@settings(max_examples=40, deadline=None)
@given(st.lists(st.one_of(_shapes, st.builds(lambda x: shapely.LineString([(x, 0), (x + 1, 1)]), st.integers(0, 9)),
                          st.builds(lambda x: shapely.MultiPoint([(x, 0), (x, 1)]), st.integers(0, 9))), max_size=6))
def test_the_polygon_family_of_a_layers_geometries_is_the_former_membership_test(geoms):
    types = shapely.get_type_id(np.asarray(geoms, dtype=object))
    assert (((types == 3) | (types == 6)) == np.isin(types, (3, 6))).all()  # clean_layer's fast path, as it was asked


@settings(max_examples=60, deadline=None)
@given(pack_name=st.sampled_from(["lgpc", "lake-george", "mamakating"]),
       possible=st.lists(st.sampled_from(["exempt", "minor", "major", "other"]), min_size=1, max_size=3, unique=True))
def test_each_rules_binding_classes_made_once_are_those_each_rule_says_it_applies_to(pack_name, possible):
    """The loop's binding classes, kept per pack rules and classes (#39), are those each rule's ``applies`` gives, in order."""
    from stormwater_plugin.core.engine import effective_pack, rule_bindings

    pack = load_pack(pack_name)
    classes = tuple(possible)
    former = [[c for c in classes if rule.applies_to_class(c)] for rule in pack.rules]
    assert [list(b) for b in rule_bindings(pack.rules, classes)] == former
    assert [list(b) for b in rule_bindings(pack.rules, classes)] == former  # asked again: kept, the same
    widened = effective_pack(SiteInputs(layers={}, dem=None, unit_to_ft=1.0, dem_vertical_accuracy_ft=pack.gradient_tolerance_ft + 1.0), pack)
    assert [list(b) for b in rule_bindings(widened.rules, classes)] == former
