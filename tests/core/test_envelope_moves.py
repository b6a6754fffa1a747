"""Moves (issue 7): the nearest compliant position of a device that violates a setback."""

from __future__ import annotations

import pytest
from shapely.geometry import Point, box

from stormwater_plugin.core.engine import run_check
from stormwater_plugin.core.model import SiteInputs, Status
from stormwater_plugin.core.rulepack import load_pack
from stormwater_plugin.core.siting import build_envelope
from stormwater_plugin.core.siting.moves import bearing_deg
from stormwater_plugin.services.moves import suggest_moves
from tests.sitebuilder import layer, plane_dem, septic_square

PARCEL = box(-120.0, -120.0, 120.0, 120.0)


def _site(dev_geom, attrs=None, parcel=PARCEL):
    a = {"device_type": "dry_well", "high_traffic": 0}
    a.update(attrs or {})
    return {
        "parcels": layer("parcels", [parcel], ["P1"], [{"is_site": 1}]),
        "septic": layer("septic", [septic_square()], ["S1"]),
        "devices": layer("devices", [dev_geom], ["D1"], [a]),
    }


def _run(layers, dem, cls="minor", j="lgpc"):
    inputs = SiteInputs(layers=layers, dem=dem, unit_to_ft=1.0, class_override=cls)
    pack = load_pack(j)
    return inputs, pack, run_check(inputs, pack)


def _setback_status(result, dev_id="D1"):
    return {f.status for f in result.findings if f.kind == "device_setback" and f.subject is not None and f.subject.id == dev_id}


@pytest.mark.parametrize("j", ["lgpc", "lake-george"])
def test_point_device_14_ft_upgradient_of_septic_moves_6_ft_plus_its_8_ft_reach(j):
    dem = plane_dem(-300, -300, 600, 2.0, gx=0.05, gy=0.0)
    inputs, pack, result = _run(_site(Point(10 + 14, 0)), dem, j=j)
    assert Status.VIOLATION in _setback_status(result)
    (m,) = suggest_moves(inputs, pack, result)
    assert m["possible"] and m["verified"]
    # issue 33: a dry well drawn as a point may reach 8 ft beyond it (pack data), so its centre goes 20 + 8 ft from the field
    assert m["distance_ft"] == pytest.approx(14.0, abs=0.1)
    assert m["bearing_deg"] == pytest.approx(90.0, abs=1.0)  # straight east, away from the septic field
    assert m["rules"] == [f"{j}.minor.septic-upgradient-20"]
    moved = _site(Point(*m["to"]))
    _, _, again = _run(moved, dem, j=j)
    assert _setback_status(again) == {Status.PASS}


def test_polygon_device_is_translated_and_passes():
    dem = plane_dem(-300, -300, 600, 2.0, gx=0.05, gy=0.0)
    square = box(10 + 12, -2, 10 + 16, 2)  # 12 ft upgradient
    # a dry well drawn as a 4 x 4 ft polygon (16 sq ft: a basin that small would be a symbol, read as a point, issue 33)
    inputs, pack, result = _run(_site(square, {"device_type": "dry_well"}), dem)
    (m,) = suggest_moves(inputs, pack, result)
    assert m["possible"] and "centroid" in m["method"]
    assert m["distance_ft"] == pytest.approx(8.0, abs=0.2)
    dx, dy = m["to"][0] - m["from"][0], m["to"][1] - m["from"][1]
    from shapely.affinity import translate

    _, _, again = _run(_site(translate(square, dx, dy), {"device_type": "dry_well"}), dem)
    assert _setback_status(again) == {Status.PASS}


def test_no_compliant_position_says_so():
    # A small parcel wholly within 100 ft of the septic field (major: 100 ft septic recharge, any gradient).
    dem = plane_dem(-300, -300, 600, 2.0, gx=0.05, gy=0.0)
    inputs, pack, result = _run(_site(Point(30, 0), parcel=box(-60, -60, 60, 60)), dem, cls="major")
    (m,) = suggest_moves(inputs, pack, result)
    assert m["possible"] is False and m["reason"]


def test_compliant_devices_get_no_move():
    dem = plane_dem(-300, -300, 600, 2.0, gx=0.05, gy=0.0)
    inputs, pack, result = _run(_site(Point(-40, 0)), dem)
    assert suggest_moves(inputs, pack, result) == []


def test_suggested_point_lies_in_the_envelope():
    dem = plane_dem(-300, -300, 600, 2.0, gx=0.03, gy=0.04)
    inputs, pack, result = _run(_site(Point(12, 15)), dem)
    (m,) = suggest_moves(inputs, pack, result)
    env = build_envelope(inputs, pack, device_type="dry_well", high_traffic=False, project_class="minor")
    assert env.envelope.contains(Point(*m["to"]))


@pytest.mark.parametrize("dx,dy,b", [(0, 1, 0), (1, 0, 90), (0, -1, 180), (-1, 0, 270), (1, 1, 45)])
def test_bearing_is_clockwise_from_grid_north(dx, dy, b):
    assert bearing_deg(dx, dy) == pytest.approx(b)


def test_a_driveway_device_moves_clear_of_the_vehicle_area_setback_646_4_14_a_3():
    """vehicle_traffic without high_traffic: the move's envelope takes both traffic classes' zones, so the move clears 100 ft of the well."""
    dem = plane_dem(-300, -300, 600, 2.0, gx=0.0, gy=0.0)
    layers = _site(Point(60, 60), {"vehicle_traffic": 1, "high_traffic": 0})
    layers["wells"] = layer("wells", [Point(60, 0)], ["W1"])
    inputs, pack, result = _run(layers, dem)
    viol = [f for f in result.findings if f.rule_id == "lgpc.minor.vehicle-area-100" and f.status is Status.VIOLATION]
    assert viol and viol[0].measured_ft == pytest.approx(60.0)
    (m,) = suggest_moves(inputs, pack, result)
    assert m["possible"] and m["verified"]
    assert Point(*m["to"]).distance(Point(60, 0)) >= 100.0 - 1e-6
    assert m["high_traffic"] is None  # both traffic classes' zones
