"""The stated accuracy decides only where the measured distance ± the accuracy straddles the limit of a rule that applies.

A pass that rests on something other than the distance (a gradient rule that does not apply to the pair, an area
allowance already met) is not made "field-verify" by an accuracy band around a distance that decides nothing.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from shapely import affinity
from shapely.geometry import LineString, box

from stormwater_plugin.core.engine import run_check
from stormwater_plugin.core.model import SiteInputs, Status
from stormwater_plugin.core.rulepack import load_pack
from tests.sitebuilder import device, layer, pairs_for, plane_dem, septic_square

pytestmark = pytest.mark.usefixtures("drawn_edges")

UPGRADIENT_RULE = "lgpc.minor.septic-upgradient-20"
LAKE_RULE = "lake-george.major.lake-george-35"


def _septic_run(distance_ft: float, gx: float, accuracy: dict[str, float]):
    g, a = device(10.0 + distance_ft, 0.0)
    layers = {"septic": layer("septic", [septic_square()], ["S1"]), "devices": layer("devices", [g], ["D1"], [a])}
    inputs = SiteInputs(layers=layers, dem=plane_dem(-200, -200, 400, 2.0, gx=gx, gy=0.0), unit_to_ft=1.0,
                        class_override="minor", accuracy_ft=accuracy)
    (f,) = pairs_for(run_check(inputs, load_pack("lgpc")), UPGRADIENT_RULE)
    return f


@pytest.mark.parametrize("distance", [19.9, 20.0, 20.1, 14.0, 25.0])
def test_upgradient_20_ft_rule_not_applying_to_a_downgradient_device_stays_a_pass_under_any_accuracy_646_4_14_a_3(distance):
    """"Shall not be installed up gradient within twenty (20) feet of a septic system": a device whose ground is lower
    than every part of the septic system near it is not up gradient of it, wherever within the accuracy it lies."""
    without = _septic_run(distance, gx=-0.05, accuracy={})
    with_acc = _septic_run(distance, gx=-0.05, accuracy={"septic": 10.0, "devices": 10.0})
    assert without.status is Status.PASS
    assert with_acc.status is Status.PASS, with_acc.message
    assert "field-verify" not in with_acc.message


@pytest.mark.parametrize("distance,expected", [(22.9, Status.UNDETERMINED), (23.0, Status.UNDETERMINED), (23.1, Status.PASS)])
def test_upgradient_20_ft_rule_applying_keeps_its_accuracy_band_646_4_14_a_3(distance, expected):
    """The same rule on an upgradient device: the band still decides ("within" includes 20.00 ft)."""
    assert _septic_run(distance, gx=0.05, accuracy={"septic": 3.0}).status is expected


def _lake_site(pad_ft: float, second_ft: float | None, second_sqft: float = 200.0, angle: float = 0.0):
    """A 300 sq ft porous-paver pad 30 ft from Lake George's shoreline and, if asked, a second pad ``second_ft`` from it."""
    shore = LineString([(0, -500), (0, 500)])
    pads = [box(-pad_ft - 15.0, -10, -pad_ft, 10)]
    if second_ft is not None:
        pads.append(box(-second_ft - second_sqft / 20.0, 100, -second_ft, 120))
    rot = (lambda g: affinity.rotate(g, angle, origin=(0, 0))) if angle else (lambda g: g)
    return {
        "shoreline": layer("shoreline", [rot(shore)], ["MHW"], [{"waterbody": "Lake George"}]),
        "devices": layer("devices", [rot(p) for p in pads], [f"PP{i + 1}" for i in range(len(pads))],
                         [{"device_type": "porous_pavement", "high_traffic": 0} for _ in pads]),
    }


def _lake_finding(accuracy: dict[str, float], second_ft: float | None = None, angle: float = 0.0, device_id: str = "PP1"):
    inputs = SiteInputs(layers=_lake_site(30.0, second_ft, angle=angle), dem=None, unit_to_ft=1.0, class_override="major",
                        accuracy_ft=accuracy)
    (f,) = [f for f in pairs_for(run_check(inputs, load_pack("lake-george")), LAKE_RULE) if f.subject.id == device_id]
    return f


@pytest.mark.parametrize("accuracy", [0.0, 4.9, 5.0, 5.1, 10.0, 40.0])
def test_up_to_400_sq_ft_of_porous_pavers_within_35_ft_allowed_whatever_the_accuracy_148_11I_3_c(accuracy):
    """"Shall not prohibit the creation of up to 400 square feet of pervious hardscape (i.e., porous pavers) ... within
    35 feet of Lake George": a 300 sq ft pad drawn 30 ft from the lake is allowed wherever within the accuracy it lies."""
    f = _lake_finding({"devices": accuracy, "shoreline": accuracy})
    assert f.status is Status.PASS, f.message
    assert f.extra["decided_by"] == "allowance"


@pytest.mark.parametrize("second_ft,expected", [(37.9, Status.UNDETERMINED), (38.0, Status.PASS), (38.1, Status.PASS)])
def test_a_second_pad_that_may_lie_within_35_ft_counts_toward_the_400_sq_ft_allowance_148_11I_3_c(second_ft, expected):
    """A second 200 sq ft pad drawn just beyond 35 ft, good to ±3 ft: at 38.0 ft it is at worst 35.00 ft away, which meets
    "a minimum of" 35 feet; at 37.9 ft it may be inside, and 300 + 200 sq ft would exceed the 400 sq ft allowance."""
    f = _lake_finding({"devices": 3.0}, second_ft=second_ft)
    assert f.status is expected, f.message
    if expected is Status.UNDETERMINED:
        assert "PP2" in f.message and "field-verify" in f.message


@settings(max_examples=25, deadline=None)
@given(angle=st.floats(0.0, 360.0), second_ft=st.sampled_from([37.9, 38.1]))
def test_the_allowance_under_a_stated_accuracy_does_not_depend_on_the_drawings_rotation(angle, second_ft):
    """Rotating the whole plan about any angle keeps the allowance's status under the accuracy."""
    assert not math.isnan(angle)
    assert _lake_finding({"devices": 3.0}, second_ft, angle).status is _lake_finding({"devices": 3.0}, second_ft).status


ADVISORY_RULE = "lake-george.minor.vehicle-area-advisory-100"


def _paved_near_well(distance_ft: float, accuracy: dict[str, float]):
    """A paved (vehicle-traffic) trench on a minor Lake George project, a well drawn ``distance_ft`` west of it."""
    layers = {
        "wells": layer("wells", [box(-distance_ft - 1.0, -0.5, -distance_ft, 0.5)], ["W1"]),
        "devices": layer("devices", [box(0.0, -5.0, 40.0, 5.0)], ["TR1"],
                         [{"device_type": "infiltration_trench", "high_traffic": 0, "vehicle_traffic": 1}]),
    }
    inputs = SiteInputs(layers=layers, dem=None, unit_to_ft=1.0, class_override="minor", accuracy_ft=accuracy)
    (f,) = pairs_for(run_check(inputs, load_pack("lake-george")), ADVISORY_RULE)
    return f


@pytest.mark.parametrize("distance,expected", [(102.9, Status.ADVISORY), (103.0, Status.ADVISORY), (103.1, Status.PASS)])
def test_a_standard_not_binding_a_minor_project_inside_the_accuracy_is_a_note_not_field_verify_646_4_14_a_3(distance, expected):
    """§148-11I(2) sets no distance for vehicle-area devices on minor projects; the Park-wide "shall not be installed within
    100 feet of any water well" is shown as an advisory. Good to ±3 ft, a well 103.0 ft away may be 100.00 ft away (within):
    the standard that does not bind becomes a note that would be undetermined, never a finding the applicant must answer."""
    f = _paved_near_well(distance, {"wells": 3.0})
    assert f.status is expected, f.message
    if expected is Status.ADVISORY:
        assert f.extra["would_be"] == "undetermined"
        assert f.message.startswith("Advisory:") and "field-verify" in f.message
