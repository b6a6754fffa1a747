"""The parcels' placement carried by a plan layer the edit left as it was (``services.placement_layers.misplaced_sources``' ``near``,
issue 39).

A parcel source is measured from every feature of the plan (the other plan roles' sources not misplaced so far): a plan layer
shown within the parcels' reach before, judged with them again as the same object, holds a feature no farther, so the parcels
are not misplaced whatever the edited layer now holds. The property: over random sequences of plan layers replaced (moved near
or far, emptied, made of features without geometry, in a CRS that does not fit), parcels replaced, the unit changed, the
reasons given through the carried ``near`` equal those measured anew.
"""

from __future__ import annotations

from typing import Any

import hypothesis.strategies as st
from hypothesis import given, settings
from shapely.geometry import Point, box

from stormwater_plugin.core.model import FeatureLayer
from stormwater_plugin.services.placement_layers import SourcePlace, misplaced_sources

_PLAN = ("building_sites", "devices", "impervious")
_PLACES = st.sampled_from([(10.0, 10.0), (900.0, 50.0), (3000.0, 50.0), (90_000.0, 0.0), None])
_REACHES = {"parcels": 1000.0, "building_sites": 600.0, "devices": 600.0, "impervious": 600.0, "wells": 650.0}


def _place(role: str, places: list[Any], fits: bool = True) -> SourcePlace:
    geoms = [None if p is None else Point(p) if role == "devices" else Point(p).buffer(3.0) for p in places]
    layer = FeatureLayer.from_sequences(role, geoms, [f"{role}-{k}" for k in range(len(geoms))], [{} for _ in geoms])
    located = [g for g in geoms if g is not None]
    bounds = None
    if located:
        xs = [c for g in located for c in (g.bounds[0], g.bounds[2])]
        ys = [c for g in located for c in (g.bounds[1], g.bounds[3])]
        bounds = (min(xs), min(ys), max(xs), max(ys))
    return SourcePlace(role, f"{role}.shp", "local feet", fits_crs=fits, bounds=bounds, layer=layer, finite=True)


def _parcels(far: float) -> SourcePlace:
    geoms = [box(far, 0, far + 100, 100), box(far + 100, 0, far + 200, 100)]
    layer = FeatureLayer.from_sequences("parcels", geoms, ["P-1", "P-2"], [{"is_site": 1}, {"is_site": 0}])
    return SourcePlace("parcels", "parcels.shp", "local feet", bounds=(far, 0.0, far + 200, 100.0), layer=layer, finite=True)


_STEP = st.one_of(
    st.tuples(st.just("plan"), st.sampled_from(_PLAN), st.lists(_PLACES, max_size=3), st.booleans()),
    st.tuples(st.just("parcels"), st.sampled_from([0.0, 1500.0, 50_000.0])),
    st.tuples(st.just("unit"), st.sampled_from([1.0, 0.3048, 3.0])),
    st.tuples(st.just("same")),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_STEP, min_size=1, max_size=12))
def test_the_parcels_reasons_through_the_carried_near_plan_equal_those_measured_anew(steps):
    places = {"parcels": _parcels(0.0), **{r: _place(r, [(10.0, 10.0)]) for r in _PLAN}}
    wells = SourcePlace("wells", "wells.shp", "local feet", bounds=(40.0, 40.0, 60.0, 60.0))
    unit = 1.0
    near: dict[Any, Any] = {}
    for step in steps:
        if step[0] == "plan":
            places[step[1]] = _place(step[1], step[2], fits=step[3] or not step[2])  # a new object: the edited layer
        elif step[0] == "parcels":
            places["parcels"] = _parcels(step[1])
        elif step[0] == "unit":
            unit = step[1]
        ordered = [places["parcels"], *(places[r] for r in _PLAN), wells]
        got = misplaced_sources(ordered, _REACHES, unit, picks={}, near=near)
        assert got == misplaced_sources(ordered, _REACHES, unit)


def test_an_unedited_plan_layer_near_the_parcels_places_them_without_gathering_the_plan(monkeypatch):
    from stormwater_plugin.services import placement_layers

    places = [_parcels(0.0), _place("building_sites", [(10.0, 10.0)]), _place("devices", [(20.0, 20.0)])]
    near: dict[Any, Any] = {}
    assert misplaced_sources(places, _REACHES, 1.0, picks={}, near=near) == [None, None, None]
    assert [layer.role for layers in near.values() for layer in layers] == ["building_sites", "devices"]
    gathered = []
    monkeypatch.setattr(placement_layers, "site_geometries", lambda *a, **k: gathered.append(a) or [])
    places[2] = _place("devices", [(90_000.0, 0.0)])  # the device moved far: the building site still places the parcels
    got = misplaced_sources(places, _REACHES, 1.0, picks={}, near=near)
    assert got[0] is None and got[2] is not None and not gathered
