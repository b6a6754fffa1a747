"""Adding a feature far outside every rule's reach never changes an existing finding (issue 14).

The features added are surroundings (wells, septic systems, wetlands, streams, water bodies) 5,000 ft away.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from shapely.geometry import LineString, Point, box

from stormwater_plugin.core.overrides import finding_keys
from tests.sitebuilder import device, layer, plane_dem, run, septic_square

#: Far beyond the widest distance of the packs (500 ft notification) and the DEM (the plane covers ±1,000 ft).
FAR_FT = 5_000.0

FAR_FEATURES = {
    "wells": lambda x, y: Point(x, y),
    "septic": lambda x, y: box(x, y, x + 20, y + 20),
    "wetlands": lambda x, y: box(x, y, x + 50, y + 30),
    "streams": lambda x, y: LineString([(x, y), (x + 80, y + 40)]),
    "waterbodies": lambda x, y: box(x, y, x + 200, y + 100),
}
# Plan features (clearing, disturbance, impervious, devices) are never "unrelated": the project's area counts them
# wherever they are, so they are not added here.


def _site(dx: float, dy: float, wx: float, wy: float):
    g, a = device(dx, dy, vehicle_traffic=0)
    return {
        "parcels": layer("parcels", [box(-300, -300, 300, 300)], ["P1"], [{"is_site": 1}]),
        "septic": layer("septic", [septic_square()], ["S1"]),
        "devices": layer("devices", [g], ["D1"], [a]),
        "wells": layer("wells", [Point(wx, wy)], ["W1"]),
        "wetlands": layer("wetlands", [box(150, 150, 200, 190)], ["WL1"]),
        "streams": layer("streams", [LineString([(-250, 120), (250, 140)])], ["ST1"]),
        "clearing": layer("clearing", [box(-40, -40, 40, 40)], ["C1"]),
        "waterbodies": layer("waterbodies", [box(-280, 200, -200, 280)], ["WB1"], [{"name": "Mud Pond"}]),
    }


def _findings(result):
    return {k: (f.status, f.measured_ft, f.required_ft, f.message) for k, f in zip(finding_keys(result.findings), result.findings)}


@pytest.mark.parametrize("jurisdiction", ["lgpc", "lake-george"])
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    dx=st.floats(-120, 120), dy=st.floats(-120, 120), wx=st.floats(-250, 250), wy=st.floats(-250, 250),
    role=st.sampled_from(sorted(FAR_FEATURES)), angle=st.sampled_from([(1, 0), (0, 1), (-1, 0), (0, -1), (1, 1)]),
)
def test_a_feature_far_outside_every_reach_never_changes_an_existing_finding(jurisdiction, dx, dy, wx, wy, role, angle):
    dem = plane_dem(-1000, -1000, 2000, 8.0, gx=0.03, gy=-0.01)
    layers = _site(dx, dy, wx, wy)
    before = _findings(run(jurisdiction, layers, dem))
    x, y = angle[0] * FAR_FT, angle[1] * FAR_FT
    old = layers[role]
    layers[role] = layer(role, list(old.geoms) + [FAR_FEATURES[role](x, y)], list(old.ids) + ["FAR"], list(old.attrs) + [{}])
    after = _findings(run(jurisdiction, layers, dem))
    changed = {k: (before[k], after.get(k)) for k in before if after.get(k) != before[k]}
    assert not changed
    # the far feature may add findings about itself, never about the others
    assert all("FAR" in k for k in set(after) - set(before))
