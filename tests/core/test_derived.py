"""The live re-check's derived values (``core.derived``): reused only when every input is the same by content."""

from __future__ import annotations

import numpy as np
import shapely
from hypothesis import example, given, settings
from hypothesis import strategies as st

from stormwater_plugin.core.derived import Derived, derive, using
from stormwater_plugin.core.model import FeatureLayer
from stormwater_plugin.core.raster import ElevationGrid


def _layer(x: float, attrs: dict[str, object] | None = None) -> FeatureLayer:
    geoms = np.asarray([shapely.Point(x, 0.0), shapely.box(0, 0, 1, 1)], dtype=object)
    return FeatureLayer("clearing", geoms, ["C-1", "C-2"], [dict(attrs or {"use": "lawn"}), {}], {})


def _count(derived: Derived, layer: FeatureLayer, *more: object) -> list[int]:
    calls: list[int] = []
    derived.value("n", lambda: calls.append(1) or len(calls), layer, *more)
    return calls


def test_the_same_content_in_new_objects_is_reused():
    first = Derived()
    assert _count(first, _layer(5.0)) == [1]
    second = Derived(first)
    assert _count(second, _layer(5.0)) == []  # new layer, new geometries, same WKB and attributes
    assert second.reused == 1 and second.made == 0


def test_a_geometry_moved_by_a_thousandth_is_computed_again():
    first = Derived()
    _count(first, _layer(5.0))
    assert _count(Derived(first), _layer(5.001)) == [1]


def test_an_attribute_changed_in_value_or_type_is_computed_again():
    first = Derived()
    _count(first, _layer(5.0, {"use": 1}))
    assert _count(Derived(first), _layer(5.0, {"use": 2})) == [1]
    assert _count(Derived(first), _layer(5.0, {"use": 1.0})) == [1]
    assert _count(Derived(first), _layer(5.0, {"use": True})) == [1]


def test_a_layer_changed_in_place_is_computed_again():
    first = Derived()
    layer = _layer(5.0)
    _count(first, layer)
    layer.attrs[0]["use"] = "beach"
    assert _count(Derived(first), layer) == [1]


def test_a_parameter_is_part_of_the_key():
    first = Derived()
    _count(first, _layer(5.0), 35.0)
    assert _count(Derived(first), _layer(5.0), 35.0) == []
    assert _count(Derived(first), _layer(5.0), 36.0) == [1]


def test_only_the_values_a_check_used_are_carried_on():
    first = Derived()
    _count(first, _layer(1.0))
    _count(first, _layer(2.0))
    second = Derived(first)
    _count(second, _layer(1.0))
    assert _count(Derived(second), _layer(2.0)) == [1]


def test_an_unhashable_input_is_computed_every_time():
    first = Derived()
    _count(first, _layer(5.0, {"use": ["a"]}))
    assert _count(Derived(first), _layer(5.0, {"use": ["a"]})) == [1]


def test_without_a_derived_in_use_derive_computes_directly():
    calls: list[int] = []
    assert derive("n", lambda: calls.append(1) or 7, _layer(1.0)) == 7
    with using(Derived()) as d:
        derive("n", lambda: calls.append(1) or 7, _layer(1.0))
        derive("n", lambda: calls.append(1) or 7, _layer(1.0))
    assert calls == [1, 1] and d is not None and d.made == 1
    assert _count(Derived(d), _layer(1.0)) == []  # settled at the block's end: its values are carried on, its objects let go


def _grid(values: np.ndarray | None = None, **kw: object) -> ElevationGrid:
    v = np.arange(12, dtype=np.float64).reshape(3, 4) if values is None else values
    return ElevationGrid(np.array(v, copy=True), (0.0, 1.0, 0.0, 3.0, 0.0, -1.0), **kw)  # type: ignore[arg-type]


def _count_grid(derived: Derived, grid: ElevationGrid) -> list[int]:
    calls: list[int] = []
    derived.value("g", lambda: calls.append(1) or len(calls), grid)
    return calls


def test_a_new_read_of_the_same_dem_window_is_reused_and_each_change_of_it_is_seen():
    first = Derived()
    assert _count_grid(first, _grid()) == [1]
    first.settle()
    assert _count_grid(Derived(first), _grid()) == []  # new grid, its own copy of the values
    changed = np.arange(12, dtype=np.float64).reshape(3, 4)
    changed[1, 2] += 1e-9
    assert _count_grid(Derived(first), _grid(changed)) == [1]  # one value by a billionth of a unit
    signed = np.arange(12, dtype=np.float64).reshape(3, 4)
    signed[0, 0] = -0.0
    assert _count_grid(Derived(first), _grid(signed)) == [1]  # bit for bit: -0.0 is not 0.0
    assert _count_grid(Derived(first), _grid(z_to_ft=1 / 0.3048)) == [1]  # the elevation unit
    assert _count_grid(Derived(first), ElevationGrid(np.arange(12, dtype=np.float64).reshape(3, 4), (0.0, 1.0, 0.0, 3.5, 0.0, -1.0))) == [1]  # placement
    assert _count_grid(Derived(first), _grid(to_raster=lambda x, y: (x + 1.0, y))) == [1]  # another transform


def test_a_dem_grid_new_to_a_check_is_keyed_by_its_content():
    first = Derived()
    _count_grid(first, _grid())
    first.settle()
    second = Derived(first)
    _count_grid(second, _grid(z_unit_note="read"))  # differs from the earlier grid: keyed by a digest of its values
    second.settle()
    assert _count_grid(Derived(second), _grid(z_unit_note="read")) == []


def test_the_recorder_reads_a_dem_window_as_the_same_whether_its_values_match_bit_for_bit_or_only_in_value():
    from stormwater_plugin.services.incremental import same_dem

    a = np.arange(12, dtype=np.float64).reshape(3, 4)
    a[0, 1] = np.nan
    b = np.array(a, copy=True)
    assert same_dem(_grid(a), _grid(b))  # the same bits
    b[0, 0] = -0.0  # equal in value (0.0), not in bits
    assert same_dem(_grid(a), _grid(b))
    b[2, 3] += 1e-9
    assert not same_dem(_grid(a), _grid(b))


def test_plain_values_in_tuples_and_lists_are_told_apart_by_type_and_container():
    """The keys of plain values nested in a tuple or list (a feature's attribute items) keep 1, 1.0, True and a list apart from a tuple."""
    first = Derived()
    for v in [("a", 1), ("a", 1.0), ("a", True), ["a", 1], ("a", (1,)), ("a", [1]), ("a", None), (), []]:
        assert _count(first, _layer(5.0), v) == [1], v
    first.settle()
    again = Derived(first)
    for v in [("a", 1), ("a", 1.0), ("a", True), ["a", 1], ("a", (1,)), ("a", [1]), ("a", None), (), []]:
        assert _count(again, _layer(5.0), v) == [], v
    assert again.reused == 9


def _reference_key(x: object) -> object:
    """The key of a plain value, a tuple or a list as it was written before its shortcuts: each value with its type's name, nested."""
    if isinstance(x, (tuple, list)):
        return (type(x).__name__, *(_reference_key(v) for v in x))
    return (type(x).__name__, x)


_plain = st.one_of(st.none(), st.booleans(), st.integers(-2, 2), st.sampled_from([0.0, 1.0, -0.0, 2.5]), st.sampled_from(["", "a", "1"]),
                   st.sampled_from([b"", b"a"]))
_nested = st.recursive(_plain, lambda inner: st.one_of(st.tuples(inner, inner), st.lists(inner, max_size=3).map(tuple), st.lists(inner, max_size=3)),
                       max_leaves=8)


@settings(max_examples=400, deadline=None)
@given(a=_nested, b=_nested)
def test_the_keys_of_plain_values_tuples_and_lists_tell_apart_what_the_nested_keys_do(a: object, b: object):
    """The shortcuts for a tuple of plain values and a tuple of such tuples (a feature's attribute items) keep two values apart
    exactly when the key written value by value, nested, does: 1, 1.0 and True, a tuple and a list, (1,) and [1] stay apart."""
    derived = Derived()
    assert (derived._input_key(a) == derived._input_key(b)) == (_reference_key(a) == _reference_key(b))


def test_the_positions_a_move_changed_are_the_same_through_the_checks_wkb_as_written_afresh():
    """The recorder finds the moved features by WKB, through the check's (written once per geometry) or written afresh:
    the same positions, a move by a thousandth, a feature without geometry and one drawn again in the same place included."""
    from stormwater_plugin.services.incremental import _moved

    def devices(*xs: float | None) -> FeatureLayer:
        return FeatureLayer("devices", np.asarray([None if x is None else shapely.Point(x, 0.0) for x in xs], dtype=object),
                            [f"D{n}" for n in range(len(xs))], [{} for _ in xs], {})

    before, after = devices(1.0, 2.0, None, 4.0), devices(1.0, 2.001, None, 4.0)
    first = Derived()
    first.wkb(list(before.geoms))
    first.settle()
    with using(Derived(first), settle=False):
        live = _moved(before, after)
    assert live == _moved(before, after) == [1]
    assert _moved(before, devices(1.0, 2.0, None, 4.0)) == []


def _reference_layer_key(layer: FeatureLayer) -> object:
    """A layer's key as it was written before its attributes were flattened: a tuple of items and of their types per feature."""
    wkb = tuple(shapely.to_wkb(np.asarray(layer.geoms, dtype=object), hex=False, include_srid=False).tolist()) if len(layer) else ()
    attrs = tuple([(tuple(a.items()), tuple(map(type, a)), tuple(map(type, a.values()))) for a in layer.attrs])
    return ("layer", layer.role, tuple(layer.ids), wkb, attrs, tuple(layer.no_geometry.items()))


_field = st.sampled_from(["use", "type", "id", "1"]) | st.sampled_from([1, 1.0, True])  # a field name of another type, too
_features = st.lists(st.dictionaries(_field, _plain, max_size=3), max_size=3)


@settings(max_examples=400, deadline=None)
@given(a=_features, b=_features)
@example(a=[{1: "a"}], b=[{True: "a"}])  # a field name's type
@example(a=[{1.0: "a"}], b=[{1: "a"}])
@example(a=[{"use": 1}], b=[{"use": 1.0}])  # a value's type
@example(a=[{"use": True}], b=[{"use": 1}])
@example(a=[{"a": 1}, {"b": 2}], b=[{"a": 1, "b": 2}, {}])  # the same fields split otherwise between the features
@example(a=[{"a": 1}, {"b": 2}], b=[{"a": 1}, {"b": 2}])
def test_the_flat_attribute_key_of_a_layer_tells_apart_what_the_key_per_feature_did(a: list[dict[object, object]], b: list[dict[object, object]]):
    """A layer's attributes keyed as one flat tuple with each feature's number of fields keep two layers apart exactly when the
    former key (items and their types per feature) did: 1, 1.0 and True as values and as field names, and the same names and
    values split otherwise between the features ({a: 1}, {b: 2} and {a: 1, b: 2}, {})."""

    def layer(attrs: list[dict[object, object]]) -> FeatureLayer:
        return FeatureLayer("clearing", np.asarray([shapely.Point(0.0, 0.0)] * len(attrs), dtype=object), ["C"] * len(attrs),
                            [dict(x) for x in attrs], {})  # type: ignore[misc]

    def key(derived: Derived, attrs: list[dict[object, object]]) -> object:
        return derived._input_key(layer(attrs))

    derived = Derived()
    assert (key(derived, a) == key(derived, b)) == (_reference_layer_key(layer(a)) == _reference_layer_key(layer(b)))


def test_a_layer_s_fields_split_otherwise_between_its_features_are_another_key():
    first = Derived()
    assert _count(first, FeatureLayer("clearing", np.asarray([shapely.Point(0, 0)] * 2, dtype=object), ["C", "C"], [{"a": 1}, {"b": 2}], {})) == [1]
    first.settle()
    split = FeatureLayer("clearing", np.asarray([shapely.Point(0, 0)] * 2, dtype=object), ["C", "C"], [{"a": 1, "b": 2}, {}], {})
    assert _count(Derived(first), split) == [1]
    same = FeatureLayer("clearing", np.asarray([shapely.Point(0, 0)] * 2, dtype=object), ["C", "C"], [{"a": 1}, {"b": 2}], {})
    assert _count(Derived(first), same) == []


# --- a layer's content keyed once per check, by its token (issue 39) -----------------------------------------------------


def test_a_layers_token_follows_its_content_from_check_to_check():
    """The same content (new objects) has the same token in the next check; another content (a geometry moved by a
    thousandth, an attribute changed) another token, in the same check and the next; a content the check between did not
    key is given a new token (its values were not carried either)."""
    first = Derived()
    token = first._input_key(_layer(5.0))
    assert first._input_key(_layer(5.0)) == token
    assert first._input_key(_layer(5.001)) != token
    assert first._input_key(_layer(5.0, {"use": "beach"})) != token
    first.settle()
    second = Derived(first)
    assert second._input_key(_layer(5.0)) == token
    assert second._input_key(_layer(5.001)) != token
    second.settle()
    third = Derived(second)
    assert third._input_key(_layer(5.001)) not in (token, second._input_key(_layer(5.0)))  # type: ignore[comparison-overlap]
    third.settle()
    fourth = Derived(third)
    assert fourth._input_key(_layer(5.0)) != token  # third did not key it: a new token, and no value of the old one is found


def test_a_unions_parts_are_keyed_by_their_token_and_follow_each_part():
    first = Derived()
    parts = [shapely.box(0, 0, 1, 1), shapely.box(2, 0, 3, 1)]
    calls: list[int] = []
    first.value("u", lambda: calls.append(1), parts)
    first.settle()
    second = Derived(first)
    second.value("u", lambda: calls.append(1), [shapely.box(0, 0, 1, 1), shapely.box(2, 0, 3, 1)])
    assert calls == [1]
    second.value("u", lambda: calls.append(1), [shapely.box(0, 0, 1, 1), shapely.box(2, 0, 3, 1.001)])
    second.value("u", lambda: calls.append(1), [shapely.box(2, 0, 3, 1), shapely.box(0, 0, 1, 1)])  # the order of the parts
    assert calls == [1, 1, 1]


_contents = st.sampled_from([(5.0, "lawn"), (5.0, "beach"), (5.001, "lawn"), (6.0, "lawn")])


@settings(max_examples=300, deadline=None)
@given(checks=st.lists(st.lists(st.tuples(st.sampled_from(["a", "b"]), _contents, st.sampled_from(["new", "same", "kept"])), max_size=6),
                       min_size=1, max_size=5))
def test_values_keyed_by_tokens_are_reused_exactly_when_their_contents_were_used_in_the_check_before(checks):
    """Over a sequence of checks, each looking up values of layers (new objects of a content, the same object as the check
    before, or a layer kept as a value of the check before), a value is computed again exactly when its name and its layer's
    content were not looked up in the check before, as keying by the content itself does."""
    earlier: Derived | None = None
    used_before: set[tuple[str, tuple[float, str]]] = set()
    objects: dict[tuple[float, str], FeatureLayer] = {}
    kept: dict[tuple[float, str], FeatureLayer] = {}
    for lookups in checks:
        derived = Derived(earlier)
        used: set[tuple[str, tuple[float, str]]] = set()
        now: dict[tuple[float, str], FeatureLayer] = {}
        kept_now: dict[tuple[float, str], FeatureLayer] = {}
        for name, content, how in lookups:
            layer = (objects.get(content) if how == "same" else kept.get(content) if how == "kept" else None) or _layer(content[0], {"use": content[1]})
            now[content] = layer
            calls: list[int] = []
            derived.value(name, lambda calls=calls: calls.append(1) or 0, layer)
            assert bool(calls) == ((name, content) not in used_before and (name, content) not in used), (name, content, how)
            used.add((name, content))
            # a value holding a layer (a cleaned layer): its key is carried by the object
            kept_now[content] = derived.value("kept " + name, lambda content=content: _layer(content[0], {"use": content[1]}), layer)
        derived.settle()
        earlier, used_before, objects, kept = derived, used, now, kept_now


def test_a_grid_keyed_the_same_in_two_checks_is_known_the_same_and_any_change_or_a_grid_not_keyed_is_not():
    """What the recorder asks before comparing two DEM windows itself: the same only when both checks keyed them alike
    (a new read of the same values); a value changed by a billionth, -0.0 for 0.0, another unit, or a grid either check did
    not key is not known the same (the recorder then compares them)."""
    first = Derived()
    earlier = _grid()
    _count_grid(first, earlier)
    first.settle()
    for grid, same in [(_grid(), True), (_grid(z_to_ft=1 / 0.3048), False)]:
        second = Derived(first)
        _count_grid(second, grid)
        assert second.same_grid_keyed(earlier, grid) is same
    changed = np.arange(12, dtype=np.float64).reshape(3, 4)
    changed[1, 2] += 1e-9
    signed = np.arange(12, dtype=np.float64).reshape(3, 4)
    signed[0, 0] = -0.0
    for values in (changed, signed):
        second = Derived(first)
        _count_grid(second, _grid(values))
        assert not second.same_grid_keyed(earlier, second._grids[0][0])
    second = Derived(first)
    assert not second.same_grid_keyed(earlier, _grid())  # not keyed in this check
    assert not second.same_grid_keyed(_grid(), _grid()) and not second.same_grid_keyed(None, earlier)


_inputs = st.lists(st.one_of(_nested, st.sampled_from(["layer", "same layer", "point", "same point", "union"])), max_size=5)


@settings(max_examples=200, deadline=None)
@given(inputs=_inputs)
def test_a_values_key_is_each_inputs_own_key_as_input_key_gives_it(inputs: list[object]):
    """:meth:`Derived.value` and :meth:`Derived.each` take a plain value's and an object keyed already's key themselves (and each item's key): the same key as
    ``(name, *[_input_key(x) for x in inputs])``, for plain values, nested tuples and lists, layers and geometries (new to the
    check or keyed already: ``same``) and a union's parts."""
    layer, point = _layer(5.0), shapely.Point(1.0, 2.0)
    objects = {"layer": _layer(5.0), "same layer": layer, "point": shapely.Point(1.0, 2.0), "same point": point,
               "union": [shapely.Point(0.0, 0.0), shapely.box(0, 0, 1, 1)]}
    made = [objects.get(x, x) if isinstance(x, str) else x for x in inputs]
    derived = Derived()
    derived._input_key(layer), derived._input_key(point)  # keyed already in this check
    derived.value("n", lambda: 1, *made)
    reference = Derived(derived)  # a check after it: the same contents have the same tokens
    assert list(derived._values) == [("n", *[reference._input_key(x) for x in made])]
    derived.each("e", lambda items: [1] * len(items), [1], *made)  # the group of values of one name and inputs: the same keys
    assert list(derived._values)[1] == ("each", "e", *[reference._input_key(x) for x in made])
    if made and not all(isinstance(x, shapely.Geometry) for x in made):  # the inputs as items (all geometries: keyed by their WKB)
        derived.each("items", lambda items: [1] * len(items), made)
        assert list(derived._values[("each", "items")]) == list(dict.fromkeys(reference._input_key(x) for x in made))
