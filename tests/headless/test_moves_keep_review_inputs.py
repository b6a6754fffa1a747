"""A suggested move is verified under the review's own inputs: its stated accuracy and its run warnings (issue 38 item 3).

The move verifier re-checks the moved device on the inputs the review checked, so a move called verified is one the
review itself would pass: with a stated horizontal accuracy of 1 ft for the devices and the septic system (combined
sqrt(2) = 1.41 ft), a position 0.01 ft inside the envelope is within the accuracy of the 20 ft limit (undetermined): it is
not proposed, and the search keeps the combined accuracy inside the envelope, so the position proposed is one the review passes.
"""

from __future__ import annotations

import dataclasses

import pytest
from shapely.geometry import Point, box

from stormwater_plugin.core.model import Status
from stormwater_plugin.core.rulepack import load_pack
from stormwater_plugin.services.review import SiteInputs
from stormwater_plugin.services.site_source import ReadSite, ReviewOptions, SiteRead, check_site
from tests.sitebuilder import layer, plane_dem, septic_square

ACCURACY = ("devices=1", "septic=1")


def _inputs(dev: Point) -> SiteInputs:
    layers = {
        "parcels": layer("parcels", [box(-120.0, -120.0, 120.0, 120.0)], ["P1"], [{"is_site": 1}]),
        "septic": layer("septic", [septic_square()], ["S1"]),
        "devices": layer("devices", [dev], ["D1"], [{"device_type": "dry_well", "high_traffic": 0}]),
    }
    return SiteInputs(layers=layers, dem=plane_dem(-300, -300, 600, 2.0, gx=0.05, gy=0.0), unit_to_ft=1.0, class_override="minor")


def _review(dev: Point, accuracy: tuple[str, ...] = ACCURACY):
    return check_site(ReadSite(SiteRead(_inputs(dev), "")), load_pack("lgpc"), ReviewOptions(accuracy=accuracy)).review


def _setbacks(review) -> set[Status]:
    return {f.status for f in review.result.findings if f.kind == "device_setback" and f.subject is not None and f.subject.id == "D1"}


def test_a_move_verified_under_a_stated_accuracy_passes_the_review_with_that_accuracy():
    review = _review(Point(24.0, 0.0))  # 14 ft upgradient of the septic field's edge: short of 20 ft
    assert Status.VIOLATION in _setbacks(review)
    (move,) = review.moves or ()
    assert move.possible
    # the nearest position the review itself passes: 14 ft, plus the combined accuracy sqrt(1 + 1) = 1.41 ft
    assert move.distance_ft == pytest.approx(14.0 + 2**0.5, abs=0.1)
    assert _setbacks(_review(Point(*move.end))) == {Status.PASS}


def test_without_a_stated_accuracy_the_nearest_position_is_proposed_and_passes():
    review = _review(Point(24.0, 0.0), ())
    (move,) = review.moves or ()
    assert move.possible and move.distance_ft == pytest.approx(14.0, abs=0.1)
    assert _setbacks(_review(Point(*move.end), ())) == {Status.PASS}


def test_the_verifier_checks_the_moved_device_on_the_reviews_own_inputs():
    """Every field of the review's inputs but the devices and the class reaches the verifier's check (accuracy, warnings, CRS, DEM source)."""
    from stormwater_plugin.core.model import Warning_
    from stormwater_plugin.services import moves

    seen: list[SiteInputs] = []
    real = moves.run_check

    def spy(inputs, pack, progress=None, **kw):
        seen.append(inputs)
        return real(inputs, pack, progress, **kw)

    inputs = dataclasses.replace(_inputs(Point(24.0, 0.0)), accuracy_ft={"devices": 1.0}, dem_vertical_accuracy_ft=0.5, crs_name="local feet",
                                 warnings=[Warning_("reprojected", "a note of the read")])
    pack = load_pack("lgpc")
    moves.run_check = spy
    try:
        verify = moves.verifier(inputs, pack, "minor")
        verify(Point(60.0, 0.0), {"device_type": "dry_well", "high_traffic": 0}, "D1")
    finally:
        moves.run_check = real
    (moved,) = seen
    assert moved.accuracy_ft == {"devices": 1.0} and moved.dem_vertical_accuracy_ft == 0.5
    assert moved.crs_name == "local feet" and [w.code for w in moved.warnings] == ["reprojected"]
    assert moved.class_override == "minor" and moved.layers["devices"].ids == ["D1"]
