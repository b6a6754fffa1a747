"""The plan-off-parcel refusal carried by a plan layer the edit left as it was (``services.placement.plan_on_parcel``, issue 39).

The refusal is of the plan's nearest feature: a plan layer read again as the same object, with a feature within the tolerance
of the same one parcel, shows the plan on its parcel whatever the edited layer now holds. The property: over random sequences
of layers replaced (moved near or far, emptied, made of features without geometry), parcels replaced or flagged, the site named
or not and the unit changed, the carried answer equals :func:`~stormwater_plugin.services.placement.plan_placement_problem`
computed anew.
"""

from __future__ import annotations

from typing import Any

import hypothesis.strategies as st
from hypothesis import given, settings
from shapely.geometry import Point, box

from stormwater_plugin.core.model import FeatureLayer
from stormwater_plugin.services.placement import plan_on_parcel, plan_placement_problem

_ROLES = ("building_sites", "devices", "clearing")
#: Where a feature lies: on the parcel, near it (within 300 ft at 1 ft a unit, not at 0.1), far off, or nowhere.
_PLACES = st.sampled_from([(10.0, 10.0), (250.0, 50.0), (380.0, 50.0), (5000.0, 5000.0), None])


def _layer(role: str, places: list[Any]) -> FeatureLayer:
    geoms = [None if p is None else Point(p).buffer(2.0) if role == "clearing" else Point(p) for p in places]
    return FeatureLayer.from_sequences(role, geoms, [f"{role}-{k}" for k in range(len(geoms))], [{} for _ in geoms])


def _parcels(two: bool, flagged: int | None) -> FeatureLayer:
    geoms = [box(0, 0, 100, 100)] + ([box(2000, 2000, 2100, 2100)] if two else [])
    attrs = [{"is_site": 1 if flagged == k else 0} for k in range(len(geoms))]
    return FeatureLayer.from_sequences("parcels", geoms, [f"P-{k}" for k in range(len(geoms))], attrs)


_STEP = st.one_of(
    st.tuples(st.just("layer"), st.sampled_from(_ROLES), st.lists(_PLACES, max_size=3)),
    st.tuples(st.just("parcels"), st.booleans(), st.sampled_from([None, 0, 1])),
    st.tuples(st.just("site"), st.sampled_from([None, "P-0", "P-1", "P-9"])),
    st.tuples(st.just("unit"), st.sampled_from([1.0, 0.1, 3.28084])),
    st.tuples(st.just("same")),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_STEP, min_size=1, max_size=12))
def test_the_refusal_carried_by_an_unedited_plan_layer_equals_the_refusal_measured_anew(steps):
    layers: dict[str, FeatureLayer] = {"parcels": _parcels(False, None), **{r: _layer(r, [(10.0, 10.0)]) for r in _ROLES}}
    site: str | None = None
    unit = 1.0
    earlier = None
    picks: dict[Any, Any] = {}  # as the read keeps them with the parcels' features
    for step in steps:
        if step[0] == "layer":
            layers[step[1]] = _layer(step[1], step[2])  # a new object: the edited layer
        elif step[0] == "parcels":
            layers["parcels"] = _parcels(step[1], step[2])
            picks = {}
        elif step[0] == "site":
            site = step[1]
        elif step[0] == "unit":
            unit = step[1]
        got, earlier = plan_on_parcel(layers, unit, site, picks=picks, earlier=earlier)
        assert got == plan_placement_problem(layers, unit, site)


def test_an_unedited_layer_near_the_parcel_answers_without_measuring_and_a_far_edit_alone_is_refused():
    parcels = _parcels(False, 0)
    near = _layer("building_sites", [(10.0, 10.0)])
    layers = {"parcels": parcels, "building_sites": near, "devices": _layer("devices", [(20.0, 20.0)])}
    _, earlier = plan_on_parcel(layers, 1.0)
    assert earlier is not None and [r for r, _ in earlier.layers] == ["building_sites", "devices"]
    layers["devices"] = _layer("devices", [(5000.0, 5000.0)])  # the device moved far: the building site still shows the plan on its parcel
    got, again = plan_on_parcel(layers, 1.0, earlier=earlier)
    assert got is None and again is earlier
    layers["building_sites"] = _layer("building_sites", [(5000.0, 5000.0)])  # now every feature is far: measured, and refused
    got, _ = plan_on_parcel(layers, 1.0, earlier=earlier)
    assert got is not None and got == plan_placement_problem(layers, 1.0)
