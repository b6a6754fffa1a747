"""§148-11I(2)(h)[2] "20% of the shoreline frontage on any individual lot": per lot, and at any bearing.

Issue #21 items 2 (frontage and openings per lot, never pooled) and 14 (the lot
line drawn on the shore is frontage at any bearing, within the pack's
``frontage_tolerance_ft``; frontage that cannot be measured is undetermined).
"""

from __future__ import annotations

import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st
from shapely import affinity
from shapely.geometry import LineString, box

from stormwater_plugin.core.model import Status
from tests.sitebuilder import layer, run

RULE = "lake-george.minor.clear-cut-opening-20pct"


def _site(lots: list[tuple[str, float, float]], clearing: list, angle: float = 0.0, dx: float = 0.0, shore_x: float = 0.0):
    """Lots west of the mean high-water line x = ``shore_x``, their east edge on x = 0 (``(id, y0, y1)``), rotated ``angle`` degrees about (0, 0)."""

    def rot(g):
        return affinity.translate(affinity.rotate(g, angle, origin=(0, 0)), dx, 0) if angle or dx else g

    return {
        "parcels": layer("parcels", [rot(box(-300, y0, 0, y1)) for _, y0, y1 in lots], [i for i, _, _ in lots], [{"is_site": 1} for _ in lots]),
        "shoreline": layer("shoreline", [rot(LineString([(shore_x, -500), (shore_x, 900)]))], ["MHW"], [{"waterbody": "Lake George"}]),
        "clearing": layer("clearing", [rot(g) for g in clearing]),
        "disturbance": layer("disturbance", []),
    }


def _findings(site):
    return [f for f in run("lake-george", site).findings if f.rule_id == RULE]


def _by_lot(site):
    return {f.subject.id if f.subject else None: f for f in _findings(site)}


def test_two_lakefront_lots_a_49_ft_opening_wholly_on_one_196_ft_lot_violates_148_11I_2_h_2_per_individual_lot():
    # Pooled, 392 ft of frontage would allow 78.4 ft; lot A alone allows 39.2 ft.
    got = _by_lot(_site([("A", 0, 196), ("B", 196, 392)], [box(-20, 50, 0, 99)]))
    assert got["A"].status is Status.VIOLATION
    assert got["A"].extra["frontage_ft"] == pytest.approx(196.0, abs=0.01)
    assert got["A"].measured_ft == pytest.approx(49.0, abs=0.01)
    assert got["A"].required_ft == pytest.approx(39.2, abs=0.01)
    assert "lot A" in got["A"].message
    assert got["B"].status is Status.PASS and got["B"].measured_ft == 0.0


def test_an_opening_across_the_line_between_two_lots_counts_on_each_lot_its_own_stretch_148_11I_2_h_2():
    # 30 ft on A (15%) and 30 ft on B (15%): each within 20% of its 200 ft frontage.
    got = _by_lot(_site([("A", 0, 200), ("B", 200, 400)], [box(-20, 170, 0, 230)]))
    assert got["A"].status is Status.PASS and got["A"].measured_ft == pytest.approx(30.0, abs=0.01)
    assert got["B"].status is Status.PASS and got["B"].measured_ft == pytest.approx(30.0, abs=0.01)


def test_a_42_ft_opening_across_the_line_is_21_ft_on_each_100_ft_lot_and_violates_both_148_11I_2_h_2():
    got = _by_lot(_site([("A", 0, 100), ("B", 100, 200)], [box(-20, 79, 0, 121)]))
    assert got["A"].status is Status.VIOLATION and got["B"].status is Status.VIOLATION


def test_one_lot_197_ft_frontage_49_ft_opening_violates_as_drawn_148_11I_2_h_2():
    (f,) = _findings(_site([("L1", 0, 197)], [box(-20, 50, 0, 99)]))
    assert f.status is Status.VIOLATION
    assert f.extra["frontage_ft"] == pytest.approx(197.0, abs=0.01)
    assert f.measured_ft == pytest.approx(49.0, abs=0.01)


@pytest.mark.parametrize("angle", [9.0, 37.0, 45.0, 123.4, 271.0])
def test_lot_line_on_the_shore_rotated_still_fronts_197_ft_and_the_49_ft_opening_violates_148_11I_2_h_2(angle):
    site = _site([("L1", 0, 197)], [box(-20, 50, 0, 99)], angle=angle, dx=612_345.678)
    (f,) = _findings(site)
    assert f.status is Status.VIOLATION, f.message
    assert f.extra["frontage_ft"] == pytest.approx(197.0, abs=0.01)
    assert f.measured_ft == pytest.approx(49.0, abs=0.01)


@settings(max_examples=25, deadline=None, print_blob=True)
@given(angle=st.floats(min_value=0.0, max_value=360.0, allow_nan=False), dx=st.floats(min_value=-1e6, max_value=1e6, allow_nan=False))
def test_rigid_motion_never_turns_the_per_lot_opening_violation_into_a_pass_148_11I_2_h_2(angle, dx):
    site = _site([("A", 0, 196), ("B", 196, 392)], [box(-20, 50, 0, 99)], angle=angle, dx=dx)
    got = _by_lot(site)
    assert got["A"].status is Status.VIOLATION, got["A"].message
    assert got["A"].extra["frontage_ft"] == pytest.approx(196.0, abs=0.01)
    assert got["B"].status is Status.PASS
    assert got["B"].extra["frontage_ft"] == pytest.approx(196.0, abs=0.01)


def test_lot_stopping_1_5_ft_short_of_the_shore_has_unmeasured_frontage_and_is_undetermined_never_a_pass():
    # The pack's tolerance is 1 ft: a gap of 1.5 ft is not read as frontage.
    (f,) = _findings(_site([("L1", 0, 197)], [box(-20, 50, -1.5, 99)], shore_x=1.5))
    assert f.status is Status.UNDETERMINED and "cannot be measured" in f.message


def test_lot_stopping_0_5_ft_short_of_the_shore_fronts_it_within_the_1_ft_tolerance():
    (f,) = _findings(_site([("L1", 0, 197)], [box(-20, 50, 0, 99)], shore_x=0.5))
    assert f.status is Status.VIOLATION and f.extra["frontage_ft"] == pytest.approx(197.0, abs=0.01)


def test_lot_reaching_into_the_lake_fronts_the_shore_between_its_crossings():
    (f,) = _findings(_site([("L1", 0, 197)], [box(-20, 50, 0, 99)], shore_x=-40.0))
    assert f.extra["frontage_ft"] == pytest.approx(197.0, abs=0.01)


def test_removal_in_the_buffer_on_a_neighbours_lot_makes_it_a_site_lot_measured_on_its_own_frontage():
    # Issue 21 item 11: a lot holding proposed work is part of the project, so its opening is measured
    # against its own frontage (10 ft of 196 ft), never skipped as "not a site parcel".
    site = _site([("A", 0, 196), ("N", 196, 392)], [box(-20, 250, 0, 260)])
    site["parcels"].attrs[1]["is_site"] = 0
    got = _by_lot(site)
    assert got["N"].measured_ft == pytest.approx(10.0, abs=0.01)
    assert got["N"].extra["frontage_ft"] == pytest.approx(196.0, abs=0.01)


def test_frontage_tolerance_is_a_pack_parameter_of_both_opening_rules():
    from stormwater_plugin.core.rulepack import load_pack

    pack = load_pack("lake-george")
    for r in pack.rules:
        if r.kind == "clear_cut_opening":
            assert float(r.params["frontage_tolerance_ft"]) > 0
    assert shapely.__version__
