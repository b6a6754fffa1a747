"""Issue 34: readings no wider than the words, rules that no longer stay silent.

Each test is named after the rule and the configuration it decides; the words each outcome rests on are in
docs/design.md ("Readings of issue 34").
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from shapely.geometry import LineString, Point, box

from stormwater_plugin.core.model import Status
from tests.sitebuilder import findings_for, layer, run

NO_CUT = "lake-george.minor.no-cut-buffer-35"
OPENING = "lake-george.minor.clear-cut-opening-20pct"


def _shore_site(**roles):
    """A lot 200 ft along a straight shore at x = 0 (land to the west), with the given layers."""
    site = {
        "shoreline": layer("shoreline", [LineString([(0, -300), (0, 300)])], ["MHW"], [{"waterbody": "Lake George"}]),
        "waterbodies": layer("waterbodies", [box(0, -400, 400, 400)], ["LG"], [{"name": "Lake George"}]),
        "parcels": layer("parcels", [box(-300, -100, 0, 100)], ["LOT"], [{"is_site": 1}]),
        "clearing": layer("clearing", []),
        "disturbance": layer("disturbance", []),
        "streams": layer("streams", []),
        "wetlands": layer("wetlands", []),
    }
    site.update(roles)
    return site


# --- 1. Removing pavement is not removing vegetation (§148-11I(2)(h)[1])


def test_removed_slab_in_35ft_strip_is_buffer_work_advisory_not_vegetation_violation_148_11I_2_h_1():
    slab = box(-30, -10, -10, 10)
    site = _shore_site(impervious=layer("impervious", [slab], ["SLAB"], [{"status": "removed"}]))
    result = run("lake-george", site)
    (f,) = [f for f in findings_for(result, NO_CUT) if f.subject is not None and f.subject.id == "SLAB"]
    assert f.status is Status.ADVISORY
    assert "undisturbed natural buffer strip" in f.message
    assert "removes vegetation" not in f.message.replace("removes no vegetation", "")
    assert f.extra["encroaching_area_sqft"] == pytest.approx(400.0, abs=0.5)
    # Taking out the slab opens no clear-cut opening: there is no vegetation under it.
    (o,) = findings_for(result, OPENING)
    assert o.status is Status.PASS and o.measured_ft == 0.0


# "within 35 feet" includes 35 ft, as for clearing (core.limits).
@pytest.mark.parametrize("gap,advised", [(34.9, True), (35.0, True), (35.1, False)])
def test_removed_slab_at_the_35ft_strip_boundary_is_buffer_work_only_inside_148_11I_2_h_1(gap, advised):
    site = _shore_site(impervious=layer("impervious", [box(-gap - 20, -10, -gap, 10)], ["SLAB"], [{"status": "removed"}]))
    fs = [f for f in findings_for(run("lake-george", site), NO_CUT) if f.subject is not None and f.subject.id == "SLAB"]
    assert [f.status for f in fs] == ([Status.ADVISORY] if advised else [])


def test_proposed_slab_in_35ft_strip_stays_vegetation_violation_148_11I_2_h_1():
    site = _shore_site(impervious=layer("impervious", [box(-30, -10, -10, 10)], ["SLAB"], [{"status": "proposed"}]))
    (f,) = [f for f in findings_for(run("lake-george", site), NO_CUT) if f.subject is not None and f.subject.id == "SLAB"]
    assert f.status is Status.VIOLATION


def test_removed_slab_counts_as_pre_development_impervious_for_the_half_inch_148_11I_2_j():
    site = _shore_site(impervious=layer("impervious", [box(-30, -10, -10, 10)], ["SLAB"], [{"status": "removed"}]))
    (f,) = findings_for(run("lake-george", site), "lake-george.minor.retrofit-half-inch")
    assert "400" in f.message


# --- 2. The marked beach / lake-access opening (§148-11I(2)(h)[1]-[2])


@pytest.mark.parametrize("use", ["lake_access", "Beach", "lake access opening"])
def test_marked_lake_access_opening_within_20pct_is_decided_by_the_20pct_finding_not_a_no_cut_violation_148_11I_2_h_2(use):
    # 39 ft of a 200 ft frontage: within 20% (40 ft).
    site = _shore_site(clearing=layer("clearing", [box(-30, -19.5, 0, 19.5)], ["OPEN"], [{"use": use}]))
    result = run("lake-george", site)
    (f,) = findings_for(result, NO_CUT)
    assert f.status is Status.ADVISORY
    assert f.extra["decided_by"] == OPENING
    (o,) = findings_for(result, OPENING)
    assert o.status is Status.PASS


@pytest.mark.parametrize("opening,expected", [(39.9, Status.PASS), (40.0, Status.PASS), (40.1, Status.VIOLATION)])
def test_marked_beach_opening_at_the_20pct_boundary_is_decided_by_the_opening_rule_alone_148_11I_2_h_2(opening, expected):
    site = _shore_site(clearing=layer("clearing", [box(-30, -opening / 2, 0, opening / 2)], ["OPEN"], [{"use": "beach"}]))
    result = run("lake-george", site)
    assert [f.status for f in findings_for(result, OPENING)] == [expected]
    assert [f.status for f in findings_for(result, NO_CUT)] == [Status.ADVISORY]


def test_two_marked_openings_within_20pct_together_are_an_advisory_148_11I_2_h_2():
    site = _shore_site(clearing=layer("clearing", [box(-30, -60, 0, -45), box(-30, 45, 0, 60)], ["A", "B"], [{"use": "beach"}, {"use": "lake_access"}]))
    result = run("lake-george", site)
    assert [f.status for f in findings_for(result, OPENING)] == [Status.ADVISORY]


def test_unmarked_clearing_in_the_strip_stays_a_violation_with_the_exception_explained_148_11I_2_h_1():
    site = _shore_site(clearing=layer("clearing", [box(-30, -19.5, 0, 19.5)], ["CUT"], [{"use": "lawn"}]))
    (f,) = findings_for(run("lake-george", site), NO_CUT)
    assert f.status is Status.VIOLATION
    assert "§148-11I(2)(h)[2]" in f.message and "lake_access" in f.message


# --- 3. Existing structures are not affected area (§148-11D(2), 646-4.12(a)(1), §148-11C(1))


def _cottage_site(status):
    """4,000 sq ft of disturbance and a 1,500 sq ft cottage beside it: exempt without the cottage, not with it."""
    attrs = [{"use": "single_family"} if status is None else {"use": "single_family", "status": status}]
    return {
        "parcels": layer("parcels", [box(0, 0, 400, 400)], ["LOT"], [{"is_site": 1}]),
        "disturbance": layer("disturbance", [box(10, 10, 90, 60)], ["D1"]),
        "clearing": layer("clearing", []),
        "impervious": layer("impervious", [box(200, 200, 250, 230)], ["HOUSE"], [{"status": "existing"}]),
        "building_sites": layer("building_sites", [box(200, 200, 250, 230)], ["COTTAGE"], attrs),
    }


@pytest.mark.parametrize("jurisdiction", ["lake-george", "lgpc"])
def test_existing_not_enlarged_building_site_is_left_out_of_affected_area_and_listed_148_11D_2_646_4_12_a_1(jurisdiction):
    result = run(jurisdiction, _cottage_site("existing"), project_class=None)
    assert result.classification.disturbed_sqft == pytest.approx(4000.0)
    assert jurisdiction != "lake-george" or result.classification.computed_class == "exempt"
    assert any("left out as existing and not enlarged: building site COTTAGE" in r.message for r in result.classification_reasons)


@pytest.mark.parametrize("status,expected", [(None, 5500.0), ("proposed", 5500.0), ("enlarged", 5500.0), ("expanded", 5500.0), ("removed", 5500.0)])
def test_building_site_without_status_or_worked_counts_in_affected_area_148_11D_2(status, expected):
    result = run("lake-george", _cottage_site(status), project_class=None)
    assert result.classification.disturbed_sqft == pytest.approx(expected)
    assert result.classification.computed_class != "exempt"


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(x=st.floats(0, 380), y=st.floats(0, 380), w=st.floats(1, 200), h=st.floats(1, 200), as_point=st.booleans(),
       disturbed=st.floats(500, 20000), jurisdiction=st.sampled_from(["lake-george", "lgpc", "mamakating"]))
def test_property_a_building_site_marked_existing_never_changes_the_class(x, y, w, h, as_point, disturbed, jurisdiction):
    side = disturbed ** 0.5
    base = {
        "parcels": layer("parcels", [box(-1000, -1000, 1000, 1000)], ["LOT"], [{"is_site": 1}]),
        "disturbance": layer("disturbance", [box(-side, -side, 0, 0)], ["D1"]),
        "clearing": layer("clearing", []),
        "impervious": layer("impervious", []),
        "building_sites": layer("building_sites", [box(-side + 1, -side + 1, -1, -1)], ["NEW"], [{"use": "single_family", "status": "proposed"}]),
    }
    old = Point(x, y) if as_point else box(x, y, x + w, y + h)
    more = dict(base, building_sites=layer("building_sites", [box(-side + 1, -side + 1, -1, -1), old], ["NEW", "OLD"],
                                           [{"use": "single_family", "status": "proposed"}, {"use": "single_family", "status": "Existing"}]))
    a, b = run(jurisdiction, base, project_class=None).classification, run(jurisdiction, more, project_class=None).classification
    assert (a.project_class, a.computed_class, a.source, a.disturbed_sqft, a.classes) == (b.project_class, b.computed_class, b.source, b.disturbed_sqft, b.classes)


# --- 4. Which rules are for which devices (646-4.14(b)(3)(v), (b)(4)(i); §148-11I(3)(c))


def _depression_site(device_type, bottom_below_ft):
    from tests.sitebuilder import plane_dem

    dem = plane_dem(-200, -200, 400, 2.0, 0.0, 0.0, z0=400.0)
    dev = layer("devices", [box(-10, -10, 10, 10)], ["DEV"], [{"device_type": device_type, "high_traffic": 0, "bottom_elev_ft": 400.0 - bottom_below_ft,
                                                                  "shgw_elev_ft": 390.0, "bedrock_elev_ft": 380.0, "drain_days": 1, "storage_gal": 100}])
    return {"devices": dev}, dem


@pytest.mark.parametrize("jurisdiction", ["lgpc", "lake-george"])
def test_one_ft_vegetated_depression_frost_depth_is_undetermined_naming_the_reading_not_a_violation_646_4_14_b_3_v(jurisdiction):
    layers, dem = _depression_site("vegetated depression", 1.0)
    (f,) = findings_for(run(jurisdiction, layers, dem, project_class="major"), f"{jurisdiction}.major.frost-depth")
    assert f.status is Status.UNDETERMINED
    assert "is open" in f.message and "Infiltration devices" in f.message


@pytest.mark.parametrize("jurisdiction", ["lgpc", "lake-george"])
def test_one_ft_dry_well_frost_depth_stays_a_violation_646_4_14_b_3_v(jurisdiction):
    layers, dem = _depression_site("dry_well", 1.0)
    (f,) = findings_for(run(jurisdiction, layers, dem, project_class="major"), f"{jurisdiction}.major.frost-depth")
    assert f.status is Status.VIOLATION


@pytest.mark.parametrize("jurisdiction", ["lgpc", "lake-george"])
def test_vegetated_depression_keeps_the_separation_rule_646_4_14_b_3_iii(jurisdiction):
    layers, dem = _depression_site("vegetated_depression", 1.0)
    layers["devices"].attrs[0]["shgw_elev_ft"] = 398.5
    fs = findings_for(run(jurisdiction, layers, dem, project_class="major"), f"{jurisdiction}.major.separation-2ft")
    assert Status.VIOLATION in [f.status for f in fs]


def test_every_device_rule_states_its_subject_for_every_device_type_from_its_words():
    from stormwater_plugin.core.rulepack import load_pack
    from stormwater_plugin.core.vocabulary import vocabulary

    kinds = {"device_setback", "vertical_separation", "frost_depth", "drain_time", "device_slope"}
    spec = vocabulary().spec("devices", "device_type")
    assert spec is not None
    types = set(spec.accepted)
    for j in ("lgpc", "lake-george"):
        for rule in load_pack(j).rules:
            if rule.kind not in kinds:
                continue
            row = rule.params.get("device_subject")
            assert row is not None, rule.id
            assert set(row["types"]) == types, rule.id
            assert row["subject"].casefold() in " ".join(rule.citation.excerpt.split()).casefold()


# --- 5. Permits the text requires for the work itself (§148-11C(1), C(4))

PERMIT_C1 = "lake-george.permit-building-impervious"
PERMIT_C4 = "lake-george.permit-stormwater-control-measure"


def _small_site(**roles):
    site = {
        "parcels": layer("parcels", [box(0, 0, 400, 400)], ["LOT"], [{"is_site": 1}]),
        "disturbance": layer("disturbance", [box(10, 10, 60, 60)], ["D1"]),
        "clearing": layer("clearing", []),
        "impervious": layer("impervious", []),
        "building_sites": layer("building_sites", []),
        "devices": layer("devices", []),
    }
    site.update(roles)
    return site


@pytest.mark.parametrize("status", [None, "proposed", "enlarged", "expand"])
def test_new_or_enlarged_building_sets_off_the_permit_148_11C_1(status):
    attrs = {"use": "single_family"} if status is None else {"use": "single_family", "status": status}
    site = _small_site(building_sites=layer("building_sites", [box(100, 100, 140, 130)], ["B1"], [attrs]))
    (f,) = findings_for(run("lake-george", site), PERMIT_C1)
    assert f.status is Status.ADVISORY and "building site B1" in f.message


def test_existing_building_and_existing_pavement_set_off_no_permit_148_11C_1():
    site = _small_site(building_sites=layer("building_sites", [box(100, 100, 140, 130)], ["B1"], [{"status": "existing"}]),
                       impervious=layer("impervious", [box(150, 150, 170, 170)], ["I1"], [{"status": "existing"}]))
    (f,) = findings_for(run("lake-george", site), PERMIT_C1)
    assert f.status is Status.PASS


def test_proposed_driveway_sets_off_the_permit_148_11C_1():
    site = _small_site(impervious=layer("impervious", [box(150, 150, 170, 170)], ["DRIVE"], [{"status": "proposed"}]))
    (f,) = findings_for(run("lake-george", site), PERMIT_C1)
    assert f.status is Status.ADVISORY and "impervious area DRIVE" in f.message


def test_impervious_of_unknown_status_leaves_the_permit_undetermined_148_11C_1():
    site = _small_site(impervious=layer("impervious", [box(150, 150, 170, 170)], ["X"], [{}]))
    (f,) = findings_for(run("lake-george", site), PERMIT_C1)
    assert f.status is Status.UNDETERMINED


def test_a_proposed_device_sets_off_the_stormwater_control_measure_permit_148_11C_4():
    site = _small_site(devices=layer("devices", [box(200, 200, 210, 210)], ["DW"], [{"device_type": "dry_well"}]))
    (f,) = findings_for(run("lake-george", site), PERMIT_C4)
    assert f.status is Status.ADVISORY and "device DW" in f.message


def test_permit_rules_are_not_applied_to_an_exempt_project_148_11D():
    site = _small_site(building_sites=layer("building_sites", [box(100, 100, 120, 120)], ["B1"], [{"status": "proposed"}]))
    result = run("lake-george", site, project_class="exempt")
    assert not findings_for(result, PERMIT_C1)
    assert any(e["rule_id"] == PERMIT_C1 for e in result.rules_not_applicable)


# --- 6. The half inch from existing impervious and the storage (§148-11I(2)(a) with (j))

STORAGE = "lake-george.minor.storage-1-5-gal"


def _storage_site(storage_gal):
    """1,000 sq ft of new roof (1,500 gal) and 2,400 sq ft of existing drive (the first 1/2 inch: 100 cu ft, 748 gal)."""
    return {
        "parcels": layer("parcels", [box(0, 0, 400, 400)], ["LOT"], [{"is_site": 1}]),
        "disturbance": layer("disturbance", [box(10, 10, 110, 110)], ["D1"]),
        "impervious": layer("impervious", [box(20, 20, 60, 45), box(200, 200, 260, 240)], ["ROOF", "DRIVE"], [{"status": "proposed"}, {"status": "existing"}]),
        "devices": layer("devices", [box(300, 10, 310, 20)], ["DW"], [{"device_type": "dry_well", "storage_gal": storage_gal}]),
    }


# Volumes are decided in whole gallons (core.limits): the net-increase share is 1,500 gal, the half inch 748 gal.
@pytest.mark.parametrize("storage,expected", [(1499.0, Status.VIOLATION), (1500.0, Status.ADVISORY), (2247.0, Status.ADVISORY), (2248.0, Status.PASS)])
def test_storage_against_net_increase_plus_half_inch_from_existing_impervious_148_11I_2_a_j(storage, expected):
    (f,) = findings_for(run("lake-george", _storage_site(storage)), STORAGE)
    assert f.status is expected
    assert f.extra["retrofit_gal"] == round(2400 * 0.5 / 12 * 7.48052)
    if expected is Status.ADVISORY:
        assert "to the maximum extent practicable" in f.message


def test_storage_without_existing_impervious_is_the_net_increase_share_alone_148_11I_2_a():
    site = _storage_site(1500.0)
    site["impervious"] = layer("impervious", [box(20, 20, 60, 45)], ["ROOF"], [{"status": "proposed"}])
    (f,) = findings_for(run("lake-george", site), STORAGE)
    assert f.status is Status.PASS and "retrofit_gal" not in f.extra


# --- 7. A lawn drawn in another area layer (§148-11C(6))

FERTILIZER = "lake-george.fertilizer-50ft"


@pytest.mark.parametrize("role", ["clearing", "disturbance", "impervious"])
# "within 50 feet" includes 50 ft (core.limits reads "within" as <=).
@pytest.mark.parametrize("gap,expected", [(49.9, Status.ADVISORY), (50.0, Status.ADVISORY), (50.1, Status.PASS)])
def test_new_lawn_in_any_area_layer_within_50ft_of_water_148_11C_6(role, gap, expected):
    site = _shore_site(**{role: layer(role, [box(-gap - 40, -20, -gap, 20)], ["LAWN"], [{"use": "Lawn"}])})
    (f,) = [f for f in findings_for(run("lake-george", site), FERTILIZER) if f.subject is not None]
    assert f.status is expected
    assert f.subject.layer == role


def test_property_a_use_value_means_the_same_on_every_area_layer():
    """The fertilizer finding of one lawn polygon is the same whichever area layer holds it."""
    out = set()
    for role in ("clearing", "disturbance", "impervious"):
        site = _shore_site(**{role: layer(role, [box(-70, -20, -30, 20)], ["LAWN"], [{"use": "turf"}])})
        (f,) = [f for f in findings_for(run("lake-george", site), FERTILIZER) if f.subject is not None]
        out.add((f.status, f.measured_ft, f.message))
    assert len(out) == 1


# --- 8. Mamakating's class and its SWPPP finding agree (§160-1, §160-2A)


def _westward_site(stream_class):
    from tests.sitebuilder import plane_dem

    dem = plane_dem(0, 0, 1000, 10.0, gx=0.05, gy=0.0)
    site = {
        "disturbance": layer("disturbance", [box(840, 480, 880, 520)], ["D1"]),
        "wetlands": layer("wetlands", []),
        "streams": layer("streams", [LineString([(100, 0), (100, 1000)])], ["ST"], [{"class": stream_class}]),
    }
    return site, dem


def test_activity_under_one_acre_upstream_of_a_ct_stream_is_classed_land_development_not_exempt_160_1():
    site, dem = _westward_site("C(T)")
    result = run("mamakating", site, dem, project_class=None)
    (trace,) = findings_for(result, "mamakating.upstream-of-wetland")
    assert trace.status is Status.ADVISORY
    assert result.project_class == "major" and result.class_source == "computed"
    assert any(r.rule_id == "mamakating.upstream-of-wetland" for r in result.classification_reasons)
    # The land-development rows are the reviewer's, not "not applicable"; condition A is read.
    assert any(e["rule_id"] == "mamakating.reviewer.condition-a" for e in result.rules_not_checked)
    assert not any(e["rule_id"] == "mamakating.reviewer.condition-a" for e in result.rules_not_applicable)


def test_activity_whose_trace_leaves_the_dem_has_an_open_class_never_exempt_computed_160_1():
    site, dem = _westward_site("C")  # not a counted class: the trace runs to the DEM's edge
    result = run("mamakating", site, dem, project_class=None)
    assert [f.status for f in findings_for(result, "mamakating.upstream-of-wetland")] == [Status.UNDETERMINED]
    assert result.class_source == "assumed" and set(result.classification.classes) == {"exempt", "major"}
    assert any(e["rule_id"] == "mamakating.reviewer.condition-a" for e in result.rules_not_checked)
    # The open class asks its one question (issue 33), about the trace, not the area.
    q = result.classification.question
    assert q.startswith("Is the project exempt or major?") and "flow trace" in q and "--class" in q
    assert "(Town of Mamakating Code §160-1" in q and "Citation(" not in q


def test_property_the_class_line_never_contradicts_the_upstream_finding_160_1():
    for stream_class in ("A", "B", "C(T)", "C", "D"):
        site, dem = _westward_site(stream_class)
        result = run("mamakating", site, dem, project_class=None)
        (trace,) = findings_for(result, "mamakating.upstream-of-wetland")
        if trace.status is Status.ADVISORY:
            assert result.classification.classes == ("major",)
        elif trace.status is Status.UNDETERMINED:
            assert "major" in result.classification.classes and result.class_source == "assumed"


# --- 9. A text that defers to a document it does not contain (§160-2B(2), §148-8B(2))


def test_conditions_b_and_c_not_met_leave_a_table_2_reviewer_row_never_a_bare_pass_160_2B_2():
    site, dem = _westward_site("C(T)")
    result = run("mamakating", site, dem, project_class=None)
    for rid in ("mamakating.condition-b", "mamakating.condition-c"):
        (f,) = findings_for(result, rid)
        assert f.status is Status.PASS and "Table 2 of Appendix B" in f.message
    assert any(e["rule_id"] == "mamakating.reviewer.table-2-gp-0-15-002" for e in result.rules_not_checked)


def test_town_lists_the_table_2_reviewer_row_in_every_class_148_8B_2():
    for klass in ("exempt", "minor", "major"):
        result = run("lake-george", _small_site(), project_class=klass)
        assert any(e["rule_id"] == "lake-george.reviewer.table-2-gp-0-15-002" for e in result.rules_not_checked)


# --- 10. The Town's own device words (§148-11I(3)(d)[1] table; 646-4.14(b)(4)(ii))


def _device_words_of_the_texts():
    from tests.conftest import REGULATIONS

    town = (REGULATIONS / "town-of-lake-george-ch148.txt").read_text(encoding="utf-8")
    table = town[town.index("Control Measure\tNumber of Days"):]
    rows = [line.split("\t")[0] for line in table.splitlines()[1:6]]
    lgpc = (REGULATIONS / "lgpc-6nycrr-646-4.txt").read_text(encoding="utf-8")
    listed = lgpc[lgpc.index("in accordance with the following: infiltration basin"):].split(":", 1)[1].split(".")[0]
    return rows + [item.strip().rsplit(" ", 2)[0] for item in listed.split(";")]


def test_every_device_named_as_the_texts_name_it_is_a_recognised_device_type_148_11I_3_d_1(regulations):
    from stormwater_plugin.core.vocabulary import read

    words = _device_words_of_the_texts()
    assert "Vegetation depression" in words and "porus pavement" in words
    for word in words:
        r = read({"device_type": word}, "devices", "device_type")
        assert r.known, word


def test_a_vegetation_depression_gets_the_vegetated_depression_drain_time_148_11I_3_d_1():
    layers, dem = _depression_site("Vegetation depression", 5.0)
    (f,) = findings_for(run("lake-george", layers, dem, project_class="major"), "lake-george.major.drain-time")
    assert f.status is Status.PASS and f.extra["limit_days"] == 1
