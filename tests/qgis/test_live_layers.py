"""The live re-check's result layers (issue 39): the layers shown take only the features whose rows changed.

Each case draws a group of result layers from rows as Run does (``add_to_project``), then gives the live update
other rows (a feature moved, one added, duplicated rows, a row gone, a layer's rows unchanged) and holds each layer
shown to the features a layer built from the new rows holds. A layer changed behind the update's back (a feature
deleted since the run started) or another set of layers replaces the group.
"""

from __future__ import annotations

import pytest
import shapely
from qgis.core import QgsCoordinateReferenceSystem, QgsProject

JURISDICTION = "test-live-layers"


def _value(v):
    return None if v is None or (hasattr(v, "isNull") and v.isNull()) else v


def _features(layer):
    return sorted((repr([_value(v) for v in f.attributes()]), bytes(f.geometry().asWkb())) for f in layer.getFeatures())


def _spec(name, rows):
    from stormwater_plugin.gui.result_layers import ZONE_FIELD_SPECS, LayerSpec

    return LayerSpec("polygon", name, ZONE_FIELD_SPECS, "other_zones", rows)


def _row(x, label="zone", distance=20.0, subject="DW-1"):
    return (shapely.box(x, 0, x + 1, 1), ["zone", "r-1", label, distance, subject])


def _group_layers():
    from stormwater_plugin.gui.result_layers import group_name

    group = QgsProject.instance().layerTreeRoot().findGroup(group_name(JURISDICTION))
    return [n.layer() for n in group.findLayers()]


@pytest.fixture()
def crs():
    yield QgsCoordinateReferenceSystem("EPSG:26918")
    QgsProject.instance().removeAllMapLayers()
    root = QgsProject.instance().layerTreeRoot()
    for g in list(root.findGroups()):
        root.removeChildNode(g)


def _draw(specs, crs):
    from stormwater_plugin.gui.result_layers import add_to_project, layer_of

    add_to_project([layer_of(s, crs) for s in specs], JURISDICTION)


def _expected(specs, crs):
    from stormwater_plugin.gui.result_layers import layer_of

    return [(s.name, _features(layer_of(s, crs).layer)) for s in specs]


def _update(specs, crs):
    from stormwater_plugin.gui.live_layers import layers_update, show_live_layers, shown_now

    update = layers_update(specs, crs, shown_now(JURISDICTION))
    return update, show_live_layers(update, JURISDICTION, carry=lambda _lyr: False)


def test_a_moved_row_replaces_its_feature_alone_and_an_unchanged_layer_is_left_as_it_is(crs):
    before = [_spec("A", [_row(0), _row(2), _row(4)]), _spec("B", [_row(10)])]
    _draw(before, crs)
    ids = {lyr.name(): lyr.id() for lyr in _group_layers()}
    kept = {f.id() for f in _group_layers()[0].getFeatures()}
    after = [_spec("A", [_row(0), _row(2.5), _row(4)]), _spec("B", [_row(10)])]
    update, added = _update(after, crs)
    assert added is not None  # in place
    assert [(lyr.name(), _features(lyr)) for lyr in _group_layers()] == _expected(after, crs)
    assert {lyr.name(): lyr.id() for lyr in _group_layers()} == ids  # the same layers (style, place kept)
    assert len(kept & {f.id() for f in _group_layers()[0].getFeatures()}) == 2  # two features kept, one replaced
    assert update.changes is not None and not update.changes[1].gone and not update.changes[1].added


def test_duplicate_rows_are_counted_and_a_row_gone_or_added_follows(crs):
    _draw([_spec("A", [_row(0), _row(0), _row(1)])], crs)
    for rows in ([_row(0), _row(1)], [_row(0), _row(0), _row(0), _row(1), _row(7, label="new")], [], [_row(1, distance=35.0)]):
        after = [_spec("A", rows)]
        _update(after, crs)
        assert [(lyr.name(), _features(lyr)) for lyr in _group_layers()] == _expected(after, crs)


def test_a_layer_changed_since_the_run_started_or_another_set_of_layers_replaces_the_group(crs):
    from stormwater_plugin.gui.live_layers import layers_update, show_live_layers, shown_now

    _draw([_spec("A", [_row(0), _row(2)])], crs)
    after = [_spec("A", [_row(0), _row(3)])]
    update = layers_update(after, crs, shown_now(JURISDICTION))
    layer = _group_layers()[0]
    layer.dataProvider().deleteFeatures([next(layer.getFeatures()).id()])  # behind the update's back
    assert show_live_layers(update, JURISDICTION, carry=lambda _lyr: False) is None
    assert [(lyr.name(), _features(lyr)) for lyr in _group_layers()] == _expected(after, crs)
    other = [_spec("A", [_row(0)]), _spec("C", [_row(5)])]
    _update_result = _update(other, crs)
    assert _update_result[1] is None and [(lyr.name(), _features(lyr)) for lyr in _group_layers()] == _expected(other, crs)


def test_the_row_keys_through_the_checks_derived_values_are_the_rows_wkb_and_follow_a_moved_row():
    from stormwater_plugin.core.derived import Derived, using
    from stormwater_plugin.gui.result_layers import row_keys

    rows = [_row(0.0), _row(5.0, label="other"), (None, ["zone", "r-1", "none", None, "DW-2"])]
    plain = row_keys(rows)
    first = Derived()
    with using(first):
        assert row_keys(rows) == plain
    with using(Derived(first)):
        assert row_keys(rows) == plain  # the same geometry objects: their WKB carried on, the same bytes
        moved = [_row(0.5), *rows[1:]]
        assert row_keys(moved) == [(bytes(shapely.to_wkb(moved[0][0])), tuple(moved[0][1])), *plain[1:]]


def test_features_made_from_the_row_keys_wkb_are_those_made_from_the_geometries():
    from stormwater_plugin.gui.live_layers import _fields
    from stormwater_plugin.gui.result_layers import ZONE_FIELD_SPECS, features_of, row_keys

    geoms = [shapely.box(0, 0, 1, 1), shapely.Point(2, 3), shapely.LineString([(0, 0), (4, 1)]),
             shapely.MultiPolygon([shapely.box(0, 0, 1, 1), shapely.box(3, 3, 4, 4)]), shapely.Point(1, 2, 3)]
    rows = [(g, ["zone", "r-1", f"z{n}", 20.0, "DW-1"]) for n, g in enumerate(geoms)]
    fields = _fields(ZONE_FIELD_SPECS)
    with_keys, without = features_of(fields, rows, row_keys(rows)), features_of(fields, rows)
    assert [bytes(f.geometry().asWkb()) for f in with_keys] == [bytes(f.geometry().asWkb()) for f in without]
    assert [f.attributes() for f in with_keys] == [f.attributes() for f in without]
    assert fields.names() == [n for n, _ in ZONE_FIELD_SPECS] and _fields(ZONE_FIELD_SPECS) is fields


def _changes(update):
    return [(ch.gone, ch.added_keys, len(ch.added)) for ch in update.changes]


def test_a_layer_found_unchanged_is_found_so_again_only_for_equal_rows_and_the_same_mapping_shown(crs):
    from stormwater_plugin.gui import live_layers
    from stormwater_plugin.gui.live_layers import layers_update, shown_now

    _draw([_spec("A", [_row(0), _row(2)])], crs)
    same = [_spec("A", [_row(0), _row(2)])]
    first = layers_update(same, crs, shown_now(JURISDICTION))
    assert _changes(first) == [({}, [], 0)] and list(live_layers._HELD) == [_group_layers()[0].id()]
    assert _changes(layers_update([_spec("A", [_row(0), _row(2)])], crs, shown_now(JURISDICTION))) == [({}, [], 0)]  # equal rows: held
    moved = [_spec("A", [_row(0), _row(3)])]
    assert _changes(layers_update(moved, crs, shown_now(JURISDICTION)))[0][2] == 1  # another row: looked up
    _update(moved, crs)  # the layer shown now holds the moved row: another mapping of its rows
    back = layers_update([_spec("A", [_row(0), _row(2)])], crs, shown_now(JURISDICTION))
    assert _changes(back)[0][2] == 1 and sum(back.changes[0].gone.values()) == 1  # the rows held before, against another mapping shown


def test_a_layer_shown_of_rows_of_equal_content_in_another_mapping_is_compared_anew(crs):
    from stormwater_plugin.gui.live_layers import ShownLayer, layers_update, shown_now

    _draw([_spec("A", [_row(0), _row(2)])], crs)
    shown = shown_now(JURISDICTION)
    layers_update([_spec("A", [_row(0), _row(2)])], crs, shown)
    s = shown[0]
    fewer = (ShownLayer(s.name, s.fields, s.layer_id, s.version, dict(list(s.keys.items())[:1])),)  # the same layer id, another mapping
    got = layers_update([_spec("A", [_row(0), _row(2)])], crs, fewer)
    assert got.changes[0].added_keys and len(got.changes[0].added) == 1


@pytest.mark.usefixtures("crs")
def test_the_layers_found_unchanged_through_the_memo_are_those_compared_row_by_row():
    """Property: whatever runs came before (layers held or not), the changes found are those of a comparison without the memo."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from stormwater_plugin.gui import live_layers
    from stormwater_plugin.gui.live_layers import ShownLayer, layers_update
    from stormwater_plugin.gui.result_layers import row_keys

    pool = [_row(0), _row(0), _row(2), _row(2, label="other"), _row(2, distance=20.1), _row(5, subject="DW-2")]
    crs = QgsCoordinateReferenceSystem("EPSG:26918")

    @settings(max_examples=60, deadline=None)
    @given(st.lists(st.tuples(st.lists(st.integers(0, len(pool) - 1), max_size=5), st.integers(0, 2)), min_size=1, max_size=6),
           st.lists(st.lists(st.integers(0, len(pool) - 1), max_size=5), min_size=3, max_size=3))
    def run(runs, mappings):
        shown_maps = []
        for rows in mappings:  # what a layer shown holds: its rows' keys to as many feature ids
            held: dict = {}
            for n, k in enumerate(row_keys([pool[i] for i in rows])):
                held[k] = held.get(k, ()) + (n,)
            shown_maps.append(held)
        for rows, m in runs:
            shown = (ShownLayer("A", tuple(n for n, _ in _spec("A", []).specs), "layer-a", 0, shown_maps[m]),)
            got = _changes(layers_update([_spec("A", [pool[i] for i in rows])], crs, shown))
            kept = live_layers._HELD
            live_layers._HELD = {}
            want = _changes(layers_update([_spec("A", [pool[i] for i in rows])], crs, shown))
            live_layers._HELD = kept
            assert got == want

    run()


def test_the_rows_drawn_leave_out_missing_and_empty_geometries_in_order_and_are_keyed_by_their_wkb():
    from shapely.geometry import GeometryCollection, Polygon

    from stormwater_plugin.gui.result_layers import LayerSpec, row_keys

    rows = [_row(0), (None, ["zone", "r-1", "none", 1.0, "DW-1"]), _row(2), (Polygon(), ["zone", "r-1", "empty", 1.0, "DW-1"]),
            (GeometryCollection(), ["zone", "r-1", "empty", 2.0, "DW-1"]), _row(4)]
    spec = LayerSpec("polygon", "A", _spec("A", []).specs, "other_zones", rows, skip_empty=True)
    assert spec.drawn_rows() == [rows[0], rows[2], rows[5]]
    drawn, keys = spec.drawn()
    assert keys == [(shapely.to_wkb(g, hex=False, include_srid=False), tuple(a)) for g, a in drawn] == row_keys(drawn)
    assert row_keys([(None, ["x"])]) == [(b"", ("x",))]


def _decisions_by_walk(doc, jurisdiction, only):
    """What set_decisions wrote before it found the layers by id: the group's layers walked, every finding's decision mapped."""
    from qgis.core import QgsFeatureRequest

    from stormwater_plugin.gui.result_layers import group_name

    group = QgsProject.instance().layerTreeRoot().findGroup(group_name(jurisdiction))
    decided = {str(f.get("key")): (f.get("override") or {}).get("decision") for f in doc.get("findings", [])}
    out = {}
    for node in group.findLayers():
        layer = node.layer()
        if layer.fields().indexOf("decision") < 0 or not only.get(layer.id()):
            continue
        for feat in layer.getFeatures(QgsFeatureRequest().setFilterFids(only[layer.id()])):
            want = decided.get(str(feat["key"]))
            have = _value(feat["decision"])
            out[(layer.id(), feat.id())] = want if want != (None if have in (None, "") else have) else have
    return out


def test_the_decisions_written_to_the_features_a_live_update_added_are_those_the_group_walk_writes(crs):
    """``set_decisions(only=…)`` finds the layers by id and maps no decision when none is taken: each feature named gets the
    decision of its key as walking the group's layers with every finding's decision writes it (hypothesis: the keys, the
    decisions taken (none, some, a decision without a word), the features named, a layer named with none, the review's
    typed document or its findings.json object)."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from stormwater_plugin.gui.result_layers import FINDING_FIELD_SPECS, LayerSpec, set_decisions
    from stormwater_plugin.services.findings_doc import document_from_json
    from stormwater_plugin.services.layer_rows import FINDING_SCHEMA

    names = [n for n, _ in FINDING_SCHEMA]

    def row(x, key, decision):
        attrs = [None] * len(names)
        attrs[names.index("key")], attrs[names.index("decision")] = key, decision
        return (shapely.box(x, 0, x + 1, 1), attrs)

    keys = st.sampled_from(["k1", "k2", "k3", "k4"])
    verdicts = st.sampled_from([None, "", "waived", "accepted"])

    @settings(max_examples=60, deadline=None)
    @given(st.lists(st.tuples(keys, verdicts), min_size=1, max_size=6), st.lists(st.tuples(keys, verdicts), min_size=0, max_size=4),
           st.lists(st.tuples(keys, st.one_of(st.none(), st.just({}), st.fixed_dictionaries({"decision": verdicts}))), max_size=5),
           st.data())
    def check(rows_a, rows_b, findings, data):
        for g in list(QgsProject.instance().layerTreeRoot().findGroups()):
            QgsProject.instance().layerTreeRoot().removeChildNode(g)
        QgsProject.instance().removeAllMapLayers()
        specs = [LayerSpec("polygon", "Findings A", FINDING_FIELD_SPECS, "findings_areas", [row(i, k, d) for i, (k, d) in enumerate(rows_a)]),
                 LayerSpec("polygon", "Findings B", FINDING_FIELD_SPECS, "findings_areas", [row(i, k, d) for i, (k, d) in enumerate(rows_b)])]
        _draw(specs, crs)
        layers = _group_layers()
        only = {lyr.id(): data.draw(st.lists(st.sampled_from(sorted(f.id() for f in lyr.getFeatures())), unique=True))
                if lyr.featureCount() else [] for lyr in layers}
        doc = {"findings": [{"key": k, "override": o} for k, o in findings]}
        expected = _decisions_by_walk(doc, JURISDICTION, only)
        # the live update gives the review's typed document; a findings.json object is written the same way
        set_decisions(document_from_json(doc) if data.draw(st.booleans()) else doc, JURISDICTION, only=only)
        got = {(lyr.id(), f.id()): _value(f["decision"]) for lyr in layers for f in lyr.getFeatures() if f.id() in only.get(lyr.id(), [])}
        assert got == expected

    check()


def test_a_live_update_whose_added_features_carry_no_decision_is_one_set_decisions_writes_nothing_to(crs):
    """``decisions_added`` (read from the features as added) is true exactly when ``set_decisions`` of a review without decisions
    writes to the features the update added (hypothesis: the rows shown and the new rows, each with or without a decision, an
    empty one included, in two findings layers)."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from stormwater_plugin.gui.live_layers import decisions_added
    from stormwater_plugin.gui.result_layers import FINDING_FIELD_SPECS, LayerSpec, set_decisions
    from stormwater_plugin.services.layer_rows import FINDING_SCHEMA

    names = [n for n, _ in FINDING_SCHEMA]

    def row(x, decision):
        attrs = [None] * len(names)
        attrs[names.index("key")], attrs[names.index("decision")] = f"k{x}", decision
        return (shapely.box(x, 0, x + 1, 1), attrs)

    rows = st.lists(st.tuples(st.integers(0, 5), st.sampled_from([None, None, "", "waived"])), max_size=5)

    def specs(a, b):
        return [LayerSpec("polygon", "Findings A", FINDING_FIELD_SPECS, "findings_areas", [row(x, d) for x, d in a]),
                LayerSpec("polygon", "Findings B", FINDING_FIELD_SPECS, "findings_areas", [row(x, d) for x, d in b])]

    @settings(max_examples=60, deadline=None)
    @given(rows, rows, rows, rows)
    def check(shown_a, shown_b, new_a, new_b):
        for g in list(QgsProject.instance().layerTreeRoot().findGroups()):
            QgsProject.instance().layerTreeRoot().removeChildNode(g)
        QgsProject.instance().removeAllMapLayers()
        _draw(specs(shown_a, shown_b), crs)
        update, added = _update(specs(new_a, new_b), crs)
        assert added is not None
        carries = decisions_added(update)
        assert carries == (set_decisions({"findings": []}, JURISDICTION, only=added) > 0)

    check()
