"""Issue 21 item 9: one reading of every categorical value (case, whitespace, punctuation, synonyms; unknowns undetermined)."""

from __future__ import annotations

import json

import pytest
from shapely.geometry import LineString, Point, box

from stormwater_plugin.core.checks.triggers import _single_family
from stormwater_plugin.core.model import DEVICE_TYPES, Status
from stormwater_plugin.core.rulepack import PackError
from stormwater_plugin.core.vocabulary import (
    MISSING,
    UNRECOGNISED,
    VOCABULARY_FILE,
    Vocabulary,
    fold,
    name_matches,
    read,
    truthy,
    vocabulary,
)
from tests.sitebuilder import findings_for, layer, plane_dem, run

LAKE = {"waterbody": "Lake George"}


def _lakefront(device_attrs, geom=None, klass="major", shore_attrs=None):
    """A device 20 ft from the Lake George shoreline (x = 0), on level ground."""
    geom = geom if geom is not None else box(-40, -7.5, -20, 7.5)  # 300 sq ft, 20 ft from the shore
    return run(
        "lake-george",
        {
            "devices": layer("devices", [geom], ["P1"], [device_attrs]),
            "shoreline": layer("shoreline", [LineString([(0, -300), (0, 300)])], ["MHW"], [shore_attrs or LAKE]),
        },
        plane_dem(-400, -400, 800, 4.0, gx=0.0, gy=0.0),
        project_class=klass,
    )


def _pair(result, rule_id):
    return [f for f in findings_for(result, rule_id) if f.other is not None and f.subject is not None and f.subject.id == "P1"]


@pytest.mark.parametrize("spelling", ["Porous Pavement", "POROUS-PAVEMENT", " porous_pavement ", "PorousPavement", "porous pavers", "pervious hardscape"])
def test_porous_pavement_in_any_spelling_gets_the_400_sqft_allowance_148_11I_3_c(spelling):
    res = _lakefront({"device_type": spelling, "high_traffic": 0})
    for rid in ("lake-george.major.lake-george-35",):
        pairs = _pair(res, rid)
        assert pairs and all(f.status is Status.PASS for f in pairs), [(f.status, f.message) for f in pairs]
        assert "allowed as porous pavement" in pairs[0].message
    assert not [w for w in res.warnings if w.code == "device_type_unknown"]


def test_porous_pavement_spelled_with_capitals_matches_the_canonical_spelling_finding_for_finding_148_11I_3_c():
    def sig(r):
        return sorted((f.rule_id, f.subject.id if f.subject else "", f.other.id if f.other else "", f.status.value) for f in r.findings)

    assert sig(_lakefront({"device_type": "Porous Pavement", "high_traffic": "No"})) == sig(_lakefront({"device_type": "porous_pavement", "high_traffic": 0}))


def test_unrecognised_device_type_small_area_at_20_ft_of_lake_george_is_undetermined_naming_the_value_148_11I_3_c():
    res = _lakefront({"device_type": "rain garden", "high_traffic": 0})
    pairs = _pair(res, "lake-george.major.lake-george-35")
    assert pairs and pairs[0].status is Status.UNDETERMINED
    msg = pairs[0].message
    assert "device_type 'rain garden' is not a recognised value" in msg and "porous_pavement" in msg and "dry_well" in msg
    w = [w for w in res.warnings if w.code == "device_type_unknown"]
    assert w and w[0].ids == ("P1",) and "rain garden" in w[0].message


def test_missing_device_type_small_area_at_20_ft_of_lake_george_is_undetermined_148_11I_3_c():
    pairs = _pair(_lakefront({"high_traffic": 0}), "lake-george.major.lake-george-35")
    assert pairs and pairs[0].status is Status.UNDETERMINED and "device_type is not set" in pairs[0].message


def test_unrecognised_device_type_over_the_400_sqft_allowance_still_violates_148_11I_3_c():
    res = _lakefront({"device_type": "rain garden", "high_traffic": 0}, geom=box(-45, -10, -20, 10))  # 500 sq ft
    pairs = _pair(res, "lake-george.major.lake-george-35")
    assert pairs and pairs[0].status is Status.VIOLATION and "even if this device is porous pavement" in pairs[0].message


def test_known_porous_pavement_beside_a_device_of_unknown_type_is_undetermined_when_the_total_could_exceed_400_sqft_148_11I_3_c():
    res = run(
        "lake-george",
        {
            "devices": layer("devices", [box(-40, -7.5, -20, 7.5), box(-40, 20, -20, 35)], ["P1", "X1"],
                             [{"device_type": "porous_pavement", "high_traffic": 0}, {"device_type": "bioswale?", "high_traffic": 0}]),
            "shoreline": layer("shoreline", [LineString([(0, -300), (0, 300)])], ["MHW"], [LAKE]),
        },
        plane_dem(-400, -400, 800, 4.0, gx=0.0, gy=0.0),
        project_class="major",
    )
    pairs = _pair(res, "lake-george.major.lake-george-35")
    assert pairs and pairs[0].status is Status.UNDETERMINED and "unknown type" in pairs[0].message


def test_drywell_in_capitals_gets_the_15_day_dry_well_drain_time_646_4_14_b_3_ii():
    res = run("lgpc", {"devices": layer("devices", [Point(0, 0)], ["D1"], [{"device_type": "DRYWELL", "drain_days": 20}])}, project_class="major")
    f = findings_for(res, "lgpc.major.drain-time")
    assert f and f[0].status is Status.VIOLATION and "limit 15 days" in f[0].message


def test_unrecognised_device_type_drain_time_is_undetermined_naming_field_value_and_accepted_values_646_4_14_b_3_ii():
    res = run("lgpc", {"devices": layer("devices", [Point(0, 0)], ["D1"], [{"device_type": "soakaway pit", "drain_days": 1}])}, project_class="major")
    f = findings_for(res, "lgpc.major.drain-time")
    assert f and f[0].status is Status.UNDETERMINED
    assert "device_type 'soakaway pit' is not a recognised value (accepted: dry_well" in f[0].message


def test_device_type_field_name_in_other_case_is_read_646_4_14_b_3_ii():
    res = run("lgpc", {"devices": layer("devices", [Point(0, 0)], ["D1"], [{"Device_Type": "Dry Well", "DRAIN_DAYS": 3}])}, project_class="major")
    f = findings_for(res, "lgpc.major.drain-time")
    assert f and "limit 15 days" in f[0].message


def _lawn_site(use):
    return run(
        "lake-george",
        {
            "clearing": layer("clearing", [box(-60, -20, -20, 20)], ["C1"], [{"use": use}]),
            "shoreline": layer("shoreline", [LineString([(0, -300), (0, 300)])], ["MHW"], [LAKE]),
        },
        project_class="minor",
    )


@pytest.mark.parametrize("use", ["lawn ", "LAWN", " Lawn", "new lawn", "turf"])
def test_lawn_with_case_whitespace_or_synonym_is_a_lawn_for_the_50_ft_fertilizer_rule_148_11C_6(use):
    f = [x for x in findings_for(_lawn_site(use), "lake-george.fertilizer-50ft") if x.subject is not None]
    assert f and f[0].status is Status.ADVISORY


def test_unrecognised_clearing_use_within_50_ft_of_water_is_undetermined_for_the_fertilizer_rule_148_11C_6():
    f = [x for x in findings_for(_lawn_site("yard stuff"), "lake-george.fertilizer-50ft") if x.subject is not None]
    assert f and f[0].status is Status.UNDETERMINED and "use 'yard stuff' is not a recognised value" in f[0].message


def test_clearing_without_use_is_not_a_lawn_for_the_fertilizer_rule_148_11C_6():
    res = _lawn_site(None)
    assert not [x for x in findings_for(res, "lake-george.fertilizer-50ft") if x.subject is not None]
    assert any(n["rule_id"] == "lake-george.fertilizer-50ft" for n in res.rules_not_checked)


@pytest.mark.parametrize("status", ["Proposed", " proposed ", "NEW", "planned"])
def test_impervious_status_in_any_case_or_synonym_counts_as_new_impervious_148_11D_2(status):
    site = {"impervious": layer("impervious", [box(0, 0, 40, 40)], ["I1"], [{"Status": status}])}
    res = run("lake-george", site, project_class=None)
    assert res.classification.new_impervious_sqft == pytest.approx(1600.0)
    assert not [w for w in res.warnings if w.code == "status_unknown"]


def test_unrecognised_impervious_status_is_reported_with_the_accepted_values_148_11D_2():
    res = run("lake-george", {"impervious": layer("impervious", [box(0, 0, 40, 40)], ["I1"], [{"status": "maybe"}])}, project_class=None)
    w = [w for w in res.warnings if w.code == "status_unknown"]
    assert w and w[0].ids == ("I1",) and "existing, proposed, removed" in w[0].message


@pytest.mark.parametrize("value, expected", [("Yes", True), (" NO ", False), ("TRUE", True), ("f", False), (1, True), (0.0, False), ("", None), ("maybe", None), (None, None), ("2", None)])
def test_yes_no_values_read_case_and_whitespace_blind(value, expected):
    assert truthy(value) is expected


def test_high_traffic_field_name_in_capitals_is_read_for_the_high_traffic_100_ft_rule_148_11I_3_c():
    res = _lakefront({"device_type": "dry_well", "HIGH_TRAFFIC": "Yes"}, geom=Point(-60, 0))
    f = _pair(res, "lake-george.major.high-traffic-lake-george-100")
    assert f and f[0].status is Status.VIOLATION


def test_building_use_single_family_in_any_spelling_is_single_family_148_11E_1_b():
    class Ctx:
        def __init__(self, uses):
            self.lyr = layer("building_sites", [Point(i, 0) for i in range(len(uses))], None, [{"use": u} for u in uses])

        def layer(self, role):
            return self.lyr

    assert _single_family(Ctx(["Single Family", "single-family residence", "Garage"])) is True
    assert _single_family(Ctx(["Single Family", "commercial"])) is False
    assert _single_family(Ctx(["Single Family", "castle?"])) is None
    assert _single_family(Ctx(["castle?", "commercial"])) is False


def test_lake_george_name_matches_in_any_case_spacing_or_punctuation():
    assert name_matches("LAKE-GEORGE", "lake george")
    assert name_matches("LakeGeorge (north basin)", "lake george")
    assert not name_matches("Lake Champlain", "lake george")


def test_shoreline_named_in_capitals_with_a_hyphen_is_lake_george_for_the_35_ft_rule_148_11I_3_c():
    res = _lakefront({"device_type": "dry_well", "high_traffic": 0}, shore_attrs={"waterbody": "LAKE-GEORGE"})
    f = _pair(res, "lake-george.major.lake-george-35")
    assert f and f[0].status is Status.VIOLATION


def test_vocabulary_device_types_are_the_contract_device_types():
    assert vocabulary().spec("devices", "device_type").accepted == DEVICE_TYPES


def test_folding_reads_punctuation_and_whitespace_as_one_underscore():
    assert fold("  Porous -- Pavement ") == "porous_pavement"
    assert read({"device_type": "DRYWELL"}, "devices", "device_type").value == "dry_well"
    assert read({}, "devices", "device_type").state == MISSING
    assert read({"device_type": "x"}, "devices", "device_type").state == UNRECOGNISED


def test_vocabulary_rejects_a_synonym_read_as_two_values():
    data = json.loads(VOCABULARY_FILE.read_text(encoding="utf-8"))
    data["fields"][0]["values"]["other"] = ["drywell"]
    with pytest.raises(PackError, match="reads as both"):
        Vocabulary(data)


def test_vocabulary_rejects_a_file_that_does_not_match_its_schema():
    data = json.loads(VOCABULARY_FILE.read_text(encoding="utf-8"))
    data["fields"][0]["kind"] = "free text"
    with pytest.raises(PackError):
        Vocabulary(data)


@pytest.mark.parametrize("name", ["device_typ", "DEVICE_TYP"])
def test_shapefile_cut_field_names_are_read_as_the_contract_fields_646_4_14_b_3_ii(name):
    res = run("lgpc", {"devices": layer("devices", [Point(0, 0)], ["D1"], [{name: "dry_well", "drain_days": 20, "HIGH_TRAFF": 1}])}, project_class="major")
    f = findings_for(res, "lgpc.major.drain-time")
    assert f and f[0].status is Status.VIOLATION and "limit 15 days" in f[0].message
    assert read({"HIGH_TRAFF": "yes"}, "devices", "high_traffic").value is True
    assert read({"storage_ga": 500}, "devices", "storage_gal").value == 500
