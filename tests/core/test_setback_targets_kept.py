"""A setback rule's targets kept by content for the live re-check (``checks.setback_targets.collect_targets``; issue 39):
gathered again when the rule's target specs or a target layer change, and the same as gathered afresh."""

from __future__ import annotations

from typing import Any

import numpy as np
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st

from stormwater_plugin.core.checks.context import CheckContext
from stormwater_plugin.core.checks.setback_targets import SetbackTargets, collect_targets
from stormwater_plugin.core.derived import Derived, using
from stormwater_plugin.core.model import Citation, FeatureLayer
from stormwater_plugin.core.rulepack import Rule
from stormwater_plugin.services.packs import load_pack


def _rule(targets: list[dict[str, Any]]) -> Rule:
    return Rule("r", "device_setback", "t", Citation("§1", "w", "f.txt", "1"), {}, {"required_ft": 20, "targets": targets})


def _ctx(layers: dict[str, FeatureLayer]) -> CheckContext:
    return CheckContext(dict(layers), None, 1.0, "minor", load_pack("lake-george"))


def _wells(x: float = 10.0, name: str = "") -> FeatureLayer:
    return FeatureLayer.from_sequences("wells", [shapely.Point(x, 0.0), shapely.Point(50.0, 0.0)], ["W-1", "W-2"], [{"name": name}, {}])


def _water(name: str = "Lake George") -> FeatureLayer:
    return FeatureLayer.from_sequences("waterbodies", [shapely.box(0, 10, 5, 15)], ["L-1"], [{"name": name}])


def _read(targets: list[dict[str, Any]], layers: dict[str, FeatureLayer]) -> tuple[Any, ...]:
    found, absent, empty = collect_targets(_ctx(layers), _rule(targets))
    if found is None:
        return None, tuple(absent), tuple(empty)
    return (tuple(shapely.to_wkb(found.geoms).tolist()), tuple(found.refs), tuple(sorted(found.unnamed)), tuple(found.extents),
            len(found.by_role), tuple(absent), tuple(empty))


def _through(checks: list[tuple[list[dict[str, Any]], dict[str, FeatureLayer]]]) -> tuple[list[tuple[Any, ...]], list[int]]:
    """Each check's targets gathered through derived values carried from the check before, and whether each made them."""
    out, made, earlier = [], [], None
    for targets, layers in checks:
        derived = Derived(earlier)
        with using(derived):
            out.append(_read(targets, layers))
        made.append(derived.made)
        earlier = derived
    return out, made


def test_the_kept_targets_follow_each_input_and_are_those_gathered_afresh():
    """The same targets again are kept; a target moved, renamed or dropped, another name to match, another role: gathered
    again. Each check's answer is the answer gathered without kept values."""
    wells = [{"role": "wells"}]
    lake = [{"role": "waterbodies", "name_matches": "lake george"}, {"role": "shoreline", "name_matches": "lake george"}]
    checks = [
        (wells, {"wells": _wells()}),
        (wells, {"wells": _wells()}),  # the same content in new objects
        (wells, {"wells": _wells(10.001)}),  # a well moved by a thousandth
        (wells, {"wells": _wells(10.001, name="old well")}),  # an attribute
        (wells, {}),  # the layer not supplied
        ([{"role": "wells"}, {"role": "septic"}], {"wells": _wells()}),  # another role among the specs
        (lake, {"waterbodies": _water()}),
        (lake, {"waterbodies": _water("Brant Lake")}),  # the name no longer matches
        ([{"role": "waterbodies", "name_matches": "brant lake"}, {"role": "shoreline", "name_matches": "brant lake"}], {"waterbodies": _water("Brant Lake")}),
        ([{"role": "waterbodies", "name_matches": "brant lake"}, {"role": "shoreline", "name_matches": "brant lake"}], {"waterbodies": _water("")}),
    ]
    kept, made = _through(checks)
    afresh = [_read(targets, layers) for targets, layers in checks]
    assert kept == afresh
    assert made == [1, 0, 1, 1, 1, 1, 1, 1, 1, 1]


def test_the_kept_targets_are_made_once_and_their_lists_are_the_callers_own():
    derived = Derived()
    with using(derived, settle=False):
        first = collect_targets(_ctx({"wells": _wells()}), _rule([{"role": "wells"}, {"role": "septic"}]))
        first[1].append("changed by a caller")
        second = collect_targets(_ctx({"wells": _wells()}), _rule([{"role": "wells"}, {"role": "septic"}]))
    assert derived.made == 1 and second[0] is first[0]
    assert second[1] == ["septic"] and second[2] == []
    assert isinstance(second[0].geoms, np.ndarray)


_xy = st.tuples(st.integers(-5, 5).map(float), st.integers(-5, 5).map(float))  # a coarse grid: equally near features are common


@settings(max_examples=200, deadline=None)
@given(features=st.lists(st.tuples(st.sampled_from(["wells", "septic"]), _xy, st.booleans()), min_size=1, max_size=8), device=_xy)
def test_the_nearest_of_each_role_from_the_features_taken_once_is_the_former_reading(features, device):
    """Each role's features and references taken once, when the targets are gathered, name the same nearest feature of
    each role as taken from the targets at every call (ties told apart by id, then shape)."""
    from stormwater_plugin.core.geometry import nearest_feature
    from stormwater_plugin.core.model import FeatureRef

    geoms = np.empty(len(features), dtype=object)
    geoms[:] = [shapely.box(x, y, x + 1, y + 1) if square else shapely.Point(x, y) for _, (x, y), square in features]
    refs = [FeatureRef(role, f"{role[0]}{n % 3}") for n, (role, _, _) in enumerate(features)]
    targets = SetbackTargets.build(geoms, refs)
    point = shapely.Point(*device)
    former = set()
    for idx, tree in targets.by_role.values():
        former.add(int(idx[nearest_feature(tree, targets.geoms[idx], [targets.refs[int(i)] for i in idx], point, 1e-6)]))
    assert targets.nearest_per_role(point, 1e-6) == former


@settings(max_examples=100, deadline=None)
@given(features=st.lists(st.tuples(st.sampled_from(["wells", "septic", "wetlands"]), _xy, st.booleans()), min_size=1, max_size=4), device=_xy)
def test_a_role_of_one_feature_names_that_feature_as_its_nearest_without_a_search(features, device):
    """A role with one feature names it (no search): what the search names for it too, wherever the device lies."""
    from stormwater_plugin.core.geometry import nearest_feature
    from stormwater_plugin.core.model import FeatureRef

    geoms = np.empty(len(features), dtype=object)
    geoms[:] = [shapely.box(x, y, x + 1, y + 1) if square else shapely.Point(x, y) for _, (x, y), square in features]
    refs = [FeatureRef(role, f"{role[0]}{n}") for n, (role, _, _) in enumerate(features)]
    targets = SetbackTargets.build(geoms, refs)
    point = shapely.Point(*device)
    found = targets.nearest_per_role(point, 1e-6)
    for idx, tree in targets.by_role.values():
        if len(idx) == 1:
            assert int(idx[0]) in found
            assert int(idx[nearest_feature(tree, targets.geoms[idx], [targets.refs[int(i)] for i in idx], point, 1e-6)]) == int(idx[0])
