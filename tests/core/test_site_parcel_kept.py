"""The site parcel's values kept by content between live re-checks (#39): what the parcels alone decide (by the parcels and
``--site-parcel``), each plan role's parcels (by the role, its layer and the parcels) and the parcels' search tree (by the
parcels). A change of each input gives what a check made afresh gives; the shortcuts give what the former search gave."""

from __future__ import annotations

from typing import Any

import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st

from stormwater_plugin.core.checks.affected import attr, impervious_status
from stormwater_plugin.core.derived import Derived, using
from stormwater_plugin.core.model import FeatureLayer
from stormwater_plugin.core.roles import PLAN_ROLES
from stormwater_plugin.core.site_parcel import UnknownSiteParcel, find_site_parcels, work_parcels


def _parcels(flags: tuple[Any, ...] = (1, 0, 0), ids: tuple[str, ...] = ("P-1", "P-2", "P-3"), dx: float = 0.0) -> FeatureLayer:
    return FeatureLayer.from_sequences("parcels", [shapely.box(k * 100 + dx, 0, k * 100 + 100 + dx, 100) for k in range(len(ids))], list(ids),
                                       [{"is_site": f} for f in flags])


def _devices(*xs: float) -> FeatureLayer:
    return FeatureLayer.from_sequences("devices", [shapely.Point(x, 50) for x in xs], [f"DW-{n + 1}" for n in range(len(xs))],
                                       [{"device_type": "dry_well"} for _ in xs])


def _site(parcels: FeatureLayer, site_id: str | None, devices: FeatureLayer) -> tuple[list[int], list[tuple[str, str]]]:
    said: list[Any] = []
    return find_site_parcels(parcels, site_id, {"parcels": parcels, "devices": devices}, said), [(w.code, w.message) for w in said]


def test_the_site_parcels_follow_a_change_of_each_input_they_are_kept_by():
    cases = [
        ("same", _parcels(), None, _devices(50.0)),
        ("another flag", _parcels((0, 1, 0)), None, _devices(50.0)),
        ("a flag's type: True", _parcels((0, True, 0)), None, _devices(50.0)),
        ("no flag: the plan decides", _parcels((0, 0, 0)), None, _devices(50.0)),
        ("the device moved: the plan decides otherwise", _parcels((0, 0, 0)), None, _devices(250.0)),
        ("--site-parcel", _parcels((0, 0, 0)), "P-3", _devices(250.0)),
        ("--site-parcel, another", _parcels((0, 0, 0)), "P-1", _devices(250.0)),
        ("the parcels' ids", _parcels((0, 0, 0), ("P-1", "P-3", "P-2")), "P-3", _devices(250.0)),
        ("the parcels moved under the device", _parcels((0, 0, 0), dx=-150.0), None, _devices(250.0)),
        ("a device more", _parcels((0, 0, 0), dx=-150.0), None, _devices(250.0, 30.0)),
        ("the parcels away from the devices", _parcels((0, 0, 0), dx=1000.0), None, _devices(250.0, 30.0)),
        ("the parcels back under them (their search tree made again)", _parcels((0, 0, 0)), None, _devices(250.0, 30.0)),
    ]
    results = [_site(*case[1:]) for case in cases]
    assert all(results[n] != results[n + 1] for n in range(len(cases) - 1) if n not in (1,))  # each change changes the site
    last = Derived()
    for name, *args in cases:  # each check from the one before, as the live re-check runs
        last = Derived(last)
        with using(last):
            live = _site(*args)
        assert live == _site(*args), name  # no derived values in use: made afresh


def test_an_unknown_site_parcel_is_refused_whether_or_not_the_parcels_were_kept():
    first = Derived()
    with using(first):
        _site(_parcels(), None, _devices(50.0))
    with using(Derived(first)), pytest.raises(UnknownSiteParcel):
        _site(_parcels(), "P-9", _devices(50.0))


def _former_work(parcels: FeatureLayer, layers: dict[str, FeatureLayer]) -> list[int]:
    """:func:`work_parcels` as it was written before each role's parcels were kept whole: one search over all the work."""
    work = []
    for role in PLAN_ROLES:
        layer = layers.get(role)
        if layer is None:
            continue
        for g, a in zip(layer.geoms, layer.attrs):
            if role == "impervious" and impervious_status(a) == "existing":
                continue
            if role == "building_sites" and str(attr(a, "status") or "").strip().lower() == "existing":
                continue
            if g is not None and not g.is_empty:
                work.append(g)
    tree = shapely.STRtree(parcels.geoms)
    return sorted({int(j) for g in work for j in tree.query(g, predicate="intersects")
                   if shapely.relate_pattern(parcels.geoms[int(j)], g, "T********")})


_shape = st.one_of(
    st.none(), st.just(shapely.Polygon()),
    st.builds(lambda x: shapely.Point(x, 50), st.sampled_from([-50, 50, 100, 150, 250, 400])),  # 100: on an edge, in no interior
    st.builds(lambda x, w: shapely.box(x, 40, x + w, 60), st.sampled_from([-50, 50, 90, 250]), st.sampled_from([5, 20, 200])),
)
_features = st.lists(st.tuples(_shape, st.sampled_from([{}, {"status": "existing"}, {"Status": "Proposed"}, {"status": "removed"}])), max_size=4)


@settings(max_examples=60, deadline=None)
@given(roles=st.fixed_dictionaries({}, optional={r: _features for r in ("devices", "impervious", "building_sites", "clearing", "disturbance")}),
       dx=st.sampled_from([0.0, -30.0]))
def test_the_parcels_holding_work_are_those_the_former_search_found(roles, dx):
    def site(shift: float) -> tuple[FeatureLayer, dict[str, FeatureLayer]]:
        layers = {role: FeatureLayer.from_sequences(role, [g for g, _ in fs], [f"F{n}" for n in range(len(fs))], [a for _, a in fs])
                  for role, fs in roles.items()}
        return _parcels(dx=shift), layers

    parcels, layers = site(dx)
    former = _former_work(parcels, layers)
    first = Derived()
    with using(first):
        work_parcels(*site(0.0))
    for derived in (None, Derived(first)):  # afresh, and what the layers not changed found taken from a check before
        with using(derived, settle=False):
            assert work_parcels(*site(dx)) == former
