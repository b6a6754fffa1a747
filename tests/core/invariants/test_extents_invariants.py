"""Invariants of plausible extents (issue 33, item 5), on all three packs and both classes.

- A dry well drawn as a point, as a 1 ft square (a symbol) and as its largest plausible footprint: the point and
  the square give the same class and statuses; against the footprint the point is never a pass where the
  footprint is not, and is undetermined only where the footprint's answer differs.
- A stream drawn as its centreline with ``width_ft`` and as its polygon give the same statuses.
- No false alarm: a plan that complies by more than every plausible extent has no violation among the distance
  rules, a decided class and no class-conditional finding.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from shapely.geometry import LineString, Point, box

from stormwater_plugin.core.model import Status
from tests.sitebuilder import layer, plane_dem, run

PACKS = ("lgpc", "lake-george", "mamakating")
CLASSES = ("minor", "major")
SETTINGS = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
#: The largest plausible dry well: 8 ft from its centre (packs/device_plausibility.json, extents.roles.devices.kinds.dry_well).
DRY_WELL_REACH_FT = 8.0
DISTANCE_KINDS = ("device_setback",)


def _dem():
    # Ground falls toward +x (the stream, the septic field and the lake side): devices west of them are upgradient.
    return plane_dem(-600, -600, 1200, 4.0, gx=-0.05, gy=0.0)


def _statuses(result):
    return {(f.rule_id, f.subject.id if f.subject else "", f.other.id if f.other else ""): f.status
            for f in result.findings if f.kind in DISTANCE_KINDS}


def _site(dev_geom, x_septic: float):
    return {
        "disturbance": layer("disturbance", [box(-300, -40, -200, 40)], ["D1"]),
        "septic": layer("septic", [box(x_septic, -15, x_septic + 30, 15)], ["S1"]),
        "wells": layer("wells", [Point(x_septic + 10, 60)], ["W1"]),
        "devices": layer("devices", [dev_geom], ["DW1"], [{"device_type": "dry_well", "high_traffic": 0, "vehicle_traffic": 0}]),
    }


@SETTINGS
@given(gap=st.floats(min_value=0.5, max_value=140.0), jurisdiction=st.sampled_from(PACKS), cls=st.sampled_from(CLASSES))
def test_a_dry_well_as_a_point_a_1_ft_square_and_its_largest_footprint(gap, jurisdiction, cls):
    x_septic = gap  # the septic field's west edge, gap ft east of the device's centre at the origin
    point = Point(0.0, 0.0)
    square = box(-0.5, -0.5, 0.5, 0.5)
    largest = point.buffer(DRY_WELL_REACH_FT, quad_segs=32)
    r_point = run(jurisdiction, _site(point, x_septic), _dem(), cls)
    r_square = run(jurisdiction, _site(square, x_septic), _dem(), cls)
    r_large = run(jurisdiction, _site(largest, x_septic), _dem(), cls)
    assert r_point.project_class == r_square.project_class == r_large.project_class
    s_point, s_square, s_large = _statuses(r_point), _statuses(r_square), _statuses(r_large)
    assert s_point == s_square
    for key, st_large in s_large.items():
        st_point = s_point.get(key)
        if st_point is None:
            continue
        if st_point is Status.PASS:
            assert st_large is Status.PASS, key
        if st_large is Status.VIOLATION:
            assert st_point in (Status.VIOLATION, Status.UNDETERMINED), key


def _stream_site(stream_geom, stream_attrs, x_dev: float):
    return {
        "disturbance": layer("disturbance", [box(x_dev - 60, -20, x_dev - 20, 20)], ["D1"]),
        "streams": layer("streams", [stream_geom], ["ST1"], [stream_attrs]),
        "devices": layer("devices", [box(x_dev - 10, -5, x_dev, 5)], ["DW1"], [{"device_type": "dry_well", "high_traffic": 0, "vehicle_traffic": 0}]),
    }


@SETTINGS
@given(gap=st.floats(min_value=0.0, max_value=150.0), width=st.floats(min_value=2.0, max_value=60.0),
       jurisdiction=st.sampled_from(PACKS), cls=st.sampled_from(CLASSES))
def test_a_stream_as_a_centreline_with_width_ft_and_as_its_polygon_give_the_same_statuses(gap, width, jurisdiction, cls):
    # The stream runs north-south at x = 0; the device's east edge is gap ft west of its bank.
    line = LineString([(0, -400), (0, 400)])
    polygon = box(-width / 2, -400, width / 2, 400)
    x_dev = -width / 2 - gap
    r_line = run(jurisdiction, _stream_site(line, {"name": "Pine Hollow Brook", "width_ft": width}, x_dev), _dem(), cls)
    r_poly = run(jurisdiction, _stream_site(polygon, {"name": "Pine Hollow Brook"}, x_dev), _dem(), cls)
    assert r_line.project_class == r_poly.project_class
    assert _statuses(r_line) == _statuses(r_poly)


@SETTINGS
@given(jurisdiction=st.sampled_from(PACKS), cls=st.sampled_from((None, "minor", "major")), dx=st.floats(-50, 50), dy=st.floats(-50, 50))
def test_no_false_alarm_a_plan_complying_by_more_than_every_plausible_extent(jurisdiction, cls, dx, dy):
    # A house and its dry well, everything else beyond the widest rule (100 ft) plus the largest extents of both sides
    # (8 ft for the dry well, 50 ft for the septic field, 2 ft for the well, 150 ft for a river).
    far = 100 + 8 + 150 + 5
    dev = Point(dx, dy)
    site = {
        "disturbance": layer("disturbance", [box(-60, -60, 60, 60)], ["D1"]),
        "impervious": layer("impervious", [box(-30, -20, 30, 20)], ["I1"], [{"status": "proposed"}]),
        "devices": layer("devices", [dev], ["DW1"], [{"device_type": "dry_well", "high_traffic": 0, "vehicle_traffic": 0}]),
        "septic": layer("septic", [Point(dx - 100 - 58 - 60, dy)], ["S1"]),
        "wells": layer("wells", [Point(dx, dy - far - 60)], ["W1"]),
        # The river's NYSDEC class is stated (B): the runoff reaches it, so under Mamakating's §160-1 the activity is a land
        # development activity (decided); with no class the flow trace would leave the class open (issue 34), not the extents.
        "streams": layer("streams", [LineString([(dx + far + 60, -600), (dx + far + 60, 600)])], ["ST1"], [{"name": "Schroon River", "class": "B"}]),
        **{role: layer(role, [], [], []) for role in ("shoreline", "waterbodies", "wetlands")},
    }
    result = run(jurisdiction, site, _dem(), cls)
    assert result.class_source in ("computed", "override")
    distance = [f for f in result.findings if f.kind in DISTANCE_KINDS]
    assert not [f for f in distance if f.status in (Status.VIOLATION, Status.UNDETERMINED)], [f.message for f in distance if f.status is not Status.PASS]
    assert not [f for f in result.findings if f.extra.get("binds_if_class")]
