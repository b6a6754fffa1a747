"""The rules that read every device keep each device's (each item's) part by content (issue 39).

The no-cut buffer (each removal's finding, each layer's findings, the opening marks, the removed surfaces), the
clear-cut opening (each layer's removal in the strip, the site lots, the parcels off the site), the plot-plan list
(each feature's distance, each layer's rows, the list) and the storage volume (the finding, kept by the devices'
storage and not where they are drawn) are computed again when any input they read changes: a geometry, an attribute,
the role a feature is read as, a parameter of the pack. Each example checks a site, then a site with one input changed
from the first check's kept values (``Derived(earlier)``), and holds the result to a full check of the changed site.
"""

from __future__ import annotations

import copy
import json
from typing import Any, Callable

import pytest
from shapely.geometry import LineString, Point, box

from stormwater_plugin.core.derived import Derived
from stormwater_plugin.core.engine import SiteInputs, run_check
from stormwater_plugin.core.rulepack import load_pack
from stormwater_plugin.core.serialize import result_to_dict
from tests.sitebuilder import layer

NO_CUT = "lake-george.minor.no-cut-buffer-35"
OPENING = "lake-george.minor.clear-cut-opening-20pct"
PLOT_PLAN = "lake-george.plot-plan-100ft"
STORAGE = "lake-george.minor.storage-1-5-gal"


def _site(**change: Any) -> dict[str, Any]:
    """A lakefront site (mean high-water line x = 0, the site parcel west of it) with removal in and out of the 35 ft strip."""
    site: dict[str, Any] = {
        "parcels": layer("parcels", [box(-300, 0, 0, 200), box(-300, 200, 0, 400)], ["SITE", "NEXT"], [{"is_site": 1}, {"is_site": 0}]),
        "shoreline": layer("shoreline", [LineString([(0, -500), (0, 700)])], ["MHW"], [{"waterbody": "Lake George"}]),
        "waterbodies": layer("waterbodies", [box(0, -500, 400, 700)], ["LAKE"]),
        "clearing": layer("clearing", [box(-20, 20, 0, 40), box(-100, 50, -60, 80), box(-20, 250, 0, 260)], ["C1", "C2", "C3"],
                          [{"use": "lawn"}, {"use": "lawn"}, {"use": "lawn"}]),  # C3 on the next parcel
        "disturbance": layer("disturbance", [box(-30, 100, -10, 110)], ["D1"], [{"use": "garden"}]),
        "impervious": layer("impervious", [box(-30, 150, -20, 160), box(-200, 20, -150, 60), box(-15, 170, -5, 180)], ["I1", "I2", "I3"],
                            [{"status": "proposed"}, {"status": "existing"}, {"status": "removed"}]),
        "devices": layer("devices", [Point(-25, 130), box(-150, 100, -140, 110), Point(-90, 190)], ["DW-1", "DW-2", "DW-3"],
                         [{"device_type": "dry_well", "storage_gal": 900}, {"device_type": "dry_well", "storage_gal": 1200},
                          {"device_type": "rain_garden", "storage_gal": 400}]),
        "wells": layer("wells", [Point(-120, 20), Point(-250, 390), Point(-120, 315)], ["W1", "W2", "W3"]),  # W3 115 ft from the site
        "building_sites": layer("building_sites", [box(-220, 120, -180, 160)], ["B1"], [{"status": "proposed"}]),
    }
    site.update(change)
    return site


def _moved(role: str, i: int, dx: float, dy: float = 0.0, site: dict[str, Any] | None = None) -> dict[str, Any]:
    from shapely import affinity

    base = site or _site()
    old = base[role]
    geoms = list(old.geoms)
    geoms[i] = affinity.translate(geoms[i], dx, dy)
    return {role: layer(role, geoms, list(old.ids), [dict(a) for a in old.attrs])}


def _attribute(role: str, i: int, key: str, value: Any) -> dict[str, Any]:
    old = _site()[role]
    attrs = [dict(a) for a in old.attrs]
    attrs[i][key] = value
    return {role: layer(role, list(old.geoms), list(old.ids), attrs)}


def _with_param(rule_id: str, **params: Any):
    pack = copy.deepcopy(load_pack("lake-george"))
    (rule,) = [r for r in pack.rules if r.id == rule_id]
    rule.params.update(params)
    return pack


def _check(site: dict[str, Any], pack, derived: Derived | None = None, site_id: str | None = None, unit: float = 1.0):
    return run_check(SiteInputs(layers=site, dem=None, unit_to_ft=unit, class_override="minor", site_parcel_id=site_id), pack, derived=derived)


def _text(result) -> str:
    return json.dumps(result_to_dict(result), sort_keys=True, default=str)


def _live_equals_full(first: dict[str, Any], then: dict[str, Any], pack=None, pack_then=None, site_ids: tuple[str | None, str | None] = (None, None),
                      units: tuple[float, float] = (1.0, 1.0)) -> Derived:
    pack = pack or load_pack("lake-george")
    pack_then = pack_then or pack
    earlier = Derived()
    _check(first, pack, earlier, site_ids[0], units[0])
    live = Derived(earlier)
    assert _text(_check(then, pack_then, live, site_ids[1], units[1])) == _text(_check(then, pack_then, None, site_ids[1], units[1]))
    return live


CHANGES: dict[str, Callable[[], dict[str, Any]]] = {
    # geometry: a device into and out of the strip, along it, a clearing reshaped, the shore and the site parcel moved
    "device moved into the strip": lambda: _moved("devices", 1, 130.0),
    "device moved out of the strip": lambda: _moved("devices", 0, -60.0),
    "device moved along the strip": lambda: _moved("devices", 0, 0.0, 5.0),
    "device moved by a thousandth": lambda: _moved("devices", 0, 0.001),
    "clearing moved along the shore": lambda: _moved("clearing", 0, 0.0, 30.0),
    "removed surface moved out of the strip": lambda: _moved("impervious", 2, -80.0),
    "shore moved a little": lambda: _moved("shoreline", 0, -12.0),
    "shore moved over the removal": lambda: _moved("shoreline", 0, -40.0),
    "lake moved": lambda: _moved("waterbodies", 0, -10.0),
    "shoreline renamed": lambda: {"shoreline": layer("shoreline", list(_site()["shoreline"].geoms), ["MHW-2"], [{"waterbody": "Lake George"}])},
    "removed surface renamed": lambda: {"impervious": layer("impervious", list(_site()["impervious"].geoms), ["I1", "I2", "I9"], [dict(a) for a in _site()["impervious"].attrs])},
    "site parcel moved": lambda: _moved("parcels", 0, 0.0, 20.0),
    "well moved beyond 100 ft": lambda: _moved("wells", 0, 0.0, -130.0),
    # attributes: an opening marked, a status changed (known, unknown, removed), a storage figure, an id, a site parcel
    "clearing marked as the lake-access opening": lambda: _attribute("clearing", 0, "use", "lake_access"),
    "impervious status unknown": lambda: _attribute("impervious", 0, "status", None),
    "impervious status existing": lambda: _attribute("impervious", 0, "status", "existing"),
    "removed surface proposed": lambda: _attribute("impervious", 2, "status", "proposed"),
    "building site existing": lambda: _attribute("building_sites", 0, "status", "existing"),
    "storage changed": lambda: _attribute("devices", 1, "storage_gal", 2500),
    "storage a whole number as a float": lambda: _attribute("devices", 1, "storage_gal", 1200.0),
    "storage missing": lambda: _attribute("devices", 2, "storage_gal", None),
    "next parcel made a site parcel": lambda: _attribute("parcels", 1, "is_site", 1),
    "device renamed": lambda: {"devices": layer("devices", list(_site()["devices"].geoms), ["DW-9", "DW-2", "DW-3"], [dict(a) for a in _site()["devices"].attrs])},
    # role: the clearing drawn as disturbance (the first removal role covers the others), a layer absent
    "clearing read as disturbance": lambda: {"clearing": layer("clearing", []),
                                             "disturbance": layer("disturbance", list(_site()["clearing"].geoms), ["C1", "C2", "C3"], [{"use": "lawn"}] * 3)},
    "no wells layer": lambda: {"wells": None},
}


@pytest.mark.parametrize("name", list(CHANGES))
def test_a_changed_input_is_computed_again_and_the_live_check_equals_a_full_check(name):
    change = {k: v for k, v in CHANGES[name]().items()}
    then = {k: v for k, v in _site(**change).items() if v is not None}
    _live_equals_full(_site(), then)
    _live_equals_full(then, _site())  # and back


@pytest.mark.parametrize(("rule_id", "params"), [
    (NO_CUT, {"width_ft": 50}),
    (NO_CUT, {"opening_uses": ["garden"]}),
    (NO_CUT, {"exception_note": "Another note."}),
    (NO_CUT, {"removal_roles": ["disturbance", "clearing", "impervious", "devices", "building_sites"]}),
    (OPENING, {"max_share_pct": 5}),
    (OPENING, {"buffer_ft": 20}),
    (OPENING, {"removal_roles": ["clearing", "impervious"]}),
    (PLOT_PLAN, {"distance_ft": 130}),
    (PLOT_PLAN, {"roles": ["devices", "wells"]}),
    (PLOT_PLAN, {"also_required": "the existing structures"}),
    (STORAGE, {"gal_per_sqft": 2.0}),
    (STORAGE, {"first_flush": {"depth_in": 1.0, "citation": "§148-11I(2)(j)", "quote": "to the maximum extent practicable"}}),
    (STORAGE, {"first_flush": None}),
])
def test_a_changed_parameter_of_the_pack_is_computed_again(rule_id, params):
    _live_equals_full(_site(), _site(), pack_then=_with_param(rule_id, **params))


@pytest.mark.parametrize("units", [(1.0, 0.5), (0.5, 1.0), (1.0, 1.2)])
def test_the_same_layers_in_another_unit_are_computed_again(units):
    """The working unit is an input of every kept value: the same coordinates read in another unit are other distances."""
    _live_equals_full(_site(), _site(), units=units)


def test_another_site_parcel_of_the_same_parcels_is_computed_again():
    """The site lots and the parcels off the site are kept by the parcels layer and the site's ids: the site chosen by id."""
    parcels = layer("parcels", [box(-300, 0, 0, 200), box(-300, 200, 0, 400)], ["SITE", "NEXT"])
    site = _site(parcels=parcels)
    _live_equals_full(site, site, site_ids=("SITE", "NEXT"))
    _live_equals_full(site, site, site_ids=("NEXT", "SITE"))


def test_a_device_moved_within_the_site_judges_only_that_device_again_and_sums_no_storage(monkeypatch):
    from stormwater_plugin.core.checks import inventory, quantities, shoreline

    calls: dict[str, int] = {"removal": 0, "storage": 0, "distance": 0}

    def counting(name: str, fn: Callable[..., Any], per_item: bool = False) -> Callable[..., Any]:
        def counted(*args: Any) -> Any:
            calls[name] += len(args[-1]) if per_item else 1
            return fn(*args)
        return counted

    monkeypatch.setattr(shoreline, "_removals_judged", counting("removal", shoreline._removals_judged, per_item=True))
    monkeypatch.setattr(quantities, "_storage_judged", counting("storage", quantities._storage_judged))
    monkeypatch.setattr(inventory, "_distances", counting("distance", inventory._distances, per_item=True))
    live = _live_equals_full(_site(), _site(**_moved("devices", 0, 0.0, 3.0)))
    assert live.reused
    # the first check judged every removal and measured every feature: count only the second's (the live one's) calls
    calls.update(removal=0, storage=0, distance=0)
    earlier = Derived()
    _check(_site(), load_pack("lake-george"), earlier)
    calls.update(removal=0, storage=0, distance=0)
    _check(_site(**_moved("devices", 0, 0.0, 3.0)), load_pack("lake-george"), Derived(earlier))
    assert calls == {"removal": 1, "storage": 0, "distance": 1}


_ONE_LOT = ("SITE",)


@pytest.mark.parametrize(("first", "then"), [
    ((None, {}, None), (("SITE",), {}, None)),
    ((None, {}, None), (("NEXT",), {}, None)),
    ((_ONE_LOT, {}, None), (_ONE_LOT, {"frontage_tolerance_ft": 55}, None)),  # the lot's reach covers the removal next door
    ((_ONE_LOT, {}, None), (_ONE_LOT, {}, _moved("clearing", 2, 0.0, 20.0))),  # the removal next door moved
    ((_ONE_LOT, {}, None), (_ONE_LOT, {}, None, 1.2)),  # another unit: another area
])
def test_the_parcels_off_the_site_are_computed_again_for_other_site_ids_reach_or_removal(first, then):
    """The clear-cut opening's lots and the removal on parcels off the site follow the site's ids with the parcels layer
    unchanged (the site grows or shrinks as work moves onto or off a parcel), each lot's reach and the removal."""
    from stormwater_plugin.core.checks.vegetation import check_clear_cut_opening
    from stormwater_plugin.core.derived import using
    from stormwater_plugin.core.engine import prepare_context

    def findings(derived: Derived | None, ids: tuple[str, ...] | None, params: dict[str, Any], change: dict[str, Any] | None,
                 unit: float = 1.0) -> list[tuple[Any, ...]]:
        pack = _with_param(OPENING, **params)
        (rule,) = [r for r in pack.rules if r.id == OPENING]
        inputs = SiteInputs(layers=_site(**(change or {})), dem=None, unit_to_ft=unit, class_override="minor")
        with using(derived):
            ctx = prepare_context(inputs, pack, "minor")[0]
            assert set(ctx.site_ids) == {"SITE", "NEXT"}  # both hold work
            if ids is not None:
                parcels = ctx.layer("parcels")
                ctx.site_ids = ids
                ctx.site_geometry = parcels.geoms[list(parcels.ids).index(ids[0])]
            check_clear_cut_opening(ctx, rule)
        return [(f.status, f.message, f.measured_ft, None if f.geometry is None else f.geometry.wkb) for f in ctx.findings]

    earlier = Derived()
    before = findings(earlier, *first)
    live = findings(Derived(earlier), *then)
    assert live == findings(None, *then)
    assert live != before


def test_the_plot_plan_distances_of_many_features_equal_those_measured_a_few_at_a_time_at_the_boundary():
    """Many features are first tested for reach at once (a county's layer), a few are measured directly: the same rows,
    at 100 ft - 0.01, 100 ft, 100.004 ft (decided at 0.01 ft: within) and 100.006, 100 ft + 0.01 (beyond)."""
    from stormwater_plugin.core.checks.inventory import _FEW, _distances

    site = box(0, 0, 100, 100)
    gaps = [99.99, 100.0, 100.004, 100.006, 100.01, 0.0, 50.0, 250.0]
    geoms = [Point(100 + gaps[i % len(gaps)], 50 + i) for i in range(3 * _FEW)]
    many = _distances(site, 100.0, 1.0, geoms)
    few = [d for k in range(0, len(geoms), _FEW) for d in _distances(site, 100.0, 1.0, geoms[k:k + _FEW])]
    assert many == few
    assert [d is not None for d in many[:len(gaps)]] == [True, True, True, False, False, True, True, False]
