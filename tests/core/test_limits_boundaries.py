"""Every threshold kind at t − 0.1, t, t + 0.1 and t ± one unit of its decision precision (issue 33, item 3).

Values are ground values: each site is laid out in ground feet and drawn in the grid units of a working CRS whose
unit, corrected by the projection's scale factor at Lake George, is ``unit_to_ft`` ground feet (UTM 18N metres,
k = 0.999738; NY East State Plane US survey feet, k = 0.999953). The law's measure decides, whatever the grid.
"""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from shapely import affinity
from shapely.geometry import LineString, Point, box
from shapely.geometry.base import BaseGeometry

from stormwater_plugin.core import limits
from stormwater_plugin.core.geometry import ON_EDGE_FT, covers_on_edge
from stormwater_plugin.core.limits import LimitError, at_least_threshold, compare, decided, number_text, relation
from stormwater_plugin.core.model import Status
from stormwater_plugin.core.units import FT_PER_METRE, METRE_PER_FT, METRE_PER_US_FT
from tests.sitebuilder import findings_for, layer, pairs_for, plane_dem, run

#: Ground feet per grid unit: the unit's feet divided by the scale factor at Bolton Landing.
GRIDS = {
    "utm-metres": FT_PER_METRE / 0.999738,
    "stateplane-usft": (METRE_PER_US_FT / METRE_PER_FT) / 0.999953,
}


def grid(g: BaseGeometry, u: float) -> BaseGeometry:
    """A geometry laid out in ground feet, in grid units of ``u`` ground feet each."""
    return affinity.scale(g, 1.0 / u, 1.0 / u, origin=(0.0, 0.0))


def around(t: float, quantity: str) -> list[tuple[float, str]]:
    """t − 0.1, t, t + 0.1 and t ± one unit of precision, each named by its offset."""
    p = limits.precision(quantity)  # type: ignore[arg-type]
    cases = {-0.1: "t-0.1", 0.0: "t", 0.1: "t+0.1", -p: "t-1unit", p: "t+1unit"}
    return [(t + d, name) for d, name in sorted(cases.items())]


# --- the policy itself --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "words,rel",
    [("up to", "<="), ("not more than", "<="), ("Within", "<="), ("less than", "<"), ("at least", ">="), ("a minimum of", ">="),
     ("more than", ">"), ("  shall   not exceed ", "<="), (">=", ">=")],
)
def test_the_words_of_the_text_name_the_relation(words, rel):
    assert relation(words) == rel


def test_unknown_words_or_quantities_are_refused():
    with pytest.raises(LimitError):
        relation("about")
    with pytest.raises(LimitError):
        decided(1.0, "weight_lb")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "value,quantity,shown",
    [(19.9949, "distance_ft", "19.99"), (19.994999999999997, "distance_ft", "20.00"), (19.995000000000001, "distance_ft", "20.00"), (1000.0004, "area_sqft", "1,000.0"),
     (1000.05, "area_sqft", "1,000.1"), (2999.5, "volume_gal", "3,000"), (14.95, "slope_pct", "15.0"), (15.04, "time_days", "15.0")],
)
def test_a_value_prints_as_it_is_decided(value, quantity, shown):
    assert number_text(value, quantity) == shown
    assert decided(value, quantity) == float(shown.replace(",", ""))


@settings(max_examples=300, deadline=None)
@given(v=st.floats(0, 100, allow_nan=False), t=st.sampled_from([15.0, 20.0, 35.0]), rel=st.sampled_from([">=", ">"]),
       q=st.sampled_from(["slope_pct", "distance_ft"]))
def test_the_array_threshold_decides_as_compare(v, t, rel, q):
    edge = at_least_threshold(t, q, rel)
    assert (v >= edge) == compare(v, t, q, rel)
    # to the last bit: the edge decides as the limit (or over it), the float just under it does not
    assert compare(edge, t, q, rel) and not compare(math.nextafter(edge, -math.inf), t, q, rel)


# --- distances ----------------------------------------------------------------------------------

SEPTIC_20 = [("lgpc", "lgpc.minor.septic-upgradient-20"), ("lake-george", "lake-george.minor.septic-upgradient-20")]


# The dry well is drawn as a point for brevity: the rule's boundary between drawn edges (extents: tests/core/test_extents.py).
@pytest.mark.usefixtures("drawn_edges")
@pytest.mark.parametrize("grid_name", GRIDS)
@pytest.mark.parametrize("jurisdiction,rule_id", SEPTIC_20)
@pytest.mark.parametrize("d_ft,case", around(20.0, "distance_ft") + [(20.004, "t+0.004 prints 20.00"), (19.996, "t-0.004 prints 20.00")])
def test_within_20_ft_upgradient_of_septic_includes_the_limit_646_4_14_a_3_and_148_11I_2_c(grid_name, jurisdiction, rule_id, d_ft, case):
    u = GRIDS[grid_name]
    septic = grid(box(-10, -10, 10, 10), u)
    dev = grid(Point(10.0 + d_ft, 0.0), u)
    dem = plane_dem(-200, -200, 400, 1.0, gx=0.05, gy=0.0)  # rises eastward: the device is upgradient
    site = {"septic": layer("septic", [septic]), "devices": layer("devices", [dev], ["D1"], [{"device_type": "dry_well", "high_traffic": 0}])}
    (f,) = pairs_for(run(jurisdiction, site, dem, unit_to_ft=u), rule_id)
    assert f.measured_ft == pytest.approx(d_ft, abs=1e-6)
    # "shall not be installed up gradient within twenty (20) feet": 20.00 ft is within.
    assert f.status is (Status.VIOLATION if decided(d_ft, "distance_ft") <= 20.0 else Status.PASS), case
    assert number_text(d_ft, "distance_ft") in f.message or abs(d_ft - 20.0) >= 0.1


# The dry well is drawn as a point for brevity: the rule's boundary between drawn edges (extents: tests/core/test_extents.py).
@pytest.mark.usefixtures("drawn_edges")
@pytest.mark.parametrize("grid_name", GRIDS)
@pytest.mark.parametrize("d_ft,case", around(35.0, "distance_ft") + [(34.996, "t-0.004 prints 35.00")])
def test_a_minimum_of_35_ft_from_lake_george_includes_the_limit_148_11I_3_c(grid_name, d_ft, case):
    u = GRIDS[grid_name]
    site = {
        "shoreline": layer("shoreline", [grid(LineString([(0, -500), (0, 500)]), u)], ["MHW"], [{"waterbody": "Lake George"}]),
        "devices": layer("devices", [grid(Point(-d_ft, 0), u)], ["D1"], [{"device_type": "dry_well", "high_traffic": 0}]),
    }
    (f,) = pairs_for(run("lake-george", site, None, "major", unit_to_ft=u), "lake-george.major.lake-george-35")
    assert f.status is (Status.VIOLATION if decided(d_ft, "distance_ft") < 35.0 else Status.PASS), case
    assert number_text(d_ft, "distance_ft") in f.message or d_ft > 35.09 or d_ft < 34.91


@pytest.mark.parametrize("grid_name", GRIDS)
@pytest.mark.parametrize("gap,case", around(35.0, "distance_ft"))
def test_no_vegetation_removed_within_35_ft_includes_the_limit_148_11I_2_h_1(grid_name, gap, case):
    u = GRIDS[grid_name]
    site = {
        "shoreline": layer("shoreline", [grid(LineString([(0, -500), (0, 500)]), u)], ["MHW"], [{"waterbody": "Lake George"}]),
        "clearing": layer("clearing", [grid(box(-gap - 40, -20, -gap, 20), u)], ["C1"], [{"status": "proposed"}]),
    }
    (f,) = [f for f in findings_for(run("lake-george", site, None, "minor", unit_to_ft=u), "lake-george.minor.no-cut-buffer-35") if f.subject is not None]
    assert f.status is (Status.VIOLATION if gap <= 35.0 + 1e-9 else Status.PASS), case


@pytest.mark.parametrize("grid_name", GRIDS)
@pytest.mark.parametrize("opening,case", around(40.0, "distance_ft"))
def test_clear_cut_opening_shall_not_exceed_20_pct_of_200_ft_frontage_148_11I_2_h_2(grid_name, opening, case):
    u = GRIDS[grid_name]
    site = {
        "parcels": layer("parcels", [grid(box(-300, 0, 0, 200), u)], ["SITE"], [{"is_site": 1}]),
        "shoreline": layer("shoreline", [grid(LineString([(0, -500), (0, 700)]), u)], ["MHW"], [{"waterbody": "Lake George"}]),
        "clearing": layer("clearing", [grid(box(-20, 50, 0, 50 + opening), u)], ["C1"], [{"status": "proposed"}]),
    }
    (f,) = findings_for(run("lake-george", site, None, "minor", unit_to_ft=u), "lake-george.minor.clear-cut-opening-20pct")
    assert f.status is (Status.VIOLATION if opening > 40.0 + 1e-9 else Status.PASS), case


@pytest.mark.parametrize("grid_name", GRIDS)
@pytest.mark.parametrize("gap,case", around(50.0, "distance_ft"))
def test_no_lawn_fertilizer_within_50_ft_includes_the_limit_148_11C_6(grid_name, gap, case):
    u = GRIDS[grid_name]
    site = {
        "waterbodies": layer("waterbodies", [grid(box(0, -100, 100, 100), u)], ["W1"], [{"name": "Pond"}]),
        "clearing": layer("clearing", [grid(box(-gap - 30, -10, -gap, 10), u)], ["L1"], [{"use": "lawn", "status": "proposed"}]),
        **{r: layer(r, []) for r in ("shoreline", "streams", "wetlands")},
    }
    (f,) = findings_for(run("lake-george", site, None, "minor", unit_to_ft=u), "lake-george.fertilizer-50ft")
    assert f.status is (Status.ADVISORY if gap <= 50.0 + 1e-9 else Status.PASS), case


# --- areas --------------------------------------------------------------------------------------


def _strip(sqft: float, u: float, x0: float = 0.0) -> BaseGeometry:
    """A 100 ft deep rectangle of ``sqft`` ground square feet, in grid units."""
    return grid(box(x0, 0, x0 + sqft / 100.0, 100), u)


@pytest.mark.parametrize("grid_name", GRIDS)
@pytest.mark.parametrize("imp,case", around(1000.0, "area_sqft") + [(1000.04, "t+0.04 prints 1,000.0")])
def test_new_impervious_not_more_than_1000_sq_ft_keeps_the_exemption_148_11D_2(grid_name, imp, case):
    u = GRIDS[grid_name]
    site = {
        "disturbance": layer("disturbance", [_strip(3000.0, u)]),
        "impervious": layer("impervious", [_strip(imp, u)], ["I1"], [{"status": "proposed"}]),
    }
    res = run("lake-george", site, None, None, unit_to_ft=u)
    assert res.project_class == ("exempt" if decided(imp, "area_sqft") <= 1000.0 else "minor"), case
    assert decided(res.classification.new_impervious_sqft, "area_sqft") == decided(imp, "area_sqft")


def test_1000_0_sq_ft_of_new_impervious_is_exempt_and_says_so_148_11D_2():
    site = {"disturbance": layer("disturbance", [_strip(3000.0, 1.0)]), "impervious": layer("impervious", [_strip(1000.0004, 1.0)], ["I1"], [{"status": "proposed"}])}
    res = run("lake-george", site, None, None)
    assert res.project_class == "exempt"
    (r,) = [r for r in res.classification.reasons if r.rule_id.endswith(".exempt")]
    assert "1,000.0 sq ft of new impervious surface (not more than 1,000)" in r.message


@pytest.mark.parametrize("grid_name", GRIDS)
@pytest.mark.parametrize("jurisdiction", ["lgpc", "lake-george"])
@pytest.mark.parametrize("area,case", around(15000.0, "area_sqft"))
def test_less_than_15000_sq_ft_is_minor_646_4_12_a_1_and_148_11E_1_a(grid_name, jurisdiction, area, case):
    u = GRIDS[grid_name]
    site = {"disturbance": layer("disturbance", [_strip(area, u)]), "impervious": layer("impervious", [_strip(2000.0, u)], ["I1"], [{"status": "proposed"}])}
    res = run(jurisdiction, site, None, None, unit_to_ft=u)
    assert res.project_class == ("minor" if area < 15000.0 - 1e-9 else "major"), case


@pytest.mark.parametrize("grid_name", GRIDS)
@pytest.mark.parametrize("area,case", around(5000.0, "area_sqft"))
def test_less_than_5000_sq_ft_disturbed_is_exempt_148_11D_2(grid_name, area, case):
    u = GRIDS[grid_name]
    site = {"disturbance": layer("disturbance", [_strip(area, u)]), "impervious": layer("impervious", [_strip(500.0, u, 10_000)], ["I1"], [{"status": "existing"}])}
    res = run("lake-george", site, None, None, unit_to_ft=u)
    assert res.project_class == ("exempt" if area < 5000.0 - 1e-9 else "minor"), case


@pytest.mark.parametrize("grid_name", GRIDS)
@pytest.mark.parametrize("area,case", around(43560.0, "area_sqft"))
def test_one_acre_or_more_is_a_land_development_activity_160_1(grid_name, area, case):
    u = GRIDS[grid_name]
    res = run("mamakating", {"disturbance": layer("disturbance", [_strip(area, u)])}, None, None, unit_to_ft=u)
    # The area decides the class the text computes; with no DEM an exempt area's flow trace is open (§160-1 condition A),
    # so the class may still be assumed major: the threshold is read from the computed class.
    assert res.classification.computed_class == ("exempt" if area < 43560.0 - 1e-9 else "major"), case


@pytest.mark.parametrize("grid_name", GRIDS)
@pytest.mark.parametrize("area,case", around(5000.0, "area_sqft"))
def test_a_disturbance_greater_than_5000_sq_ft_needs_a_permit_148_11C_3(grid_name, area, case):
    u = GRIDS[grid_name]
    res = run("lake-george", {"disturbance": layer("disturbance", [_strip(area, u)])}, None, "minor", unit_to_ft=u)
    (f,) = findings_for(res, "lake-george.permit-over-5000-sqft")
    assert f.status is (Status.ADVISORY if area > 5000.0 + 1e-9 else Status.PASS), case


@pytest.mark.parametrize("grid_name", GRIDS)
@pytest.mark.parametrize("pavers,case", around(400.0, "area_sqft") + [(400.04, "t+0.04 prints 400.0")])
def test_up_to_400_sq_ft_of_porous_pavers_within_35_ft_148_11I_3_c(grid_name, pavers, case):
    u = GRIDS[grid_name]
    pad = box(-30 - pavers / 20.0, -10, -30, 10)  # 20 ft deep, 30 ft from the lake
    site = {
        "shoreline": layer("shoreline", [grid(LineString([(0, -500), (0, 500)]), u)], ["MHW"], [{"waterbody": "Lake George"}]),
        "devices": layer("devices", [grid(pad, u)], ["PP1"], [{"device_type": "porous_pavement", "high_traffic": 0}]),
    }
    (f,) = pairs_for(run("lake-george", site, None, "major", unit_to_ft=u), "lake-george.major.lake-george-35")
    allowed = decided(pavers, "area_sqft") <= 400.0
    assert f.status is (Status.PASS if allowed else Status.VIOLATION), case
    assert f.extra["allowance_total_sqft"] == decided(pavers, "area_sqft")
    assert number_text(pavers, "area_sqft") in f.message


# --- volumes ------------------------------------------------------------------------------------


@pytest.mark.parametrize("grid_name", GRIDS)
@pytest.mark.parametrize("gal,case", around(3000.0, "volume_gal"))
def test_at_least_1_5_gal_per_sq_ft_of_net_new_impervious_646_4_14_a_1_and_148_11I_2_a(grid_name, gal, case):
    u = GRIDS[grid_name]
    site = {
        "impervious": layer("impervious", [_strip(2000.0, u)], ["I1"], [{"status": "proposed"}]),
        "devices": layer("devices", [grid(Point(5000, 5000), u)], ["D1"], [{"device_type": "dry_well", "high_traffic": 0, "storage_gal": gal}]),
    }
    (f,) = findings_for(run("lake-george", site, None, "minor", unit_to_ft=u), "lake-george.minor.storage-1-5-gal")
    assert f.extra["required_gal"] == 3000.0
    assert f.status is (Status.PASS if decided(gal, "volume_gal") >= 3000.0 else Status.VIOLATION), case


def test_3000_gal_for_1_5_gal_x_2000_sq_ft_is_not_0_gal_short_646_4_14_a_1():
    site = {
        "impervious": layer("impervious", [_strip(2000.0004, 1.0)], ["I1"], [{"status": "proposed"}]),
        "devices": layer("devices", [Point(5000, 5000)], ["D1"], [{"device_type": "dry_well", "high_traffic": 0, "storage_gal": 3000}]),
    }
    (f,) = findings_for(run("lgpc", site, None, "minor"), "lgpc.minor.storage-1-5-gal")
    assert f.status is Status.PASS
    assert "3,000 gal provided" in f.message and "3,000 gal required" in f.message and "short" not in f.message


# --- depths and times (attributes: the same in every grid) --------------------------------------


@pytest.mark.parametrize("sep,case", around(2.0, "depth_ft") + [(1.996, "t-0.004 prints 2.00")])
def test_bottom_a_minimum_of_2_ft_above_seasonal_high_groundwater_646_4_14_a_5_and_148_11I_2_e(sep, case):
    attrs = {"device_type": "dry_well", "high_traffic": 0, "bottom_elev_ft": 100.0 + sep, "shgw_elev_ft": 100.0, "bedrock_elev_ft": 50.0}
    res = run("lake-george", {"devices": layer("devices", [Point(0, 0)], ["D1"], [attrs])}, None, "minor")
    (f,) = [f for f in findings_for(res, "lake-george.minor.separation-2ft") if f.extra.get("limit") == "shgw_elev_ft"]
    assert f.status is (Status.PASS if decided(sep, "depth_ft") >= 2.0 else Status.VIOLATION), case
    assert f"{number_text(sep, 'depth_ft')} ft above" in f.message


@pytest.mark.parametrize("days,case", around(15.0, "time_days") + [(15.04, "t+0.04 prints 15.0")])
def test_a_dry_well_drains_within_15_days_646_4_14_b_5_ii_and_148_11I_3(days, case):
    attrs = {"device_type": "dry_well", "high_traffic": 0, "drain_days": days}
    res = run("lake-george", {"devices": layer("devices", [Point(0, 0)], ["D1"], [attrs])}, None, "major")
    (f,) = findings_for(res, "lake-george.major.drain-time")
    assert f.status is (Status.PASS if decided(days, "time_days") <= 15.0 else Status.VIOLATION), case


# --- slopes -------------------------------------------------------------------------------------


@pytest.mark.parametrize("grid_name", GRIDS)
@pytest.mark.parametrize("pct,case", around(15.0, "slope_pct") + [(14.96, "t-0.04 prints 15.0")])
def test_building_site_slope_15_pct_or_greater_over_100_ft_646_4_12_b_2_and_148_11E_2_a_2(grid_name, pct, case):
    u = GRIDS[grid_name]
    # z rises pct/100 ft per ground foot eastward: the steepest slope over 100 ft is pct %.
    dem = plane_dem(-400 / u, -400 / u, 800 / u, 2.0 / u, gx=pct / 100.0 * u, gy=0.0)
    site = {"building_sites": layer("building_sites", [grid(Point(0, 0), u)], ["B1"], [{"use": "single_family"}])}
    (f,) = findings_for(run("lgpc", site, dem, "minor", unit_to_ft=u), "lgpc.minor.may-be-major-slope-15")
    assert f.status is (Status.ADVISORY if decided(pct, "slope_pct") >= 15.0 else Status.PASS), case


# --- a point on an edge is on it ----------------------------------------------------------------


def test_a_point_1e_7_m_outside_the_disturbance_edge_is_on_it_and_0_01_ft_is_not():
    u = FT_PER_METRE
    area = box(0, 0, 30, 30)
    assert covers_on_edge(area, Point(30 + 1e-7, 10), u)
    assert covers_on_edge(area, LineString([(10, 10), (30 + 1e-7, 12)]), u)
    assert not covers_on_edge(area, Point(30 + 2 * ON_EDGE_FT / u, 10), u)
    assert not covers_on_edge(area, LineString([(10, 10), (30.01, 12)]), u)
    assert not covers_on_edge(area, Point(30 + 0.01 / u, 10), u)


def _class_and_statuses(poly: BaseGeometry, pt: BaseGeometry, u: float, jurisdiction: str = "lake-george", klass: str | None = None) -> tuple[str, tuple]:
    site = {
        "disturbance": layer("disturbance", [poly]),
        "impervious": layer("impervious", [poly], ["I1"], [{"status": "proposed"}]),
        "devices": layer("devices", [pt], ["D1"], [{"device_type": "dry_well", "high_traffic": 0, "storage_gal": 1e6, "drain_days": 1,
                                                      "bottom_elev_ft": 100, "shgw_elev_ft": 90, "bedrock_elev_ft": 80}]),
    }
    res = run(jurisdiction, site, None, klass, unit_to_ft=u)
    return res.project_class, tuple(sorted((f.rule_id, f.status.value) for f in res.findings))


@settings(max_examples=30, deadline=None, derandomize=True)
@given(
    w=st.floats(100, 300), h=st.floats(12, 16), edge=st.integers(0, 3), t=st.floats(0.01, 0.99),
    src=st.sampled_from(["EPSG:2260", "EPSG:2262"]), via=st.sampled_from(["EPSG:4326", "EPSG:32618", "EPSG:2260", "EPSG:2262"]),
    jurisdiction=st.sampled_from(["lgpc", "lake-george", "mamakating"]), klass=st.sampled_from([None, "major"]),
)
def test_a_point_snapped_on_the_disturbance_edge_stays_on_it_through_any_reprojection(w, h, edge, t, src, via, jurisdiction, klass):
    pyproj = pytest.importorskip("pyproj")
    from shapely.ops import transform

    # A plan near Bolton Landing drawn in NY State Plane (US survey feet), a device snapped onto an edge; its area
    # (1,200 to 4,800 sq ft, new impervious over 1,000) keeps every area threshold far away in every grid.
    x0, y0 = pyproj.Transformer.from_crs("EPSG:4326", src, always_xy=True).transform(-73.69, 43.55)
    corners = [(x0, y0), (x0 + w, y0), (x0 + w, y0 + h), (x0, y0 + h)]
    (ax, ay), (bx, by) = corners[edge], corners[(edge + 1) % 4]
    poly = box(x0, y0, x0 + w, y0 + h)
    pt = Point(ax + t * (bx - ax), ay + t * (by - ay))
    ref = _class_and_statuses(poly, pt, METRE_PER_US_FT / METRE_PER_FT, jurisdiction, klass)
    for path in ([src, via, "EPSG:32618"], [src, via, src], [src, via, "EPSG:2260"]):
        p, q = poly, pt
        for a, b in zip(path, path[1:]):
            if a == b:
                continue
            tr = pyproj.Transformer.from_crs(a, b, always_xy=True)
            p, q = transform(tr.transform, p), transform(tr.transform, q)
        unit = FT_PER_METRE if path[-1] == "EPSG:32618" else METRE_PER_US_FT / METRE_PER_FT
        assert covers_on_edge(p, q, unit), path
        assert _class_and_statuses(p, q, unit, jurisdiction, klass) == ref, path
    assert math.isfinite(x0)


@pytest.mark.parametrize("grid_name", GRIDS)
@pytest.mark.parametrize("pct,case", around(15.0, "slope_pct") + [(15.04, "t+0.04 prints 15.0")])
def test_device_on_a_slope_greater_than_15_pct_646_4_14_a_7_and_148_11I_2_g(grid_name, pct, case):
    u = GRIDS[grid_name]
    dem = plane_dem(-200 / u, -200 / u, 400 / u, 2.0 / u, gx=pct / 100.0 * u, gy=0.0)
    site = {"devices": layer("devices", [grid(box(-5, -5, 5, 5), u)], ["D1"], [{"device_type": "dry_well", "high_traffic": 0}])}
    (f,) = findings_for(run("lake-george", site, dem, "minor", unit_to_ft=u), "lake-george.minor.device-slope-15")
    # "a slope greater than 15%": 15.0% (15.04% measured) is not greater; 15.1% is.
    assert f.status is (Status.ADVISORY if decided(pct, "slope_pct") > 15.0 else Status.PASS), case


@pytest.mark.parametrize("jurisdiction", ["lgpc", "lake-george"])
@pytest.mark.parametrize("depth,case", around(5.0, "depth_ft") + [(4.996, "t-0.004 prints 5.00")])
def test_bottom_below_a_declared_5_ft_frost_depth_646_4_14_b_3_v_and_148_11I_3_c(jurisdiction, depth, case):
    from stormwater_plugin.core.checks.device_design import override_prevailing_frost_depth
    from stormwater_plugin.core.engine import run_check
    from stormwater_plugin.core.model import SiteInputs
    from stormwater_plugin.core.rulepack import load_pack

    dem = plane_dem(-50, -50, 100, 1.0, gx=0.0, gy=0.0, z0=400.0)
    devices = layer("devices", [Point(0.5, 0.5)], ["D1"], [{"bottom_elev_ft": 400.0 - depth, "device_type": "dry_well"}])
    pack = override_prevailing_frost_depth(load_pack(jurisdiction), 5.0)
    res = run_check(SiteInputs(layers={"devices": devices}, dem=dem, unit_to_ft=1.0, class_override="major"), pack)
    (f,) = findings_for(res, f"{jurisdiction}.major.frost-depth")
    assert f.status is (Status.PASS if decided(depth, "depth_ft") >= 5.0 else Status.VIOLATION), case
    assert f"{number_text(depth, 'depth_ft')} ft below grade" in f.message


def test_a_pack_whose_words_the_policy_does_not_know_fails_validation():
    import json

    from stormwater_plugin.core.rulepack import PACK_DIR, validate_pack_dict

    data = json.loads((PACK_DIR / "lake-george.json").read_text(encoding="utf-8"))
    rule = next(r for r in data["rules"] if r["id"] == "lake-george.major.lake-george-35")
    rule["params"]["allowance"]["words"] = "roughly"
    assert any("allowance.words" in e for e in validate_pack_dict(data))


@pytest.mark.parametrize("off_m", [-1e-7, 0.0, 1e-7])
def test_a_device_on_the_edge_of_a_high_transport_soil_is_on_it_646_4_12_b_2_a_i(off_m):
    u = FT_PER_METRE
    site = {
        "soils": layer("soils", [box(0, 0, 30, 30), box(-100, -100, -60, -60)], ["S1", "S2"], [{"high_transport": 1}, {"high_transport": 0}]),
        "devices": layer("devices", [Point(30 + off_m, 10)], ["D1"], [{"device_type": "dry_well", "high_traffic": 0}]),
    }
    (f,) = findings_for(run("lgpc", site, None, "minor", unit_to_ft=u), "lgpc.minor.may-be-major-soils")
    ref = findings_for(run("lgpc", dict(site, devices=layer("devices", [Point(20, 10)], ["D1"], [{"device_type": "dry_well", "high_traffic": 0}])), None, "minor", unit_to_ft=u),
                       "lgpc.minor.may-be-major-soils")[0]
    assert f.status is ref.status and "S1" in f.message


@pytest.mark.parametrize("off_m", [-1e-7, 0.0, 1e-7])
def test_a_building_site_point_on_a_lot_line_belongs_to_both_lots_646_4_12_a_2(off_m):
    from stormwater_plugin.core.checks.classification import _sites_by_lot

    lots = [box(0, 0, 50, 50), box(50, 0, 100, 50)]
    sites = layer("building_sites", [Point(50 + off_m, 25)], ["B1"], [{"use": "single_family"}])
    assert _sites_by_lot(sites, lots, FT_PER_METRE) == [[("B1", "single_family")], [("B1", "single_family")]]


# --- decided, kept by value and quantity (issue 39) ----------------------------------------------------------------------


def test_a_kept_decision_follows_its_value_and_its_quantity():
    """Each input of the kept decision changes its result: the value (t - 0.001, t, t + 0.005 at 0.01 ft) and the quantity
    (the same value at 0.01 ft, 0.1 sq ft and 1 gal)."""
    assert decided(19.994, "distance_ft") == 19.99
    assert decided(19.995, "distance_ft") == 20.0
    assert decided(19.994, "distance_ft") == 19.99  # found kept, as it was decided
    assert decided(19.994, "area_sqft") == 20.0
    assert decided(19.994, "volume_gal") == 20.0
    assert decided(19.994, "distance_ft") == 19.99


_decidable = st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.floats(-1e6, 1e6), st.integers(-10**6, 10**6), st.booleans(),
                       st.sampled_from([0.0, -0.0, 19.995, 19.994999999999997, 14.94999995, 0.005, -0.005]))


@settings(max_examples=500, deadline=None)
@given(values=st.lists(_decidable, min_size=1, max_size=6), quantity=st.sampled_from(list(limits.DECIMALS)), as_numpy=st.booleans())
def test_a_kept_decision_is_the_decision_made_afresh(values: list[float], quantity: str, as_numpy: bool):
    """Decided through the kept decisions, a value (again, after equal keys of other types: 1, 1.0, True; -0.0, 0.0; a numpy
    float; a 0-d array, which cannot be a key) is decided as it is decided afresh, bit for bit."""
    import numpy as np

    def outcome(decide: Any, y: Any) -> str:
        try:
            got = decide(y, quantity)
        except Exception as e:  # a value too large for the decimal context: refused the same way either way
            return type(e).__name__
        assert type(got) is float
        return repr(got)

    for v in values + values[::-1] + [0.0, -0.0, 1, 1.0, True]:
        x = np.float64(v) if as_numpy and not isinstance(v, bool) else v
        for y in (x, np.asarray(float(v))):
            assert outcome(decided, y) == outcome(limits._decided, y), y
