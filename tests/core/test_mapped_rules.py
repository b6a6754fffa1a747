"""The other mapped rules: clear-cut opening, fertilizer zone, 500 ft clearing cover, plot-plan inventory, triggers."""

from __future__ import annotations

import pytest
from shapely.geometry import LineString, Point, box

from stormwater_plugin.core.derived import Derived
from stormwater_plugin.core.engine import SiteInputs, run_check
from stormwater_plugin.core.model import Status
from stormwater_plugin.core.rulepack import load_pack
from tests.sitebuilder import layer, plane_dem, run


def _findings(result, rule_id):
    return [f for f in result.findings if f.rule_id == rule_id]


def _lakefront(clearings, uses=None):
    return {
        "parcels": layer("parcels", [box(-300, 0, 0, 200)], ["SITE"], [{"is_site": 1}]),
        "shoreline": layer("shoreline", [LineString([(0, -500), (0, 700)])], ["MHW"], [{"waterbody": "Lake George"}]),
        "clearing": layer("clearing", clearings, None, [{"use": u} for u in (uses or ["lawn"] * len(clearings))]),
    }


@pytest.mark.parametrize("width,expected", [(39.9, Status.PASS), (40.0, Status.PASS), (40.1, Status.VIOLATION)])
def test_clear_cut_opening_at_most_20_pct_of_200_ft_frontage_148_11I_2_h_2(width, expected):
    site = _lakefront([box(-50, 50, 0, 50 + width)])
    (f,) = _findings(run("lake-george", site), "lake-george.minor.clear-cut-opening-20pct")
    assert f.status is expected
    assert f.extra["frontage_ft"] == pytest.approx(200.0, abs=0.01)
    assert f.measured_ft == pytest.approx(width, abs=0.01)


# "within" includes the limit (core.limits): a feature exactly at it is within
@pytest.mark.parametrize("gap,expected", [(49.9, Status.ADVISORY), (50.0, Status.ADVISORY), (50.1, Status.PASS)])
def test_lawn_within_50_ft_of_water_gets_the_fertilizer_rule_148_11C_6(gap, expected):
    site = _lakefront([box(-gap - 30, 50, -gap, 80)])
    site.update({k: layer(k, []) for k in ("waterbodies", "streams", "wetlands")})  # declared: none (a wetland is a water body)
    (f,) = _findings(run("lake-george", site), "lake-george.fertilizer-50ft")
    assert f.status is expected


def test_clearing_that_is_not_lawn_is_outside_the_fertilizer_rule():
    site = _lakefront([box(-40, 50, -10, 80)], uses=["construction"])
    assert _findings(run("lake-george", site), "lake-george.fertilizer-50ft") == []


@pytest.mark.parametrize("gap,expected", [(499.9, Status.ADVISORY), (500.0, Status.ADVISORY), (500.1, Status.PASS)])
def test_clearing_within_500_ft_of_mean_high_water_24_hour_cover_646_4_15_b(gap, expected):
    site = _lakefront([box(-gap - 30, 50, -gap, 80)])
    site.update({k: layer(k, []) for k in ("waterbodies", "streams", "wetlands")})
    (f,) = _findings(run("lgpc", site), "lgpc.clearing-500ft-cover")
    assert f.status is expected


def test_clearing_beyond_500_ft_with_a_water_layer_missing_is_undetermined():
    site = _lakefront([box(-900, 50, -800, 80)])
    (f,) = _findings(run("lgpc", site), "lgpc.clearing-500ft-cover")
    assert f.status is Status.UNDETERMINED


def test_plot_plan_inventory_lists_features_within_100_ft_of_the_site_646_4_13_a_7():
    site = _lakefront([box(-40, 50, -10, 80)])
    site["wells"] = layer("wells", [Point(-350, 100), Point(-400.1, 100), Point(-100, 100)], ["W-near", "W-far", "W-on"])
    site["septic"] = layer("septic", [])
    for k in ("waterbodies", "streams", "wetlands", "devices", "building_sites", "impervious"):
        site[k] = layer(k, [])
    result = run("lgpc", site)
    (f,) = _findings(result, "lgpc.plot-plan-100ft")
    ids = [(r["layer"], r["id"], r["distance_ft"]) for r in result.inventory]
    assert ("wells", "W-on", 0.0) in ids and ("wells", "W-near", 50.0) in ids
    assert all(i[1] != "W-far" for i in ids)
    assert f.status is Status.ADVISORY


@pytest.mark.parametrize("area,expected", [(4_999, Status.PASS), (5_000, Status.PASS), (5_001, Status.ADVISORY)])
def test_permit_required_over_5000_sq_ft_disturbed_148_11C_3(area, expected):
    site = {"disturbance": layer("disturbance", [box(0, 0, area / 100, 100)])}
    (f,) = _findings(run("lake-george", site, project_class=None), "lake-george.permit-over-5000-sqft")
    assert f.status is expected


@pytest.mark.parametrize("acres,expected", [(4.99, Status.PASS), (5.0, Status.PASS), (5.01, Status.ADVISORY)])
def test_spdes_and_100_year_attenuation_over_5_acres_646_4_14_b_3_ii(acres, expected):
    site = {"disturbance": layer("disturbance", [box(0, 0, acres * 43_560 / 100, 100)])}
    result = run("lgpc", site, project_class=None)
    assert result.project_class == "major"
    for rid in ("lgpc.major.over-5-acres-spdes", "lgpc.major.over-5-acres-100-year"):
        (f,) = _findings(result, rid)
        assert f.status is expected


@pytest.mark.parametrize("sqft,below,cond_c", [(43_559, True, Status.PASS), (43_560, False, Status.ADVISORY)])
def test_mamakating_swppp_and_condition_c_at_1_acre_160_2(sqft, below, cond_c):
    """Under one acre the area alone does not require an SWPPP, but that is never a pass: other §160-1 routes stay open."""
    site = {"disturbance": layer("disturbance", [box(0, 0, sqft / 100, 100)]), "building_sites": layer("building_sites", [box(10, 10, 40, 40)], ["B1"], [{"use": "commercial"}])}
    result = run("mamakating", site, project_class=None)
    (f,) = _findings(result, "mamakating.swppp-required")
    assert f.status is Status.ADVISORY
    assert bool(f.extra.get("below_threshold")) is below
    if below:
        assert "upstream" in f.message and "larger common plan" in f.message
    assert _findings(result, "mamakating.condition-c")[0].status is cond_c


def test_mamakating_condition_c_excludes_single_family_homes():
    site = {"disturbance": layer("disturbance", [box(0, 0, 600, 100)]), "building_sites": layer("building_sites", [box(10, 10, 40, 40)], ["B1"], [{"use": "single_family"}])}
    (f,) = _findings(run("mamakating", site, project_class=None), "mamakating.condition-c")
    assert f.status is Status.PASS and "single-family" in f.message


@pytest.mark.parametrize("acres,expected", [(5.0, Status.PASS), (5.01, Status.ADVISORY)])
def test_mamakating_phasing_plan_when_more_than_5_acres_disturbed_160_2B_1_d(acres, expected):
    site = {"disturbance": layer("disturbance", [box(0, 0, acres * 43_560 / 100, 100)])}
    (f,) = _findings(run("mamakating", site, project_class=None), "mamakating.phasing-over-5-acres")
    assert f.status is expected


def test_small_disturbance_upstream_of_a_wetland_is_flagged_160_1():
    dem = plane_dem(0, 0, 600, 5.0, gx=0.05, gy=0.0)   # rises eastward: water runs west
    site = {"disturbance": layer("disturbance", [box(400, 280, 440, 320)]), "wetlands": layer("wetlands", [box(50, 200, 150, 400)], ["WL"])}
    (f,) = _findings(run("mamakating", site, dem, project_class=None), "mamakating.upstream-of-wetland")
    assert f.status is Status.ADVISORY
    assert f.extra["flow_length_ft"] == pytest.approx(250.0, abs=10.0)


def test_small_disturbance_downstream_of_a_wetland_traced_to_the_dem_edge_is_undetermined_160_1():
    dem = plane_dem(0, 0, 2600, 10.0, gx=-0.05, gy=0.0)  # rises westward: water runs east, away from the wetland, off the DEM
    site = {"disturbance": layer("disturbance", [box(400, 1280, 440, 1320)]), "wetlands": layer("wetlands", [box(50, 1200, 150, 1400)], ["WL"])}
    (f,) = _findings(run("mamakating", site, dem, project_class=None), "mamakating.upstream-of-wetland")
    assert f.status is Status.UNDETERMINED and "edge" in f.message  # §160-1 sets no distance: past the DEM is unknown


def test_a_flow_trace_that_leaves_the_dem_early_is_undetermined_not_pass():
    dem = plane_dem(0, 0, 600, 5.0, gx=-0.05, gy=0.0)  # water runs east and off the DEM after about 150 ft
    site = {"disturbance": layer("disturbance", [box(400, 280, 440, 320)]), "wetlands": layer("wetlands", [box(50, 200, 150, 400)], ["WL"])}
    (f,) = _findings(run("mamakating", site, dem, project_class=None), "mamakating.upstream-of-wetland")
    assert f.status is Status.UNDETERMINED and "edge" in f.message


def test_soil_triggers_flag_high_transport_and_slow_percolation_646_4_12_b_2_a():
    soils = layer("soils", [box(0, 0, 100, 100), box(100, 0, 200, 100)], ["S-A", "S-B"], [{"high_transport": 1, "perc_min_per_in": 30}, {"high_transport": 0, "perc_min_per_in": 61}])
    site = {"soils": soils, "disturbance": layer("disturbance", [box(50, 10, 150, 60)])}
    result = run("lgpc", site, project_class=None)
    (a,) = _findings(result, "lgpc.minor.may-be-major-soils")
    (b,) = _findings(result, "lgpc.minor.may-be-major-percolation")
    assert a.status is Status.ADVISORY and a.extra["soils"] == ["S-A"]
    assert b.status is Status.ADVISORY and b.extra["soils"] == ["S-B"]


@pytest.mark.parametrize("perc,expected", [(60, Status.PASS), (60.1, Status.ADVISORY)])
def test_percolation_slower_than_60_min_per_inch_boundary(perc, expected):
    site = {"soils": layer("soils", [box(0, 0, 100, 100)], ["S"], [{"perc_min_per_in": perc}]), "disturbance": layer("disturbance", [box(10, 10, 20, 20)])}
    (f,) = _findings(run("lgpc", site, project_class=None), "lgpc.minor.may-be-major-percolation")
    assert f.status is expected


def test_site_touching_a_wetland_gets_a_statement_of_reasons_646_4_12_b_2_b():
    site = {"parcels": layer("parcels", [box(0, 0, 100, 100)], ["SITE"], [{"is_site": 1}]), "wetlands": layer("wetlands", [box(100, 0, 150, 50)], ["WL"]), "streams": layer("streams", [])}
    (f,) = _findings(run("lgpc", site), "lgpc.minor.sensitive-surroundings")
    assert f.status is Status.ADVISORY and "wetland WL" in f.message


def test_lawn_far_from_the_shoreline_with_water_layers_missing_is_undetermined():
    (f,) = _findings(run("lake-george", _lakefront([box(-130, 50, -100, 80)])), "lake-george.fertilizer-50ft")
    assert f.status is Status.UNDETERMINED


def test_a_parcel_stopping_short_of_the_shoreline_inside_the_buffer_has_undetermined_frontage():
    site = _lakefront([box(-40, 50, -10, 80)])
    site["parcels"] = layer("parcels", [box(-300, 0, -3, 200)], ["SITE"], [{"is_site": 1}])
    (f,) = _findings(run("lake-george", site), "lake-george.minor.clear-cut-opening-20pct")
    assert f.status is Status.UNDETERMINED


def _soil_findings(result):
    return [(f.rule_id, f.status, f.message, f.extra.get("soils"), None if f.geometry is None else f.geometry.wkb)
            for f in result.findings if f.kind == "soil_trigger"]


def test_the_soils_under_the_activity_kept_by_content_follow_a_change_of_each_input_646_4_12_b_2_a():
    """The live re-check keeps what lies under the activity by content (#39): each input's change gives a full check's answer.

    The two soil rules of one check read the same soils and activity with another field and test: kept apart.
    """
    pack = load_pack("lgpc")
    soils = layer("soils", [box(0, 0, 100, 100), box(100, 0, 200, 100)], ["S-A", "S-B"],
                  [{"high_transport": 1, "perc_min_per_in": 30}, {"high_transport": 0, "perc_min_per_in": 61}])
    base = {"soils": soils, "disturbance": layer("disturbance", [box(50, 10, 150, 60)])}
    first = Derived()
    kept = run_check(SiteInputs(layers=base, dem=None, unit_to_ft=1.0, class_override=None), pack, derived=first)
    assert len({f[3] and tuple(f[3]) for f in _soil_findings(kept)}) == 2  # S-A by one test, S-B by the other
    variants = {
        "same": base,
        "attributes": {**base, "soils": layer("soils", list(soils.geoms), ["S-A", "S-B"], [{"high_transport": 0, "perc_min_per_in": 30},
                                                                                          {"high_transport": 1, "perc_min_per_in": 61}])},
        "soil geometry": {**base, "soils": layer("soils", [box(0, 0, 40, 100), box(100, 0, 200, 100)], ["S-A", "S-B"], list(soils.attrs))},
        "activity": {**base, "disturbance": layer("disturbance", [box(110, 10, 150, 60)])},
        "activity by a device": {**base, "devices": layer("devices", [Point(20, 80)], ["DW-1"], [{"device_type": "dry_well"}]),
                                 "disturbance": layer("disturbance", [box(110, 10, 150, 60)])},
    }
    for name, site in variants.items():
        live = run_check(SiteInputs(layers=site, dem=None, unit_to_ft=1.0, class_override=None), pack, derived=Derived(first))
        full = run_check(SiteInputs(layers=site, dem=None, unit_to_ft=1.0, class_override=None), pack)
        assert _soil_findings(live) == _soil_findings(full), name
    # the working unit (the edge tolerance in CRS units)
    live = run_check(SiteInputs(layers=base, dem=None, class_override=None, unit_to_ft=0.3048), pack, derived=Derived(first))
    assert _soil_findings(live) == _soil_findings(run_check(SiteInputs(layers=base, dem=None, class_override=None, unit_to_ft=0.3048), pack))
