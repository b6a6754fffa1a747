"""Issue 21: the project class read from every clause the plan shows, open classes, the lots of the project, order-free ids.

- 646-4.12(a)(2) / §148-11E(1)(b): the minor-subdivision clause (use of each building, the road's total);
- area features without area and open thresholds leave the class open: every possible class's rules are reported;
- §148-11D(2): a proposed building's footprint is new impervious surface;
- 646-4.13(a)(5): every lot holding proposed work is part of the site;
- the 500 ft list's completeness caveat turns with the plan;
- ids and keys built from several features do not depend on their order.
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from shapely import affinity
from shapely.geometry import LineString, Point, box

from stormwater_plugin.core.engine import run_check
from stormwater_plugin.core.model import SiteInputs, Status
from stormwater_plugin.core.overrides import annotate_document, finding_keys, make_override
from stormwater_plugin.core.rulepack import load_pack
from stormwater_plugin.core.serialize import result_to_dict
from tests.sitebuilder import device, layer, plane_dem, run, septic_square


def _reason(result, suffix):
    rs = [r for r in result.classification_reasons if r.rule_id.endswith(suffix)]
    assert rs, [r.rule_id for r in result.classification_reasons]
    return rs[0]


def _na(result):
    return {r["rule_id"] for r in result.rules_not_applicable}


# --- 646-4.12(a)(2), §148-11E(1)(b): every clause of the subdivision definition -----------------------------


def _three_lots(uses, road=None, road_attrs=None):
    """Three new lots of 200 x 200 ft, 9,000 sq ft disturbed and a 1,200 sq ft building on each; ``road`` between them."""
    lots = [box(k * 200.0, 0, k * 200.0 + 200, 200) for k in range(3)]
    dist = [box(k * 200.0 + 10, 10, k * 200.0 + 100, 110) for k in range(3)]
    sites = [box(k * 200.0 + 20, 20, k * 200.0 + 60, 50) for k in range(3)]
    out = {
        "parcels": layer("parcels", lots, ["L1", "L2", "L3"], [{"is_site": 1, "proposed_lot": 1}] * 3),
        "disturbance": layer("disturbance", dist, ["D1", "D2", "D3"], [{"use": "construction"}] * 3),
        "building_sites": layer("building_sites", sites, ["B1", "B2", "B3"], [{"use": u} if u is not None else {} for u in uses]),
        "impervious": layer("impervious", [], [], []),
    }
    if road is not None:
        out["impervious"] = layer("impervious", [road], ["R1"], [road_attrs or {"status": "proposed"}])
    return out


@pytest.mark.parametrize("jurisdiction", ["lgpc", "lake-george"])
def test_three_lot_subdivision_of_single_family_houses_is_minor_646_4_12_a_2(jurisdiction):
    result = run(jurisdiction, _three_lots([" Single-Family ", "single_family", "SINGLE FAMILY"]), project_class=None)
    assert result.project_class == "minor" and result.class_source == "computed"
    assert _reason(result, ".subdivision").status is Status.PASS


@pytest.mark.parametrize("jurisdiction", ["lgpc", "lake-george"])
def test_three_lot_subdivision_with_commercial_buildings_is_major_646_4_12_a_2(jurisdiction):
    result = run(jurisdiction, _three_lots(["commercial", "commercial", "commercial"]), project_class=None)
    assert result.project_class == "major" and result.class_source == "computed"
    sub = _reason(result, ".subdivision")
    assert sub.status is Status.ADVISORY and "use 'commercial'" in sub.message and "lot L1" in sub.message
    assert f"{jurisdiction}.major.septic-recharge-100" not in _na(result)


def test_subdivision_accessory_structure_beside_the_house_stays_minor_646_4_12_a_2():
    site = _three_lots(["single_family", "single_family", "single_family"])
    sites = site["building_sites"]
    site["building_sites"] = layer("building_sites", list(sites.geoms) + [box(150, 150, 170, 170)], list(sites.ids) + ["G1"],
                                   list(sites.attrs) + [{"use": "garage"}])
    result = run("lgpc", site, project_class=None)
    assert result.project_class == "minor"


@pytest.mark.parametrize("jurisdiction", ["lgpc", "lake-george"])
def test_subdivision_building_of_unknown_use_leaves_the_class_open_646_4_12_a_2(jurisdiction):
    result = run(jurisdiction, _three_lots(["single_family", None, "single_family"]), project_class=None)
    assert result.project_class == "major" and result.class_source == "assumed"
    assert result.classification.classes == ("minor", "major")
    sub = _reason(result, ".subdivision")
    assert sub.status is Status.UNDETERMINED and "B2" in sub.message and "building_sites.use" in sub.message
    assert _reason(result, ".open").status is Status.UNDETERMINED
    # the rules of both classes are checked
    assert not {f"{jurisdiction}.minor.septic-upgradient-20", f"{jurisdiction}.major.septic-recharge-100"} & _na(result)


@pytest.mark.parametrize("jurisdiction", ["lgpc", "lake-george"])
def test_subdivision_road_drawn_as_proposed_pavement_between_the_lots_counts_for_the_road_646_4_12_a_2(jurisdiction):
    road = box(0, -90, 600, -60)  # 18,000 sq ft of pavement south of the lots, outside every lot, no use field
    result = run(jurisdiction, _three_lots(["single_family"] * 3, road), project_class=None)
    assert result.project_class == "major"
    sub = _reason(result, ".subdivision")
    assert sub.status is Status.ADVISORY and "the subdivision road affects 18,000.0 sq ft" in sub.message


def test_subdivision_road_under_15000_sq_ft_outside_the_lots_keeps_the_subdivision_minor_646_4_12_a_2():
    road = box(0, -90, 480, -60)  # 14,400 sq ft
    result = run("lgpc", _three_lots(["single_family"] * 3, road), project_class=None)
    assert result.project_class == "minor"
    assert "14,400.0 sq ft, 14,400.0 sq ft of it affected land outside the lots for the road" in _reason(result, ".subdivision").message


def test_subdivision_verdict_does_not_depend_on_lot_order_646_4_12_a_2():
    base = _three_lots(["single_family", "commercial", "single_family"])
    texts = set()
    for perm in itertools.permutations(range(3)):
        p = base["parcels"]
        site = dict(base, parcels=layer("parcels", [p.geoms[i] for i in perm], [p.ids[i] for i in perm], [p.attrs[i] for i in perm]))
        r = run("lgpc", site, project_class=None)
        texts.add((r.project_class, _reason(r, ".subdivision").message, r.site_parcel_id))
    assert len(texts) == 1
    assert next(iter(texts))[2] == "L1+L2+L3"


# --- area features without area: the class is open -------------------------------------------------------


def _septic_and_dry_well():
    """A dry well 12 ft east of (upslope of) a leach field on ground rising to the east."""
    g, a = device(22.0, 0.0)
    return {"septic": layer("septic", [septic_square()]), "devices": layer("devices", [g], ["DW1"], [a])}


@pytest.mark.parametrize("role", ["clearing", "disturbance"])
def test_clearing_drawn_as_an_open_polyline_leaves_the_class_open_and_the_148_11_rules_checked(role):
    site = _septic_and_dry_well()
    site["disturbance"] = layer("disturbance", [box(-20, -20, 40, 40)], ["D1"])  # 3,600 sq ft around the well and the field
    site["impervious"] = layer("impervious", [], [], [])
    extra = layer(role, [LineString([(0, 300), (200, 300), (200, 400)])], [f"{role[:1].upper()}X"])
    if role == "disturbance":
        site["disturbance"] = layer("disturbance", [box(-20, -20, 40, 40), extra.geoms[0]], ["D1", "DX"])
    else:
        site[role] = extra
    dem = plane_dem(-200, -200, 800, 2.0, gx=0.05, gy=0.0)
    result = run("lake-george", site, dem, project_class=None)
    assert result.project_class == "major" and result.class_source == "assumed"
    assert result.classification.computed_class == "exempt"
    assert result.classification.classes == ("exempt", "minor", "major")
    lost = _reason(result, ".no-geometry")
    assert lost.status is Status.UNDETERMINED and "--class" in lost.message
    (f,) = [f for f in result.findings if f.rule_id == "lake-george.minor.septic-upgradient-20" and f.other is not None]
    assert f.status is Status.VIOLATION and f.extra["binds_if_class"] == ["minor"]
    assert "lake-george.minor.septic-upgradient-20" not in _na(result)


def test_explicit_class_is_the_reviewers_statement_and_is_respected():
    site = _septic_and_dry_well()
    result = run("lgpc", site, plane_dem(-200, -200, 400, 2.0, gx=0.05, gy=0.0), project_class="major")
    assert result.class_source == "override" and result.classification.classes == ("major",)
    assert "lgpc.minor.septic-upgradient-20" in _na(result)


# --- an assumed class drops no rule (item 7) ---------------------------------------------------------------


def test_assumed_major_class_still_reports_646_4_14_a_5_and_a_7_when_the_device_fails_both():
    dev = layer("devices", [box(-5, -5, 5, 5)], ["DW1"], [{"device_type": "dry_well", "bottom_elev_ft": 101.0, "shgw_elev_ft": 100.0, "bedrock_elev_ft": 99.5}])
    dem = plane_dem(-200, -200, 400, 1.0, gx=0.2, gy=0.0, z0=105.0)  # 20% slope; ground ~105 ft, so the bottom is a plausible 4 ft below grade
    result = run("lgpc", {"devices": dev}, dem, project_class=None)
    assert result.project_class == "major" and result.class_source == "assumed"
    assert not {"lgpc.minor.separation-2ft", "lgpc.minor.device-slope-15"} & _na(result)
    sep = [f for f in result.findings if f.rule_id == "lgpc.minor.separation-2ft"]
    assert any(f.status is Status.VIOLATION and f.extra.get("binds_if_class") == ["minor"] for f in sep)
    (slope,) = [f for f in result.findings if f.rule_id == "lgpc.minor.device-slope-15"]
    # issue 33: grouped by class (details.binds_if_class), not prefixed
    assert slope.status is Status.ADVISORY and slope.extra["binds_if_class"] == ["minor"] and not slope.message.startswith("If the project")
    # the 500 ft list is required under the possible major class
    assert result.notification.get("radius_required", True)


# --- §148-11D(2): a proposed building's footprint is new impervious surface --------------------------------


def _small_house(status=None, geom=None):
    attrs = {"use": "single_family"}
    if status is not None:
        attrs["status"] = status
    house = geom if geom is not None else box(0, 0, 41.5, 36.07229)  # 1,497 sq ft
    return {
        "disturbance": layer("disturbance", [box(-10, -10, 50, 50)]),  # 3,600 sq ft, under 5,000
        "impervious": layer("impervious", [], [], []),
        "building_sites": layer("building_sites", [house], ["B1"], [attrs]),
    }


def test_a_1497_sq_ft_house_footprint_is_new_impervious_so_the_project_is_not_exempt_148_11D_2():
    result = run("lake-george", _small_house(), project_class=None)
    assert result.classification.new_impervious_sqft == pytest.approx(1_497.0, abs=0.01)
    assert result.project_class == "minor" and result.class_source == "computed"
    ex = _reason(result, ".exempt")
    assert ex.status is Status.ADVISORY and "1,497.0 sq ft of new impervious" in ex.message


def test_a_building_marked_existing_is_not_new_impervious_148_11D_2():
    result = run("lake-george", _small_house(status="existing"), project_class=None)
    assert result.classification.new_impervious_sqft == 0.0
    assert result.project_class == "exempt"


def test_a_house_drawn_as_a_point_leaves_the_exemption_open_148_11D_2():
    result = run("lake-george", _small_house(geom=Point(20, 20)), project_class=None)
    assert result.classification.new_impervious_sqft is None
    assert _reason(result, ".exempt").status is Status.UNDETERMINED
    assert "B1" in _reason(result, ".exempt").message
    assert result.project_class == "minor" and result.classification.classes == ("exempt", "minor")


def test_a_house_footprint_counts_in_the_storage_required_646_4_14_a_1():
    site = _small_house()
    site["devices"] = layer("devices", [Point(60, 60)], ["DW1"], [{"device_type": "dry_well", "storage_gal": 2_000}])
    (f,) = [f for f in run("lgpc", site, project_class="minor").findings if f.rule_id == "lgpc.minor.storage-1-5-gal"]
    assert f.status is Status.VIOLATION and f.extra["net_increase_sqft"] == pytest.approx(1_497.0, abs=0.01)


# --- 646-4.13(a)(5): every lot holding proposed work is part of the project ---------------------------------


def _neighbourhood(work_on_neighbour):
    geoms = [box(0, 0, 100, 100), box(100, 0, 200, 100), box(640, 0, 740, 100), box(-1000, -1000, 1500, -900)]
    attrs = [{"is_site": 1, "owner": "Site", "mailing_address": "1 Main"}, {"owner": "Neighbour", "mailing_address": "2 Main"},
             {"owner": "Far", "mailing_address": "3 Main"}, {"owner": "South", "mailing_address": "4 Main"}]
    site = {"parcels": layer("parcels", geoms, ["S", "N", "F", "X"], attrs), "devices": layer("devices", [Point(50, 50)], ["DW1"], [{"device_type": "dry_well"}])}
    if work_on_neighbour:
        site["impervious"] = layer("impervious", [box(90, 40, 160, 60)], ["DRIVE"], [{"status": "proposed"}])  # a driveway onto N
    return site


def test_a_driveway_on_the_neighbours_lot_widens_the_500_ft_list_646_4_13_a_5():
    before = run("lgpc", _neighbourhood(False), project_class="major")
    after = run("lgpc", _neighbourhood(True), project_class="major")
    assert before.site_parcel_id == "S" and after.site_parcel_id == "N+S"
    near = lambda r: {n["id"] for n in r.notification["within_500ft"]}  # noqa: E731
    assert "F" not in near(before) and "N" in near(before)
    assert "F" in near(after) and "N" not in near(after)  # F is 540 ft from S, 440 ft from N
    assert any(w.code == "site_parcel_widened" and w.ids == ("N",) for w in after.warnings)


def test_work_only_touching_a_lot_line_does_not_add_the_neighbour():
    site = _neighbourhood(False)
    site["impervious"] = layer("impervious", [box(60, 40, 100, 60)], ["PATH"], [{"status": "proposed"}])
    assert run("lgpc", site, project_class="major").site_parcel_id == "S"


# --- the 500 ft list's completeness caveat turns with the plan -----------------------------------------------


def _coverage(north_ft):
    """A 3 x 3 block of 400 ft parcels around the site, with the layer ending ``north_ft`` beyond the site's north edge."""
    geoms, ids, attrs = [], [], []
    for i in range(-3, 4):
        for j in range(-3, 4):
            y1 = (j + 1) * 400.0 if j < 0 else min((j + 1) * 400.0, 400.0 + north_ft)
            y0 = j * 400.0
            if y0 >= y1:
                continue
            geoms.append(box(i * 400.0, y0, (i + 1) * 400.0, y1))
            ids.append(f"P{i}_{j}")
            attrs.append({"is_site": int(i == 0 and j == 0), "owner": "o", "mailing_address": "a"})
    return geoms, ids, attrs


def _incomplete(geoms, ids, attrs, angle):
    rot = [affinity.rotate(g, angle, origin=(200, 200)) for g in geoms]
    result = run("lgpc", {"parcels": layer("parcels", rot, ids, attrs)}, project_class="major")
    return [f for f in result.findings if f.rule_id == "lgpc.notification" and f.status is Status.UNDETERMINED and "may be incomplete" in f.message]


def test_parcels_layer_ending_north_within_500_ft_is_flagged_on_the_north_646_4_13_a_6():
    (f,) = _incomplete(*_coverage(300.0), 0.0)
    assert f.extra["sides"] == ["north"]
    assert not _incomplete(*_coverage(800.0), 0.0)


@settings(max_examples=25, deadline=None, print_blob=True)
@given(angle=st.floats(min_value=0.0, max_value=360.0, allow_nan=False))
def test_incomplete_500_ft_list_caveat_holds_at_every_rotation_646_4_13_a_6(angle):
    assert len(_incomplete(*_coverage(300.0), angle)) == 1
    assert not _incomplete(*_coverage(800.0), angle)


def test_incomplete_500_ft_list_caveat_at_37_degrees_646_4_13_a_6():
    (f,) = _incomplete(*_coverage(300.0), 37.0)
    assert f.extra["sides"] == ["north"]  # the short side turned 37° counter-clockwise still faces north (within ±45°)


# --- ids and keys built from several features are order-free ------------------------------------------------


def test_multi_parcel_site_id_and_finding_keys_do_not_depend_on_feature_order():
    lots = [box(0, 0, 100, 100), box(100, 0, 200, 100), box(200, 0, 300, 100), box(0, 100, 300, 200)]
    ids = ["L3", "L1", "L2", "A"]
    attrs = [{"is_site": 1, "owner": "o", "mailing_address": "a"}] * 3 + [{"owner": "n", "mailing_address": "b"}]
    seen = set()
    for perm in itertools.permutations(range(4)):
        parcels = layer("parcels", [lots[i] for i in perm], [ids[i] for i in perm], [attrs[i] for i in perm])
        r = run("lgpc", {"parcels": parcels}, project_class="major")
        seen.add((r.site_parcel_id, tuple(sorted(finding_keys(r.findings)))))
    assert len(seen) == 1
    assert next(iter(seen))[0] == "L1+L2+L3"


def test_a_decision_keyed_on_a_reordered_site_id_still_matches():
    # a neighbour too: a parcels layer of the site alone lists no one (undetermined, issue 36)
    parcels = layer("parcels", [box(0, 0, 100, 100), box(100, 0, 200, 100), box(200, 0, 300, 100)], ["L2", "L1", "N"],
                    [{"is_site": 1, "owner": "o", "mailing_address": "a"}] * 2 + [{"owner": "n", "mailing_address": "b"}])
    doc = result_to_dict(run("lgpc", {"parcels": parcels}, project_class="major"))
    (f,) = [f for f in doc["findings"] if f["rule_id"] == "lgpc.notification" and f["status"] == "advisory"]
    assert f["subject"]["id"] == "L1+L2"
    old_key = "lgpc.notification|parcels:L2+L1|-"
    annotate_document(doc, [make_override(old_key, "accepted", "listed by hand", "R. Viewer")])
    assert not doc["stale_overrides"]


# --- the unknown-class invariant, as a property over generated sites ------------------------------------------


_PACK_CLASSES = {"lgpc": ("minor", "major"), "lake-george": ("exempt", "minor", "major"), "mamakating": ("exempt", "major")}
_CLASS_DEPENDENT_KINDS = {"neighbour_notification", "building_site_slope"}


@settings(max_examples=8, deadline=None, print_blob=True)
@given(
    jurisdiction=st.sampled_from(sorted(_PACK_CLASSES)),
    dx=st.floats(min_value=-60, max_value=60),
    dy=st.floats(min_value=-60, max_value=60),
    gx=st.floats(min_value=-0.25, max_value=0.25),
    bottom=st.floats(min_value=95, max_value=110),
    area_layers=st.booleans(),
)
def test_unknown_class_reports_every_rule_of_a_possible_class_and_never_passes_what_fails_under_each(jurisdiction, dx, dy, gx, bottom, area_layers):
    pack = load_pack(jurisdiction)
    dev = layer("devices", [Point(dx, dy)], ["DW1"], [{"device_type": "dry_well", "bottom_elev_ft": bottom, "shgw_elev_ft": 100.0, "bedrock_elev_ft": 97.0}])
    site = {"devices": dev, "septic": layer("septic", [septic_square()]), "wells": layer("wells", [Point(-dx, 80.0)], ["W1"]),
            "parcels": layer("parcels", [box(-200, -200, 200, 200)], ["S"], [{"is_site": 1}])}
    if area_layers:  # an open polyline clearing: the class is open upward from exempt
        site["disturbance"] = layer("disturbance", [box(-30, -30, 30, 30)], ["D1"])
        site["clearing"] = layer("clearing", [LineString([(0, 0), (150, 150)])], ["CX"])
    dem = plane_dem(-250, -250, 500, 5.0, gx=gx, gy=0.0)

    def go(cls):
        return run_check(SiteInputs(layers=site, dem=dem, unit_to_ft=1.0, class_override=cls), pack)

    open_run = go(None)
    assert open_run.class_source == "assumed"
    possible = open_run.classification.classes
    applies = {r.id for r in pack.rules if any(r.applies_to_class(c) for c in possible)}
    assert not applies & _na(open_run)
    kinds = {r.id: r.kind for r in pack.rules}
    got = {(f.rule_id, f.subject, f.other, f.extra.get("limit")): f.status for f in open_run.findings if kinds.get(f.rule_id) not in _CLASS_DEPENDENT_KINDS}
    per_class: dict = {}
    for c in possible:
        for f in go(c).findings:
            if kinds.get(f.rule_id) in _CLASS_DEPENDENT_KINDS or not pack.rule(f.rule_id).applies_to_class(c):
                continue
            per_class.setdefault((f.rule_id, f.subject, f.other, f.extra.get("limit")), []).append(f.status)
    for k, statuses in per_class.items():
        assert k in got, k
        if all(s is Status.VIOLATION for s in statuses):
            assert got[k] is Status.VIOLATION, k
        elif Status.VIOLATION in statuses:
            assert got[k] in (Status.VIOLATION, Status.UNDETERMINED), k
