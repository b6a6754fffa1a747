"""A frozen layer (``FeatureLayer.freeze``): never changed in place, so the check's derived values carry its content key by identity.

The read hands an unedited role's layer to the next check as the same object (``services.site_read._role_layer``), frozen;
``core.derived`` then carries its key (and token) from check to check rather than keying its content again at every edit. The
properties: every change in place raises, a frozen layer has its original's content, and values keyed through a carried key are
those keyed by the content itself, a changeable layer changed in place still computed again.
"""

from __future__ import annotations

import copy
import dataclasses
import pickle
from typing import Any, Callable

import numpy as np
import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st

from stormwater_plugin.core import derived as derived_module
from stormwater_plugin.core.derived import Derived, layer_key
from stormwater_plugin.core.errors import StormwaterError
from stormwater_plugin.core.model import FeatureLayer, FrozenLayer, LayerFrozen


def _layer(x: float = 5.0, use: object = "lawn") -> FeatureLayer:
    geoms = np.asarray([shapely.Point(x, 0.0), shapely.box(0, 0, 1, 1)], dtype=object)
    return FeatureLayer("clearing", geoms, ["C-1", "C-2"], [{"use": use}, {}], {"C-3": "no geometry"})


_CHANGES: list[Callable[[FeatureLayer], Any]] = [
    lambda lay: setattr(lay, "ids", ["x"]),
    lambda lay: setattr(lay, "role", "wells"),
    lambda lay: delattr(lay, "no_geometry"),
    lambda lay: lay.ids.append("C-9"),
    lambda lay: lay.ids.extend(["C-9"]),
    lambda lay: lay.ids.insert(0, "C-9"),
    lambda lay: lay.ids.pop(),
    lambda lay: lay.ids.remove("C-1"),
    lambda lay: lay.ids.clear(),
    lambda lay: lay.ids.sort(),
    lambda lay: lay.ids.reverse(),
    lambda lay: lay.ids.__setitem__(0, "C-9"),
    lambda lay: lay.ids.__delitem__(0),
    lambda lay: lay.ids.__iadd__(["C-9"]),
    lambda lay: lay.ids.__imul__(2),
    lambda lay: lay.attrs.append({}),
    lambda lay: lay.attrs.__setitem__(0, {}),
    lambda lay: lay.attrs[0].__setitem__("use", "beach"),
    lambda lay: lay.attrs[0].__delitem__("use"),
    lambda lay: lay.attrs[0].update(use="beach"),
    lambda lay: lay.attrs[0].pop("use"),
    lambda lay: lay.attrs[0].popitem(),
    lambda lay: lay.attrs[0].clear(),
    lambda lay: lay.attrs[0].setdefault("status", "existing"),
    lambda lay: lay.attrs[0].__ior__({"use": "beach"}),
    lambda lay: lay.no_geometry.__setitem__("C-4", "why"),
    lambda lay: lay.no_geometry.pop("C-3"),
]


@pytest.mark.parametrize("change", range(len(_CHANGES)))
def test_every_change_in_place_of_a_frozen_layer_raises_and_leaves_its_content(change: int):
    layer = _layer().freeze()
    before = layer_key(layer)
    with pytest.raises(LayerFrozen):
        _CHANGES[change](layer)
    assert layer_key(layer) == before


def test_a_frozen_layers_geometries_cannot_be_written_and_are_its_own():
    original = _layer()
    layer = original.freeze()
    assert layer.geoms is not original.geoms and not layer.geoms.flags.writeable
    with pytest.raises(ValueError):
        layer.geoms[0] = shapely.Point(9, 9)
    original.geoms[0] = shapely.Point(9, 9)  # the original stays changeable, and the frozen copy shares none of its lists
    original.ids.append("C-9")
    original.attrs[0]["use"] = "beach"
    assert layer_key(layer) == layer_key(_layer().freeze())


def test_layer_frozen_is_an_error_of_the_project_and_a_type_error():
    assert issubclass(LayerFrozen, StormwaterError) and issubclass(LayerFrozen, TypeError)


_values = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.floats(allow_nan=False), st.text(max_size=3))
_features = st.lists(st.tuples(st.floats(-1e6, 1e6), st.dictionaries(st.sampled_from(["use", "ID", "status"]), _values, max_size=3)),
                     max_size=5)


@settings(max_examples=200, deadline=None)
@given(features=_features)
def test_a_frozen_layer_has_its_originals_content_and_reads_as_it(features: list[tuple[float, dict[str, object]]]):
    layer = FeatureLayer.from_sequences("wells", [shapely.Point(x, 1.0) for x, _ in features], [f"W-{k}" for k in range(len(features))],
                                        [a for _, a in features])
    frozen = layer.freeze()
    assert isinstance(frozen, FrozenLayer) and frozen.frozen and not layer.frozen and frozen.freeze() is frozen
    assert layer_key(frozen) == layer_key(layer)
    assert frozen.ids == layer.ids and frozen.attrs == layer.attrs and frozen.no_geometry == layer.no_geometry and len(frozen) == len(layer)
    assert [dict(a) for a in frozen.attrs] == layer.attrs and list(frozen.ids) == layer.ids


def test_a_frozen_layer_pickled_or_copied_is_frozen_with_the_same_content_and_replace_makes_a_changeable_one():
    layer = _layer().freeze()
    for other in (pickle.loads(pickle.dumps(layer)), copy.deepcopy(layer), copy.copy(layer)):
        assert other.frozen and layer_key(other) == layer_key(layer)
        with pytest.raises(LayerFrozen):
            other.attrs[0]["use"] = "beach"
    changed = dataclasses.replace(layer, ids=["A", "B"])
    assert not changed.frozen
    changed.ids = ["A", "C"]  # its own field set again: a changeable layer, keyed anew at each check


_contents = st.sampled_from([(5.0, "lawn"), (5.0, "beach"), (5.001, "lawn"), (6.0, "lawn")])


@settings(max_examples=300, deadline=None)
@given(checks=st.lists(st.lists(st.tuples(st.sampled_from(["a", "b"]), _contents, st.sampled_from(["new", "same", "older", "changed"])),
                                max_size=6), min_size=1, max_size=5))
def test_values_of_frozen_layers_found_by_identity_are_those_keyed_by_content(checks: list[list[tuple[str, tuple[float, str], str]]]):
    """Over a sequence of checks, each looking up values of layers (a new frozen layer of a content, the same frozen object as a
    check before, or a changeable layer of the check before changed in place to the content), a value is computed again exactly
    when its name and its layer's content were not looked up in the check before, as keying by the content itself does; a frozen
    layer looked up in the check before is never keyed again."""
    earlier: Derived | None = None
    used_before: set[tuple[str, tuple[float, str]]] = set()
    seen: dict[tuple[float, str], list[FeatureLayer]] = {}  # every frozen layer made so far, by content
    changeable: list[FeatureLayer] = []  # the check before's changeable layers, each changed at most once, in a later check
    keyed: list[FeatureLayer] = []
    real = derived_module._layer_key

    def counting(layer: FeatureLayer, *rest: Any) -> Any:
        keyed.append(layer)
        return real(layer, *rest)

    derived_module._layer_key = counting  # type: ignore[assignment]
    try:
        for lookups in checks:
            derived = Derived(earlier)
            used: set[tuple[str, tuple[float, str]]] = set()
            made: list[FeatureLayer] = []
            mine: list[FeatureLayer] = []
            for name, content, how in lookups:
                layer: FeatureLayer
                if how in ("same", "older") and seen.get(content):
                    layer = seen[content][-1] if how == "same" else seen[content][0]
                elif how == "changed" and changeable:  # within a check no layer changes (the check cleans copies)
                    layer = changeable.pop()
                    layer.geoms[0] = shapely.Point(content[0], 0.0)
                    layer.attrs[0]["use"] = content[1]
                else:
                    layer = _layer(*content).freeze() if how != "changed" else _layer(*content)
                (mine if not layer.frozen else seen.setdefault(content, [])).append(layer)
                keyed.clear()
                calls: list[int] = []
                derived.value(name, lambda calls=calls: calls.append(1) or 0, layer)
                assert bool(calls) == ((name, content) not in used_before and (name, content) not in used), (name, content, how)
                if layer.frozen and any(layer is x for x in made_before(earlier)):
                    assert not keyed  # carried by identity from the check before
                used.add((name, content))
                made.append(layer)
            derived.settle()
            changeable = mine
            derived.layers_looked_up = made  # type: ignore[attr-defined]
            earlier, used_before = derived, used
    finally:
        derived_module._layer_key = real  # type: ignore[assignment]


def made_before(earlier: Derived | None) -> list[FeatureLayer]:
    """The layers the check before looked up (the property's record)."""
    return list(getattr(earlier, "layers_looked_up", []))
