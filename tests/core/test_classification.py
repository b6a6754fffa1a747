"""Project class from the disturbed area: strict 'less than' thresholds, cited reasons."""

from __future__ import annotations

import pytest
from shapely.geometry import box

from tests.sitebuilder import layer, run


def _area_site(disturbed_sqft: float, new_impervious_sqft: float | None = None):
    site = {"disturbance": layer("disturbance", [box(0, 0, disturbed_sqft / 100.0, 100)])}
    if new_impervious_sqft is not None:
        # the new surface lies inside the disturbed area (its own area would add to the union otherwise)
        site["impervious"] = layer("impervious", [box(0, 0, new_impervious_sqft / 100.0, 100)], ["I1"], [{"status": "proposed"}])
    return site


@pytest.mark.parametrize("jurisdiction", ["lgpc", "lake-george"])
@pytest.mark.parametrize("area,expected", [(14_999, "minor"), (15_000, "major"), (15_001, "major")])
def test_15000_sq_ft_boundary_646_4_12_a_1_and_148_11E(jurisdiction, area, expected):
    result = run(jurisdiction, _area_site(area, 2_000), project_class=None)
    assert result.project_class == expected
    assert result.class_source == "computed"
    assert result.classification.disturbed_sqft == pytest.approx(area)


@pytest.mark.parametrize("area,imp,expected", [(4_999, 1_000, "exempt"), (5_000, 1_000, "minor"), (4_999, 1_001, "minor")])
def test_lake_george_exemption_under_5000_sq_ft_and_1000_sq_ft_impervious_148_11D_2(area, imp, expected):
    result = run("lake-george", _area_site(area, imp), project_class=None)
    assert result.project_class == expected


def test_exemption_not_applied_when_impervious_area_is_unknown():
    result = run("lake-george", _area_site(3_000), project_class=None)
    assert result.project_class == "minor"
    assert any(r.status.value == "undetermined" for r in result.classification_reasons)


@pytest.mark.parametrize("area,expected", [(43_559, "exempt"), (43_560, "major")])
def test_mamakating_one_acre_land_development_activity_160_1(area, expected):
    result = run("mamakating", _area_site(area, 0), project_class=None)
    assert result.classification.computed_class == expected
    # Under one acre with no DEM, whether the activity is upstream of a sensitive area (§160-1) is unknown: the class
    # is open, never "exempt (computed)" beside an undetermined upstream finding (issue 34 item 8).
    assert result.project_class == "major"
    assert result.class_source == ("assumed" if expected == "exempt" else "computed")


def test_no_area_data_assumes_major_and_says_so():
    result = run("lgpc", {}, project_class=None)
    assert result.project_class == "major" and result.class_source == "assumed"
    assert any(w.code == "class_assumed" for w in result.warnings)


def test_override_wins_but_computed_class_is_kept():
    result = run("lgpc", _area_site(20_000, 0), project_class="minor")
    assert result.project_class == "minor" and result.class_source == "override"
    assert result.classification.computed_class == "major"


def test_every_reason_is_cited():
    result = run("lake-george", _area_site(12_000, 2_000), project_class=None)
    assert result.classification_reasons
    for r in result.classification_reasons:
        assert r.citation.text.startswith("Town of Lake George Code §148-11")
        assert r.citation.excerpt


def _subdivision(lot_sqft: list[float], road_sqft: float, houses_per_lot: int = 1, use: str | None = "single_family"):
    """Lots of 200 x 200 ft side by side; each lot's disturbance a strip of lot_sqft; a road below them; houses of ``use``."""
    lots, dist, dist_attrs, sites = [], [], [], []
    for k, a in enumerate(lot_sqft):
        x0 = k * 200.0
        lots.append(box(x0, 0, x0 + 200, 200))
        dist.append(box(x0 + 10, 10, x0 + 10 + a / 100.0, 110))
        dist_attrs.append({"use": "construction"})
        for h in range(houses_per_lot):  # each house inside its lot's disturbance strip
            sites.append(box(x0 + 20 + 40 * h, 20, x0 + 50 + 40 * h, 50))
    dist.append(box(0, -60, road_sqft / 40.0, -20))
    dist_attrs.append({"use": "road"})
    return {
        "parcels": layer("parcels", lots, [f"L{k + 1}" for k in range(len(lots))], [{"is_site": 1, "proposed_lot": 1} for _ in lots]),
        "disturbance": layer("disturbance", dist, None, dist_attrs),
        "building_sites": layer("building_sites", sites, None, [{"use": use} if use is not None else {} for _ in sites]),
    }


@pytest.mark.parametrize("jurisdiction", ["lgpc", "lake-george"])
@pytest.mark.parametrize("per_lot,road,expected", [(14_999, 14_999, "minor"), (15_000, 5_000, "major"), (10_000, 15_000, "major")])
def test_two_to_four_lot_subdivision_is_minor_under_15000_sq_ft_per_lot_and_road_646_4_12_a_2(jurisdiction, per_lot, road, expected):
    result = run(jurisdiction, _subdivision([per_lot, per_lot, 8_000], road), project_class=None)
    assert result.classification.disturbed_sqft >= 15_000
    assert result.project_class == expected
    sub = [r for r in result.classification_reasons if r.rule_id.endswith(".subdivision")]
    assert sub and sub[0].citation.text in ("6 NYCRR 646-4.12(a)(2)", "Town of Lake George Code §148-11E(1)(b)")


def test_five_lots_or_two_houses_on_a_lot_are_not_a_minor_subdivision():
    assert run("lgpc", _subdivision([5_000] * 5, 1_000), project_class=None).project_class == "major"
    assert run("lgpc", _subdivision([9_000, 9_000], 1_000, houses_per_lot=2), project_class=None).project_class == "major"


def test_several_site_parcels_are_not_a_subdivision_unless_marked_as_new_lots():
    site = _subdivision([9_000, 9_000], 1_000)
    for a in site["parcels"].attrs:
        a.pop("proposed_lot")
    assert run("lake-george", site, project_class=None).project_class == "major"


def test_subdivision_without_building_sites_is_not_assumed_minor():
    site = _subdivision([9_000, 9_000], 1_000)
    del site["building_sites"]
    result = run("lgpc", site, project_class=None)
    assert result.project_class == "major"
    assert any(r.status.value == "undetermined" for r in result.classification_reasons if r.rule_id.endswith(".subdivision"))


def test_impervious_without_status_blocks_the_exemption_and_sizing():
    site = {"disturbance": layer("disturbance", [box(0, 0, 30, 100)]), "impervious": layer("impervious", [box(0, 0, 40, 50)], ["I1"], [{"status": "new"}])}
    result = run("lake-george", site, project_class=None)
    assert result.project_class == "minor"
    (f,) = [f for f in result.findings if f.rule_id == "lake-george.minor.storage-1-5-gal"]
    assert f.status.value == "undetermined"
