"""The service layer (issue 17) and the DEM-window policy (issue 14): one answer for reach, steepness, labels and windows."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
import shapely

from stormwater_plugin.core.model import FeatureLayer
from stormwater_plugin.core.rulepack import load_pack
from stormwater_plugin.core.siting.gradient import READ_BEYOND_CELLS
from stormwater_plugin.services.dem_window import SITING_PAD_FT, dem_window, siting_part
from stormwater_plugin.services.presentation import compass, finding_label, short_citation
from stormwater_plugin.services.reach import envelope_reach_ft, pack_reach_ft
from stormwater_plugin.services.slope import slope_rule, steep, steep_cells
from stormwater_plugin.services.working_crs import CrsTraits, NoSiteLocation, choose_working_crs

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "resources" / "demo"


def test_pack_reach_is_one_answer_for_the_batch_halo_and_the_envelope() -> None:
    assert pack_reach_ft(load_pack("lgpc")) == 500.0  # 646-4.13(a)(6) notification radius
    assert envelope_reach_ft(load_pack("lgpc")) == 100.0  # 646-4.14(b)(3)(iv) setbacks
    assert envelope_reach_ft(load_pack("lake-george")) == 100.0
    assert envelope_reach_ft(load_pack("mamakating")) == 0.0


def _flow_pack(params: dict) -> object:
    from types import SimpleNamespace

    return SimpleNamespace(rules=[SimpleNamespace(kind="flow_to_sensitive_area", params=params, id="t.flow")])


def test_flow_trace_reach_is_its_diagonal_path_length_or_unlimited() -> None:
    # a D8 path of 2,000 ft can run diagonally: sqrt(2) * (2,000 ft + 2 cells)
    assert pack_reach_ft(_flow_pack({"max_length_ft": 2000}), cell_ft=3.0) == pytest.approx(math.sqrt(2) * 2006.0)  # type: ignore[arg-type]
    assert pack_reach_ft(_flow_pack({}), cell_ft=3.0) == math.inf  # type: ignore[arg-type]


@pytest.mark.parametrize("jurisdiction", ["lgpc", "lake-george"])
def test_steep_honours_the_building_site_rules_gte_at_15_pct(jurisdiction: str) -> None:
    rule = slope_rule(load_pack(jurisdiction))
    assert rule is not None and rule.params["compare"] == "gte"
    assert steep(np.array([14.9, 15.0, 15.1, np.nan]), rule).tolist() == [False, True, True, False]


def test_steep_cells_gt_device_slope_15_pct_is_strictly_over() -> None:
    assert steep_cells([14.9, 15.0, 15.1], 15.0, "gt").tolist() == [False, False, True]
    with pytest.raises(ValueError):
        steep_cells([15.0], 15.0, "ge")


def test_one_label_for_a_finding_keeps_6_nycrr_and_shortens_town_codes() -> None:
    assert short_citation("6 NYCRR 646-4.14(a)(3)") == "6 NYCRR 646-4.14(a)(3)"
    assert short_citation("Town of Lake George Code §148-11I(2)(c)") == "§148-11I(2)(c)"
    assert finding_label("6 NYCRR 646-4.14(a)(3)", 19.94, 20.0) == "6 NYCRR 646-4.14(a)(3): 19.9 / 20 ft"
    assert finding_label("6 NYCRR 646-4.14(a)(3)", None, 20.0, sep="\n") == "6 NYCRR 646-4.14(a)(3)\n? / 20 ft"
    assert [compass(b) for b in (0, 22.4, 22.5, 270, 337.6)] == ["N", "N", "NE", "W", "N"]


def test_cli_label_is_the_plugins_label_on_one_line() -> None:
    from types import SimpleNamespace

    from stormwater_plugin.headless.writer import short_label

    f = SimpleNamespace(citation=SimpleNamespace(text="6 NYCRR 646-4.14(a)(3)"), measured_ft=19.94, required_ft=20.0)
    assert short_label(f) == "6 NYCRR 646-4.14(a)(3): 19.9 / 20 ft"  # type: ignore[arg-type]
    f = SimpleNamespace(citation=SimpleNamespace(text="Town of Mamakating Code §160-2A"), measured_ft=None, required_ft=None)
    assert short_label(f) == "§160-2A"  # type: ignore[arg-type]


def test_no_location_is_refused_never_a_guessed_utm_zone() -> None:
    with pytest.raises(NoSiteLocation):
        choose_working_crs(None, None)
    with pytest.raises(NoSiteLocation):
        choose_working_crs(CrsTraits(projected=True, conformal=False), None)
    assert choose_working_crs(CrsTraits(projected=True, conformal=True), None).uses_dem_crs
    assert choose_working_crs(None, (-73.7, 43.5)).utm_epsg == 32618


def _layers(**roles: list) -> dict[str, FeatureLayer]:
    return {r: FeatureLayer.from_sequences(r, g, [f"{r[:2].upper()}-{k + 1}" for k in range(len(g))], a) for r, (g, a) in roles.items()}


#: The siting part's pad around a site of 1 ft grid cells (feet): lgpc's 100 ft envelope reach, SITING_PAD_FT, and how far past
#: the reach the envelope's reading tiles read (READ_BEYOND_CELLS cells), as ``siting_part`` adds them.
_SITING_PAD_1FT = (100.0 + SITING_PAD_FT) / 1.0 + READ_BEYOND_CELLS * 1.0 * (1 + 1e-9)


def test_window_holds_the_whole_site_parcel_plus_the_100_ft_envelope_reach() -> None:
    from shapely.geometry import Point, box

    parcel = box(0, 0, 300, 200)  # feet (unit_to_ft = 1)
    layers = _layers(parcels=([parcel], [{"is_site": 1}]), devices=([Point(10, 10)], [{"device_type": "dry_well"}]), septic=([Point(40, 10)], [{}]))
    win = dem_window(layers, load_pack("lgpc"), unit_to_ft=1.0)
    assert win.covers((-100.0, -100.0, 400.0, 300.0))
    p = _SITING_PAD_1FT
    assert siting_part(layers, load_pack("lgpc"), 1.0) == (-p, -p, 300.0 + p, 200.0 + p)


def test_the_envelope_window_holds_the_site_parcel_the_engine_finds_from_its_cleaned_layers() -> None:
    """Two spellings of the site flag: the engine's cleaning keeps the first with a value ("no"), so the plan places the site on
    the parcel holding the device; the window reads the flags as the engine does, never the last spelling ("yes") alone."""
    from shapely.geometry import Point, box

    from stormwater_plugin.core.engine import prepare_context
    from stormwater_plugin.core.model import SiteInputs

    pack = load_pack("lgpc")
    layers = _layers(parcels=([box(0, 0, 100, 100), box(100, 0, 200, 100)], [{"IS_SITE": "no", "is_site": "yes"}, {"is_site": "no"}]),
                     devices=([Point(150, 50)], [{"device_type": "dry_well"}]))
    _ctx, _cls, site_idx = prepare_context(SiteInputs(layers=layers, dem=None, unit_to_ft=1.0), pack)
    assert [layers["parcels"].ids[i] for i in site_idx] == ["PA-2"]
    p = _SITING_PAD_1FT
    assert siting_part(layers, pack, 1.0) == (100.0 - p, -p, 200.0 + p, 100.0 + p)


def test_the_envelope_window_holds_a_parcel_the_engine_takes_into_the_site_for_its_clearing_or_impervious_work_alone() -> None:
    """Each lot holding proposed work is part of the site (646-4.13(a)(5)), clearing and new impervious area included: the
    envelope searches it, so its window holds it grown by the envelope's reach as the parcel holding the device."""
    from shapely.geometry import Point, box

    from stormwater_plugin.core.engine import prepare_context
    from stormwater_plugin.core.model import SiteInputs

    pack = load_pack("lgpc")
    for role in ("clearing", "disturbance", "impervious"):
        layers = _layers(parcels=([box(0, 0, 100, 100), box(100, 0, 600, 100)], [{"is_site": 1}, {}]),
                         devices=([Point(50, 50)], [{"device_type": "dry_well"}]), **{role: ([box(450, 20, 550, 80)], [{}])})
        _ctx, _cls, site_idx = prepare_context(SiteInputs(layers=layers, dem=None, unit_to_ft=1.0), pack)
        assert [layers["parcels"].ids[i] for i in site_idx] == ["PA-1", "PA-2"], role
        p = _SITING_PAD_1FT
        assert siting_part(layers, pack, 1.0) == (-p, -p, 600.0 + p, 100.0 + p), role


def test_a_well_far_outside_every_rules_reach_never_moves_the_mamakating_window() -> None:
    from shapely.geometry import Point, box

    base = _layers(parcels=([box(0, 0, 300, 200)], [{"is_site": 1}]), disturbance=([box(50, 50, 150, 150)], [{}]), wetlands=([box(900, 0, 950, 60)], [{}]))
    with_well = dict(base, **_layers(wells=([Point(5000.0, 0.0)], [{}])))  # 650 m is 2,133 ft; this one is 4,700 ft from the disturbance
    pack = _flow_pack({"max_length_ft": 2000, "below_sqft": 43560, "roles": ["wetlands"]})
    a = dem_window(base, pack, unit_to_ft=1.0, cell_ft=3.0)  # type: ignore[arg-type]
    b = dem_window(with_well, pack, unit_to_ft=1.0, cell_ft=3.0)  # type: ignore[arg-type]
    assert a.bounds == b.bounds
    # the flow trace's part reaches sqrt(2) * (2,000 ft + 2 cells) plus the margin around the disturbance
    assert a.bounds is not None and a.bounds[2] == pytest.approx(150.0 + math.sqrt(2) * 2006.0 + 20.0)
    # the Mamakating pack as it stands: the same window with or without the well
    real = load_pack("mamakating")
    assert dem_window(base, real, unit_to_ft=1.0, cell_ft=3.0).bounds == dem_window(with_well, real, unit_to_ft=1.0, cell_ft=3.0).bounds


@pytest.mark.skipif(not (DEMO / "site.gpkg").exists(), reason="the demo site is generated by make demo")
def test_unrelated_well_650_m_away_leaves_the_mamakating_flow_trace_finding_unchanged(tmp_path: Path) -> None:
    import geopandas as gpd

    from stormwater_plugin.core.engine import run_check
    from stormwater_plugin.headless.reader import read_site

    pack = load_pack("mamakating")
    alone = read_site(DEMO / "site.gpkg", [], DEMO / "dem.tif", None, None, None, pack=pack)
    parcels = alone.inputs.layers["parcels"]
    x0, y0, x1, y1 = shapely.total_bounds(np.array([g for g in parcels.geoms if g is not None], dtype=object))
    well = tmp_path / "far_well.gpkg"
    gpd.GeoDataFrame({"id": ["FAR-1"]}, geometry=[shapely.Point(x1 + 650.0, (y0 + y1) / 2)], crs=alone.crs).to_file(well, layer="wells", driver="GPKG")
    plus = read_site(DEMO / "site.gpkg", [f"wells={well}"], DEMO / "dem.tif", None, None, None, pack=pack)
    assert plus.inputs.dem is not None and alone.inputs.dem is not None
    assert plus.inputs.dem.geotransform == alone.inputs.dem.geotransform and plus.inputs.dem.values.shape == alone.inputs.dem.values.shape

    def flow(inputs):
        return [(f.status, f.message) for f in run_check(inputs, pack).findings if f.rule_id == "mamakating.upstream-of-wetland"]

    assert flow(plus.inputs) == flow(alone.inputs) != []
