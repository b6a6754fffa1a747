"""The plan's bounds the slope mask is cropped to and the live re-check keeps the mask by (``services.slope_mask``)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st
from shapely.geometry import LineString, Point, Polygon, box

from stormwater_plugin.core.model import FeatureLayer
from stormwater_plugin.core.roles import TERRAIN_EXTENT_ROLES
from stormwater_plugin.services.slope_mask import _plan_bounds


def _layer(role: str, geoms: list[object]) -> FeatureLayer:
    arr = np.empty(len(geoms), dtype=object)
    arr[:] = geoms
    return FeatureLayer(role, arr, [f"{role}-{n}" for n in range(len(geoms))], [{} for _ in geoms], {})


def _bounds_feature_by_feature(layers: dict[str, FeatureLayer]) -> np.ndarray | None:
    """The bounds as they were read before: each feature's emptiness asked one by one."""
    for roles in (TERRAIN_EXTENT_ROLES, tuple(layers)):
        geoms = [g for r in roles if r in layers for g in layers[r].geoms if g is not None and not g.is_empty]
        if geoms:
            b = shapely.total_bounds(np.array(geoms, dtype=object))
            if np.all(np.isfinite(b)):
                return b
    return None


def _same(layers: dict[str, FeatureLayer]) -> None:
    got, want = _plan_bounds(SimpleNamespace(layers=layers)), _bounds_feature_by_feature(layers)  # type: ignore[arg-type]
    # bit for bit (a zero's sign too): the bounds crop the mask's window
    assert (got is None and want is None) or (got is not None and want is not None and got.tobytes() == want.tobytes())


def test_the_plan_bounds_leave_out_missing_and_empty_features_of_the_plan_roles():
    plan = TERRAIN_EXTENT_ROLES[0]
    _same({plan: _layer(plan, [Point(1, 2), None, Polygon(), box(5, 5, 9, 7)]), "parcels": _layer("parcels", [box(-100, -100, 100, 100)])})


def test_without_a_plan_feature_the_bounds_are_every_layers_and_without_any_none():
    plan = TERRAIN_EXTENT_ROLES[0]
    _same({plan: _layer(plan, [None, LineString()]), "parcels": _layer("parcels", [box(-100, -100, 100, 100), None])})
    _same({plan: _layer(plan, [None]), "parcels": _layer("parcels", [Polygon()])})
    _same({})
    assert _plan_bounds(SimpleNamespace(layers={})) is None  # type: ignore[arg-type]


def test_the_bounds_are_kept_with_the_inputs_and_each_call_has_its_own_array():
    plan = TERRAIN_EXTENT_ROLES[0]
    inputs = SimpleNamespace(layers={plan: _layer(plan, [Point(1, 2), box(5, 5, 9, 7)])})
    first = _plan_bounds(inputs)  # type: ignore[arg-type]
    assert first is not None
    first[0] = 1e9  # a caller's change of its array is its own
    again = _plan_bounds(inputs)  # type: ignore[arg-type]
    assert again is not None and np.array_equal(again, [1, 2, 9, 7])
    other = SimpleNamespace(layers={plan: _layer(plan, [Point(0, 0), box(5, 5, 19, 7)])})  # other inputs: their own bounds
    assert np.array_equal(_plan_bounds(other), [0, 0, 19, 7])  # type: ignore[arg-type]


def test_inputs_copied_and_given_other_layers_have_their_own_bounds():
    import copy

    plan = TERRAIN_EXTENT_ROLES[0]
    inputs = SimpleNamespace(layers={plan: _layer(plan, [Point(1, 2)])})
    assert np.array_equal(_plan_bounds(inputs), [1, 2, 1, 2])  # type: ignore[arg-type]
    moved = copy.copy(inputs)  # the kept bounds come along in the copy's attributes
    moved.layers = {plan: _layer(plan, [Point(3, 4)])}
    assert np.array_equal(_plan_bounds(moved), [3, 4, 3, 4])  # type: ignore[arg-type]
    inputs.layers[plan] = _layer(plan, [Point(5, 6)])  # a layer of the same mapping replaced
    assert np.array_equal(_plan_bounds(inputs), [5, 6, 5, 6])  # type: ignore[arg-type]


_finite = st.one_of(st.floats(-1e6, 1e6, allow_nan=False), st.sampled_from([0.0, -0.0]))
#: a point of a NaN coordinate has NaN bounds that are no one's least or greatest (ignored, as total_bounds ignores them)
_coord = st.one_of(_finite, st.just(float("nan")))
_geom = st.one_of(
    st.none(), st.just(Polygon()), st.just(LineString()),
    st.builds(Point, _coord, _coord),
    st.builds(lambda x, y, w, h: box(x, y, x + w, y + h), _finite, _finite, st.floats(0, 1e3), st.floats(0, 1e3)),
)
_roles = st.sampled_from(list(TERRAIN_EXTENT_ROLES[:3]) + ["parcels", "streams"])


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(_roles, st.tuples(st.lists(_geom, max_size=5), st.booleans()), max_size=5), st.data())
def test_the_plan_bounds_through_each_frozen_layers_kept_bounds_equal_those_read_feature_by_feature(layers, data):
    """A frozen layer's bounds are read once and carried by the layer object (``_layer_bounds``): the plan's bounds of inputs
    holding it, and of later inputs holding it beside other layers, equal those read feature by feature."""
    made = {r: (_layer(r, g).freeze() if frozen else _layer(r, g)) for r, (g, frozen) in layers.items()}
    _same(made)
    # the next edit: one layer new, the frozen ones handed on as they are (their bounds found by the object)
    if made:
        role = data.draw(st.sampled_from(sorted(made)))
        again = dict(made, **{role: _layer(role, data.draw(st.lists(_geom, max_size=5)))})
        _same(again)
        _same(made)


def test_a_frozen_layers_bounds_are_read_once():
    plan = TERRAIN_EXTENT_ROLES[0]
    frozen = _layer("parcels", [box(-100, -100, 100, 100)]).freeze()
    calls = []
    real = shapely.bounds

    def counted(geoms):
        calls.append(len(geoms))
        return real(geoms)

    shapely.bounds = counted
    try:
        for x in range(3):  # three edits of the plan beside the same frozen parcels
            layers = {plan: _layer(plan, [Point(x, x)]), "parcels": frozen}
            assert np.array_equal(_plan_bounds(SimpleNamespace(layers=layers)), [x, x, x, x])  # type: ignore[arg-type]
            assert np.array_equal(_plan_bounds(SimpleNamespace(layers={"parcels": frozen})), [-100, -100, 100, 100])  # type: ignore[arg-type]
    finally:
        shapely.bounds = real
    assert calls == [1, 1, 1, 1]  # each plan layer once, the frozen parcels once
