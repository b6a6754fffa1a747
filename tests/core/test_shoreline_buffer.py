"""The 35 ft no-cut buffer of §148-11I(2)(h)[1]: exact decision, encroaching area as evidence."""

from __future__ import annotations

import pytest
from shapely.geometry import LineString, Point, box

from stormwater_plugin.core.model import Status
from tests.sitebuilder import layer, run

RULE = "lake-george.minor.no-cut-buffer-35"


def _site(clearing):
    return {
        "shoreline": layer("shoreline", [LineString([(0, -300), (0, 300)])], ["MHW"], [{"waterbody": "Lake George"}]),
        "waterbodies": layer("waterbodies", [box(0, -400, 400, 400)], ["LG"], [{"name": "Lake George"}]),
        "clearing": layer("clearing", [clearing], ["C1"]),
    }


# "within" includes the limit (core.limits): a feature exactly at it is within
@pytest.mark.parametrize("gap,expected", [(34.9, Status.VIOLATION), (35.0, Status.VIOLATION), (35.1, Status.PASS)])
def test_clearing_at_the_35_ft_no_cut_buffer_boundary_148_11I_2_h_1(gap, expected):
    result = run("lake-george", _site(box(-gap - 40, -20, -gap, 20)))
    (f,) = [f for f in result.findings if f.rule_id == RULE]
    assert f.status is expected
    assert f.measured_ft == pytest.approx(gap)
    assert f.required_ft == 35


def test_encroaching_area_is_the_clearing_inside_the_strip_in_sq_ft():
    result = run("lake-george", _site(box(-60, 0, -20, 10)))  # 15 ft of its 40 ft depth lie inside 35 ft
    (f,) = [f for f in result.findings if f.rule_id == RULE]
    assert f.status is Status.VIOLATION
    assert f.extra["encroaching_area_sqft"] == pytest.approx(150.0, abs=0.2)
    assert f.geometry.geom_type == "Polygon"
    assert f.geometry.bounds[2] == pytest.approx(-20.0)


def test_the_buffer_strip_stays_on_land():
    result = run("lake-george", _site(box(-60, 0, -20, 10)))
    (zone,) = [z for z in result.zones if z.kind == "no_cut_buffer"]
    assert zone.geometry.bounds[2] == pytest.approx(0.0, abs=1e-9)
    assert zone.geometry.bounds[0] == pytest.approx(-35.0, abs=0.01)


def test_missing_clearing_layer_is_undetermined():
    site = _site(box(-60, 0, -20, 10))
    del site["clearing"]
    (f,) = [f for f in run("lake-george", site).findings if f.rule_id == RULE]
    assert f.status is Status.UNDETERMINED


def test_missing_shoreline_is_undetermined():
    site = _site(box(-60, 0, -20, 10))
    del site["shoreline"]
    (f,) = [f for f in run("lake-george", site).findings if f.rule_id == RULE]
    assert f.status is Status.UNDETERMINED


def test_lgpc_has_no_35_ft_buffer_rule():
    assert not [f for f in run("lgpc", _site(box(-60, 0, -20, 10))).findings if f.kind == "shoreline_no_cut_buffer"]


def test_disturbance_and_proposed_impervious_in_the_buffer_count_as_vegetation_removal():
    site = _site(box(-200, 0, -150, 10))
    site["clearing"] = layer("clearing", [])
    site["disturbance"] = layer("disturbance", [box(-30, -20, -5, 20)], ["DIST"])
    site["impervious"] = layer("impervious", [box(-20, 30, -10, 40), box(-20, -60, -10, -50)], ["NEW", "OLD"], [{"status": "proposed"}, {"status": "existing"}])
    fs = {f.subject.id: f for f in run("lake-george", site).findings if f.rule_id == RULE}
    assert fs["DIST"].status is Status.VIOLATION and fs["NEW"].status is Status.VIOLATION
    assert "OLD" not in fs
    assert "§148-11I(2)(h)[2]" in fs["DIST"].message


# --- Everything proposed inside the strip removes vegetation: devices, building sites, impervious, disturbance, clearing


def _nothing_cleared():
    site = _site(box(-200, 0, -150, 10))
    site["clearing"] = layer("clearing", [])
    return site


# "within" includes the limit (core.limits): a feature exactly at it is within
@pytest.mark.parametrize("gap,expected", [(34.9, Status.VIOLATION), (35.0, Status.VIOLATION), (35.1, Status.PASS)])
def test_dry_well_drawn_as_a_point_at_the_35_ft_no_cut_boundary_148_11I_2_h_1(gap, expected):
    site = _nothing_cleared()
    site["devices"] = layer("devices", [Point(-gap, 0)], ["DW1"], [{"device_type": "dry_well"}])
    fs = {f.subject.id: f for f in run("lake-george", site).findings if f.rule_id == RULE and f.subject}
    assert fs["DW1"].status is expected
    assert fs["DW1"].measured_ft == pytest.approx(gap)


def test_dry_well_10_ft_from_the_mean_high_water_line_violates_the_no_cut_buffer_148_11I_2_h_1():
    site = _nothing_cleared()
    site["devices"] = layer("devices", [Point(-10, 0)], ["DW1"], [{"device_type": "dry_well"}])
    (f,) = [f for f in run("lake-george", site).findings if f.rule_id == RULE and f.subject and f.subject.id == "DW1"]
    assert f.status is Status.VIOLATION
    assert f.measured_ft == pytest.approx(10.0)
    assert f.extra["encroaching_area_sqft"] is None and "not measured" in f.message
    assert f.geometry.length == pytest.approx(10.0)


def test_porous_patio_25_ft_from_the_mean_high_water_line_violates_the_no_cut_buffer_148_11I_2_h_1():
    site = _nothing_cleared()
    site["devices"] = layer("devices", [box(-45, -10, -25, 10)], ["PATIO"], [{"device_type": "porous_pavement"}])
    (f,) = [f for f in run("lake-george", site).findings if f.rule_id == RULE and f.subject and f.subject.id == "PATIO"]
    assert f.status is Status.VIOLATION
    assert f.measured_ft == pytest.approx(25.0)
    assert f.extra["encroaching_area_sqft"] == pytest.approx(200.0, abs=0.2)  # 10 ft of its 20 ft depth x 20 ft
    assert f.geometry.bounds[0] == pytest.approx(-35.0, abs=0.01)


def test_building_site_inside_the_strip_violates_the_no_cut_buffer_even_inside_a_clearing():
    site = _site(box(-60, -30, -5, 30))
    site["building_sites"] = layer("building_sites", [box(-40, -10, -20, 10)], ["B1"])
    fs = {f.subject.id: f for f in run("lake-george", site).findings if f.rule_id == RULE and f.subject}
    assert fs["B1"].status is Status.VIOLATION and fs["B1"].measured_ft == pytest.approx(20.0)
    assert fs["C1"].status is Status.VIOLATION


def test_impervious_of_unknown_status_inside_the_strip_is_undetermined():
    site = _nothing_cleared()
    site["impervious"] = layer("impervious", [box(-20, -5, -10, 5)], ["I?"], [{}])
    (f,) = [f for f in run("lake-george", site).findings if f.rule_id == RULE and f.subject and f.subject.id == "I?"]
    assert f.status is Status.UNDETERMINED and "status" in f.message


def test_devices_only_without_clearing_or_disturbance_layer_also_says_other_removal_is_unknown():
    site = _site(box(-200, 0, -150, 10))
    del site["clearing"]
    site["devices"] = layer("devices", [Point(-100, 0)], ["DW1"], [{"device_type": "dry_well"}])
    fs = [f for f in run("lake-george", site).findings if f.rule_id == RULE]
    assert any(f.status is Status.UNDETERMINED and f.subject is None for f in fs)
    assert any(f.status is Status.PASS and f.subject and f.subject.id == "DW1" for f in fs)


# "within" includes the limit (core.limits): a feature exactly at it is within
@pytest.mark.parametrize("gap,expected", [(34.9, Status.ADVISORY), (35.0, Status.ADVISORY), (35.1, Status.PASS)])
def test_major_project_clearing_in_the_35_ft_strip_is_an_advisory_never_silent_148_11I_2_h_1(gap, expected):
    """I(2)(h) sits under minor projects; on a major project the same clearing is shown as an advisory for site plan review."""
    result = run("lake-george", _site(box(-gap - 40, -20, -gap, 20)), project_class="major")
    assert not [f for f in result.findings if f.rule_id == RULE]
    (f,) = [f for f in result.findings if f.rule_id == "lake-george.major.no-cut-buffer-35-advisory"]
    assert f.status is expected
    assert f.measured_ft == pytest.approx(gap)
    if expected is Status.ADVISORY:
        assert f.extra["would_be"] == "violation"
        assert f.message.startswith("Advisory for the Planning Board")


def test_major_project_130_ft_opening_on_600_ft_of_frontage_is_an_advisory_on_the_20_pct_limit_148_11I_2_h_2():
    """98 ft of a 600 ft frontage (16%) passes; 130 ft (21.7%) would violate the minor standard: an advisory on a major project."""
    rule = "lake-george.major.clear-cut-opening-20pct-advisory"
    for half, expected, would_be in ((49, Status.PASS, None), (65, Status.ADVISORY, "violation")):
        layers = _site(box(-30, -half, 0, half))
        layers["parcels"] = layer("parcels", [box(-200, -300, 0, 300)], ["P1"], [{"is_site": 1}])
        rows = [f for f in run("lake-george", layers, project_class="major").findings if f.rule_id == rule]
        assert rows and {f.status for f in rows} == {expected}, [(f.status, f.message) for f in rows]
        assert all(f.extra.get("would_be") == would_be for f in rows)
