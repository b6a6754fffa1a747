"""Impossible device attributes never pass the design checks (issue 22, item 5).

A depth typed as an elevation, a shapefile null written as 0, a negative
drain time: the findings that read the value are undetermined, naming the
field and the value. Bounds come from ``packs/device_plausibility.json``.
"""

from __future__ import annotations

import json

import pytest
from shapely.geometry import Point

from stormwater_plugin.core.checks.device_design import PLAUSIBILITY_FILE, implausible, plausibility_limits
from stormwater_plugin.core.engine import run_check
from stormwater_plugin.core.model import SiteInputs, Status
from stormwater_plugin.core.rulepack import load_pack
from tests.sitebuilder import layer, plane_dem

GROUND = 333.0


def _findings(attrs, jur="lake-george", klass="major", dem=True):
    dem_grid = plane_dem(-50, -50, 100, 1.0, gx=0.0, gy=0.0, z0=GROUND) if dem else None
    base = {"device_type": "dry_well", "bottom_elev_ft": 326.0, "shgw_elev_ft": 322.0, "bedrock_elev_ft": 318.0, "drain_days": 1.5}
    devices = layer("devices", [Point(0.5, 0.5)], ["DW-1"], [{**base, **attrs}])
    result = run_check(SiteInputs(layers={"devices": devices}, dem=dem_grid, unit_to_ft=1.0, class_override=klass), load_pack(jur))
    return [f for f in result.findings if f.kind in ("vertical_separation", "frost_depth", "drain_time")]


def _by_kind(findings, kind):
    return [f for f in findings if f.kind == kind]


def test_plausible_demo_like_device_still_decides_separation_and_drain_time_148_11_I_3():
    fs = _findings({})
    assert {f.status for f in _by_kind(fs, "vertical_separation")} == {Status.PASS}
    assert {f.status for f in _by_kind(fs, "drain_time")} == {Status.PASS}


def test_bottom_depth_typed_as_elevation_3_ft_on_333_ft_ground_is_undetermined_not_330_ft_below_grade_148_11_I_3_c():
    fs = _findings({"bottom_elev_ft": 3.0, "shgw_elev_ft": 1.0, "bedrock_elev_ft": 0.5})
    for f in _by_kind(fs, "frost_depth") + _by_kind(fs, "vertical_separation"):
        assert f.status is Status.UNDETERMINED, f.message
        assert "bottom_elev_ft 3 ft" in f.message


def test_shgw_zero_beside_a_lake_at_320_ft_is_undetermined_not_326_ft_above_groundwater_148_11_I_3_c():
    fs = _by_kind(_findings({"shgw_elev_ft": 0.0}), "vertical_separation")
    shgw = [f for f in fs if "groundwater" in f.message]
    assert shgw and all(f.status is Status.UNDETERMINED and "shgw_elev_ft 0 ft" in f.message for f in shgw)
    assert any(f.status is Status.PASS and "bedrock" in f.message for f in fs)


def test_shgw_zero_without_a_dem_is_read_as_a_missing_value_148_11_I_3_c():
    fs = _by_kind(_findings({"shgw_elev_ft": 0.0, "bottom_elev_ft": 3.0}, dem=False), "vertical_separation")
    assert any(f.status is Status.UNDETERMINED and "missing value" in f.message for f in fs)


@pytest.mark.parametrize("days", [0.0, -3.0, 1e9])
def test_drain_days_zero_negative_or_absurd_is_undetermined_148_11_I_3_d_1(days):
    (f,) = _by_kind(_findings({"drain_days": days}), "drain_time")
    assert f.status is Status.UNDETERMINED and f"drain_days {days:g}" in f.message


def test_bottom_elevation_1e9_is_undetermined_even_without_a_dem_148_11_I_2_e():
    fs = _by_kind(_findings({"bottom_elev_ft": 1e9}, jur="lake-george", klass="minor", dem=False), "vertical_separation")
    assert fs and all(f.status is Status.UNDETERMINED and "outside any ground on Earth" in f.message for f in fs)


def test_groundwater_above_grade_is_undetermined_646_4_14_b_3():
    fs = _by_kind(_findings({"shgw_elev_ft": GROUND + 5, "bottom_elev_ft": GROUND + 8}, jur="lgpc"), "vertical_separation")
    assert any(f.status is Status.UNDETERMINED and "above the DEM's ground" in f.message for f in fs)


def test_bounds_are_data_with_a_source_each():
    lim = plausibility_limits()
    doc = json.loads(PLAUSIBILITY_FILE.read_text())
    assert lim == doc
    for key in ("bottom_max_depth_below_grade_ft", "bottom_max_above_grade_ft", "limit_max_above_grade_ft", "limit_max_depth_below_grade_ft"):
        assert isinstance(doc[key], (int, float))
    assert implausible("bottom_elev_ft", 326.0, [333.0]) is None


def test_the_separation_reads_the_ground_once_per_device_for_both_limits_and_fields_by_any_case_148_11_I_3_c(monkeypatch):
    """Both limits (groundwater, bedrock) are judged against the DEM's ground read once at the device (the same findings);
    a field's value is read by its lower-cased name as before (the later of two names alike but for case)."""
    import math

    from stormwater_plugin.core.checks import device_design
    from stormwater_plugin.core.raster import ElevationGrid

    reads: list[tuple[float, float]] = []
    sample_point = ElevationGrid.sample_point
    monkeypatch.setattr(ElevationGrid, "sample_point", lambda self, x, y: (reads.append((x, y)), sample_point(self, x, y))[1])
    fs = _by_kind(_findings({"bottom_elev_ft": 3.0, "shgw_elev_ft": 1.0, "bedrock_elev_ft": 0.5}, klass="minor"), "vertical_separation")
    assert len(fs) == 2 and all(f.status is Status.UNDETERMINED and "bottom_elev_ft 3 ft" in f.message for f in fs)
    assert len(reads) == 1

    def former_num(attrs, name):  # _num as written before: the attributes lower-cased at each call
        v = {str(k).lower(): x for k, x in attrs.items()}.get(name)
        try:
            f = float(v) if v is not None and str(v).strip() != "" else math.nan
        except (TypeError, ValueError):
            return None
        return f if math.isfinite(f) else None

    attrs = {"Bottom_Elev_Ft": "326", "bottom_elev_ft": " ", "SHGW_ELEV_FT": 322, "x": None, "y": "inf", "z": "a"}
    for name in ("bottom_elev_ft", "shgw_elev_ft", "x", "y", "z", "w"):
        assert device_design._num(attrs, name) == former_num(attrs, name)
        assert device_design._number(device_design._lower(attrs).get(name)) == former_num(attrs, name)
    assert device_design._doubtful(attrs, ("shgw_elev_ft",), [333.0]) == device_design._doubtful(attrs, ("shgw_elev_ft",), [333.0], device_design._lower(attrs))
