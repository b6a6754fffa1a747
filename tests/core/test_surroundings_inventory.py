"""May-be-major surroundings (646-4.12(b)(2)(b), §148-11E(2)(b)), the plot-plan inventory (646-4.13(a)(7)) and the 500 ft cover rule (646-4.15(b))."""

from __future__ import annotations

import pytest
from shapely.geometry import LineString, Point, box

from stormwater_plugin.core.model import Status
from stormwater_plugin.core.rulepack import load_pack
from tests.sitebuilder import findings_for, layer, run


def _site(**roles):
    site = {"parcels": layer("parcels", [box(0, 0, 100, 100)], ["SITE"], [{"is_site": 1}])}
    for role, geoms in roles.items():
        site[role] = layer(role, geoms)
    return site


@pytest.mark.parametrize("jurisdiction,rule_id", [("lgpc", "lgpc.minor.sensitive-surroundings"), ("lake-george", "lake-george.minor.sensitive-surroundings")])
def test_wetland_3_ft_beyond_the_site_line_is_substantially_contiguous_646_4_12_b_2_b_148_11E_2_b(jurisdiction, rule_id):
    (f,) = findings_for(run(jurisdiction, _site(wetlands=[box(103, 0, 150, 50)], streams=[])), rule_id)
    assert f.status is Status.ADVISORY
    assert f.measured_ft == pytest.approx(3.0) and f.required_ft == 100
    assert "wetland WET1" in f.message and "3.0 ft" in f.message and "substantially contiguous" in f.message


def test_stream_5_ft_away_is_an_advisory_naming_it_646_4_12_b_2_b():
    (f,) = findings_for(run("lgpc", _site(wetlands=[], streams=[LineString([(105, -50), (105, 150)])])), "lgpc.minor.sensitive-surroundings")
    assert f.status is Status.ADVISORY and f.other.id == "STR1" and f.measured_ft == pytest.approx(5.0)


@pytest.mark.parametrize("gap,expected", [(99.9, Status.ADVISORY), (100.0, Status.ADVISORY), (100.1, Status.PASS)])
def test_substantially_contiguous_read_as_within_100_ft_boundary(gap, expected):
    (f,) = findings_for(run("lgpc", _site(wetlands=[box(100 + gap, 0, 200 + gap, 50)], streams=[])), "lgpc.minor.sensitive-surroundings")
    assert f.status is expected
    assert f.measured_ft == pytest.approx(gap)


def test_each_contiguous_feature_gets_its_own_advisory_and_a_missing_layer_is_undetermined():
    fs = findings_for(run("lgpc", _site(wetlands=[box(-20, 0, 0, 50), box(250, 0, 300, 50)])), "lgpc.minor.sensitive-surroundings")
    assert sorted((f.status.value, f.other.id if f.other else None) for f in fs) == [("advisory", "WET1"), ("undetermined", None)]


@pytest.mark.parametrize("jurisdiction", ["lgpc", "lake-george"])
def test_critical_environmental_area_habitat_and_scenic_criteria_are_reviewer_rows(jurisdiction):
    ids = {r.id for r in load_pack(jurisdiction).rules if r.kind == "reviewer"}
    for name in ("critical-environmental-area", "significant-habitat", "scenic-historic-natural"):
        assert f"{jurisdiction}.reviewer.{name}" in ids
    listed = {r["rule_id"] for r in run(jurisdiction, _site(wetlands=[], streams=[])).rules_not_checked}
    assert f"{jurisdiction}.reviewer.critical-environmental-area" in listed


def test_plot_plan_inventory_lists_structures_and_impervious_surfaces_646_4_13_a_7():
    site = _site(
        building_sites=[box(10, 10, 40, 40), box(200.1, 0, 220, 20)],
        impervious=[box(50, 50, 60, 60), box(-99.9, 0, -90, 10)],
        wells=[], septic=[], shoreline=[], waterbodies=[], streams=[], wetlands=[], devices=[],
    )
    site["impervious"].attrs[:] = [{"status": "proposed"}, {"status": "existing"}]
    result = run("lgpc", site)
    rows = {(r["layer"], r["id"]): r["distance_ft"] for r in result.inventory}
    assert rows[("building_sites", "BUI1")] == 0.0 and ("building_sites", "BUI2") not in rows
    assert rows[("impervious", "IMP1")] == 0.0 and rows[("impervious", "IMP2")] == pytest.approx(90.0)
    (f,) = findings_for(result, "lgpc.plot-plan-100ft")
    assert f.status is Status.ADVISORY and "existing structures" in f.message


def test_plot_plan_inventory_without_building_sites_or_impervious_is_undetermined():
    site = _site(wells=[], septic=[], shoreline=[], waterbodies=[], streams=[], wetlands=[], devices=[])
    (f,) = findings_for(run("lgpc", site), "lgpc.plot-plan-100ft")
    assert f.status is Status.UNDETERMINED and "building_sites" in f.message and "impervious" in f.message


@pytest.mark.parametrize("gap,expected", [(499.9, Status.ADVISORY), (500.0, Status.ADVISORY), (500.1, Status.PASS)])
def test_disturbance_within_500_ft_of_the_mean_high_water_mark_needs_cover_646_4_15_b(gap, expected):
    site = {
        "shoreline": layer("shoreline", [LineString([(0, -500), (0, 700)])], ["MHW"]),
        "disturbance": layer("disturbance", [box(-gap - 30, 50, -gap, 80)], ["GRADE"]),
        **{k: layer(k, []) for k in ("waterbodies", "streams", "wetlands", "clearing")},
    }
    (f,) = findings_for(run("lgpc", site), "lgpc.clearing-500ft-cover")
    assert f.status is expected and f.subject.id == "GRADE"
    assert f.measured_ft == pytest.approx(gap)


def test_town_major_500_ft_cover_reads_disturbance_148_11I_3():
    site = {
        "shoreline": layer("shoreline", [LineString([(0, -500), (0, 700)])], ["MHW"]),
        "disturbance": layer("disturbance", [box(-230, 50, -200, 80)], ["GRADE"]),
        **{k: layer(k, []) for k in ("waterbodies", "streams", "wetlands")},
    }
    result = run("lake-george", site, project_class="major")
    (f,) = findings_for(result, "lake-george.major.clearing-500ft-cover")
    assert f.status is Status.ADVISORY
    assert any("no clearing layer" in r["reason"] for r in result.rules_not_checked if r["rule_id"] == "lake-george.major.clearing-500ft-cover")


def test_soil_trigger_reads_proposed_impervious_as_activity_646_4_12_b_2_a_i():
    site = {
        "soils": layer("soils", [box(0, 0, 100, 100)], ["S-A"], [{"high_transport": 1}]),
        "disturbance": layer("disturbance", [box(500, 500, 510, 510)]),
        "impervious": layer("impervious", [box(10, 10, 20, 20)], ["DRIVE"], [{"status": "proposed"}]),
        "devices": layer("devices", [Point(900, 900)], ["DW1"], [{"device_type": "dry_well"}]),
    }
    (f,) = findings_for(run("lgpc", site, project_class=None), "lgpc.minor.may-be-major-soils")
    assert f.status is Status.ADVISORY and f.extra["soils"] == ["S-A"]
