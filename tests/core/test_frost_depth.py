"""646-4.14(b)(3)(v) and §148-11I(3)(c): below "the prevailing frost depth or four feet (whichever is greater)".

Four feet is the floor, not the prevailing frost depth: without a sourced
figure a bottom 4 ft or deeper is undetermined; with one (the user's
``--frost-depth-ft``), the greater of the two decides.
"""

from __future__ import annotations

import pytest
from shapely.geometry import Point

from stormwater_plugin.core.checks.device_design import override_prevailing_frost_depth, prevailing_frost_depth
from stormwater_plugin.core.engine import run_check
from stormwater_plugin.core.model import SiteInputs, Status
from stormwater_plugin.core.raster import ElevationGrid
from stormwater_plugin.core.rulepack import load_pack
from tests.sitebuilder import layer, plane_dem

GROUND = 400.0


def _run(jur, bottom, frost=None, dem=None, pack=None):
    dem = dem if dem is not None else plane_dem(-50, -50, 100, 1.0, gx=0.0, gy=0.0, z0=GROUND)
    pack = pack or load_pack(jur)
    if frost is not None:
        pack = override_prevailing_frost_depth(pack, frost)
    devices = layer("devices", [Point(0.5, 0.5)], ["D1"], [{"bottom_elev_ft": bottom, "device_type": "dry_well"}])
    result = run_check(SiteInputs(layers={"devices": devices}, dem=dem, unit_to_ft=1.0, class_override="major"), pack)
    (f,) = [f for f in result.findings if f.rule_id == f"{jur}.major.frost-depth"]
    return f


@pytest.mark.parametrize("jur", ["lgpc", "lake-george"])
@pytest.mark.parametrize("depth,expected", [(3.9, Status.VIOLATION), (4.0, Status.UNDETERMINED), (4.1, Status.UNDETERMINED), (12.0, Status.UNDETERMINED)])
def test_without_a_prevailing_frost_depth_4_ft_or_deeper_is_undetermined_646_4_14_b_3_v(jur, depth, expected):
    f = _run(jur, GROUND - depth)
    assert f.status is expected
    assert f.measured_ft == pytest.approx(depth)
    if expected is Status.UNDETERMINED:
        assert "prevailing frost depth is not known" in f.message and "--frost-depth-ft" in f.message


@pytest.mark.parametrize("jur", ["lgpc", "lake-george"])
@pytest.mark.parametrize("depth,expected", [(4.9, Status.VIOLATION), (5.0, Status.PASS), (5.1, Status.PASS)])
def test_a_declared_5_ft_frost_depth_is_the_greater_and_decides_646_4_14_b_3_v(jur, depth, expected):
    f = _run(jur, GROUND - depth, frost=5.0)
    assert f.status is expected
    assert f.required_ft == 5.0
    assert "--frost-depth-ft" in f.message


@pytest.mark.parametrize("depth,expected", [(3.9, Status.VIOLATION), (4.0, Status.PASS), (4.1, Status.PASS)])
def test_a_declared_3_ft_frost_depth_leaves_four_feet_the_greater_646_4_14_b_3_v(depth, expected):
    f = _run("lgpc", GROUND - depth, frost=3.0)
    assert f.status is expected and f.required_ft == 4.0


@pytest.mark.parametrize("depth,expected", [(4.4, Status.VIOLATION), (4.5, Status.UNDETERMINED), (5.9, Status.UNDETERMINED), (6.0, Status.PASS)])
def test_a_frost_depth_range_leaves_bottoms_within_it_undetermined_646_4_14_b_3_v(depth, expected):
    pack = load_pack("lgpc")
    rule = pack.rule("lgpc.major.frost-depth")
    from dataclasses import replace

    ranged = replace(pack, rules=tuple(replace(r, params={**r.params, "prevailing_frost_depth_ft": [4.5, 6.0], "prevailing_frost_depth_source": "test"}) if r is rule else r
                                       for r in pack.rules))
    assert prevailing_frost_depth(ranged.rule("lgpc.major.frost-depth").params) == (4.5, 6.0)
    assert _run("lgpc", GROUND - depth, pack=ranged).status is expected


def test_an_undeclared_elevation_unit_that_changes_the_outcome_is_undetermined():
    base = plane_dem(-50, -50, 100, 1.0, gx=0.0, gy=0.0, z0=GROUND)
    m = 1 / 0.3048
    dem = ElevationGrid(base.values / m, base.geotransform, z_to_ft=m, z_unit_declared=False, z_unit_note="assumed metres")
    f = _run("lgpc", GROUND - 6.0, frost=5.0, dem=dem)  # 6 ft deep if the DEM is in metres; above ground if it is in feet
    assert f.status is Status.UNDETERMINED and "elevation unit" in f.message


def test_the_packs_hold_no_unsourced_frost_figure_and_say_why():
    for jur in ("lgpc", "lake-george"):
        params = load_pack(jur).rule(f"{jur}.major.frost-depth").params
        assert params["min_depth_ft"] == 4 and params["prevailing_frost_depth_ft"] is None
        assert "sourced" in params["prevailing_frost_depth_source"]
        assert "frost_depth_ft" not in params


@pytest.mark.parametrize("bad", [0.0, -1.0, float("nan")])
def test_a_frost_depth_override_must_be_a_positive_number_of_feet(bad):
    with pytest.raises(ValueError):
        override_prevailing_frost_depth(load_pack("lgpc"), bad)


@pytest.mark.parametrize("depth,expected", [(5.4, Status.UNDETERMINED), (5.5, Status.PASS), (5.6, Status.PASS)])
def test_a_bottom_within_the_dems_stated_vertical_accuracy_of_the_frost_depth_is_undetermined_646_4_14_b_3_v(depth, expected):
    """Frost depth 5 ft, DEM good to ±0.5 ft: 5.4 ft below the DEM's ground cannot be told from 5 ft; at 5.5 ft the worst case is exactly 5 ft."""
    pack = override_prevailing_frost_depth(load_pack("lgpc"), 5.0)
    dem = plane_dem(-50, -50, 100, 1.0, gx=0.0, gy=0.0, z0=GROUND)
    devices = layer("devices", [Point(0.5, 0.5)], ["D1"], [{"bottom_elev_ft": GROUND - depth, "device_type": "dry_well"}])
    result = run_check(SiteInputs(layers={"devices": devices}, dem=dem, unit_to_ft=1.0, class_override="major", dem_vertical_accuracy_ft=0.5), pack)
    (f,) = [f for f in result.findings if f.rule_id == "lgpc.major.frost-depth"]
    assert f.status is expected
    assert f.extra["margin_ft"] == pytest.approx(depth - 5.0)
    assert f.extra["near_limit"] is (expected is Status.UNDETERMINED)
