"""The nearest water feature of a rule is one choice, whatever the feature order or the splitting of a feature.

Setbacks measure each device against the nearest feature of every target role, the no-cut buffer each removal
against the nearest shoreline, the fertilizer and cover rules each area against the nearest water: all through
:func:`~stormwater_plugin.core.geometry.nearest_feature`. Equally near features (within the distance tolerance)
are told apart by the rule's role order, then by id, then by the part's own shape: never by the search tree's
order. The sites put two wells 150 ft from a dry well, one of them off the DEM (its gradient unknown: the gradient
setbacks of major projects are undetermined for it, passes for the other), and two shorelines 40 ft from a
clearing, in every order and with the second shoreline split in two parts at the point nearest the clearing.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from shapely.geometry import LineString, Point, box

from stormwater_plugin.core.model import Status
from tests.sitebuilder import layer, plane_dem, run

SETTINGS = settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
KINDS = ("device_setback", "shoreline_no_cut_buffer", "fertilizer_zone", "clearing_near_water")
DRY_WELL = {"device_type": "dry_well", "high_traffic": 0, "vehicle_traffic": 0}
#: Each well 150 ft from the dry well's edge; W1 lies north of the DEM, W2 on it.
WELLS = [("W1", Point(0.0, 156.0)), ("W2", Point(0.0, -156.0))]


def _shorelines(split: bool) -> list[tuple[str, LineString]]:
    west = [("MHW-A", LineString([(-46.0, -400.0), (-46.0, 400.0)]))]
    east = ([("MHW-B", LineString([(46.0, -400.0), (46.0, 0.0)])), ("MHW-B", LineString([(46.0, 0.0), (46.0, 400.0)]))] if split
            else [("MHW-B", LineString([(46.0, -400.0), (46.0, 400.0)]))])
    return west + east


def _site(well_order: list[int], shore_order: list[int], split: bool) -> dict:
    wells = [WELLS[i] for i in well_order]
    shores = _shorelines(split)
    shores = [shores[i] for i in shore_order if i < len(shores)]
    return {
        "devices": layer("devices", [box(-6, -6, 6, 6)], ["DW1"], [DRY_WELL]),
        "clearing": layer("clearing", [box(-6, -6, 6, 6)], ["C1"], [{"use": "lawn"}]),
        "wells": layer("wells", [g for _, g in wells], [i for i, _ in wells]),
        "shoreline": layer("shoreline", [g for _, g in shores], [i for i, _ in shores], [{"waterbody": "Lake George"} for _ in shores]),
    }


def _statuses(result) -> dict[tuple[str, str, str], Status]:
    return {(f.rule_id, f.subject.id if f.subject else "", f.other.id if f.other else ""): f.status
            for f in result.findings if f.kind in KINDS}


def _dem():
    # y from -300 to 100 ft: W1 (y = 156) is off it, its gradient unknown; ground falls toward +x.
    return plane_dem(-200.0, -300.0, 400.0, 4.0, gx=-0.05, gy=0.0)


@pytest.mark.parametrize("jurisdiction", ["lgpc", "lake-george"])
@pytest.mark.parametrize("cls", ["minor", "major"])
def test_feature_order_and_splitting_do_not_change_the_nearest_feature_or_its_status(jurisdiction, cls):
    base = _statuses(run(jurisdiction, _site([0, 1], [0, 1, 2], False), _dem(), cls))

    @SETTINGS
    @given(well_order=st.permutations([0, 1]), shore_order=st.permutations([0, 1, 2]), split=st.booleans())
    def same(well_order, shore_order, split):
        assert _statuses(run(jurisdiction, _site(well_order, shore_order, split), _dem(), cls)) == base

    same()


def test_equally_near_wells_cite_the_first_by_id_on_major_projects_646_4_14_b_3_iv():
    """W1 (off the DEM) and W2 are both 150 ft from the dry well: W1 is cited in either order, and its unknown gradient is said."""
    for order in ([0, 1], [1, 0]):
        result = run("lgpc", _site(order, [0, 1, 2], False), _dem(), "major")
        cited = {f.other.id for f in result.findings if f.rule_id == "lgpc.major.downgradient-water-100" and f.other and f.other.layer == "wells"}
        assert cited == {"W1"}
