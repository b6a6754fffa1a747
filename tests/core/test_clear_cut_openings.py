"""The 20% opening of §148-11I(2)(h)[2], measured from every kind of vegetation removal, each opening and the total."""

from __future__ import annotations

import pytest
from shapely.geometry import LineString, Point, box

from stormwater_plugin.core.model import Status
from tests.sitebuilder import layer, run

RULE = "lake-george.minor.clear-cut-opening-20pct"


def _lakefront(frontage: float = 200.0, **roles):
    """Site parcel west of the mean high-water line x = 0, ``frontage`` ft of shore (20%: frontage / 5)."""
    site = {
        "parcels": layer("parcels", [box(-300, 0, 0, frontage)], ["SITE"], [{"is_site": 1}]),
        "shoreline": layer("shoreline", [LineString([(0, -500), (0, 700)])], ["MHW"], [{"waterbody": "Lake George"}]),
    }
    for role, geoms in roles.items():
        attrs = [{"status": "proposed"} for _ in geoms] if role == "impervious" else None
        site[role] = layer(role, geoms, None, attrs)
    return site


def _finding(site):
    (f,) = [f for f in run("lake-george", site).findings if f.rule_id == RULE]
    return f


def test_98_ft_beach_opening_drawn_as_disturbance_is_50_pct_of_196_ft_frontage_and_violates_148_11I_2_h_2():
    f = _finding(_lakefront(196.0, disturbance=[box(-35, 50, 0, 148)]))
    assert f.status is Status.VIOLATION
    assert f.measured_ft == pytest.approx(98.0, abs=0.01)
    assert f.required_ft == pytest.approx(39.2, abs=0.01)
    assert "disturbance" in f.message


@pytest.mark.parametrize("role", ["clearing", "disturbance", "impervious", "devices", "building_sites"])
def test_an_opening_of_40_1_ft_on_200_ft_violates_whatever_layer_draws_it(role):
    f = _finding(_lakefront(**{role: [box(-20, 50, 0, 90.1)]}))
    assert f.status is Status.VIOLATION and f.measured_ft == pytest.approx(40.1, abs=0.01)


@pytest.mark.parametrize("second,expected", [(19.9, Status.ADVISORY), (20.0, Status.ADVISORY), (20.1, Status.VIOLATION)])
def test_two_openings_are_limited_in_total_to_20_pct_and_never_pass_silently_148_11I_2_h_2(second, expected):
    f = _finding(_lakefront(clearing=[box(-20, 20, 0, 40)], disturbance=[box(-20, 100, 0, 100 + second)]))
    assert f.status is expected
    assert f.extra["openings_ft"] == pytest.approx([20.0, second], abs=0.01)
    assert f.measured_ft == pytest.approx(20.0 + second, abs=0.01)
    assert "2 openings" in f.message or "The 2 openings" in f.message


def test_two_openings_each_within_20_pct_but_60_ft_in_total_on_200_ft_violate_under_the_total_reading():
    f = _finding(_lakefront(clearing=[box(-20, 20, 0, 50), box(-20, 120, 0, 150)]))
    assert f.status is Status.VIOLATION
    assert f.extra["total_ft"] == pytest.approx(60.0, abs=0.01)
    assert "each is within the limit" in f.message


def test_removal_overlapping_along_the_shore_is_one_opening():
    f = _finding(_lakefront(clearing=[box(-35, 50, -20, 80)], disturbance=[box(-15, 70, 0, 90)]))
    assert f.status is Status.PASS
    assert f.extra["openings_ft"] == pytest.approx([40.0], abs=0.01)


def test_no_removal_inside_the_strip_passes_and_says_what_was_read():
    f = _finding(_lakefront(clearing=[box(-100, 50, -50, 80)], disturbance=[]))
    assert f.status is Status.PASS and "clearing, disturbance" in f.message


def test_a_point_device_in_the_strip_beside_an_opening_leaves_the_total_undetermined():
    f = _finding(_lakefront(clearing=[box(-20, 20, 0, 40)], devices=[Point(-10, 150)]))
    assert f.status is Status.UNDETERMINED and "not drawn as polygons" in f.message


def test_without_any_removal_layer_the_opening_is_undetermined():
    assert _finding(_lakefront()).status is Status.UNDETERMINED


def _opening(result):
    return [(f.status, f.message, f.measured_ft, None if f.geometry is None else f.geometry.wkb) for f in result.findings if f.rule_id == RULE]


def test_which_removals_meet_the_strip_kept_by_content_follow_a_moved_feature_and_a_moved_shore():
    """The live re-check keeps whether each removal meets the buffer strip by content (#39): a device moved into or out of the
    strip, and a shore moved (another strip), give a full check's opening."""
    from stormwater_plugin.core.derived import Derived
    from stormwater_plugin.core.engine import SiteInputs, run_check
    from stormwater_plugin.core.rulepack import load_pack

    pack = load_pack("lake-george")

    def site(device_x: float, shore_x: float = 0.0):
        s = _lakefront(200.0, clearing=[box(-30, 50, 0, 80)], devices=[box(device_x, 120, device_x + 20, 160), Point(device_x, 170)])
        s["shoreline"] = layer("shoreline", [LineString([(shore_x, -500), (shore_x, 700)])], ["MHW"], [{"waterbody": "Lake George"}])
        return s

    last = Derived()
    run_check(SiteInputs(layers=site(-20.0), dem=None, unit_to_ft=1.0, class_override="minor"), pack, derived=last)
    for name, args in [("same", (-20.0,)), ("moved out of the strip", (-120.0,)), ("moved back in", (-20.0,)), ("shore moved", (-20.0, -60.0))]:
        last = Derived(last)
        live = run_check(SiteInputs(layers=site(*args), dem=None, unit_to_ft=1.0, class_override="minor"), pack, derived=last)
        full = run_check(SiteInputs(layers=site(*args), dem=None, unit_to_ft=1.0, class_override="minor"), pack)
        assert _opening(live) == _opening(full), name
