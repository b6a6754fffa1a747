"""A lake polygon given as the ``shoreline`` role is read as its outline, once, for every rule (issue #21 item 12)."""

from __future__ import annotations

import pytest
import shapely
from shapely.geometry import Point, box

from stormwater_plugin.core.model import Status
from tests.sitebuilder import device, layer, plane_dem, run

LAKE = box(0, -500, 500, 900)


def _site(shore):
    dw, attrs = device(-50, 120)
    return {
        "parcels": layer("parcels", [box(-300, 0, 0, 196), box(-300, 196, 0, 392)], ["A", "B"], [{"is_site": 1}, {"is_site": 1}]),
        "shoreline": layer("shoreline", [shore], ["LAKE"], [{"waterbody": "Lake George"}]),
        "clearing": layer("clearing", [box(-20, 50, 0, 99), box(-200, 300, -100, 380)], None, [{}, {"use": "lawn"}]),
        "disturbance": layer("disturbance", [box(-250, 200, -150, 300)]),
        "devices": layer("devices", [dw, Point(-30, 300)], ["DW1", "DW2"], [attrs, attrs]),
    }


def _signature(result):
    return sorted((f.rule_id, f.subject.id if f.subject else "", f.other.id if f.other else "", f.status.value) for f in result.findings)


def test_lake_polygon_as_shoreline_gives_the_findings_of_its_outline_and_says_so():
    dem = plane_dem(-600, -600, 1600, 5.0, 0.02, 0.0)
    for cls in ("minor", "major"):
        as_polygon = run("lake-george", _site(LAKE), dem=dem, project_class=cls)
        as_line = run("lake-george", _site(shapely.boundary(LAKE)), dem=dem, project_class=cls)
        assert _signature(as_polygon) == _signature(as_line)
        assert any(w.code == "shoreline_polygon" and w.ids == ("LAKE",) for w in as_polygon.warnings)
        assert not any(w.code == "shoreline_polygon" for w in as_line.warnings)


def test_lake_polygon_as_shoreline_49_ft_opening_on_a_196_ft_lot_violates_148_11I_2_h_2():
    result = run("lake-george", _site(LAKE))
    (a,) = [f for f in result.findings if f.rule_id == "lake-george.minor.clear-cut-opening-20pct" and f.subject and f.subject.id == "A"]
    assert a.status is Status.VIOLATION


def test_lake_polygon_as_shoreline_in_every_pack_runs_without_a_geometry_error():
    for jurisdiction in ("lgpc", "lake-george", "mamakating"):
        result = run(jurisdiction, _site(LAKE), project_class=None)
        assert result.findings


def test_lake_polygon_overlapping_the_lot_as_shoreline_no_geometry_error_and_the_49_ft_opening_violates_148_11I_2_h_2():
    # Before: GEOSException "LinearIterator only supports lineal geometry" (exit 2 on the CLI).
    site = {
        "parcels": layer("parcels", [box(-300, 0, 0, 196)], ["A"], [{"is_site": 1}]),
        "shoreline": layer("shoreline", [box(-10, -500, 500, 900)], ["LAKE"], [{"waterbody": "Lake George"}]),
        "clearing": layer("clearing", [box(-30, 50, -10, 99)]),
    }
    (f,) = [f for f in run("lake-george", site).findings if f.rule_id == "lake-george.minor.clear-cut-opening-20pct"]
    assert f.status is Status.VIOLATION
    assert f.extra["frontage_ft"] == pytest.approx(196.0, abs=0.01)
