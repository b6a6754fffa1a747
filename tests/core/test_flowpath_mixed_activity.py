"""Mamakating §160-1 flow trace when the activity mixes areas and points (found by bench_realdata_bounds.py).

A site with building sites (polygons) and a device (a point) outside them
made the activity a GeometryCollection, whose ``boundary`` is ``None``: the
check crashed (``AttributeError``, exit 2) on the real North Collins site. And a
MultiPoint of devices started one trace only (its ``point_on_surface``): every
device point now starts a trace.
"""

from __future__ import annotations

from shapely.geometry import Point, box

from stormwater_plugin.core.dem_source import InMemoryDemSource
from stormwater_plugin.core.model import Status
from tests.core.test_flow_trace_windows import RULE, _flow, _smooth_westward
from tests.sitebuilder import layer

# The plane falls westward: the wetland strip (x 2200-2500 ft) is downstream of x > 2500 and upstream of x < 2200.
WETLAND = box(2200, 0, 2500, 6400)
BUILDING_DOWNSTREAM = box(1000, 3000, 1060, 3060)
DEVICE_DOWNSTREAM = Point(1200, 3030)
DEVICE_UPSTREAM = Point(3500, 3030)


def test_building_site_and_a_device_point_upstream_of_a_wetland_are_traced_not_a_crash_160_1() -> None:
    dem = _smooth_westward()
    site = {
        "building_sites": layer("building_sites", [BUILDING_DOWNSTREAM], ["B1"]),
        "devices": layer("devices", [DEVICE_UPSTREAM], ["D1"]),
        "wetlands": layer("wetlands", [WETLAND], ["WL"]),
    }
    for source in (None, InMemoryDemSource(dem)):
        f = _flow(dem, site, source)
        assert f.rule_id == RULE
        assert f.status is Status.ADVISORY and f.other.id == "WL"


def test_two_device_points_one_upstream_of_the_wetland_reach_it_160_1() -> None:
    dem = _smooth_westward()
    site = {
        "devices": layer("devices", [DEVICE_DOWNSTREAM, DEVICE_UPSTREAM], ["D1", "D2"]),
        "wetlands": layer("wetlands", [WETLAND], ["WL"]),
    }
    for source in (None, InMemoryDemSource(dem)):
        f = _flow(dem, site, source)
        assert f.status is Status.ADVISORY and f.other.id == "WL"
