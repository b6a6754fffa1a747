"""Elevation units never silently wrong (issue 14), and the building-site slope for every class (issue 13).

A DEM in NY State Plane ftUS whose elevations are metres reads an 18% site as
5.49%. When the elevation unit is not declared, a verdict that differs
between metres and feet is undetermined with the remedy; one that holds in
every unit stands.
"""

from __future__ import annotations

import pytest
from shapely.geometry import LineString, Point, box

from stormwater_plugin.core.model import Status
from stormwater_plugin.core.raster import ElevationGrid
from stormwater_plugin.core.rulepack import load_pack
from stormwater_plugin.core.terrain.plausibility import lake_surfaces, shoreline_elevation_warning
from tests.sitebuilder import device, findings_for, layer, plane_dem, run

US_FT = 1200.0 / 3937.0 / 0.3048  # US survey foot in international feet
M = 1.0 / 0.3048
SITE_RULE = "lgpc.minor.may-be-major-slope-15"
TOWN_SITE_RULE = "lake-george.minor.may-be-major-slope-15"


def _dem(slope_band: float, z_to_ft: float, declared: bool, z0: float = 100.0) -> ElevationGrid:
    """A plane rising ``slope_band`` band units per foot northward, read with ``z_to_ft``."""
    g = plane_dem(-400, -400, 800, 2.0, 0.0, slope_band, z0=z0)
    return ElevationGrid(g.values, g.geotransform, z_to_ft=z_to_ft, z_unit_declared=declared, name="dem_ftus.tif")


def _site(res, rule=SITE_RULE, fid="B-1"):
    return [f for f in findings_for(res, rule) if f.subject is not None and f.subject.id == fid]


def _sites():
    return {"building_sites": layer("building_sites", [Point(0, 0)], ["B-1"])}


def test_metre_dem_read_as_us_feet_undeclared_makes_the_18_pct_site_b_1_undetermined_under_646_4_12_b_2_a_ii():
    # 18% in metres over feet of ground: 0.18 * 0.3048 band units per foot; read as US feet it shows 5.49%.
    res = run("lgpc", _sites(), _dem(0.18 * 0.3048, US_FT, declared=False))
    (f,) = _site(res)
    assert f.status is Status.UNDETERMINED
    assert "--dem-z-units" in f.message and "18.00% if the elevations are in metres" in f.message
    assert f.extra["slope_pct_by_unit"]["US survey feet"] == pytest.approx(0.18 * 0.3048 * US_FT * 100, abs=1e-6)
    assert [(b.id, b.status, b.slope_100ft_pct) for b in res.building_sites] == [("B-1", Status.UNDETERMINED, None)]


@pytest.mark.parametrize("unit, factor, status, slope", [("m", M, Status.ADVISORY, 18.0), ("us-ft", US_FT, Status.PASS, 18.0 * 0.3048 * US_FT)])
def test_the_same_dem_declared_decides_b_1_under_646_4_12_b_2_a_ii(unit, factor, status, slope):
    res = run("lgpc", _sites(), _dem(0.18 * 0.3048, factor, declared=True))
    (f,) = _site(res)
    assert f.status is status
    assert f.extra["slope_pct"] == pytest.approx(0.18 * 0.3048 * factor * 100, abs=1e-6)
    assert res.building_sites[0].slope_100ft_pct == pytest.approx(slope, abs=1e-3)


def test_a_2_pct_slope_passes_in_every_unit_when_the_unit_is_assumed():
    res = run("lgpc", _sites(), _dem(0.02, 1.0, declared=False))
    (f,) = _site(res)
    assert f.status is Status.PASS and "either way" in f.message


@pytest.mark.parametrize("pct, status", [(14.9, Status.UNDETERMINED), (15.0, Status.ADVISORY), (15.1, Status.ADVISORY)])
def test_assumed_feet_at_the_15_pct_boundary_of_646_4_12_b_2_a_ii(pct, status):
    # Read as feet: 14.9% is 48.9% in metres (undetermined); 15.0% and over are 15% or more in every unit.
    res = run("lgpc", _sites(), _dem(pct / 100.0, 1.0, declared=False))
    (f,) = _site(res)
    assert f.status is status


def test_device_dw_1_on_10_pct_assumed_feet_is_undetermined_under_646_4_14_a_7_and_passes_declared():
    g, a = device(0.0, 0.0)
    layers = {"devices": layer("devices", [g], ["DW-1"], [a])}
    und = [f for f in findings_for(run("lgpc", layers, _dem(0.10, 1.0, declared=False)), "lgpc.minor.device-slope-15") if f.subject.id == "DW-1"]
    assert [f.status for f in und] == [Status.UNDETERMINED] and "--dem-z-units" in und[0].message
    ok = [f for f in findings_for(run("lgpc", layers, _dem(0.10, 1.0, declared=True)), "lgpc.minor.device-slope-15") if f.subject.id == "DW-1"]
    assert [f.status for f in ok] == [Status.PASS]


def test_clearing_c_1_on_10_pct_assumed_feet_is_undetermined_under_148_11i_3():
    layers = {"clearing": layer("clearing", [box(-20, -20, 20, 20)], ["C-1"])}
    res = run("lake-george", layers, _dem(0.10, 1.0, declared=False), project_class="major")
    f = [x for x in findings_for(res, "lake-george.major.clearing-slope-15-cover") if x.subject.id == "C-1"]
    assert [x.status for x in f] == [Status.UNDETERMINED]
    res2 = run("lake-george", layers, _dem(0.02, 1.0, declared=False), project_class="major")
    assert [x.status for x in findings_for(res2, "lake-george.major.clearing-slope-15-cover")] == [Status.PASS]


def test_gradient_direction_holds_in_every_unit_so_dw_1_upgradient_of_s_1_still_violates_646_4_14_a_3():
    g, a = device(0.0, 30.0)  # north, uphill of the septic field
    layers = {"devices": layer("devices", [g], ["DW-1"], [a]), "septic": layer("septic", [box(-5, 0, 5, 10.1)], ["S-1"])}
    res = run("lgpc", layers, _dem(0.10, 1.0, declared=False))
    f = [x for x in findings_for(res, "lgpc.minor.septic-upgradient-20") if x.other is not None and x.other.id == "S-1"]
    assert [x.status for x in f] == [Status.VIOLATION]
    assert f[0].measured_ft == pytest.approx(19.9, abs=1e-6)


# --- the building-site slope on every class (issue 13) --------------------------


@pytest.mark.parametrize("jurisdiction, rule", [("lgpc", SITE_RULE), ("lake-george", TOWN_SITE_RULE)])
def test_b_1_on_18_pct_is_measured_on_a_major_project_and_does_not_change_the_class(jurisdiction, rule):
    res = run(jurisdiction, _sites(), _dem(0.18, 1.0, declared=True), project_class="major")
    (f,) = _site(res, rule)
    assert f.status is Status.ADVISORY and "does not change the class" in f.message
    assert res.building_sites[0].id == "B-1" and res.building_sites[0].slope_100ft_pct == pytest.approx(18.0, abs=1e-6)
    assert any(z.kind == "slope_ray" for z in res.zones)


@pytest.mark.parametrize("pct, status", [(14.9, Status.PASS), (15.0, Status.ADVISORY), (15.1, Status.ADVISORY)])
def test_b_1_slope_is_a_cited_class_reason_when_the_class_is_assumed_major(pct, status):
    res = run("lgpc", _sites(), _dem(pct / 100.0, 1.0, declared=True), project_class=None)
    assert res.class_source == "assumed" and res.project_class == "major"
    (f,) = _site(res)
    assert f.status is status
    reasons = [r for r in res.classification_reasons if r.rule_id == SITE_RULE]
    if status is Status.ADVISORY:
        assert len(reasons) == 1 and reasons[0].citation.text == "6 NYCRR 646-4.12(b)(2)(a)(ii)" and "Building site B-1" in reasons[0].message
    else:
        assert reasons == []


def test_b_1_on_a_minor_project_still_may_be_major():
    res = run("lgpc", _sites(), _dem(0.18, 1.0, declared=True), project_class="minor")
    (f,) = _site(res)
    assert f.status is Status.ADVISORY and "may be considered to be a major project" in f.message


# --- the lake's known surface (issue 14) ----------------------------------------


def _shore_dem(z0_band: float, z_to_ft: float, declared: bool) -> ElevationGrid:
    g = plane_dem(-400, -400, 800, 2.0, -0.01, 0.0, z0=z0_band)
    return ElevationGrid(g.values, g.geotransform, z_to_ft=z_to_ft, z_unit_declared=declared, name="dem.tif")


def _shore():
    return {"shoreline": layer("shoreline", [LineString([(100, -300), (100, 300)])], ["MHW"], [{"waterbody": "Lake George"}])}


def test_metres_declared_as_feet_put_the_lake_george_shoreline_mhw_at_97_ft_a_loud_warning():
    lakes = lake_surfaces(load_pack("lgpc").raw)
    w = shoreline_elevation_warning(_shore_dem(98.5, 1.0, True), _shore(), lakes, 1.0)
    assert w is not None and w.code == "dem_z_contradicts_lake" and w.ids == ("MHW",)
    assert "97 ft" in w.message and "Read in metres it would be 320 ft" in w.message
    res = run("lgpc", _shore(), _shore_dem(98.5, 1.0, True))
    assert res.warnings[0].code == "dem_z_contradicts_lake"


@pytest.mark.parametrize("z0, factor", [(98.5, M), (321.0, 1.0)])
def test_a_unit_that_puts_the_lake_george_shoreline_at_320_ft_raises_no_warning(z0, factor):
    lakes = lake_surfaces(load_pack("lake-george").raw)
    assert shoreline_elevation_warning(_shore_dem(z0, factor, True), _shore(), lakes, 1.0) is None


def test_no_lake_warning_where_the_pack_knows_no_lake_or_no_shoreline_names_one():
    assert lake_surfaces(load_pack("mamakating").raw) == []
    lakes = lake_surfaces(load_pack("lgpc").raw)
    other = {"shoreline": layer("shoreline", [LineString([(100, -300), (100, 300)])], ["MHW"], [{"waterbody": "Trout Lake"}])}
    assert shoreline_elevation_warning(_shore_dem(98.5, 1.0, True), other, lakes, 1.0) is None


@pytest.mark.parametrize("field, value", [("name", "Trout Lake"), ("elevation_ft", 97.0), ("tolerance_ft", 400.0), ("source", "another survey")])
def test_the_lake_warning_kept_for_the_next_check_is_made_again_when_a_lake_surface_field_changes(field, value):
    """The live re-check keeps the shoreline warning by its inputs, each lake's every field among them (the source too: it is cited)."""
    import dataclasses

    from stormwater_plugin.core.derived import Derived
    from stormwater_plugin.core.engine import SiteInputs, run_check

    pack = load_pack("lgpc")
    lakes = [dict(d) for d in pack.raw["lake_surfaces"]]
    lakes[0][field] = value
    changed = dataclasses.replace(pack, raw={**pack.raw, "lake_surfaces": lakes})
    inputs = SiteInputs(layers=_shore(), dem=_shore_dem(98.5, 1.0, True), unit_to_ft=1.0, class_override="minor")
    first = Derived()
    run_check(inputs, pack, derived=first)
    kept = run_check(inputs, changed, derived=Derived(first))
    fresh = run_check(inputs, changed)
    assert [(w.code, w.message) for w in kept.warnings] == [(w.code, w.message) for w in fresh.warnings]
    before = run_check(inputs, pack)
    assert [w.message for w in kept.warnings if w.code == "dem_z_contradicts_lake"] != [w.message for w in before.warnings if w.code == "dem_z_contradicts_lake"]
