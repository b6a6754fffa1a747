"""Degenerate geometry is kept where it lies; a feature with no geometry makes its rules undetermined (issue 14).

A zero-area (collinear) wetland 49 ft from a vehicle-area device must still
violate 646-4.14(b)(3)(iii)'s 100 ft; a null wetland must make the rule
undetermined for that wetland, never "no wetland".
"""

from __future__ import annotations

import pytest
import shapely
from shapely import wkt
from shapely.geometry import LineString, MultiPoint, Point, Polygon, box

from stormwater_plugin.core.geometry import clean_layer, strip_empty_parts
from stormwater_plugin.core.model import Status
from stormwater_plugin.core.roles import ROLES
from tests.sitebuilder import device, findings_for, layer, plane_dem, run

# Devices, wells and streams are drawn as points and lines for brevity, read as their edges: what they plausibly stand for
# is tested in tests/core/test_extents*.py (issue 33).
pytestmark = pytest.mark.usefixtures("drawn_edges")

VEHICLE_100 = "lgpc.minor.vehicle-area-100"


def _vehicle_site(wetland_geoms, wetland_ids):
    g, a = device(0.0, 0.0, high_traffic=1)
    return {"devices": layer("devices", [g], ["DW-1"], [a]), "wetlands": layer("wetlands", wetland_geoms, wetland_ids)}


def _against(result, rule_id, other_id):
    return [f for f in findings_for(result, rule_id) if f.other is not None and f.other.id == other_id]


# "shall not be installed within 100 feet": within includes the limit (core.limits)
@pytest.mark.parametrize("gap_ft, status", [(99.9, Status.VIOLATION), (100.0, Status.VIOLATION), (100.1, Status.PASS)])
def test_collinear_wetland_polygon_at_boundary_is_measured_against_646_4_14_b_3_iii_vehicle_100(gap_ft, status):
    collinear = Polygon([(gap_ft, -20.0), (gap_ft, 0.0), (gap_ft, 20.0), (gap_ft, -20.0)])  # zero area
    res = run("lgpc", _vehicle_site([collinear], ["WL-3"]))
    hits = _against(res, VEHICLE_100, "WL-3")
    assert hits and hits[0].subject.id == "DW-1"
    assert hits[0].measured_ft == pytest.approx(gap_ft, abs=1e-6)
    assert hits[0].status is status


def test_collinear_wetland_49_ft_from_a_vehicle_area_device_violates_646_4_14_b_3_iii_and_is_not_dropped():
    collinear = Polygon([(49.0, -20.0), (49.0, 0.0), (49.0, 20.0), (49.0, -20.0)])
    res = run("lgpc", _vehicle_site([collinear], ["WL-3"]))
    hits = _against(res, VEHICLE_100, "WL-3")
    assert [f.status for f in hits] == [Status.VIOLATION]
    assert hits[0].measured_ft == pytest.approx(49.0, abs=1e-6)
    assert not any(w.code == "geometry_missing" for w in res.warnings)
    collapsed = [w for w in res.warnings if w.code == "geometry_collapsed"]
    assert collapsed and collapsed[0].ids == ("WL-3",)


def test_null_wetland_makes_646_4_14_b_3_iii_undetermined_for_wl_3_never_none():
    res = run("lgpc", _vehicle_site([None], ["WL-3"]))
    und = [f for f in findings_for(res, VEHICLE_100) if f.subject is not None and f.subject.id == "WL-3"]
    assert [f.status for f in und] == [Status.UNDETERMINED]
    assert und[0].subject.layer == "wetlands"
    assert "WL-3 has no geometry" in und[0].message
    assert [w.ids for w in res.warnings if w.code == "geometry_missing"] == [("WL-3",)]


def test_empty_wetland_next_to_a_real_one_still_measures_the_real_one_and_flags_wl_3():
    res = run("lgpc", _vehicle_site([box(120, -10, 140, 10), Polygon()], ["WL-1", "WL-3"]))
    assert [f.status for f in _against(res, VEHICLE_100, "WL-1")] == [Status.PASS]
    und = [f for f in findings_for(res, VEHICLE_100) if f.subject is not None and f.subject.id == "WL-3"]
    assert [f.status for f in und] == [Status.UNDETERMINED]
    assert "WL-3 has an empty geometry" in und[0].message


def test_null_device_makes_every_device_rule_undetermined_for_dw_2():
    g, a = device(0.0, 0.0)
    res = run("lgpc", {"devices": layer("devices", [g, None], ["DW-1", "DW-2"], [a, dict(a)]), "septic": layer("septic", [box(100, -5, 110, 5)], ["S-1"])})
    rules = {f.rule_id for f in res.findings if f.subject is not None and f.subject.id == "DW-2"}
    assert "lgpc.minor.septic-upgradient-20" in rules and "lgpc.minor.storage-1-5-gal" in rules
    assert all(f.status is Status.UNDETERMINED for f in res.findings if f.subject is not None and f.subject.id == "DW-2")


def test_zero_length_septic_line_is_its_point_for_646_4_14_a_3():
    dem = plane_dem(-200, -200, 400, 2.0, -0.1, 0.0)  # ground falls to the east: the device at x=-19.9 is upgradient of x=0
    g, a = device(-19.9, 0.0)
    layers = {"devices": layer("devices", [g], ["DW-1"], [a]), "septic": layer("septic", [LineString([(0, 0), (0, 0)])], ["S-0"])}
    res = run("lgpc", layers, dem)
    hits = _against(res, "lgpc.minor.septic-upgradient-20", "S-0")
    assert [f.status for f in hits] == [Status.VIOLATION]
    assert hits[0].measured_ft == pytest.approx(19.9, abs=1e-6)


def test_multipoint_well_with_an_empty_part_is_measured_from_its_real_point():
    geom = wkt.loads("MULTIPOINT (EMPTY, (0 99.9))")
    g, a = device(0.0, 0.0, high_traffic=1)
    res = run("lgpc", {"devices": layer("devices", [g], ["DW-1"], [a]), "wells": layer("wells", [geom], ["W-7"])})
    hits = _against(res, VEHICLE_100, "W-7")
    assert [f.status for f in hits] == [Status.VIOLATION]
    assert hits[0].measured_ft == pytest.approx(99.9, abs=1e-6)
    assert any(w.code == "geometry_empty_parts" and w.ids == ("W-7",) for w in res.warnings)


def test_strip_empty_parts_keeps_the_real_parts_at_any_depth():
    kept = strip_empty_parts(wkt.loads("GEOMETRYCOLLECTION (POINT EMPTY, LINESTRING (0 0, 1 0))"))
    assert [p.wkt for p in shapely.get_parts(kept)] == ["LINESTRING (0 0, 1 0)"]
    assert strip_empty_parts(wkt.loads("MULTIPOINT (EMPTY, (1 1))")).equals(MultiPoint([(1, 1)]))
    assert strip_empty_parts(wkt.loads("MULTIPOLYGON (EMPTY)")).is_empty


def test_multipolygon_wetland_with_a_collapsed_ring_keeps_the_collapsed_part_where_it_lies():
    # A real wetland far away and a collapsed sliver 49.5 ft from the device: the sliver decides.
    mp = wkt.loads("MULTIPOLYGON (((300 0, 320 0, 320 20, 300 20, 300 0)), ((49.5 -5, 49.5 0, 49.5 5, 49.5 -5)))")
    res = run("lgpc", _vehicle_site([mp], ["WL-9"]))
    hits = _against(res, VEHICLE_100, "WL-9")
    assert [f.status for f in hits] == [Status.VIOLATION]
    assert hits[0].measured_ft == pytest.approx(49.5, abs=1e-6)


def test_wetland_drawn_as_a_closed_line_is_read_as_its_area_so_a_device_inside_is_at_0_ft():
    ring = LineString([(-30, -30), (30, -30), (30, 30), (-30, 30), (-30, -30)])
    res = run("lgpc", _vehicle_site([ring], ["WL-4"]))
    hits = _against(res, VEHICLE_100, "WL-4")
    assert [f.status for f in hits] == [Status.VIOLATION]
    assert hits[0].measured_ft == pytest.approx(0.0, abs=1e-9)


def test_impervious_drawn_as_an_open_line_has_no_area_so_storage_is_undetermined_for_i_2():
    g, a = device(0.0, 0.0, storage_gal=10_000)
    imp = layer("impervious", [box(0, 0, 10, 10), LineString([(0, 50), (100, 50)])], ["I-1", "I-2"], [{"status": "proposed"}, {"status": "proposed"}])
    res = run("lgpc", {"devices": layer("devices", [g], ["DW-1"], [a]), "impervious": imp})
    und = [f for f in findings_for(res, "lgpc.minor.storage-1-5-gal") if f.subject is not None and f.subject.id == "I-2"]
    assert [f.status for f in und] == [Status.UNDETERMINED]
    assert "I-2 is drawn as a line or a point where an area is needed" in und[0].message


def test_null_disturbance_adds_an_undetermined_cited_class_reason_naming_d_2():
    dist = layer("disturbance", [box(0, 0, 50, 50), None], ["D-1", "D-2"])
    res = run("lgpc", {"disturbance": dist}, project_class=None)
    reasons = [r for r in res.classification_reasons if r.rule_id == "lgpc.classification.no-geometry"]
    assert reasons and reasons[0].status is Status.UNDETERMINED and "disturbance D-2" in reasons[0].message


@pytest.mark.parametrize("role", [r for r in ROLES])
@pytest.mark.parametrize("jurisdiction", ["lgpc", "lake-george", "mamakating"])
def test_every_role_with_degenerate_null_and_z_features_runs_and_names_each_feature(role, jurisdiction):
    """Sweep: collapsed ring, zero-length line, Z, empty part, null: no crash, and every id is accounted for."""
    dem = plane_dem(-400, -400, 800, 5.0, 0.05, 0.02)
    geoms = [
        Polygon([(40, 0), (40, 10), (40, 20), (40, 0)]),  # collapsed ring
        LineString([(60, 5), (60, 5)]),  # zero length
        shapely.force_3d(box(70, 0, 90, 20), 12.0),  # Z
        wkt.loads("MULTIPOLYGON (EMPTY, ((100 0, 120 0, 120 20, 100 20, 100 0)))"),  # empty part
        None,
    ]
    ids = ["X-collapsed", "X-zero", "X-z", "X-emptypart", "X-null"]
    attrs = [{"status": "proposed", "is_site": 0, "device_type": "dry_well", "high_traffic": 1, "waterbody": "Lake George"} for _ in ids]
    g, a = device(0.0, 0.0, high_traffic=1)
    layers = {
        "parcels": layer("parcels", [box(-300, -300, 300, 300)], ["P-site"], [{"is_site": 1}]),
        "devices": layer("devices", [g], ["DW-1"], [a]),
        "building_sites": layer("building_sites", [Point(-10, 40)], ["B-1"]),
    }
    layers[role] = layer(role, geoms if role != "parcels" else geoms + [box(-300, -300, 300, 300)], ids if role != "parcels" else ids + ["P-site"],
                         attrs if role != "parcels" else attrs + [{"is_site": 1}])
    res = run(jurisdiction, layers, dem, project_class="major" if jurisdiction != "mamakating" else None)
    named = {f.subject.id for f in res.findings if f.subject is not None} | {f.other.id for f in res.findings if f.other is not None}
    named |= {i for w in res.warnings for i in w.ids}
    assert "X-null" in named
    cleaned = clean_layer(layers[role], [])
    assert "X-null" in cleaned.no_geometry
    assert all(not shapely.has_z(x) for x in cleaned.geoms)
    assert "X-collapsed" in cleaned.ids  # kept where it lies, never dropped


def test_a_building_site_off_the_dem_is_undetermined_under_646_4_12_b_2_a_ii():
    dem = plane_dem(-100, -100, 200, 2.0, 0.05, 0.0)
    res = run("lgpc", {"building_sites": layer("building_sites", [Point(500, 500)], ["B-off"])}, dem)
    f = [x for x in findings_for(res, "lgpc.minor.may-be-major-slope-15") if x.subject and x.subject.id == "B-off"]
    assert [x.status for x in f] == [Status.UNDETERMINED]


def test_a_device_off_the_dem_is_undetermined_under_646_4_14_a_7():
    dem = plane_dem(-100, -100, 200, 2.0, 0.05, 0.0)
    g, a = device(500.0, 500.0)
    res = run("lgpc", {"devices": layer("devices", [g], ["DW-off"], [a])}, dem)
    f = [x for x in findings_for(res, "lgpc.minor.device-slope-15") if x.subject and x.subject.id == "DW-off"]
    assert [x.status for x in f] == [Status.UNDETERMINED]
